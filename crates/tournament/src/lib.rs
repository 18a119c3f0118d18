//! Tournaments: a TOML file in, a results folder out.
//!
//! [`config`] reads the file (and [`openings`](config::openings) the
//! setups it names, if any; or `arena match`, `gauntlet` and `sprt` make a
//! [`Tournament`] from their arguments), [`schedule`] lays out the round
//! robin or gauntlet, [`runner`] plays it (until a [`StopRule`] such as the
//! [`sprt`] test says enough), [`store`] keeps games.csv resumable and
//! writes the final files, and [`standings`] turns rows into standings and
//! ratings.

#![warn(missing_docs)]

pub mod build;
pub mod command_line;
pub mod config;
pub mod events;
mod fingerprint;
pub mod html_page;
pub mod identity;
mod progress;
mod recorder;
pub mod results;
pub mod rows;
pub mod runner;
pub mod schedule;
pub mod sprt;
pub mod standings;
mod withdrawal;

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use tokio::sync::watch;

use config::BotEntry;
pub use config::Tournament;
use fingerprint::{fingerprint_bots, fingerprint_game, warn_of_edits};
use progress::Meter;
pub use recorder::GameProgramFailed;
use recorder::{Recorder, Stopper};
use results::store;
use runner::start_workers;
use schedule::{Schedule, ScheduledGame, Shard};
pub use standings::Standing;
use store::seed_key::NewKey;
use store::{RecordedSettings, ResultsFolder};
use withdrawal::Withdrawals;

use crate::config::TranscriptStore;
use crate::events::{Event, Reporter};
use crate::results::FileLayout;
use crate::results::archive::{AfterFrames, ArchiveSink};
use crate::rows::GameRow;
use arena_base::bits::BitSet;
use arena_referee::{BotCommand, reaper};
use arena_system::os::sandbox::Sandbox;

/// How to run a tournament, beyond its file.
#[derive(Clone)]
pub struct RunOptions {
    /// Where the run's events go.
    pub reporter: Arc<dyn Reporter>,
    /// Play only this share of the schedule.
    pub shard: Option<Shard>,
    /// Discard earlier results in the folder instead of resuming.
    pub fresh: bool,
    /// Outputs to write beside the results folder's own files.
    pub exports: Vec<store::export::Export>,
    /// The sandbox bots start in; `None` when it is off.
    pub sandbox: Option<Arc<Sandbox>>,
    /// A seat-seed key of the results folder's own, made for this run
    /// (see `store::seed_key`): written with the folder's first game.
    pub new_seed_key: Option<NewKey>,
    /// Ends the run before its schedule is played out (an SPRT's verdict).
    pub stop_when: Option<Arc<dyn StopRule>>,
}

/// Decides from the games recorded that a run should play no more (the
/// SPRT once it reaches a verdict). It is shown every game of the results
/// folder: those of earlier runs before play starts (a rule that is
/// satisfied by them plays nothing), then each game as it is recorded.
/// Once it says stop, no game starts and the games being played are
/// abandoned (they are not recorded; the results never depend on them).
pub trait StopRule: Send + Sync {
    /// Counts one recorded game; true once the run should stop.
    fn count(&self, game: &GameRow) -> bool;

    /// Once the rule has decided, the last round whose games it counts:
    /// games of later rounds were played while it decided (how many
    /// depends on timing), and are set aside when the run's files are
    /// finished, so that the results are those of the rows that decided.
    fn last_counted_round(&self) -> Option<u64> {
        None
    }
}

/// How a run ended.
pub enum RunEnd {
    /// Every game of the (shard's) schedule is in games.csv, or the stop
    /// rule ended the run; the final files are written.
    Complete {
        /// The standings, best first.
        standings: Vec<Standing>,
        /// Games this run played.
        played: u64,
        /// Games earlier runs had recorded.
        already: u64,
    },
    /// Interrupted: finished games are in games.csv, running ones were
    /// abandoned.
    Interrupted {
        /// Games in games.csv, from this run and earlier ones.
        done: u64,
        /// Games of the (shard's) schedule.
        total: u64,
    },
}

/// Which games of the schedule this run plays: those of its shard that are
/// not in the results folder yet. Kept as one bit per game.
pub struct Pending {
    shard: Option<Shard>,
    done: BitSet,
}

impl Pending {
    /// `done` holds the games already played, by number less one.
    fn new(shard: Option<Shard>, done: BitSet) -> Pending {
        Pending { shard, done }
    }

    /// Every game of `schedule` (for tests).
    #[cfg(test)]
    pub(crate) fn everything(schedule: &Schedule) -> Pending {
        Pending { shard: None, done: BitSet::with_len(schedule.len()) }
    }

    /// Whether this run plays `game`: it is in the run's shard and not played yet.
    pub fn wants(&self, game: &ScheduledGame) -> bool {
        !self.done.contains(game.index - 1) && self.shard.is_none_or(|shard| shard.contains(game))
    }
}

/// A CPU that no worker is pinned to, if pinning leaves one free (workers
/// take the first `concurrency` CPUs).
fn spare_cpu(tournament: &Tournament) -> Option<usize> {
    let cpus = if tournament.pin { arena_system::os::allowed_cpus() } else { Vec::new() };
    (cpus.len() > tournament.concurrency).then(|| cpus[cpus.len() - 1])
}

/// Shows `rule` the games of the schedule that `folder` holds already;
/// whether they satisfy it.
fn counts_recorded_games(
    rule: &dyn StopRule,
    folder: &ResultsFolder,
    schedule: &Schedule,
    names: &[String],
) -> anyhow::Result<bool> {
    let index: HashMap<&str, usize> =
        names.iter().enumerate().map(|(i, name)| (name.as_str(), i)).collect();
    let mut stop = false;
    // Repaired by `ResultsFolder::open` already.
    store::for_each_row(&folder.path.join(store::GAMES_CSV), |row| {
        if let (Some(&one), Some(&two)) =
            (index.get(row.seat1.as_str()), index.get(row.seat2.as_str()))
            && schedule.find([one, two], row.round, row.seed).is_some()
        {
            stop |= rule.count(&row);
        }
        Ok(())
    })?;
    Ok(stop)
}

/// Plays every game of `tournament` not yet in its results folder, until
/// done, until `options.stop_when` says enough, or until `interrupt`
/// completes.
pub async fn run(
    tournament: &Tournament,
    options: &RunOptions,
    interrupt: impl Future<Output = ()>,
) -> anyhow::Result<RunEnd> {
    // Before the folder is made: a command a box refuses is said first.
    let mut commands: Vec<BotCommand> = tournament.bots.iter().map(BotEntry::command).collect();
    // A game program runs in the same sandbox as the bots, its files set
    // apart from theirs as theirs are from each other's.
    let program = tournament.setup.game().program();
    commands.extend(program.map(|program| arena_referee::game_program::command_of(program)));
    let names: Vec<String> = tournament.bots.iter().map(|bot| bot.name.clone()).collect();
    let programs: Vec<String> = names
        .iter()
        .map(|name| format!("bot `{name}`"))
        .chain(program.map(|_| "the game program".to_owned()))
        .collect();
    for message in BotCommand::prepare_all(&mut commands, &programs, options.sandbox.as_ref())? {
        options.reporter.report(&Event::Warning { message: &message });
    }
    let fingerprints = fingerprint_bots(tournament)?;
    let game_fingerprint = fingerprint_game(tournament)?;
    let recorded = RecordedSettings::of(tournament, &fingerprints, game_fingerprint.as_ref());
    let schedule = Arc::new(tournament.schedule());
    let mut folder = ResultsFolder::open(
        &tournament.out,
        recorded,
        &schedule,
        options.fresh,
        options.new_seed_key.clone(),
        options.reporter.as_ref(),
    )?;
    let game_command = program.and_then(|_| commands.pop());
    let stopped_already = match &options.stop_when {
        Some(rule) => counts_recorded_games(rule.as_ref(), &folder, &schedule, &names)?,
        None => false,
    };
    let pending = Arc::new(Pending::new(options.shard, std::mem::take(&mut folder.done)));
    let total = schedule
        .iter()
        .filter(|game| options.shard.is_none_or(|shard| shard.contains(game)))
        .count() as u64;
    let to_play = schedule.iter().filter(|game| pending.wants(game)).count() as u64;
    let already = total - to_play;

    let mut played = 0;
    let mut void = 0;
    let mut interrupted = false;
    let mut stopped = stopped_already;
    let mut failure = None;
    let mut withdrawn_rows = BTreeMap::new();
    if to_play > 0 && !stopped_already {
        if let Err(error) = reaper::become_subreaper() {
            let message = format!(
                "cannot become a subreaper ({error}); escaped bot processes may outlive arena"
            );
            options.reporter.report(&Event::Warning { message: &message });
        }
        options.reporter.report(&Event::Started { to_play, already });
        let layout = FileLayout {
            game_logs: tournament.setup.game().program().is_some(),
            folder: folder.path.as_path().into(),
            transcripts: tournament.transcripts,
        };
        let mut header_due = false;
        let archive = match tournament.transcripts {
            TranscriptStore::Archive => {
                // Rows go to games.csv after their transcripts, from the
                // archive's thread.
                let mut games_csv = folder.games_csv.take().expect("the folder's games.csv");
                header_due = games_csv.takes_header();
                let after = AfterFrames {
                    path: folder.path.join(store::GAMES_CSV),
                    write: Box::new(move |rows: &[u8]| games_csv.append_lines(rows)),
                };
                let cpu = spare_cpu(tournament);
                Some(ArchiveSink::start(&folder.path, folder.next_transcript, cpu, after)?)
            }
            _ => None,
        };
        if tournament.transcripts == TranscriptStore::Files {
            let transcripts = folder.path.join("transcripts");
            std::fs::create_dir_all(&transcripts)
                .with_context(|| format!("cannot create {}", transcripts.display()))?;
        }
        let (cancel, cancelled) = watch::channel(false);
        let cancel = Arc::new(cancel);
        let recorder = Arc::new(Mutex::new(Recorder {
            folder,
            meter: Meter::start(),
            to_play,
            reporter: Arc::clone(&options.reporter),
            layout,
            archive,
            names: names.clone(),
            game: tournament.setup.game().name().to_owned(),
            stopper: options.stop_when.as_ref().map(|rule| Stopper {
                rule: Arc::clone(rule),
                cancel: Arc::clone(&cancel),
                stopped: false,
            }),
            void: 0,
            header_due,
            withdrawals: Withdrawals::new(
                tournament.withdraw_after,
                names.clone(),
                Arc::clone(&schedule),
                Arc::clone(&pending),
            ),
            withdrawn_since: BTreeMap::new(),
        }));
        let (mut failures, workers) = start_workers(
            tournament,
            commands,
            game_command,
            Arc::clone(&schedule),
            pending,
            Arc::clone(&recorder),
            cancelled,
            options.stop_when.is_some(),
        );
        let mut interrupt = std::pin::pin!(interrupt);
        loop {
            tokio::select! {
                biased;
                () = &mut interrupt, if !interrupted => {
                    interrupted = true;
                    let _ = cancel.send(true);
                }
                failed = failures.recv() => match failed {
                    // Every worker has finished.
                    None => break,
                    Some(error) => {
                        let _ = cancel.send(true);
                        failure.get_or_insert(error);
                    }
                },
            }
        }
        for worker in workers {
            // A worker that panicked is a failed run, never a quiet one.
            if let Err(panic) = worker.thread.join() {
                let what = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("no message");
                let game = worker.playing.load(std::sync::atomic::Ordering::Relaxed);
                failure.get_or_insert(anyhow::anyhow!(
                    "arena failed while playing game {game}: {what} (a bug: please report it with the tournament file)"
                ));
            }
        }
        reaper::sweep_orphans();
        let recorder = Arc::into_inner(recorder).expect("the workers are gone");
        let mut recorder = recorder.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(mut archive) = recorder.archive.take()
            && let Err(error) = archive.finish()
        {
            failure.get_or_insert(anyhow::Error::new(error).context("cannot keep the transcripts"));
        }
        let stats = recorder.meter.stats();
        options.reporter.report(&Event::Finished(&stats));
        played = stats.games;
        withdrawn_rows = recorder.withdrawn_rows();
        stopped = recorder.stopper.is_some_and(|stopper| stopper.stopped);
        void = recorder.void;
        folder = recorder.folder;
        if played > 0 {
            warn_of_edits(tournament, &fingerprints, game_fingerprint, options.reporter.as_ref());
        }
    }
    if let Some(error) = failure {
        return Err(error.context("the run stopped; the games played so far are kept"));
    }
    // An interrupt that came after the last game stops nothing: the final
    // files are written as usual.
    if interrupted && !stopped && already + played < total {
        return Ok(RunEnd::Interrupted { done: already + played, total });
    }
    // Void games are missing from games.csv: no standings are final
    // without them.
    if void > 0 && !stopped {
        anyhow::bail!(
            "{void} game{} void: the game program failed (the warnings above say how); {}: fix the game (`arena check-game` helps) and run again to play the void ones (an edited game is a new version, so the games its old version played are played again too)",
            if void == 1 { " is" } else { "s are" },
            match (already + played, folder.path.display()) {
                (0, path) => format!("no game in {path} was played to its end"),
                (1, path) => format!("the other game in {path} is kept"),
                (kept, path) => format!("the other {kept} games in {path} are kept"),
            },
        );
    }
    // Rows replaced: games played in vain past a withdrawal (withdrawn
    // rows), and past a stop rule's decision (set aside).
    let mut replaced: BTreeMap<u64, Option<GameRow>> =
        withdrawn_rows.into_iter().map(|(index, row)| (index, Some(row))).collect();
    if let Some(last) = options.stop_when.as_ref().and_then(|rule| rule.last_counted_round()) {
        replaced.extend(
            schedule.iter().filter(|game| game.round > last).map(|game| (game.index, None)),
        );
    }
    let standings =
        folder.finish(&schedule, &replaced, &options.exports, options.reporter.as_ref())?;
    Ok(RunEnd::Complete { standings, played, already })
}
