//! The tournament file (TOML), read and checked. tournaments/README.md
//! documents every key.
//!
//! `check` first holds the file against the keys it may have (every
//! mistake of kind and form at once, in the file's terms), `raw` is the
//! file as written (with where each value is), `parse` checks it into a
//! [`Tournament`], `bot` is one `[[bot]]` (a [`BotEntry`]), `error` locates
//! what is wrong (a [`ConfigError`]), and `base` takes the sandbox of
//! another file (a pull request's league played with the base branch's).

mod base;
mod bot;
mod build_settings;
mod check;
mod error;
pub mod openings;
mod parse;
mod raw;
mod syntax;
/// Where a results folder keeps its games' transcripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TranscriptStore {
    /// Nowhere.
    Off,
    /// One file per game in `transcripts/`.
    Files,
    /// Handed back to the caller, which appends them to the folder's
    /// transcript archive.
    Archive,
}

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use bot::{BotEntry, check_tournament_bot_name};
pub use error::ConfigError;

use super::schedule::{Schedule, SetupSeeds};
use super::sprt::SprtSettings;
use arena_games::GameSetup;
use arena_referee::Settings;
use arena_referee::clock::{TimeKey, TimeKeys};
use arena_system::sandbox::SandboxSettings;
pub use build_settings::BuildSettings;
use openings::Openings;

/// Most games a pairing may play: the schedule keeps a bit per game.
pub const MAX_GAMES_PER_PAIR: u32 = 10_000_000;
/// Longest line a bot may be allowed: lines are read whole into memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Most games at once.
pub const MAX_CONCURRENCY: u32 = 256;
/// Games in a row a bot may crash or fail to start in before it is
/// withdrawn from a run.
pub const DEFAULT_WITHDRAW_AFTER: u32 = 5;
/// Most games one schedule may hold: a run keeps a few bits per game of
/// its schedule (which are played, which are recorded), 125 MB each at
/// this size, and plays them at some thousands a second at best.
pub const MAX_SCHEDULED_GAMES: u64 = 1_000_000_000;

/// A tournament, checked and ready to run.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// The tournament file; empty for a tournament made on the command line.
    pub file: PathBuf,
    /// A game program's `game_dir` as the file writes it: its folder, all
    /// of whose files are the game's (as a bot's `dir`).
    pub game_dir: Option<String>,
    /// The game and its parameters, checked.
    pub setup: GameSetup,
    /// The setups an openings file gives, played in order; without one,
    /// every setup is `setup` with a seed derived from `seed`.
    pub openings: Option<Openings>,
    /// The run's seed, from which every setup's seed derives.
    pub seed: u64,
    /// Games each pairing plays: every setup once in each seat order.
    pub games_per_pair: u32,
    /// How games are refereed.
    pub settings: Settings,
    /// Games played at once.
    pub concurrency: usize,
    /// A bot that crashes or fails to start in this many games in a row is
    /// withdrawn from the run (0: never).
    pub withdraw_after: u32,
    /// The results folder.
    pub out: PathBuf,
    /// When bot processes are replaced by fresh ones.
    pub restart: Restart,
    /// Where games' transcripts go: the archive (a tournament file's
    /// `transcripts = true`), nowhere, or a file per game (`arena match`).
    pub transcripts: TranscriptStore,
    /// Run each worker thread and the bots it starts on one CPU of its own.
    pub pin: bool,
    /// How bot processes are sandboxed.
    pub sandbox: SandboxSettings,
    /// How bots are built (`arena build`).
    pub build: BuildSettings,
    /// The bots, in the order of the file.
    pub bots: Vec<BotEntry>,
    /// The challengers of a gauntlet (indexes into `bots`), who play the
    /// other bots (the field) but not each other; empty in a round robin.
    pub challengers: Vec<usize>,
    /// The sequential test of `[sprt]`: the first bot against the second,
    /// until the test decides or `games_per_pair` games are played.
    pub sprt: Option<SprtSettings>,
    /// The file the run's seat-seed key is read from (`--seed-key-file`),
    /// which no bot may read; the key itself is in `settings`.
    pub seed_key_file: Option<PathBuf>,
}

impl Tournament {
    /// Whether each game starts every bot afresh: as `restart` says, and
    /// always with a game program that declares itself random. The two
    /// games of a setup deal alike, the seats swapped: a bot kept alive
    /// from the first would know in the second what the other seat holds
    /// (its own hand of the first game).
    pub fn restarts_every_game(&self) -> bool {
        self.restart == Restart::EveryGame
    }

    /// What no bot may read: the results folder, what the run's setups are
    /// made from (the tournament file and its openings file), and the
    /// seat-seed key's file.
    pub fn protected_paths(&self) -> Vec<&Path> {
        let mut paths = vec![self.out.as_path()];
        if !self.file.as_os_str().is_empty() {
            paths.push(&self.file);
        }
        paths.extend(self.openings.as_ref().map(|openings| openings.path.as_path()));
        paths.extend(self.seed_key_file.as_deref());
        paths
    }

    /// The index of the bot called `name`; the error lists the file's bots.
    pub fn bot_index(&self, name: &str) -> Result<usize, String> {
        self.bots.iter().position(|bot| bot.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.bots.iter().map(|bot| bot.name.as_str()).collect();
            format!("{} has no such bot (its bots: {})", self.file.display(), names.join(", "))
        })
    }

    /// Checks that the schedule is not too large to hold: pairings times
    /// games per pairing at most [`MAX_SCHEDULED_GAMES`]. The error gives
    /// the figures.
    pub fn check_schedule_size(&self) -> Result<(), String> {
        let total = self.schedule().len();
        let games = u64::from(self.games_per_pair).max(1);
        let pairings = total / games;
        if total <= MAX_SCHEDULED_GAMES {
            return Ok(());
        }
        let figure = |number: u64| {
            let digits = number.to_string();
            let mut grouped = String::new();
            for (at, digit) in digits.chars().enumerate() {
                if at > 0 && (digits.len() - at).is_multiple_of(3) {
                    grouped.push(',');
                }
                grouped.push(digit);
            }
            grouped
        };
        Err(format!(
            "{} bots make {} pairings; at {} games each that is {} games, more than one tournament may schedule ({}); lower games_per_pair, or split the bots into leagues",
            self.bots.len(),
            figure(pairings),
            figure(games),
            figure(total),
            figure(MAX_SCHEDULED_GAMES)
        ))
    }

    /// The games to play: a round robin, or a gauntlet of the challengers,
    /// with the setups of the openings file if there is one.
    pub fn schedule(&self) -> Schedule {
        let schedule = match &self.challengers[..] {
            [] => Schedule::new(self.bots.len(), self.games_per_pair, self.seed),
            challengers => {
                Schedule::gauntlet(self.bots.len(), self.games_per_pair, self.seed, challengers)
            }
        };
        schedule
            .with_seeds(self.setup_seeds())
            .fresh_every_game(self.setup.game().deals_privately())
    }
}

/// When bot processes are replaced by fresh ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Restart {
    /// Keep a process for game after game; restart it after a forfeit that
    /// leaves it in doubt (timeout, crash, malformed or overlong output).
    AfterDoubt,
    /// A fresh process for every game.
    EveryGame,
}

impl Tournament {
    /// Changes the file's time control by `keys` (command-line flags, as if
    /// written at the top of the file; a bot's own keys still apply over
    /// them). The error names the flag or the bot whose keys no longer fit.
    pub fn change_time_control(&mut self, keys: &TimeKeys) -> Result<(), String> {
        self.settings.time_control =
            keys.over(self.settings.time_control).map_err(|error| error.describe(TimeKey::flag))?;
        for bot in &mut self.bots {
            bot.rebase_time(self.settings.time_control).map_err(|error| {
                format!("{error} (over the time control the command line sets)")
            })?;
        }
        Ok(())
    }

    /// The game and parameters of round `round` (from 1) of every pairing:
    /// its openings entry's, or the file's.
    pub fn setup_of(&self, round: u64) -> &GameSetup {
        match &self.openings {
            Some(openings) => &openings.entry(round.saturating_sub(1)).setup,
            None => &self.setup,
        }
    }

    /// Where the seeds of the schedule's setups come from.
    pub fn setup_seeds(&self) -> SetupSeeds {
        match &self.openings {
            Some(openings) => openings.seeds(self.seed),
            None => SetupSeeds::derived(self.seed),
        }
    }
}

/// Checks a number of games per pairing, from the file or the command line.
pub fn check_games_per_pair(games: u32) -> Result<u32, String> {
    if games == 0 || games % 2 == 1 {
        return Err(format!(
            "games_per_pair must be a positive even number (every setup is played once in each seat order), got {games}"
        ));
    }
    if games > MAX_GAMES_PER_PAIR {
        return Err(format!("games_per_pair must be at most {MAX_GAMES_PER_PAIR}, got {games}"));
    }
    Ok(games)
}

/// Checks a number of games at once, from the file or the command line.
pub fn check_concurrency(games: u32) -> Result<usize, String> {
    if games == 0 {
        return Err("concurrency must be at least 1".to_owned());
    }
    if games > MAX_CONCURRENCY {
        return Err(format!(
            "concurrency must be at most {MAX_CONCURRENCY} (each game at once is a thread and two bot processes; this machine has {} CPUs), got {games}",
            std::thread::available_parallelism().map_or(1, usize::from),
        ));
    }
    Ok(games as usize)
}

/// Values the command line sets over the tournament file's (`arena run
/// --seed`...). A run with them is recorded as if the file said so: a
/// resume with other values is the same as an edited file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Over `seed`.
    pub seed: Option<u64>,
    /// Over `games_per_pair` (checked with [`check_games_per_pair`]).
    pub games_per_pair: Option<u32>,
    /// Over `concurrency` (checked with [`check_concurrency`]); no part of
    /// what results depend on.
    pub concurrency: Option<usize>,
}

impl Overrides {
    /// Sets the values given over those of `tournament`.
    pub fn apply(&self, tournament: &mut Tournament) {
        if let Some(seed) = self.seed {
            tournament.seed = seed;
        }
        if let Some(games) = self.games_per_pair {
            tournament.games_per_pair = games;
        }
        if let Some(concurrency) = self.concurrency {
            tournament.concurrency = concurrency;
        }
    }
}
