//! How a run's events are shown: the reporter each command picks from its
//! flags (`--quiet`, `--json`) and from whether stdout is a terminal.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use arena_protocol::{ForfeitReason, ResultReason};
use arena_tournament::events::{Event, Reporter, RunStats};

/// How much a command shows, as its flags choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Progress and notes for people: a bar on a terminal, lines elsewhere.
    Human,
    /// Nothing but warnings (on stderr) and errors.
    Quiet,
    /// One JSON object per event on stdout, nothing else there.
    Json,
}

impl Verbosity {
    /// From the `--quiet` and `--json` flags (clap keeps them apart).
    pub fn from_flags(quiet: bool, json: bool) -> Verbosity {
        match (quiet, json) {
            (_, true) => Verbosity::Json,
            (true, false) => Verbosity::Quiet,
            (false, false) => Verbosity::Human,
        }
    }

    /// The reporter for this verbosity.
    pub fn reporter(self) -> Box<dyn Reporter> {
        match self {
            Verbosity::Human => Box::new(Human::new()),
            Verbosity::Quiet => Box::new(Quiet),
            Verbosity::Json => Box::new(JsonLines),
        }
    }
}

/// Progress for people: a bar on a terminal; in CI, a line every few
/// seconds. Forfeits are noted above the progress as they happen.
pub struct Human {
    display: Mutex<Display>,
}

enum Display {
    /// Before the run starts (the bar needs its length).
    Waiting,
    Bar(ProgressBar),
    Lines {
        started: Instant,
        last: Instant,
    },
}

/// How often progress lines come when stdout is no terminal.
const LINE_EVERY: Duration = Duration::from_secs(2);

impl Human {
    fn new() -> Human {
        Human { display: Mutex::new(Display::Waiting) }
    }
}

impl Reporter for Human {
    fn report(&self, event: &Event<'_>) {
        let mut display = self.display.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match event {
            Event::Started { to_play, already } => {
                if *already > 0 {
                    crate::say!("{}", resuming_line(*already, *to_play));
                }
                *display = if std::io::stdout().is_terminal() {
                    let bar = ProgressBar::new(*to_play);
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}  {msg}",
                        )
                        .expect("a valid template"),
                    );
                    Display::Bar(bar)
                } else {
                    Display::Lines { started: Instant::now(), last: Instant::now() }
                };
            }
            Event::GameFinished { done, total, game } => {
                // A withdrawn bot's unplayed games were said once, as the
                // warning that withdrew it.
                let withdrawn =
                    [game.forfeit1, game.forfeit2].contains(&Some(ForfeitReason::Withdrawn));
                let note = (game.reason != ResultReason::Normal && !withdrawn).then(|| {
                    format!(
                        "game {}: {} forfeited ({}): {}",
                        game.game_index, game.forfeiter, game.reason, game.forfeit_detail
                    )
                });
                match &mut *display {
                    Display::Bar(bar) => {
                        bar.inc(1);
                        if let Some(note) = note {
                            bar.println(note);
                        }
                    }
                    Display::Lines { started, last } => {
                        if let Some(note) = note {
                            crate::say!("{note}");
                        }
                        if last.elapsed() >= LINE_EVERY || done == total {
                            *last = Instant::now();
                            crate::say!("{}", progress_line(*done, *total, started.elapsed()));
                        }
                    }
                    Display::Waiting => {}
                }
            }
            Event::BotChanged { bot, from, to, set_aside } => {
                crate::say!("{}", bot_changed_line(bot, from, to, *set_aside));
            }
            Event::GameChanged { from, to, set_aside } => {
                crate::say!("{}", game_changed_line(from, to, *set_aside));
            }
            Event::GameVoid { .. } | Event::Warning { .. } => {
                let message = warning(event).expect("a warning");
                match &*display {
                    Display::Bar(bar) => bar.suspend(|| warn(&message)),
                    _ => warn(&message),
                }
            }
            Event::Finished(stats) => {
                if let Display::Bar(bar) = &*display {
                    bar.finish_and_clear();
                }
                crate::say!("{}", stats_line(stats));
            }
        }
    }
}

fn resuming_line(already: u64, to_play: u64) -> String {
    format!("resuming: {already} games already in games.csv, {to_play} to play")
}

fn bot_changed_line(bot: &str, from: &str, to: &str, set_aside: u64) -> String {
    if to.is_empty() {
        format!(
            "bot `{bot}` left the tournament file: its {set_aside} games are set aside (set-aside.csv)"
        )
    } else {
        format!(
            "bot `{bot}` is a new version ({from} -> {to}): its {set_aside} games are set aside (set-aside.csv) and its pairings played again"
        )
    }
}

fn game_changed_line(from: &str, to: &str, set_aside: u64) -> String {
    format!(
        "the game program is a new version ({from} -> {to}): the {set_aside} games played with the old one are set aside (set-aside.csv) and played again"
    )
}

/// A line per game as it ends, as `arena match` shows a match:
/// "game 3/10  seed 42  alpha (1) vs beta (2): beta wins 45-74".
pub struct GameLines {
    /// Games in the whole match, resumed ones included.
    pub games: u64,
}

impl Reporter for GameLines {
    fn report(&self, event: &Event<'_>) {
        match event {
            Event::Started { to_play, already } if *already > 0 => {
                crate::say!("{}", resuming_line(*already, *to_play));
            }
            Event::GameFinished { game, .. } => {
                crate::say!("{}", super::output::game_line(game, self.games));
            }
            Event::BotChanged { bot, from, to, set_aside } => {
                crate::say!("{}", bot_changed_line(bot, from, to, *set_aside));
            }
            Event::GameChanged { from, to, set_aside } => {
                crate::say!("{}", game_changed_line(from, to, *set_aside));
            }
            Event::GameVoid { .. } | Event::Warning { .. } => {
                warn(&warning(event).expect("a warning"));
            }
            // A match says what it cost as a run does.
            Event::Finished(stats) => crate::say!("{}", stats_line(stats)),
            Event::Started { .. } => {}
        }
    }
}

/// The words of an event shown as a warning: a warning's, or a void
/// game's.
fn warning(event: &Event<'_>) -> Option<String> {
    match event {
        Event::Warning { message } => Some((*message).to_owned()),
        Event::GameVoid { game, seats, seed, detail, transcript, stderr_log } => {
            // The paths are the results folder's, which the run's first
            // and last lines name.
            let files: Vec<String> =
                [("its transcript", transcript), ("the game's stderr", stderr_log)]
                    .into_iter()
                    .filter_map(|(what, path)| path.map(|path| format!("{what} {path}")))
                    .collect();
            let files = if files.is_empty() {
                String::new()
            } else {
                format!(" (in the results folder: {})", files.join("; "))
            };
            // The quote of the game's stderr keeps its line breaks in the
            // event; a warning is one line.
            Some(format!(
                "game {game} ({} vs {}, seed {seed}) is void: {}{files}; no bot is charged, and a later run plays it again",
                seats[0],
                seats[1],
                arena_base::printable::printable(detail),
            ))
        }
        _ => None,
    }
}

fn progress_line(done: u64, total: u64, elapsed: Duration) -> String {
    let elapsed = elapsed.as_secs_f64();
    let rate = if elapsed > 0.0 { done as f64 / elapsed } else { 0.0 };
    let left = total.saturating_sub(done);
    let eta = if rate > 0.0 { format!("{:.0}s", left as f64 / rate) } else { "?".to_owned() };
    format!(
        "progress: {done}/{total} games ({:.0}%), {rate:.1} games/s, ETA {eta}",
        100.0 * done as f64 / total.max(1) as f64
    )
}

fn stats_line(stats: &RunStats) -> String {
    let elapsed = stats.elapsed.as_secs_f64();
    let per_move = |seconds: f64| 1e6 * seconds / stats.moves as f64;
    // Without a move, CPU per move means nothing: the total is shown.
    let cpu = match stats.moves {
        0 => format!(
            "arena's own CPU {:.2}s ({:.2} user + {:.2} system), no move played",
            stats.user_seconds + stats.system_seconds,
            stats.user_seconds,
            stats.system_seconds
        ),
        _ => format!(
            "arena's own CPU {:.1} us per move ({:.1} user + {:.1} system)",
            per_move(stats.user_seconds + stats.system_seconds),
            per_move(stats.user_seconds),
            per_move(stats.system_seconds)
        ),
    };
    format!(
        "played {} games ({} moves) in {elapsed:.2}s: {:.0} games/s; {cpu}; peak memory {} MiB",
        stats.games,
        stats.moves,
        stats.games as f64 / elapsed.max(1e-9),
        stats.peak_rss_kib / 1024,
    )
}

/// Tells the user something that does not stop the command, on stderr.
pub fn warn(message: &str) {
    eprintln!("arena: warning: {message}");
}

/// Shows nothing but warnings, on stderr.
pub struct Quiet;

impl Reporter for Quiet {
    fn report(&self, event: &Event<'_>) {
        if let Some(message) = warning(event) {
            warn(&message);
        }
    }
}

/// Every event as one JSON line on stdout.
pub struct JsonLines;

impl Reporter for JsonLines {
    fn report(&self, event: &Event<'_>) {
        let line = serde_json::to_string(event).expect("events serialize");
        crate::say!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_per_move_only_when_moves_were_played() {
        let mut stats = RunStats {
            games: 2,
            moves: 20,
            elapsed: std::time::Duration::from_secs(1),
            user_seconds: 0.0001,
            system_seconds: 0.0003,
            peak_rss_kib: 8192,
        };
        let line = stats_line(&stats);
        assert!(
            line.contains("arena's own CPU 20.0 us per move (5.0 user + 15.0 system)"),
            "{line}"
        );
        stats.games = 0;
        stats.moves = 0;
        let line = stats_line(&stats);
        assert!(!line.contains("per move"), "{line}");
        assert!(
            line.contains("arena's own CPU 0.00s (0.00 user + 0.00 system), no move played"),
            "{line}"
        );
    }
}
