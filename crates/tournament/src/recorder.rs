//! The recorder: every finished game of a run written by the worker that
//! played it (through one mutex), its row in games.csv, its transcript,
//! its count for withdrawal and a stop rule, and what is replaced when the
//! run's files are finished.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Context;
use tokio::sync::watch;

use super::StopRule;
use super::progress::Meter;
use super::schedule::ScheduledGame;
use super::withdrawal::Withdrawals;
use crate::events::{Event, Reporter};
use crate::results::archive::{self, ArchiveSink};
use crate::results::store::ResultsFolder;
use crate::results::{FileLayout, void_transcript};
use crate::rows::{GameRow, RowContext};
use arena_protocol::ForfeitReason;
use arena_referee::GameReport;

/// A stop rule in force, and how it stops the workers.
pub(super) struct Stopper {
    pub(super) rule: Arc<dyn StopRule>,
    pub(super) cancel: Arc<watch::Sender<bool>>,
    /// Whether the rule has stopped the run.
    pub(super) stopped: bool,
}

/// Records finished games: shared by the workers, so a finished game is
/// written by the thread that played it, with no hand-over per game.
pub(crate) struct Recorder {
    pub(super) folder: ResultsFolder,
    pub(super) meter: Meter,
    /// Games this run plays in all.
    pub(super) to_play: u64,
    pub(super) reporter: Arc<dyn Reporter>,
    pub(super) layout: FileLayout,
    /// Where transcripts go when the tournament keeps them.
    pub(super) archive: Option<ArchiveSink>,
    pub(super) names: Vec<String>,
    pub(super) game: String,
    pub(super) stopper: Option<Stopper>,
    /// Games the game program's faults voided in this run.
    pub(super) void: u64,
    /// Whether the next row handed to the archive's writer brings the
    /// header of a new games.csv.
    pub(super) header_due: bool,
    pub(super) withdrawals: Withdrawals,
    /// Games recorded as played that come after the game that withdrew one
    /// of their bots, by number, with why each seat's bot is withdrawn:
    /// their rows become withdrawn rows when the run's files are finished
    /// (see `withdrawal`).
    pub(super) withdrawn_since: BTreeMap<u64, (ScheduledGame, [Option<String>; 2])>,
}

/// Faults of a game program after which a run stops: a game that fails
/// this often will not get better by playing on.
pub const MAX_GAME_FAULTS: u64 = 3;

/// Why a run stopped when its game program failed `MAX_GAME_FAULTS`
/// times: the command line adds how to resume once the game is fixed.
#[derive(Debug, thiserror::Error)]
#[error(
    "the game program failed {times} times: {last}; the run stops (fix the game, check it with `arena check-game`, and run again: the void games are played again, and so are the games of the old version, as a fixed game is a new one)"
)]
pub struct GameProgramFailed {
    /// How often the game program failed in this run.
    pub times: u64,
    /// Its last fault, in words.
    pub last: String,
}

impl Recorder {
    /// Records the game: in a run that keeps transcripts in the archive,
    /// its transcript and then its games.csv row go to the archive's
    /// writer (the row follows the transcript to disk); else the row is
    /// appended to games.csv at once. Then the game is counted.
    pub(crate) fn record(
        &mut self,
        game: &ScheduledGame,
        report: &GameReport,
        transcript: Option<Vec<u8>>,
    ) -> anyhow::Result<()> {
        // Not recorded without its transcript: the run stops, and resuming
        // plays the game again.
        if let Some(error) = &report.unsaved_transcript {
            anyhow::bail!("game {}: {error}", game.index);
        }
        if let Some(fault) = &report.void {
            return self.record_void(game, fault, transcript);
        }
        // A game played while an earlier one (in schedule order) withdrew
        // one of its bots is recorded as a run of one game at a time
        // records it: lost unplayed.
        let withdrawn = self.withdrawals.of(game);
        let as_withdrawn;
        let (report, transcript) = match withdrawn.iter().any(Option::is_some) {
            true if !is_unplayed(report) => {
                self.forget_transcript(game.index);
                as_withdrawn = GameReport::unplayed(game.seed, withdrawn);
                (&as_withdrawn, None)
            }
            _ => (report, transcript),
        };
        let unplayed = is_unplayed(report);
        let mut context = row_context(&self.names, &self.game, &self.layout, game);
        // A game a withdrawn bot did not play has no transcript.
        if unplayed {
            context.transcript = String::new();
        }
        let row = match (&mut self.archive, transcript) {
            (Some(archive), Some(transcript)) => {
                context.transcript = archive::reference(archive.next_number());
                let row = GameRow::new(context, report);
                // No row without its settings: tournament.json first.
                self.folder.write_settings()?;
                let line = row.csv_line(self.header_due)?;
                self.header_due = false;
                archive.add(transcript, &line).with_context(|| format!("game {}", game.index))?;
                row
            }
            // A game not played: its row alone, in turn with the others.
            (Some(archive), None) => {
                let row = GameRow::new(context, report);
                self.folder.write_settings()?;
                let line = row.csv_line(self.header_due)?;
                self.header_due = false;
                archive.add_record(&line).with_context(|| format!("game {}", game.index))?;
                row
            }
            _ => {
                let row = GameRow::new(context, report);
                self.folder.append(&row)?;
                row
            }
        };
        for message in &report.warnings {
            self.reporter.report(&Event::Warning { message });
        }
        let counted = self.withdrawals.count(game, report, !unplayed);
        for message in &counted.warnings {
            self.reporter.report(&Event::Warning { message });
        }
        for (since, seat, why) in counted.withdrawn_since {
            self.forget_transcript(since.index);
            let index = since.index;
            let entry = self.withdrawn_since.entry(index).or_insert((since, [None, None]));
            entry.1[seat.index()] = Some(why);
        }
        let done = self.meter.game_done(row.plies);
        self.reporter.report(&Event::GameFinished { done, total: self.to_play, game: &row });
        // Shown every game, after the stop too: an SPRT tells how many it
        // did not count, as a rerun over games.csv would.
        if let Some(stopper) = &mut self.stopper
            && stopper.rule.count(&row)
            && !stopper.stopped
        {
            stopper.stopped = true;
            let _ = stopper.cancel.send(true);
        }
        Ok(())
    }

    /// Notes a game the game program's fault voided: its transcript goes
    /// to `void/` in the results folder (unless it is a file of its own
    /// already), the user is told, and the run stops at the
    /// [`MAX_GAME_FAULTS`]th.
    fn record_void(
        &mut self,
        game: &ScheduledGame,
        fault: &arena_referee::GameFault,
        transcript: Option<Vec<u8>>,
    ) -> anyhow::Result<()> {
        self.void += 1;
        let detail = fault.detail();
        // A transcript written as a file already stays where it is.
        let mut kept = Some(self.layout.transcript(game.index)).filter(|path| !path.is_empty());
        if let Some(transcript) = transcript {
            let relative =
                self.layout.keep_void_transcript(game.index, &transcript).with_context(|| {
                    let path = self.folder.path.join(void_transcript(game.index));
                    format!("cannot write {}", path.display())
                })?;
            kept = Some(relative);
        }
        // The log made in this game (an earlier run's of the same game
        // number keeps its own name).
        let log = fault
            .stderr_log
            .as_ref()
            .map(|path| path.strip_prefix(&self.folder.path).unwrap_or(path).display().to_string());
        let names = &self.names;
        self.reporter.report(&Event::GameVoid {
            game: game.index,
            seats: [&names[game.seats[0]], &names[game.seats[1]]],
            seed: game.seed,
            detail: &detail,
            transcript: kept.as_deref(),
            stderr_log: log.as_deref(),
        });
        if self.void >= MAX_GAME_FAULTS {
            let last = arena_base::printable::printable(&fault.to_string()).into_owned();
            return Err(GameProgramFailed { times: self.void, last }.into());
        }
        Ok(())
    }

    /// Removes the transcript file of game `index`, played in vain (a game
    /// withdrawn has none). One in the archive stays there, named by no
    /// row.
    fn forget_transcript(&self, index: u64) {
        if self.archive.is_none() {
            self.layout.forget_transcript(index);
        }
    }

    /// The withdrawn rows that replace the rows of games played in vain.
    pub(crate) fn withdrawn_rows(&self) -> BTreeMap<u64, GameRow> {
        self.withdrawn_since
            .iter()
            .map(|(&index, (game, why))| {
                let mut context = row_context(&self.names, &self.game, &self.layout, game);
                context.transcript = String::new();
                (index, GameRow::new(context, &GameReport::unplayed(game.seed, why.clone())))
            })
            .collect()
    }

    /// Where the game's files go.
    pub(crate) fn layout(&self) -> &FileLayout {
        &self.layout
    }

    /// Why each seat's bot of `game` is withdrawn from the run, if it is:
    /// the game is then recorded unplayed.
    pub(crate) fn withdrawn(&self, game: &ScheduledGame) -> [Option<String>; 2] {
        self.withdrawals.of(game)
    }
}

/// The row of `game` (of the game named `game_name`, between `names`) but
/// for its result.
fn row_context<'a>(
    names: &'a [String],
    game_name: &str,
    layout: &FileLayout,
    game: &ScheduledGame,
) -> RowContext<'a> {
    RowContext {
        game_index: game.index,
        round: game.round,
        pairing: format!("{} vs {}", names[game.pairing[0]], names[game.pairing[1]]),
        game: game_name.to_owned(),
        seats: [&names[game.seats[0]], &names[game.seats[1]]],
        transcript: layout.transcript(game.index),
    }
}

/// Whether `report` is of a game a withdrawn bot did not play.
fn is_unplayed(report: &GameReport) -> bool {
    report.forfeits.iter().flatten().any(|forfeit| forfeit.reason == ForfeitReason::Withdrawn)
}
