//! A crashed program's last words, quoted in a checklist.

/// What a crashed program last wrote to stderr, for a checklist: a line
/// each under a heading, rather than run together on the item's line as a
/// game's line and games.csv have them.
#[derive(Clone, Debug)]
pub struct StderrQuote {
    heading: String,
    lines: Vec<String>,
}

impl StderrQuote {
    /// The quote of `crash`'s stderr, when it wrote any.
    pub fn of(crash: &arena_referee::forfeit::Crash) -> Option<StderrQuote> {
        let lines = match crash.stderr_tail.len() {
            0 => return None,
            1 => "its last line".to_owned(),
            count => format!("its last {count} lines"),
        };
        let before = if crash.stack_trace_left_out { " before a stack trace" } else { "" };
        Some(StderrQuote {
            heading: format!("stderr, {lines}{before}"),
            // Each already made printable, so a line of its own.
            lines: crash.stderr_tail.clone(),
        })
    }

    /// The quote's lines as a checklist shows them under an item: the
    /// heading, then each line of stderr, indented.
    pub fn shown(&self) -> Vec<String> {
        std::iter::once(format!("        {}:", self.heading))
            .chain(self.lines.iter().map(|line| format!("          {line}")))
            .collect()
    }
}
