//! The results folder of a tournament: what was played, resuming, and the
//! final files.
//!
//! `tournament.json` records the settings the folder's games were played
//! under; games.csv gets one row per finished game, flushed at once. A run
//! on a folder that holds games already plays only the games missing from
//! it, and refuses settings that differ from those recorded.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::config::{BotEntry, Tournament};
use super::export::{self, Export, Summary};
use super::history::{self, HistoryEntry};
use super::identity::Fingerprint;
use super::openings::RecordedOpenings;
use super::schedule::Schedule;
use super::sprt::SprtSettings;
use super::standings::{Results, gauntlet_standings, standings};
use crate::archive;
use crate::events::{Event, Reporter, Silent};
use crate::games::GameId;
use crate::referee::{GameClock, TimeControl};
use crate::results::{GameRow, GamesCsv};
use crate::text_file::read_bounded;

/// The settings a results folder was played under (tournament.json).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedSettings {
    pub game: GameId,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub seed: u64,
    pub games_per_pair: u32,
    pub startup_timeout_ms: u64,
    /// The limit per move; absent under a game clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_timeout_ms: Option<u64>,
    /// The game clock, when the tournament has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<GameClock>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_margin_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_time_limit: bool,
    pub max_line_bytes: usize,
    /// Bots in file order.
    pub bots: Vec<RecordedBot>,
    /// The protections bots ran under, as said at the start of the last
    /// run. For the record only: a run on a machine with other protections
    /// resumes the same results.
    #[serde(default)]
    pub sandbox: String,
    /// The openings file the setups came from, if the tournament has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<RecordedOpenings>,
    /// The challengers of a gauntlet, by name; empty in a round robin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challengers: Vec<String>,
    /// The sequential test the games were played for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSettings>,
}

/// A bot as a results folder records it: as the tournament file writes
/// it (paths relative to the file, so the folder does not depend on where
/// the checkout lives), and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedBot {
    pub name: String,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The SHA-256 of what runs (see `identity`), as hex; empty in folders
    /// written before arena kept fingerprints.
    #[serde(default)]
    pub fingerprint: String,
    /// The bot's own time control (a handicap), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl RecordedSettings {
    /// The settings of `tournament`, whose bots have `fingerprints` (in
    /// file order).
    pub fn of(tournament: &Tournament, fingerprints: &[Fingerprint]) -> RecordedSettings {
        RecordedSettings {
            game: tournament.setup.game(),
            params: tournament.setup.overrides().clone(),
            seed: tournament.seed,
            games_per_pair: tournament.games_per_pair,
            startup_timeout_ms: tournament.settings.startup_timeout.as_millis() as u64,
            move_timeout_ms: match tournament.settings.time_control {
                TimeControl::PerMove { limit } => Some(limit.as_millis() as u64),
                TimeControl::Clock(_) => None,
            },
            clock: tournament.settings.time_control.clock(),
            time_margin_ms: tournament.settings.time_margin.as_millis() as u64,
            no_time_limit: tournament.settings.no_time_limit,
            max_line_bytes: tournament.settings.max_line_bytes,
            bots: tournament
                .bots
                .iter()
                .zip(fingerprints)
                .map(|(bot, fingerprint)| RecordedBot::of(bot, fingerprint))
                .collect(),
            sandbox: String::new(),
            openings: tournament.openings.as_ref().map(|openings| openings.record()),
            challengers: tournament
                .challengers
                .iter()
                .map(|&index| tournament.bots[index].name.clone())
                .collect(),
            sprt: tournament.sprt,
        }
    }

    /// The settings recorded in `folder`'s tournament.json, if it has one.
    pub fn read(folder: &Path) -> anyhow::Result<Option<RecordedSettings>> {
        let path = folder.join(SETTINGS_JSON);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        let settings = serde_json::from_slice(&bytes).with_context(|| {
            format!("{} is not a tournament.json arena can read", path.display())
        })?;
        Ok(Some(settings))
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
        match &self.openings {
            Some(openings) => schedule.with_seeds(openings.seeds(self.seed)),
            None => schedule,
        }
    }

    /// The time control every bot without one of its own plays under.
    pub fn time_control(&self) -> TimeControl {
        match (self.clock, self.move_timeout_ms) {
            (Some(clock), _) => TimeControl::Clock(clock),
            (None, Some(move_ms)) => TimeControl::PerMove { limit: Duration::from_millis(move_ms) },
            (None, None) => TimeControl::default(),
        }
    }

    pub fn bot_names(&self) -> Vec<String> {
        self.bots.iter().map(|bot| bot.name.clone()).collect()
    }

    /// The settings that keep a folder played under `self` from resuming
    /// under `newer`: any but the bots, and fewer games per pairing (more
    /// only adds games).
    fn resume_differences(&self, newer: &RecordedSettings) -> Vec<String> {
        let mut differences = self.setting_differences(newer);
        if newer.games_per_pair < self.games_per_pair {
            // An SPRT's games per pairing are its most games.
            let key = if newer.sprt.is_some() { "max_games" } else { "games_per_pair" };
            differences.push(format!(
                "{key} was {}, now {} (fewer would leave games out: it may only grow)",
                self.games_per_pair, newer.games_per_pair
            ));
        }
        differences
    }

    /// The settings (bots and games per pairing aside) that make `newer` a
    /// different tournament than `self`.
    fn setting_differences(&self, newer: &RecordedSettings) -> Vec<String> {
        let mut differences = Vec::new();
        let mut compare = |what: &str, old: String, new: String| {
            if old != new {
                differences.push(format!("{what} was {old}, now {new}"));
            }
        };
        compare("game", self.game.to_string(), newer.game.to_string());
        compare(
            "params",
            serde_json::to_string(&self.params).unwrap_or_default(),
            serde_json::to_string(&newer.params).unwrap_or_default(),
        );
        compare("seed", self.seed.to_string(), newer.seed.to_string());
        compare(
            "startup_timeout",
            format!("{}ms", self.startup_timeout_ms),
            format!("{}ms", newer.startup_timeout_ms),
        );
        compare("time control", self.time_control().to_string(), newer.time_control().to_string());
        compare(
            "time_margin",
            format!("{}ms", self.time_margin_ms),
            format!("{}ms", newer.time_margin_ms),
        );
        let limit = |off: bool| if off { "off (--no-time-limit)" } else { "on" }.to_owned();
        compare("time limit", limit(self.no_time_limit), limit(newer.no_time_limit));
        for old in &self.bots {
            let Some(new) = newer.bots.iter().find(|bot| bot.name == old.name) else { continue };
            let own = |control: Option<TimeControl>| {
                control.map_or_else(|| "the tournament's".to_owned(), |control| control.to_string())
            };
            compare(
                &format!("bot `{}`'s time control", old.name),
                own(old.time_control),
                own(new.time_control),
            );
        }
        compare(
            "max_line_bytes",
            self.max_line_bytes.to_string(),
            newer.max_line_bytes.to_string(),
        );
        let names = |names: &[String]| match names {
            [] => "none (a round robin)".to_owned(),
            names => names.join(", "),
        };
        compare("challengers", names(&self.challengers), names(&newer.challengers));
        let test = |sprt: &Option<SprtSettings>| match sprt {
            None => "none".to_owned(),
            Some(test) => format!(
                "elo0 {}, elo1 {}, alpha {}, beta {}",
                test.elo0, test.elo1, test.alpha, test.beta
            ),
        };
        compare("sprt", test(&self.sprt), test(&newer.sprt));
        // By content: the same file moved elsewhere plays the same games.
        let content = |openings: &Option<RecordedOpenings>| {
            openings.as_ref().map(|openings| openings.sha256.clone())
        };
        if content(&self.openings) != content(&newer.openings) {
            let describe = |openings: &Option<RecordedOpenings>| {
                openings.as_ref().map_or("none".to_owned(), RecordedOpenings::describe)
            };
            differences.push(format!(
                "openings was {}, now {}",
                describe(&self.openings),
                describe(&newer.openings)
            ));
        }
        differences
    }

    /// Which bots recorded here are gone from `newer` or are other
    /// versions there. Bots recorded without a fingerprint (by an earlier
    /// arena) are taken to be the versions `newer` has.
    fn bot_changes(&self, newer: &RecordedSettings) -> BotChanges {
        let mut changes = BotChanges::default();
        for old in &self.bots {
            match newer.bots.iter().find(|bot| bot.name == old.name) {
                None => {
                    changes.removed.push((old.name.clone(), old.short_fingerprint().to_owned()))
                }
                Some(_) if old.fingerprint.is_empty() => changes.adopted.push(old.name.clone()),
                Some(new) if new.fingerprint != old.fingerprint => changes.changed.push((
                    old.name.clone(),
                    old.short_fingerprint().to_owned(),
                    new.short_fingerprint().to_owned(),
                )),
                Some(_) => {}
            }
        }
        changes
    }

    /// Everything that keeps two shards of `arena run --shard` from being
    /// one tournament: any setting, and any bot recorded differently.
    fn merge_differences(&self, other: &RecordedSettings) -> Vec<String> {
        let mut differences = self.setting_differences(other);
        if self.games_per_pair != other.games_per_pair {
            differences.push(format!(
                "games_per_pair was {}, now {}",
                self.games_per_pair, other.games_per_pair
            ));
        }
        for bot in &self.bots {
            match other.bots.iter().find(|theirs| theirs.name == bot.name) {
                None => differences.push(format!("bot `{}` is only in the first", bot.name)),
                Some(theirs) => {
                    let found = bot.differences(theirs);
                    if !found.is_empty() {
                        differences.push(format!("bot `{}`: {}", bot.name, found.join(", ")));
                    }
                }
            }
        }
        for theirs in &other.bots {
            if !self.bots.iter().any(|bot| bot.name == theirs.name) {
                differences.push(format!("bot `{}` is only in the second", theirs.name));
            }
        }
        differences
    }
}

/// How the bots of a results folder differ from the tournament file's.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BotChanges {
    /// Bots no longer in the file, with their short fingerprint.
    pub removed: Vec<(String, String)>,
    /// Bots whose fingerprint changed: name, old and new short fingerprint.
    pub changed: Vec<(String, String, String)>,
    /// Bots recorded without a fingerprint, taken as the file's versions.
    pub adopted: Vec<String>,
}

impl BotChanges {
    /// The bots whose games no longer count.
    fn retired(&self) -> std::collections::HashSet<&str> {
        self.removed
            .iter()
            .map(|c| c.0.as_str())
            .chain(self.changed.iter().map(|c| c.0.as_str()))
            .collect()
    }
}

impl RecordedBot {
    fn of(bot: &BotEntry, fingerprint: &Fingerprint) -> RecordedBot {
        RecordedBot {
            name: bot.name.clone(),
            command: bot.written_command.clone(),
            dir: bot.written_dir.clone(),
            env: bot.env.clone(),
            version: bot.version.clone(),
            fingerprint: fingerprint.hex(),
            time_control: bot.time_control,
        }
    }

    /// The first 12 hex digits of the fingerprint, for messages.
    pub fn short_fingerprint(&self) -> &str {
        self.fingerprint.get(..12).unwrap_or("(none)")
    }

    /// How `other` differs from this record of the same bot, in words.
    fn differences(&self, other: &RecordedBot) -> Vec<String> {
        let mut found = Vec::new();
        let mut compare = |what: &str, one: String, two: String| {
            if one != two {
                found.push(format!("{what} {one} / {two}"));
            }
        };
        let words = |command: &[String]| shell_words::join(command);
        compare("command", words(&self.command), words(&other.command));
        compare("dir", format!("{:?}", self.dir), format!("{:?}", other.dir));
        compare("env", format!("{:?}", self.env), format!("{:?}", other.env));
        compare("version", format!("{:?}", self.version), format!("{:?}", other.version));
        if self.fingerprint != other.fingerprint {
            compare(
                "files (fingerprint)",
                self.short_fingerprint().to_owned(),
                other.short_fingerprint().to_owned(),
            );
        }
        found
    }
}

/// The identity of a game across runs: who sits where, and the setup (its
/// round and its seed, which must agree).
pub type GameKey = (String, String, u64, u64);

pub fn key_of_row(row: &GameRow) -> GameKey {
    (row.seat1.clone(), row.seat2.clone(), row.round, row.seed)
}

/// An open results folder.
pub struct ResultsFolder {
    pub path: PathBuf,
    pub settings: RecordedSettings,
    /// The games already on disk, from earlier runs. Rows themselves stay
    /// on disk, so memory does not grow with the number of games.
    pub done: std::collections::HashSet<GameKey>,
    games_csv: GamesCsv,
    /// Whether this run has written tournament.json yet.
    settings_written: bool,
    /// The number the next transcript of the archive gets.
    pub next_transcript: u64,
    /// The folder's lock, released when the folder is dropped.
    _lock: File,
}

/// The lock file that makes one arena the only writer of a results folder.
const LOCK_FILE: &str = ".arena.lock";

/// Takes `folder`'s lock, or names the arena that holds it.
fn lock_folder(folder: &Path) -> anyhow::Result<File> {
    let path = folder.join(LOCK_FILE);
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    // An flock, released when the file closes (or arena dies).
    if file.try_lock().is_err() {
        let mut holder = String::new();
        let _ = std::io::Read::read_to_string(&mut file, &mut holder);
        bail!(ResumeRefused(format!(
            "{} is in use by another arena (pid {}); wait for it to end, or choose another --out",
            folder.display(),
            holder.trim()
        )));
    }
    file.set_len(0)?;
    write!(file, "{}", std::process::id())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file)
}

/// Removes what arena writes in a results folder: its own files, and the
/// transcripts and logs named as arena names them (and their folders, if
/// that leaves them empty). Anything else stays.
fn remove_own_files(folder: &Path) -> anyhow::Result<()> {
    for file in OWN_FILES {
        remove_if_present(&folder.join(file))?;
    }
    for (sub, suffix) in [("transcripts", ".jsonl"), ("logs", ".log")] {
        let sub = folder.join(sub);
        let Ok(entries) = std::fs::read_dir(&sub) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("game-") && name.ends_with(suffix) {
                remove_if_present(&entry.path())?;
            }
        }
        let _ = std::fs::remove_dir(&sub);
    }
    Ok(())
}

pub const GAMES_CSV: &str = "games.csv";
/// One line per completed run: when, how many games, and the ratings then.
pub const HISTORY_FILE: &str = "history.jsonl";
const SETTINGS_JSON: &str = "tournament.json";
const OWN_FILES: [&str; 8] = [
    GAMES_CSV,
    "standings.csv",
    "crosstable.csv",
    SETTINGS_JSON,
    "set-aside.csv",
    HISTORY_FILE,
    archive::ARCHIVE_FILE,
    archive::INDEX_FILE,
];

impl ResultsFolder {
    /// Opens (or creates) `path` for `settings`, as its only writer: a lock
    /// is held until the folder is dropped. With `fresh`, whatever arena
    /// wrote there before is removed first (and nothing else).
    ///
    /// tournament.json is written with the first game recorded, so a run
    /// that fails before any game leaves nothing that would refuse the
    /// corrected command.
    pub fn open(
        path: &Path,
        settings: RecordedSettings,
        fresh: bool,
        reporter: &dyn Reporter,
    ) -> anyhow::Result<ResultsFolder> {
        std::fs::create_dir_all(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let lock = lock_folder(path)?;
        let settings_path = path.join(SETTINGS_JSON);
        let csv_path = path.join(GAMES_CSV);
        let has_rows = |csv: &Path| -> anyhow::Result<bool> {
            Ok(csv.exists() && !read_games_csv(csv, true, reporter)?.is_empty())
        };
        if fresh {
            if !settings_path.exists() && has_rows(&csv_path)? {
                bail!(ResumeRefused(format!(
                    "{} holds a games.csv but no tournament.json: arena did not write it, so --fresh leaves it alone; choose another --out",
                    path.display()
                )));
            }
            remove_own_files(path)?;
        }
        let logs = path.join("logs");
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
        let mut bot_changes = BotChanges::default();
        if settings_path.exists() {
            let recorded: RecordedSettings = serde_json::from_slice(
                &std::fs::read(&settings_path)
                    .with_context(|| format!("cannot read {}", settings_path.display()))?,
            )
            .with_context(|| {
                format!("{} is not a tournament.json arena can read", settings_path.display())
            })?;
            let differences = recorded.resume_differences(&settings);
            if !differences.is_empty() {
                bail!(ResumeRefused(format!(
                    "{} holds results of a different tournament: {}.\nRun with --fresh to discard them, or choose another --out.",
                    path.display(),
                    differences.join("; ")
                )));
            }
            bot_changes = recorded.bot_changes(&settings);
        } else if has_rows(&csv_path)? {
            bail!(ResumeRefused(format!(
                "{} holds a games.csv but no tournament.json, so arena cannot tell what it belongs to; choose another --out",
                path.display()
            )));
        }
        let retired = bot_changes.retired();
        let set_aside = if retired.is_empty() || !csv_path.exists() {
            Vec::new()
        } else {
            set_aside_rows(path, |row| {
                retired.contains(row.seat1.as_str()) || retired.contains(row.seat2.as_str())
            })?
        };
        let count_of = |bot: &str| {
            set_aside.iter().filter(|row| row.seat1 == bot || row.seat2 == bot).count() as u64
        };
        for (bot, from, to) in &bot_changes.changed {
            reporter.report(&Event::BotChanged { bot, from, to, set_aside: count_of(bot) });
        }
        for (bot, from) in &bot_changes.removed {
            reporter.report(&Event::BotChanged { bot, from, to: "", set_aside: count_of(bot) });
        }
        if !bot_changes.adopted.is_empty() {
            let message = format!(
                "{} was written by an earlier arena that kept no fingerprints: taking bots {} to be the versions the file names now",
                settings_path.display(),
                bot_changes.adopted.join(", ")
            );
            reporter.report(&Event::Warning { message: &message });
        }
        let rows = read_games_csv(&csv_path, true, reporter)?;
        let rows = set_aside_unplayed(path, rows, reporter)?;
        let (rows, next_transcript) = check_transcripts(path, rows, reporter)?;
        let done = rows.iter().map(key_of_row).collect();
        let games_csv = GamesCsv::append_to(&csv_path)
            .with_context(|| format!("cannot open {}", csv_path.display()))?;
        let mut folder = ResultsFolder {
            path: path.to_path_buf(),
            settings,
            done,
            games_csv,
            settings_written: false,
            next_transcript,
            _lock: lock,
        };
        if bot_changes != BotChanges::default() {
            // Recorded at once: the rows that remain are the new versions'.
            folder.write_settings()?;
        }
        Ok(folder)
    }

    /// Appends `row` to games.csv (flushed); the first one of a run writes
    /// tournament.json first, so no row stands without its settings.
    pub fn append(&mut self, row: &GameRow) -> anyhow::Result<()> {
        self.write_settings()?;
        let path = self.path.join(GAMES_CSV);
        self.games_csv
            .append(row)
            .with_context(|| format!("cannot append to {}", path.display()))?;
        Ok(())
    }

    fn write_settings(&mut self) -> anyhow::Result<()> {
        if !self.settings_written {
            let json = serde_json::to_vec_pretty(&self.settings)?;
            write_atomically(&self.path.join(SETTINGS_JSON), &json)?;
            self.settings_written = true;
        }
        Ok(())
    }

    /// Puts games.csv in schedule order (numbered by `schedule`) and writes
    /// standings.csv, crosstable.csv and `exports`.
    ///
    /// Rows are streamed, never all held: one pass counts them and notes
    /// where each lies; games.csv is rewritten only if it is out of order or
    /// needs new numbers, copying row by row.
    pub fn finish(
        &mut self,
        schedule: &Schedule,
        exports: &[Export],
        reporter: &dyn Reporter,
    ) -> anyhow::Result<Vec<super::standings::Standing>> {
        self.write_settings()?;
        let path = self.path.join(GAMES_CSV);
        let names = self.settings.bot_names();
        let numbering = Numbering::new(schedule, &names);
        let mut results = Results::new(&names);
        let mut places: Vec<(u64, u64, u64)> = Vec::new();
        let mut renumbered = false;
        let mut reader = csv::Reader::from_reader(std::io::BufReader::new(
            File::open(&path).with_context(|| format!("cannot open {}", path.display()))?,
        ));
        let headers = reader.headers()?.clone();
        let header_end = reader.position().byte();
        let mut record = csv::StringRecord::new();
        // One bit per game of the schedule: a second row for a game is set
        // aside like a row that is no game of it.
        let mut seen = vec![0u64; schedule.len().div_ceil(64) as usize];
        let mut set_aside: Vec<(u64, u64)> = Vec::new();
        loop {
            let start = reader.position().byte();
            if !reader.read_record(&mut record)? {
                break;
            }
            let mut row: GameRow = record.deserialize(Some(&headers)).with_context(|| {
                format!("{}: row {} cannot be read", path.display(), places.len() + 2)
            })?;
            let end = reader.position().byte();
            let Some(changed) = numbering.apply(&mut row) else {
                set_aside.push((start, end));
                continue;
            };
            let bit = row.game_index - 1;
            let word = &mut seen[(bit / 64) as usize];
            if *word & (1 << (bit % 64)) != 0 {
                set_aside.push((start, end));
                continue;
            }
            *word |= 1 << (bit % 64);
            renumbered |= changed;
            results.add(&row);
            places.push((row.game_index, start, end));
        }
        if !set_aside.is_empty() {
            let aside = self.path.join(SET_ASIDE_CSV);
            move_rows(&path, header_end, &set_aside, &aside)?;
            let message = format!(
                "{} rows of {} are no game of this tournament or repeat one; they are moved to {} and not counted",
                set_aside.len(),
                path.display(),
                aside.display()
            );
            reporter.report(&Event::Warning { message: &message });
        }
        if renumbered || !set_aside.is_empty() || !places.is_sorted_by_key(|place| place.0) {
            places.sort_by_key(|place| place.0);
            rewrite_in_order(
                &path,
                header_end,
                &places,
                renumbered.then_some((&numbering, &headers)),
            )?;
        }
        write_summaries(&self.path, &self.settings, &results, exports, true)
    }
}

/// Where rows of games.csv that are no game of the tournament go.
const SET_ASIDE_CSV: &str = "set-aside.csv";

/// Sets aside the rows of `rows` (games.csv's) of games a withdrawn bot
/// did not play (forfeit `withdrawn`), so that this run plays them: the bot
/// may have been fixed since (tournament/withdrawal.rs). Returns the rows
/// kept.
fn set_aside_unplayed(
    folder: &Path,
    rows: Vec<GameRow>,
    reporter: &dyn Reporter,
) -> anyhow::Result<Vec<GameRow>> {
    let unplayed = |row: &GameRow| {
        [row.forfeit1, row.forfeit2].contains(&Some(crate::protocol::ForfeitReason::Withdrawn))
    };
    if !rows.iter().any(unplayed) {
        return Ok(rows);
    }
    let moved = set_aside_rows(folder, unplayed)?;
    let mut bots: Vec<&str> = moved.iter().map(|row| row.forfeiter.as_str()).collect();
    bots.sort_unstable();
    bots.dedup();
    let message = format!(
        "{} games of {} were not played, their bot withdrawn ({}): they are set aside (set-aside.csv) and played now",
        moved.len(),
        folder.join(GAMES_CSV).display(),
        bots.join(", ")
    );
    reporter.report(&Event::Warning { message: &message });
    Ok(rows.into_iter().filter(|row| !unplayed(row)).collect())
}

/// Sets aside the rows of `rows` (games.csv's) whose transcript should be
/// in the archive but is not (a crash came between the row and its
/// transcript), so that those games are played again; returns the rows
/// kept and the number the next transcript gets.
fn check_transcripts(
    folder: &Path,
    rows: Vec<GameRow>,
    reporter: &dyn Reporter,
) -> anyhow::Result<(Vec<GameRow>, u64)> {
    let numbers: Vec<u64> =
        rows.iter().filter_map(|row| archive::parse_reference(&row.transcript)).collect();
    let archived = if folder.join(archive::ARCHIVE_FILE).exists() {
        // Repairs what a crash left (a torn frame) before reading.
        drop(archive::ArchiveWriter::open(folder)?);
        Some(archive::ArchiveReader::open(folder)?)
    } else {
        None
    };
    let highest = archived.as_ref().map_or(0, archive::ArchiveReader::highest);
    let next = numbers.iter().copied().chain([highest]).max().unwrap_or(0) + 1;
    let missing = |row: &GameRow| {
        archive::parse_reference(&row.transcript)
            .is_some_and(|number| !archived.as_ref().is_some_and(|found| found.contains(number)))
    };
    if !rows.iter().any(missing) {
        return Ok((rows, next));
    }
    let lost = set_aside_rows(folder, missing)?;
    let message = format!(
        "{} games of {} lost their transcripts in a crash: they are set aside (set-aside.csv) and played again",
        lost.len(),
        folder.join(GAMES_CSV).display()
    );
    reporter.report(&Event::Warning { message: &message });
    Ok((rows.into_iter().filter(|row| !missing(row)).collect(), next))
}

/// Moves the rows of `folder`'s games.csv that `retire` picks to
/// set-aside.csv (kept, not counted) and returns them.
fn set_aside_rows(
    folder: &Path,
    retire: impl Fn(&GameRow) -> bool,
) -> anyhow::Result<Vec<GameRow>> {
    let path = folder.join(GAMES_CSV);
    let mut reader = csv::Reader::from_reader(std::io::BufReader::new(
        File::open(&path).with_context(|| format!("cannot open {}", path.display()))?,
    ));
    let headers = reader.headers()?.clone();
    let header_end = reader.position().byte();
    let mut record = csv::StringRecord::new();
    let (mut kept, mut retired, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let start = reader.position().byte();
        if !reader.read_record(&mut record)? {
            break;
        }
        let end = reader.position().byte();
        let row: GameRow = record.deserialize(Some(&headers)).with_context(|| {
            format!("{}: row {} cannot be read", path.display(), kept.len() + retired.len() + 2)
        })?;
        if retire(&row) {
            retired.push((start, end));
            rows.push(row);
        } else {
            kept.push((0, start, end));
        }
    }
    if !retired.is_empty() {
        move_rows(&path, header_end, &retired, &folder.join(SET_ASIDE_CSV))?;
        rewrite_in_order(&path, header_end, &kept, None)?;
    }
    Ok(rows)
}

/// Appends the rows of `games` at `ranges` to `aside` (with the header if it
/// is new).
fn move_rows(
    games: &Path,
    header_end: u64,
    ranges: &[(u64, u64)],
    aside: &Path,
) -> anyhow::Result<()> {
    use std::os::unix::fs::FileExt;
    let source = File::open(games).with_context(|| format!("cannot open {}", games.display()))?;
    let new = !aside.exists();
    let mut out = File::options()
        .create(true)
        .append(true)
        .open(aside)
        .with_context(|| format!("cannot open {}", aside.display()))?;
    let mut bytes = vec![0; header_end as usize];
    if new {
        source.read_exact_at(&mut bytes, 0)?;
        out.write_all(&bytes)?;
    }
    for &(start, end) in ranges {
        bytes.resize((end - start) as usize, 0);
        source.read_exact_at(&mut bytes, start)?;
        out.write_all(&bytes).with_context(|| format!("cannot write {}", aside.display()))?;
    }
    out.sync_all()?;
    Ok(())
}

/// Rewrites games.csv with its rows at `places` (byte ranges) in the given
/// order; with `renumber`, each row is read and numbered again on the way.
fn rewrite_in_order(
    path: &Path,
    header_end: u64,
    places: &[(u64, u64, u64)],
    renumber: Option<(&Numbering, &csv::StringRecord)>,
) -> anyhow::Result<()> {
    use std::os::unix::fs::FileExt;
    let source = File::open(path)?;
    let temporary = path.with_extension("tmp-arena");
    let mut out = std::io::BufWriter::new(File::create(&temporary)?);
    let mut bytes = vec![0; header_end as usize];
    source.read_exact_at(&mut bytes, 0)?;
    out.write_all(&bytes)?;
    for &(_, start, end) in places {
        bytes.resize((end - start) as usize, 0);
        source.read_exact_at(&mut bytes, start)?;
        match renumber {
            None => out.write_all(&bytes)?,
            Some((numbering, headers)) => {
                let mut reader =
                    csv::ReaderBuilder::new().has_headers(false).from_reader(&bytes[..]);
                let mut record = csv::StringRecord::new();
                reader.read_record(&mut record)?;
                let mut row: GameRow = record
                    .deserialize(Some(headers))
                    .context("a row of games.csv changed while it was being rewritten")?;
                numbering.apply(&mut row);
                let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(&mut out);
                writer.serialize(&row)?;
                writer.flush()?;
            }
        }
    }
    let file = out.into_inner().map_err(|error| error.into_error())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Where each game sits in the current schedule, by its identity.
struct Numbering<'a> {
    schedule: &'a Schedule,
    bots: &'a [String],
    index: HashMap<&'a str, usize>,
}

impl<'a> Numbering<'a> {
    fn new(schedule: &'a Schedule, bots: &'a [String]) -> Numbering<'a> {
        let index = bots.iter().enumerate().map(|(i, bot)| (bot.as_str(), i)).collect();
        Numbering { schedule, bots, index }
    }

    /// Gives `row` the schedule's number, round and pairing; whether any
    /// changed, or `None` if the row is no game of the schedule.
    fn apply(&self, row: &mut GameRow) -> Option<bool> {
        let (Some(&one), Some(&two)) =
            (self.index.get(row.seat1.as_str()), self.index.get(row.seat2.as_str()))
        else {
            return None;
        };
        let game = self.schedule.find([one, two], row.round, row.seed)?;
        let pairing = format!("{} vs {}", self.bots[game.pairing[0]], self.bots[game.pairing[1]]);
        let changed =
            row.game_index != game.index || row.round != game.round || row.pairing != pairing;
        row.game_index = game.index;
        row.round = game.round;
        row.pairing = pairing;
        Some(changed)
    }
}

/// A results folder that does not belong to this tournament.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ResumeRefused(pub String);

/// Puts rows in schedule order and gives them the schedule's numbering.
/// Rows that are no game of the schedule are dropped.
pub fn renumber(rows: &mut Vec<GameRow>, schedule: &Schedule, bots: &[String]) {
    let numbering = Numbering::new(schedule, bots);
    rows.retain_mut(|row| numbering.apply(row).is_some());
    rows.sort_by_key(|row| row.game_index);
}

/// Writes games.csv (the rows, in order), standings.csv, crosstable.csv
/// and `exports`, each replaced atomically.
pub fn write_final_files(
    folder: &Path,
    settings: &RecordedSettings,
    rows: &[GameRow],
    exports: &[Export],
) -> anyhow::Result<Vec<super::standings::Standing>> {
    let mut games = csv::Writer::from_writer(Vec::new());
    for row in rows {
        games.serialize(row)?;
    }
    write_atomically(&folder.join(GAMES_CSV), &games.into_inner()?)?;
    let results = Results::from_rows(&settings.bot_names(), rows);
    write_summaries(folder, settings, &results, exports, true)
}

/// Writes the exports asked for from a results folder as it stands (for
/// `arena report`), changing nothing in it; returns its standings.
pub fn report_folder(
    folder: &Path,
    exports: &[Export],
) -> anyhow::Result<Vec<super::standings::Standing>> {
    let path = folder.join(SETTINGS_JSON);
    let bytes = std::fs::read(&path).with_context(|| {
        format!("{} is not a results folder: cannot read {}", folder.display(), path.display())
    })?;
    let settings: RecordedSettings = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a tournament.json arena can read", path.display()))?;
    let rows = read_games_csv(&folder.join(GAMES_CSV), false, &Silent)?;
    let results = Results::from_rows(&settings.bot_names(), &rows);
    write_summaries(folder, &settings, &results, exports, false)
}

/// Writes `exports` and, when `record`ing a run's end, standings.csv,
/// crosstable.csv and a history.jsonl line; each file is replaced
/// atomically.
fn write_summaries(
    folder: &Path,
    settings: &RecordedSettings,
    results: &Results,
    exports: &[Export],
    record: bool,
) -> anyhow::Result<Vec<super::standings::Standing>> {
    let table = match settings.challengers.is_empty() {
        true => standings(results),
        false => gauntlet_standings(results),
    };
    let history = if record {
        history::append(folder, HistoryEntry::now(&table, settings))?
    } else {
        history::read(folder)
    };
    let summary = Summary { folder, history: &history, settings, results, table: &table };
    let outputs = if record {
        export::outputs(folder, exports)
    } else {
        exports.iter().map(|export| (export.path.clone(), export.format.exporter())).collect()
    };
    for (path, exporter) in outputs {
        write_atomically(&path, &exporter.render(&summary))?;
    }
    Ok(table)
}

/// The largest transcript read: far above a game at the largest parameters.
pub const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// The transcript of game `game` of the results folder `folder`, found
/// through its games.csv row: in the folder's archive or in a file.
pub fn transcript_of_game(folder: &Path, game: u64) -> Result<String, String> {
    let rows = read_games_csv(&folder.join(GAMES_CSV), false, &Silent)
        .map_err(|error| format!("{error:#}"))?;
    let row = rows.iter().find(|row| row.game_index == game).ok_or_else(|| {
        format!(
            "{} has no game {game} (it holds {} games)",
            folder.join(GAMES_CSV).display(),
            rows.len()
        )
    })?;
    read_transcript(folder, row)
}

/// The transcript of the game of `row`, a row of `folder`'s games.csv.
pub fn read_transcript(folder: &Path, row: &GameRow) -> Result<String, String> {
    let game = row.game_index;
    let bytes = if let Some(number) = archive::parse_reference(&row.transcript) {
        archive::ArchiveReader::open(folder)
            .and_then(|mut archive| archive.read(number))
            .map_err(|error| error.to_string())?
    } else if row.transcript.is_empty() {
        return Err(format!("game {game} has no transcript (the run had transcripts = false)"));
    } else {
        let path = folder.join(&row.transcript);
        read_bounded(&path, MAX_TRANSCRIPT_BYTES)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?
            .into_bytes()
    };
    String::from_utf8(bytes).map_err(|_| format!("the transcript of game {game} is not UTF-8"))
}

/// Reads games.csv. A last line without its newline is what a crash leaves
/// behind mid-write: it is dropped (and, with `repair`, cut from the file).
pub fn read_games_csv(
    path: &Path,
    repair: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<Vec<GameRow>> {
    let mut file = match OpenOptions::new().read(true).write(repair).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot open {}", path.display())),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
    let complete = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |last| last + 1);
    if complete < bytes.len() {
        let message = format!(
            "dropping an unfinished last line of {} (left by an interrupted write)",
            path.display()
        );
        reporter.report(&Event::Warning { message: &message });
        if repair {
            file.set_len(complete as u64)?;
            file.seek(SeekFrom::End(0))?;
        }
    }
    let mut reader = csv::Reader::from_reader(&bytes[..complete]);
    let mut rows = Vec::new();
    for (number, row) in reader.deserialize::<GameRow>().enumerate() {
        rows.push(
            row.with_context(|| format!("{}: row {} cannot be read", path.display(), number + 2))?,
        );
    }
    Ok(rows)
}

fn remove_if_present(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(error).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Writes a file so that readers see the old or the new content, never half.
pub fn write_atomically(path: &Path, content: &[u8]) -> anyhow::Result<()> {
    // Named after this process, so that two writers never share one.
    let temporary = path.with_extension(format!("{}.tmp-arena", std::process::id()));
    let written = File::create(&temporary)
        .and_then(|mut file| file.write_all(content).and_then(|()| file.sync_all()))
        .with_context(|| format!("cannot write {}", temporary.display()));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Combines the folders of a sharded run into `out`: games.csv holding every
/// row once, in schedule order, and standings and crosstable over them all,
/// the same files one machine would have written. Transcripts and logs are
/// copied along. Returns the number of games and the standings.
///
/// A folder that is missing, holds no games.csv or a torn one, or games of
/// the schedule that no folder holds, fail the merge unless `partial`
/// (then they are warnings). A folder of another tournament, or two folders
/// with different results for one game, always fail it. The output is made
/// beside `out` and moved into place whole: a failed merge leaves nothing.
pub fn merge_folders(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(usize, Vec<super::standings::Standing>)> {
    let staging = staging_folder(out)?;
    let merged = merge_into(shards, staging.path(), exports, partial, reporter);
    let merged = merged.and_then(|merged| {
        // `out` may exist only as an empty folder (clap's caller checked the
        // rest); the staged folder replaces it.
        let _ = std::fs::remove_dir(out);
        std::fs::rename(staging.path(), out)
            .with_context(|| format!("cannot move the merged results to {}", out.display()))?;
        Ok(merged)
    });
    // Gone already when the merge succeeded; removed when it failed.
    drop(staging);
    merged
}

/// A temporary folder beside `out`, on the same file system.
fn staging_folder(out: &Path) -> anyhow::Result<tempfile::TempDir> {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    tempfile::Builder::new()
        .prefix(".arena-merge-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot make a folder in {}", parent.display()))
}

/// Whether two rows of one game say the same result (timings aside).
fn same_result(one: &GameRow, other: &GameRow) -> bool {
    (&one.winner, &one.outcome, &one.reason, &one.forfeit1, &one.forfeit2)
        == (&other.winner, &other.outcome, &other.reason, &other.forfeit1, &other.forfeit2)
        && (one.score1, one.score2, one.plies) == (other.score1, other.score2, other.plies)
}

fn merge_into(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(usize, Vec<super::standings::Standing>)> {
    let mut settings: Option<RecordedSettings> = None;
    let mut rows: BTreeMap<GameKey, (GameRow, &Path)> = BTreeMap::new();
    // What --partial lets pass.
    let mut gaps: Vec<String> = Vec::new();
    for shard in shards {
        if !shard.is_dir() {
            gaps.push(format!("{} is not a folder", shard.display()));
            continue;
        }
        let path = shard.join(SETTINGS_JSON);
        let recorded: RecordedSettings =
            serde_json::from_slice(&std::fs::read(&path).with_context(|| {
                format!(
                    "{} is not a results folder: cannot read {}",
                    shard.display(),
                    path.display()
                )
            })?)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match &settings {
            None => settings = Some(recorded),
            Some(first) => {
                let differences = first.merge_differences(&recorded);
                if !differences.is_empty() {
                    bail!(ResumeRefused(format!(
                        "{} belongs to a different tournament than {}: {}",
                        shard.display(),
                        shards[0].display(),
                        differences.join("; ")
                    )));
                }
            }
        }
        let csv = shard.join(GAMES_CSV);
        match std::fs::read(&csv) {
            Err(_) => {
                gaps.push(format!("{} holds no games.csv", shard.display()));
                continue;
            }
            Ok(bytes) if bytes.last().is_some_and(|&last| last != b'\n') => {
                gaps.push(format!("{} ends in an unfinished row", csv.display()));
            }
            Ok(_) => {}
        }
        for row in read_games_csv(&csv, false, reporter)? {
            match rows.entry(key_of_row(&row)) {
                std::collections::btree_map::Entry::Vacant(place) => {
                    place.insert((row, shard));
                }
                std::collections::btree_map::Entry::Occupied(place) => {
                    let (kept, from) = place.get();
                    if !same_result(kept, &row) {
                        bail!(ResumeRefused(format!(
                            "game {} ({} against {}, round {}) has one result in {} and another in {}",
                            row.game_index,
                            row.seat1,
                            row.seat2,
                            row.round,
                            from.display(),
                            shard.display()
                        )));
                    }
                }
            }
        }
        for folder in ["transcripts", "logs"] {
            copy_folder(&shard.join(folder), &out.join(folder))?;
        }
    }
    let Some(settings) = settings else {
        bail!(ResumeRefused(format!(
            "none of the folders is a results folder: {}",
            gaps.join("; ")
        )));
    };
    write_atomically(&out.join(SETTINGS_JSON), &serde_json::to_vec_pretty(&settings)?)?;
    let names = settings.bot_names();
    let schedule = settings.schedule();
    let mut rows = copy_transcripts(rows.into_values().collect(), out, &mut gaps)?;
    renumber(&mut rows, &schedule, &names);
    let missing = schedule.len().saturating_sub(rows.len() as u64);
    if missing > 0 {
        gaps.push(format!("{missing} games of the schedule are in none of the folders"));
    }
    if !gaps.is_empty() {
        if !partial {
            bail!(ResumeRefused(format!(
                "the folders do not make a whole tournament: {}; merge what there is with --partial",
                gaps.join("; ")
            )));
        }
        for gap in &gaps {
            let message = format!("{gap}; the standings cover the rest");
            reporter.report(&Event::Warning { message: &message });
        }
    }
    let table = write_final_files(out, &settings, &rows, exports)?;
    Ok((rows.len(), table))
}

/// Copies each row's transcript from its shard's archive into `out`'s,
/// numbered anew, and points the row at the copy.
/// A transcript that cannot be found is a gap (the row keeps no
/// transcript); a damaged archive fails the merge.
fn copy_transcripts(
    rows: Vec<(GameRow, &Path)>,
    out: &Path,
    gaps: &mut Vec<String>,
) -> anyhow::Result<Vec<GameRow>> {
    let mut readers: HashMap<&Path, Option<archive::ArchiveReader>> = HashMap::new();
    let mut writer = None;
    let mut next = 1;
    let mut copied = Vec::with_capacity(rows.len());
    for (mut row, shard) in rows {
        if let Some(number) = archive::parse_reference(&row.transcript) {
            let reader = match readers.entry(shard) {
                std::collections::hash_map::Entry::Occupied(found) => found.into_mut(),
                std::collections::hash_map::Entry::Vacant(place) => {
                    place.insert(archive::ArchiveReader::open(shard).ok())
                }
            };
            let transcript = match reader.as_mut().map(|reader| reader.read(number)) {
                Some(Ok(transcript)) => transcript,
                Some(Err(error @ archive::ArchiveError::Damaged { .. })) => {
                    return Err(error.into());
                }
                _ => {
                    gaps.push(format!(
                        "the transcript of game {} is not in {}",
                        row.game_index,
                        shard.join(archive::ARCHIVE_FILE).display()
                    ));
                    row.transcript.clear();
                    copied.push(row);
                    continue;
                }
            };
            let writer = match &mut writer {
                Some(writer) => writer,
                None => writer.insert(archive::ArchiveWriter::open(out)?),
            };
            writer.append(&archive::Frame::compress(next, &transcript)?)?;
            row.transcript = archive::reference(next);
            next += 1;
        }
        copied.push(row);
    }
    Ok(copied)
}

fn copy_folder(from: &Path, to: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else { return Ok(()) };
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in entries {
        let entry = entry?;
        std::fs::copy(entry.path(), to.join(entry.file_name()))
            .with_context(|| format!("cannot copy {}", entry.path().display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::standings::tests::row;

    fn settings() -> RecordedSettings {
        let bot = |name: &str| RecordedBot {
            name: name.into(),
            command: vec![name.into()],
            dir: None,
            env: BTreeMap::new(),
            version: None,
            fingerprint: format!("{name:0>64}"),
            time_control: None,
        };
        RecordedSettings {
            game: GameId::NumberSnatch,
            params: serde_json::Map::new(),
            seed: 4,
            games_per_pair: 2,
            startup_timeout_ms: 5000,
            move_timeout_ms: Some(1000),
            clock: None,
            time_margin_ms: 0,
            no_time_limit: false,
            max_line_bytes: 65536,
            bots: vec![bot("a"), bot("b"), bot("c")],
            sandbox: String::new(),
            openings: None,
            challengers: Vec::new(),
            sprt: None,
        }
    }

    #[test]
    fn more_games_per_pair_resume_but_fewer_or_other_openings_do_not() {
        let old = settings();
        let mut more = old.clone();
        more.games_per_pair = 6;
        assert!(old.resume_differences(&more).is_empty());
        let fewer = more.resume_differences(&old);
        assert_eq!(fewer.len(), 1);
        assert!(fewer[0].starts_with("games_per_pair was 6, now 2"), "{fewer:?}");
        // Shards are one tournament only with the same number.
        assert_eq!(old.merge_differences(&more), ["games_per_pair was 2, now 6"]);

        let openings = |sha256: &str| RecordedOpenings {
            file: "o.jsonl".into(),
            sha256: sha256.into(),
            setups: vec![super::super::openings::RecordedOpening {
                seed: Some(9),
                params: serde_json::Map::new(),
            }],
        };
        let mut with = old.clone();
        with.openings = Some(openings("aa"));
        assert_eq!(
            old.resume_differences(&with),
            ["openings was none, now o.jsonl (1 setup, sha256 aa)"]
        );
        let mut moved = with.clone();
        moved.openings.as_mut().unwrap().file = "elsewhere/o.jsonl".into();
        assert!(with.resume_differences(&moved).is_empty(), "the same content elsewhere");
        let mut changed = with.clone();
        changed.openings = Some(openings("bb"));
        assert_eq!(with.resume_differences(&changed).len(), 1);
        // The recorded seeds lay out the schedule.
        assert!(with.schedule().iter().all(|game| game.seed == 9));
    }

    #[test]
    fn time_settings_are_recorded_and_a_change_is_a_different_tournament() {
        let per_move = settings();
        // A tournament.json of an arena before clocks reads the same.
        let mut written = serde_json::to_value(&per_move).unwrap();
        assert!(written.get("clock").is_none() && written.get("time_margin_ms").is_none());
        written.as_object_mut().unwrap().remove("no_time_limit");
        let read: RecordedSettings = serde_json::from_value(written).unwrap();
        assert!(per_move.setting_differences(&read).is_empty());

        let clock = GameClock {
            bank: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            move_cap: None,
        };
        let mut clocked = per_move.clone();
        clocked.move_timeout_ms = None;
        clocked.clock = Some(clock);
        let json = serde_json::to_string(&clocked).unwrap();
        assert!(json.contains(r#""clock":{"bank_ms":10000,"increment_ms":100}"#), "{json}");
        assert_eq!(serde_json::from_str::<RecordedSettings>(&json).unwrap(), clocked);
        assert_eq!(
            per_move.setting_differences(&clocked),
            ["time control was 1s per move, now clock 10s + 100ms per move"]
        );

        let mut loosened = clocked.clone();
        loosened.time_margin_ms = 50;
        loosened.no_time_limit = true;
        loosened.bots[1].time_control =
            Some(TimeControl::PerMove { limit: Duration::from_secs(2) });
        assert_eq!(
            clocked.setting_differences(&loosened),
            [
                "time_margin was 0ms, now 50ms",
                "time limit was on, now off (--no-time-limit)",
                "bot `b`'s time control was the tournament's, now 2s per move",
            ]
        );
    }

    /// Rows written out of order and with stale numbers come out in schedule
    /// order, numbered by the schedule, and the standings count every row.
    #[test]
    fn finishing_sorts_and_renumbers_games_csv_by_streaming() {
        let folder = tempfile::tempdir().unwrap();
        let settings = settings();
        let names = settings.bot_names();
        let schedule = Schedule::new(3, 2, settings.seed);
        let games: Vec<_> = schedule.iter().collect();
        let mut store = ResultsFolder::open(folder.path(), settings, false, &Silent).unwrap();
        for game in games.iter().rev() {
            let mut game_row = row(&names[game.seats[0]], &names[game.seats[1]], "seat1");
            game_row.seed = game.seed;
            game_row.game_index = 99;
            game_row.pairing = "stale".into();
            store.append(&game_row).unwrap();
        }
        let table = store.finish(&schedule, &[], &Silent).unwrap();
        let rows = read_games_csv(&folder.path().join(GAMES_CSV), false, &Silent).unwrap();
        let indexes: Vec<u64> = rows.iter().map(|row| row.game_index).collect();
        assert_eq!(indexes, (1..=6).collect::<Vec<_>>());
        assert!(rows.iter().all(|row| row.pairing.contains(" vs ")));
        for (row, game) in rows.iter().zip(&games) {
            assert_eq!((row.seat1.as_str(), row.seed), (names[game.seats[0]].as_str(), game.seed));
        }
        assert_eq!(table.iter().map(|standing| standing.tally.games).sum::<u64>(), 12);
    }
}
