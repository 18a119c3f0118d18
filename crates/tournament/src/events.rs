//! What a run tells its user, as values.
//!
//! The tournament emits [`Event`]s and never prints; the command that
//! started it hands in a [`Reporter`] that shows them: a progress bar on a
//! terminal, plain lines in CI, JSON lines for programs, or nothing. With
//! `--json`, each event is one line, `{"type": ...}` with the fields below
//! (docs/running.md, "Reading a run from a program", shows them).

use std::time::Duration;

use serde::Serialize;

use crate::rows::GameRow;
/// A games.csv row as JSON: the forfeit columns a game without a forfeit
/// leaves empty are `null` (a CSV cell has no null; JSON does).
fn row_with_null_forfeits<S: serde::Serializer>(row: &&GameRow, to: S) -> Result<S::Ok, S::Error> {
    let mut value = serde_json::to_value(row).map_err(serde::ser::Error::custom)?;
    for column in ["forfeiter", "forfeit_detail"] {
        if value[column] == "" {
            value[column] = serde_json::Value::Null;
        }
    }
    value.serialize(to)
}

/// Something that happened during a run.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// Play begins: `to_play` games now, `already` recorded by earlier runs.
    Started {
        /// Games this run plays.
        to_play: u64,
        /// Games earlier runs left in games.csv.
        already: u64,
    },
    /// A game ended and is in games.csv.
    GameFinished {
        /// Games this run has finished, this one included.
        done: u64,
        /// Games this run plays in all.
        total: u64,
        /// The game's row, as games.csv has it, but for its empty forfeit
        /// columns, which are `null`.
        #[serde(serialize_with = "row_with_null_forfeits")]
        game: &'a GameRow,
    },
    /// A bot of the results folder is another version now, or left the
    /// tournament file: its recorded games are set aside (kept in
    /// set-aside.csv, not counted) and its pairings are played again.
    BotChanged {
        /// The bot's name.
        bot: &'a str,
        /// The recorded fingerprint (12 hex digits).
        from: &'a str,
        /// The fingerprint now; empty when the bot left the file.
        to: &'a str,
        /// Rows of games.csv set aside.
        set_aside: u64,
    },
    /// The game program is a new version (before `started`): every game
    /// of the folder is set aside (kept in set-aside.csv, not counted) and
    /// played again.
    GameChanged {
        /// The recorded fingerprint (12 hex digits).
        from: &'a str,
        /// The fingerprint now.
        to: &'a str,
        /// Games of games.csv set aside.
        set_aside: u64,
    },
    /// A game the game program's fault voided: it is not in games.csv,
    /// no bot is charged with anything, and a later run plays it again.
    GameVoid {
        /// Its number in the schedule.
        game: u64,
        /// The bots in seat 1 and seat 2.
        seats: [&'a str; 2],
        /// Its setup seed.
        seed: u64,
        /// The game program's fault, in words (the program, the request,
        /// what went wrong).
        detail: &'a str,
        /// Its transcript, relative to the results folder, if one was kept.
        transcript: Option<&'a str>,
        /// What the game program wrote to stderr in it, relative to the
        /// results folder, if it wrote anything.
        stderr_log: Option<&'a str>,
    },
    /// Something the user should know that does not stop the run.
    Warning {
        /// What, in words.
        message: &'a str,
    },
    /// Every game of this run was played (or it was interrupted).
    Finished(&'a RunStats),
}

/// What playing cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunStats {
    /// Games played by this run.
    pub games: u64,
    /// Moves in them.
    pub moves: u64,
    /// Wall time from the first game's start.
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
    /// arena's own CPU time in user mode while playing (bots excluded).
    pub user_seconds: f64,
    /// arena's own CPU time in the kernel while playing.
    pub system_seconds: f64,
    /// arena's peak resident memory.
    pub peak_rss_kib: u64,
}

fn seconds<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}

/// Shows a run's events. Shared by the threads that play games, so it
/// takes `&self` (implementations lock what they change).
pub trait Reporter: Send + Sync {
    /// Shows one event.
    fn report(&self, event: &Event<'_>);
}

/// A reporter that shows nothing (for tests).
#[cfg(test)]
pub struct Silent;

#[cfg(test)]
impl Reporter for Silent {
    fn report(&self, _event: &Event<'_>) {}
}
