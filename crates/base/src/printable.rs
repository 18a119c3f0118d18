//! Text that came from a bot (or a user), made safe to show in a terminal,
//! a replay or a spreadsheet: control characters never reach them raw.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` changes how a terminal or a text view shows what follows:
/// C0 and C1 controls, DEL, and the bidirectional overrides and isolates
/// (which can make text read backwards).
fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The first character of `text` that would change how a terminal shows
/// what follows, if it has one: what a text shown as it is (a name, a game
/// program's title) must not hold.
pub fn hazard(text: &str) -> Option<char> {
    text.chars().find(|&c| is_hazard(c))
}

/// `text` with every hazardous character written as an escape (`\n`,
/// `\u{1b}`, `\u{202e}`); unchanged (and not copied) when it has none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hazard) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if is_hazard(c) => {
                let _ = write!(shown, "\\u{{{:x}}}", c as u32);
            }
            c => shown.push(c),
        }
    }
    Cow::Owned(shown)
}

/// Checks a bot name for the places it goes: file names, CSV cells, terminal
/// lines. Printable, no spreadsheet formula start, no path separator, and at
/// most 64 characters.
pub fn check_bot_name(name: &str) -> Result<(), String> {
    if let Some(c) = hazard(name) {
        return Err(format!(
            "a name may not hold control characters (found {})",
            printable(&c.to_string())
        ));
    }
    if name.starts_with(['=', '+', '-', '@']) {
        return Err(
            "a name may not start with `=`, `+`, `-` or `@` (spreadsheets read those as formulas)"
                .to_owned(),
        );
    }
    if name.contains('/') {
        return Err("a name may not hold `/` (names become file names)".to_owned());
    }
    if name.chars().count() > 64 {
        return Err(format!(
            "a name may hold at most 64 characters, this one has {}",
            name.chars().count()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_plain_text_is_kept() {
        assert!(matches!(printable("plain {\"move\": 3}"), Cow::Borrowed(_)));
        assert_eq!(printable("a\u{1b}[2Jb\nc\td"), "a\\u{1b}[2Jb\\nc\\td");
        assert_eq!(printable("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(printable("\u{7f}\u{85}"), "\\u{7f}\\u{85}");
    }

    #[test]
    fn names_that_break_files_terminals_or_sheets_are_refused() {
        assert!(check_bot_name("random-rs v2 (ü)").is_ok());
        for name in ["a\nb", "a\u{1b}b", "=HYPERLINK(1)", "-x", "a/b", "x\u{202e}"] {
            assert!(check_bot_name(name).is_err(), "{name:?}");
        }
        assert!(check_bot_name(&"n".repeat(65)).is_err());
    }
}
