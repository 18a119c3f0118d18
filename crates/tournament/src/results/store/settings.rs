//! What tournament.json records: every setting that decides a folder's
//! games, its bots and their fingerprints, and what may change between
//! runs. [`super::compare`] says how two records differ.
//!
//! The record is made in one place, [`RecordedSettings::of`], from the
//! tournament as its defaults, its file and the command line's flags left
//! it; it takes every field of the tournament apart by name, so a setting
//! added to the tournament does not compile until it is recorded or said
//! to decide nothing. Resume and merge compare records as JSON, key by
//! key, so nothing recorded can be left out of the comparison.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::SETTINGS_JSON;
use crate::config::TranscriptStore;
use crate::config::openings::RecordedOpenings;
use crate::config::{BotEntry, Restart, Tournament};
use crate::identity::Fingerprint;
use crate::schedule::Schedule;
use crate::sprt::SprtSettings;
use crate::standings::Results;
use arena_games::program::Payoffs;
use arena_protocol::PROTOCOL_VERSION;
use arena_referee::{GameClock, Settings, TimeControl};
use arena_system::sandbox::SandboxSettings;

/// The format of tournament.json this arena writes. Raise it when a key is
/// added to the record (a field here, in a type recorded whole such as
/// [`SandboxSettings`], or a bot's), list the new keys in
/// [`super::compare::ADDED_KEYS`], and give the field `#[serde(default)]`:
/// a folder written before then is resumed with them taken as the run's,
/// and said so. Files without a `format` key were written before format 2.
pub const SETTINGS_FORMAT: u32 = 3;

/// The settings a results folder was played under (tournament.json).
///
/// Every key is written, `null` included, so that a key one record lacks
/// is a setting its arena did not know, never a value left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedSettings {
    /// The format of this record (`SETTINGS_FORMAT`).
    pub format: u32,
    /// The protocol version bots were spoken to in.
    pub protocol: u32,
    /// The game's id (a built-in game's, or the name a game program gives
    /// itself).
    pub game: String,
    /// The game program, for a game that is one (format 3).
    #[serde(default)]
    pub game_program: Option<RecordedGameProgram>,
    /// The game's parameters as given (the rest are the game's defaults).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The run's seed, from which every setup's seed derives.
    pub seed: u64,
    /// Games per pairing: on a resume it may grow (only adding games at the
    /// end of each pairing), never shrink.
    pub games_per_pair: u32,
    /// The openings file the setups came from, if the tournament has one.
    pub openings: Option<RecordedOpenings>,
    /// The challengers of a gauntlet, by name; empty in a round robin.
    pub challengers: Vec<String>,
    /// The sequential test the games were played for, if any.
    pub sprt: Option<SprtSettings>,
    /// Time for the reply to `start`, process start-up included.
    pub startup_timeout_ms: u64,
    /// The limit per move; none under a game clock.
    pub move_timeout_ms: Option<u64>,
    /// The game clock, when the tournament has one.
    pub clock: Option<GameClock>,
    /// Added to every deadline (for loaded machines).
    pub time_margin_ms: u64,
    /// No deadline at all (debugging).
    pub no_time_limit: bool,
    /// Longest line, in bytes without the newline, that a bot may send.
    pub max_line_bytes: usize,
    /// When bot processes are replaced (a bot that keeps state between
    /// games may play otherwise).
    pub restart: Restart,
    /// The sandbox's settings, whole (paths bots may read as the
    /// tournament file writes them).
    pub sandbox: SandboxSettings,
    /// The fingerprint of the key seat seeds derive with (never the key):
    /// `public` for the public default; empty when an earlier arena did
    /// not record it.
    pub seed_key: String,
    /// Bots in file order.
    pub bots: Vec<RecordedBot>,
    /// Games played at once. May change between runs.
    pub concurrency: usize,
    /// Whether workers were pinned to CPUs. May change between runs.
    pub pin: bool,
    /// Where transcripts went. May change between runs.
    pub transcripts: TranscriptStore,
    /// The most stderr kept per bot and game. May change between runs.
    pub stderr_cap: u64,
    /// The protections bots ran under on this machine, as said at the
    /// start of the last run: what the machine gave, not a setting. May
    /// change between runs.
    pub protections: String,
}

/// A game program as a results folder records it: its command as written,
/// what it says of itself, and its fingerprint. A new version (other files,
/// another version or title) has every game set aside and played again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedGameProgram {
    pub command: Vec<String>,
    pub title: String,
    pub version: Option<String>,
    /// The SHA-256 of what runs (see `identity`), as hex.
    pub fingerprint: String,
    /// Whether it deals privately, so that every game has a setup of its
    /// own (`Schedule::fresh_every_game`); false in folders written before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deals_privately: bool,
    /// Its payoffs, if its scores are payoffs (standings rank by them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoffs: Option<Payoffs>,
}

/// A bot as a results folder records it: as the tournament file writes
/// it (paths relative to the file, so the folder does not depend on where
/// the checkout lives), and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedBot {
    pub name: String,
    pub command: Vec<String>,
    pub dir: Option<String>,
    pub env: BTreeMap<String, String>,
    pub version: Option<String>,
    /// The SHA-256 of what runs (see `identity`), as hex; empty in folders
    /// written before arena kept fingerprints.
    pub fingerprint: String,
    /// The bot's own time control (a handicap), if it has one.
    pub time_control: Option<TimeControl>,
    /// What the bot alone may read besides ([[bot]]'s `read_paths`), as
    /// written (relative to its folder); written only when set, so an
    /// earlier record without it had none (see
    /// [`super::compare::WRITTEN_WHEN_SET`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_paths: Vec<PathBuf>,
    /// The fingerprint as arena made it before it covered files named by
    /// absolute paths and programs found in PATH: a folder recorded then
    /// resumes without replaying a bot that did not change. Not recorded.
    #[serde(skip)]
    pub earlier_fingerprint: Option<String>,
}

impl RecordedSettings {
    /// The settings of `tournament`, whose bots have `fingerprints` (in
    /// file order, each with the fingerprint of arena's earlier way when
    /// it differs) and whose game program, if the game is one, has
    /// `game_fingerprint`.
    pub fn of(
        tournament: &Tournament,
        fingerprints: &[(Fingerprint, Option<Fingerprint>)],
        game_fingerprint: Option<&Fingerprint>,
    ) -> RecordedSettings {
        // Every field by name: one added to the tournament must be
        // recorded here or said to decide nothing.
        let Tournament {
            file,
            setup,
            openings,
            seed,
            games_per_pair,
            settings,
            concurrency,
            // Which games a run leaves unplayed, which the next plays:
            // never a result.
            withdraw_after: _,
            // Where the results go, not how games are played.
            out: _,
            restart,
            transcripts,
            pin,
            sandbox,
            // How bots are built, not how games are played.
            build: _,
            bots,
            challengers,
            sprt,
            // The key's fingerprint is recorded from `settings`.
            seed_key_file: _,
            // What it holds is in the game program's fingerprint.
            game_dir: _,
        } = tournament;
        let Settings {
            startup_timeout,
            time_control,
            time_margin,
            no_time_limit,
            max_line_bytes,
            stderr_cap,
            // After `over`: the game is decided by then.
            exit_grace: _,
            // Only `arena check` probes, or judges a `start` early; never a
            // tournament.
            probe_unknown: _,
            stuck_start_after: _,
            seed_key,
            sandbox_line,
            // A game program's time: a game it fails is void, never a result.
            game_timeout: _,
        } = settings;
        RecordedSettings {
            format: SETTINGS_FORMAT,
            protocol: PROTOCOL_VERSION,
            game: setup.game().name().to_owned(),
            game_program: setup.game().program().map(|program| RecordedGameProgram {
                command: program.written.clone(),
                title: program.declaration.title().to_owned(),
                version: program.declaration.version.clone(),
                fingerprint: game_fingerprint.map(Fingerprint::hex).unwrap_or_default(),
                deals_privately: program.declaration.deals_privately(),
                payoffs: program.declaration.payoffs,
            }),
            params: setup.overrides().clone(),
            seed: *seed,
            games_per_pair: *games_per_pair,
            openings: openings.as_ref().map(|openings| openings.record()),
            challengers: challengers.iter().map(|&index| bots[index].name.clone()).collect(),
            sprt: *sprt,
            startup_timeout_ms: millis(*startup_timeout),
            move_timeout_ms: match time_control {
                TimeControl::PerMove { limit } => Some(millis(*limit)),
                TimeControl::Clock(_) => None,
            },
            clock: time_control.clock(),
            time_margin_ms: millis(*time_margin),
            no_time_limit: *no_time_limit,
            max_line_bytes: *max_line_bytes,
            restart: *restart,
            sandbox: as_written(sandbox, file),
            seed_key: seed_key.fingerprint(),
            bots: bots
                .iter()
                .zip(fingerprints)
                .map(|(bot, (fingerprint, earlier))| RecordedBot::of(bot, fingerprint, earlier))
                .collect(),
            concurrency: *concurrency,
            pin: *pin,
            transcripts: *transcripts,
            stderr_cap: *stderr_cap,
            protections: sandbox_line.to_string(),
        }
    }

    /// The settings recorded in `folder`'s tournament.json, if it has one.
    /// A file of an earlier format reads with what it did not record at
    /// its defaults (see [`RecordedSettings::from_json`]).
    pub fn read(folder: &Path) -> anyhow::Result<Option<RecordedSettings>> {
        let Some(json) = read_json(folder)? else { return Ok(None) };
        let path = folder.join(SETTINGS_JSON);
        RecordedSettings::from_json(json)
            .map(Some)
            .with_context(|| format!("{} is not a tournament.json arena can read", path.display()))
    }

    /// A record from its JSON, whatever arena wrote it: a file without a
    /// `format` (written before format 2) reads with the settings it did
    /// not record at their defaults and an empty `seed_key`.
    pub fn from_json(json: serde_json::Value) -> serde_json::Result<RecordedSettings> {
        match json.get("format") {
            Some(_) => serde_json::from_value(json),
            None => serde_json::from_value::<EarlierSettings>(json).map(EarlierSettings::upgrade),
        }
    }

    /// The schedule the folder's games belong to.
    pub fn schedule(&self) -> Schedule {
        let challengers: Vec<usize> = self
            .challengers
            .iter()
            .filter_map(|name| self.bots.iter().position(|bot| bot.name == *name))
            .collect();
        let schedule = match &challengers[..] {
            [] => Schedule::new(self.bots.len(), self.games_per_pair, self.seed),
            challengers => {
                Schedule::gauntlet(self.bots.len(), self.games_per_pair, self.seed, challengers)
            }
        };
        let schedule = match &self.openings {
            Some(openings) => schedule.with_seeds(openings.seeds(self.seed)),
            None => schedule,
        };
        schedule.fresh_every_game(
            self.game_program.as_ref().is_some_and(|program| program.deals_privately),
        )
    }

    /// The time control every bot without one of its own plays under.
    pub fn time_control(&self) -> TimeControl {
        match (self.clock, self.move_timeout_ms) {
            (Some(clock), _) => TimeControl::Clock(clock),
            (None, Some(move_ms)) => TimeControl::PerMove { limit: Duration::from_millis(move_ms) },
            (None, None) => TimeControl::default(),
        }
    }

    /// The name people read of the game.
    pub fn game_title(&self) -> &str {
        match &self.game_program {
            Some(program) => &program.title,
            None => arena_games::title_of(&self.game),
        }
    }

    /// The bots' names, in the order recorded.
    pub fn bot_names(&self) -> Vec<String> {
        self.bots.iter().map(|bot| bot.name.clone()).collect()
    }

    /// The standings' counts before any game: its bots, and the game's
    /// payoffs if its scores are payoffs.
    pub fn no_results(&self) -> Results {
        let payoffs = self.game_program.as_ref().and_then(|program| program.payoffs);
        Results::new(&self.bot_names(), payoffs)
    }
}

/// `folder`'s tournament.json as JSON, if it has one.
pub fn read_json(folder: &Path) -> anyhow::Result<Option<serde_json::Value>> {
    let path = folder.join(SETTINGS_JSON);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(error).with_context(|| format!("cannot read {}", path.display()));
        }
    };
    let json = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a tournament.json arena can read", path.display()))?;
    Ok(Some(json))
}

fn millis(duration: Duration) -> u64 {
    duration.as_millis().try_into().unwrap_or(u64::MAX)
}

/// `sandbox` with the paths bots may read as the tournament file writes
/// them (relative to its folder), so that the record does not depend on
/// where the checkout lives or the command was run from.
fn as_written(sandbox: &SandboxSettings, file: &Path) -> SandboxSettings {
    let mut recorded = sandbox.clone();
    let folder = file.parent().filter(|folder| !folder.as_os_str().is_empty());
    if let Some(folder) = folder {
        for path in &mut recorded.read_paths {
            if let Ok(relative) = path.strip_prefix(folder) {
                *path = relative.to_path_buf();
            }
        }
    }
    recorded
}

impl RecordedBot {
    fn of(bot: &BotEntry, fingerprint: &Fingerprint, earlier: &Option<Fingerprint>) -> RecordedBot {
        RecordedBot {
            name: bot.name.clone(),
            command: bot.written_command.clone(),
            dir: bot.written_dir.clone(),
            env: bot.env.clone(),
            version: bot.version.clone(),
            fingerprint: fingerprint.hex(),
            time_control: bot.time_control,
            read_paths: bot
                .read_paths
                .iter()
                .map(|path| path.strip_prefix(&bot.dir).unwrap_or(path).to_path_buf())
                .collect(),
            earlier_fingerprint: earlier.as_ref().map(Fingerprint::hex),
        }
    }

    /// The first 12 hex digits of the fingerprint, for messages.
    pub fn short_fingerprint(&self) -> &str {
        self.fingerprint.get(..12).unwrap_or("(none)")
    }
}

/// tournament.json as arena wrote it before format 2: keys left out when
/// empty, the sandbox as its line, and no sandbox settings, restart policy
/// or seat-seed key.
#[derive(Deserialize)]
struct EarlierSettings {
    game: String,
    params: serde_json::Map<String, serde_json::Value>,
    seed: u64,
    games_per_pair: u32,
    startup_timeout_ms: u64,
    #[serde(default)]
    move_timeout_ms: Option<u64>,
    #[serde(default)]
    clock: Option<GameClock>,
    #[serde(default)]
    time_margin_ms: u64,
    #[serde(default)]
    no_time_limit: bool,
    max_line_bytes: usize,
    bots: Vec<EarlierBot>,
    #[serde(default)]
    sandbox: String,
    #[serde(default)]
    openings: Option<RecordedOpenings>,
    #[serde(default)]
    challengers: Vec<String>,
    #[serde(default)]
    sprt: Option<SprtSettings>,
}

#[derive(Deserialize)]
struct EarlierBot {
    name: String,
    command: Vec<String>,
    #[serde(default)]
    dir: Option<String>,
    env: BTreeMap<String, String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    fingerprint: String,
    #[serde(default)]
    time_control: Option<TimeControl>,
}

/// The keys a record before format 2 lacks: what the run resuming it
/// takes as its own (see `compare`).
pub(super) const NOT_IN_EARLIER_FORMAT: [&str; 10] = [
    "format",
    "protocol",
    "restart",
    "sandbox",
    "seed_key",
    "concurrency",
    "pin",
    "transcripts",
    "stderr_cap",
    "protections",
];

impl EarlierSettings {
    /// The record in today's form, what the earlier file did not say at
    /// its defaults: protocol 1 (the only one then), the default restart
    /// policy and sandbox, and an unknown seat-seed key.
    fn upgrade(self) -> RecordedSettings {
        RecordedSettings {
            format: 1,
            protocol: 1,
            game: self.game,
            game_program: None,
            params: self.params,
            seed: self.seed,
            games_per_pair: self.games_per_pair,
            openings: self.openings,
            challengers: self.challengers,
            sprt: self.sprt,
            startup_timeout_ms: self.startup_timeout_ms,
            move_timeout_ms: self.move_timeout_ms,
            clock: self.clock,
            time_margin_ms: self.time_margin_ms,
            no_time_limit: self.no_time_limit,
            max_line_bytes: self.max_line_bytes,
            restart: Restart::AfterDoubt,
            sandbox: SandboxSettings::default(),
            seed_key: String::new(),
            bots: self
                .bots
                .into_iter()
                .map(|bot| RecordedBot {
                    name: bot.name,
                    command: bot.command,
                    dir: bot.dir,
                    env: bot.env,
                    version: bot.version,
                    fingerprint: bot.fingerprint,
                    time_control: bot.time_control,
                    read_paths: Vec::new(),
                    earlier_fingerprint: None,
                })
                .collect(),
            concurrency: 1,
            pin: true,
            transcripts: TranscriptStore::Archive,
            stderr_cap: Settings::default().stderr_cap,
            protections: self.sandbox,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Settings of a three-bot round robin of number-snatch.
    pub(crate) fn settings() -> RecordedSettings {
        let bot = |name: &str| RecordedBot {
            name: name.into(),
            command: vec![name.into()],
            dir: None,
            env: BTreeMap::new(),
            version: None,
            fingerprint: format!("{name:0>64}"),
            time_control: None,
            read_paths: Vec::new(),
            earlier_fingerprint: None,
        };
        RecordedSettings {
            format: SETTINGS_FORMAT,
            protocol: PROTOCOL_VERSION,
            game: "number-snatch".into(),
            game_program: None,
            params: serde_json::Map::new(),
            seed: 4,
            games_per_pair: 2,
            openings: None,
            challengers: Vec::new(),
            sprt: None,
            startup_timeout_ms: 5000,
            move_timeout_ms: Some(1000),
            clock: None,
            time_margin_ms: 0,
            no_time_limit: false,
            max_line_bytes: 65536,
            restart: Restart::AfterDoubt,
            sandbox: SandboxSettings::default(),
            seed_key: "0123456789abcdef".into(),
            bots: vec![bot("a"), bot("b"), bot("c")],
            concurrency: 1,
            pin: true,
            transcripts: TranscriptStore::Archive,
            stderr_cap: 1 << 20,
            protections: "sandbox: landlock".into(),
        }
    }

    #[test]
    fn every_key_is_written_and_reads_back() {
        let recorded = settings();
        let json = serde_json::to_value(&recorded).unwrap();
        assert!(json["openings"].is_null() && json["clock"].is_null(), "{json}");
        assert_eq!(RecordedSettings::from_json(json).unwrap(), recorded);
    }

    /// A tournament.json as arena wrote it before format 2.
    pub(crate) const EARLIER: &str = r#"{
  "game": "number-snatch",
  "params": {"count": 12},
  "seed": 3,
  "games_per_pair": 4,
  "startup_timeout_ms": 5000,
  "move_timeout_ms": 1000,
  "max_line_bytes": 65536,
  "bots": [
    {"name": "a", "command": ["python3", "a.py"], "env": {}, "fingerprint": "aa"},
    {"name": "b", "command": ["python3", "b.py"], "env": {}, "fingerprint": "bb"}
  ],
  "sandbox": "sandbox: landlock ABI 6"
}"#;

    #[test]
    fn an_earlier_tournament_json_reads_with_what_it_did_not_record_at_defaults() {
        let read = RecordedSettings::from_json(serde_json::from_str(EARLIER).unwrap()).unwrap();
        assert_eq!((read.format, read.protocol, read.seed), (1, 1, 3));
        assert_eq!(read.params["count"], 12);
        assert_eq!(read.protections, "sandbox: landlock ABI 6");
        assert_eq!(read.sandbox, SandboxSettings::default());
        assert_eq!(read.seed_key, "");
        assert_eq!(read.bots[1].fingerprint, "bb");
        assert_eq!(read.time_control(), TimeControl::PerMove { limit: Duration::from_secs(1) });
    }
}
