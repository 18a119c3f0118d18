//! The tournament file (TOML), read and checked. tournaments/README.md
//! documents every key.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::file_check;
use super::identity::{BotMaterial, Fingerprint, FingerprintError, Tree};
use super::openings::{MAX_OPENINGS_BYTES, Openings};
use super::schedule::{Schedule, SetupSeeds};
use super::sprt::{DEFAULT_MAX_GAMES, SprtSettings};
use crate::games::{GameId, GameSetup};
use crate::printable::{check_bot_name, printable};
use crate::referee::clock::{ControlKind, TimeKey, TimeKeys};
use crate::referee::{BotCommand, Settings, TimeControl};
use crate::results::TranscriptStore;
use crate::sandbox::{SandboxMode, SandboxSettings, parse_size};
use crate::text_file::read_bounded;
use crate::units::{parse_duration, parse_duration_or_zero};

/// Most games a pairing may play: the schedule keeps a bit per game.
pub const MAX_GAMES_PER_PAIR: u32 = 10_000_000;
/// Longest line a bot may be allowed: lines are read whole into memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Most games at once.
pub const MAX_CONCURRENCY: u32 = 256;
/// Games in a row a bot may crash or fail to start in before it is
/// withdrawn from a run.
pub const DEFAULT_WITHDRAW_AFTER: u32 = 5;

/// A tournament, checked and ready to run.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// The tournament file; empty for a tournament made on the command line.
    pub file: PathBuf,
    /// The game and its parameters, checked.
    pub setup: GameSetup,
    /// The setups an openings file gives, played in order; without one,
    /// every setup is `setup` with a seed derived from `seed`.
    pub openings: Option<Openings>,
    pub seed: u64,
    /// Games each pairing plays: every setup once in each seat order.
    pub games_per_pair: u32,
    pub settings: Settings,
    /// Games played at once.
    pub concurrency: usize,
    /// A bot that crashes or fails to start in this many games in a row is
    /// withdrawn from the run (0: never).
    pub withdraw_after: u32,
    pub out: PathBuf,
    pub restart: Restart,
    /// Where games' transcripts go: the archive (a tournament file's
    /// `transcripts = true`), nowhere, or a file per game (`arena match`).
    pub transcripts: TranscriptStore,
    /// Run each worker thread and the bots it starts on one CPU of its own.
    pub pin: bool,
    /// How bot processes are sandboxed.
    pub sandbox: SandboxSettings,
    pub bots: Vec<BotEntry>,
    /// The challengers of a gauntlet (indexes into `bots`), who play the
    /// other bots (the field) but not each other; empty in a round robin.
    pub challengers: Vec<usize>,
    /// The sequential test of `[sprt]`: the first bot against the second,
    /// until the test decides or `games_per_pair` games are played.
    pub sprt: Option<SprtSettings>,
}

impl Tournament {
    /// What no bot may read: the results folder, and what the run's setups
    /// are made from (the tournament file and its openings file).
    pub fn protected_paths(&self) -> Vec<&Path> {
        let mut paths = vec![self.out.as_path()];
        if !self.file.as_os_str().is_empty() {
            paths.push(&self.file);
        }
        paths.extend(self.openings.as_ref().map(|openings| openings.path.as_path()));
        paths
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
        schedule.with_seeds(self.setup_seeds())
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

/// One `[[bot]]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BotEntry {
    pub name: String,
    /// The command to run, its program resolved against `dir`.
    pub argv: Vec<String>,
    /// The folder it runs in (absolute).
    pub dir: PathBuf,
    pub env: BTreeMap<String, String>,
    /// The command as the file writes it (what results folders record, so
    /// that they do not depend on where the checkout lives).
    pub written_command: Vec<String>,
    /// The `dir` key as the file writes it, if set.
    pub written_dir: Option<String>,
    /// The `version` key: stands for the bot's files in its fingerprint.
    pub version: Option<String>,
    /// The time keys of the bot's table (a handicap): they change the
    /// tournament's time control for this bot.
    #[serde(skip)]
    pub time_keys: TimeKeys,
    /// The bot's own time control, when its table has time keys.
    #[serde(skip)]
    pub time_control: Option<TimeControl>,
}

impl BotEntry {
    /// The bot's time control, made again from its keys over `control`
    /// (the tournament's).
    fn rebase_time(&mut self, control: TimeControl) -> Result<(), String> {
        if self.time_keys.is_empty() {
            return Ok(());
        }
        let own = self.time_keys.over(control).map_err(|error| {
            format!("bot `{}`: {}", self.name, error.describe(TimeKey::file_key))
        })?;
        self.time_control = Some(own);
        Ok(())
    }

    pub fn command(&self) -> BotCommand {
        BotCommand {
            argv: self.argv.clone(),
            dir: Some(self.dir.clone()),
            env: self.env.iter().map(|(key, value)| (key.clone(), value.clone())).collect(),
            sandbox: None,
        }
    }

    /// What this bot is, for its results (see [`super::identity`]): with a
    /// `version` key, the version stands for the files; else every file
    /// under the `dir` the file sets, or without one, the files and
    /// folders the command names relative to its folder (`bots/x.py`, not
    /// the interpreter). Nothing under `excluded` (the results folder).
    pub fn fingerprint(&self, excluded: &[PathBuf]) -> Result<Fingerprint, FingerprintError> {
        let mut trees = Vec::new();
        if self.version.is_none() {
            if self.written_dir.is_some() {
                trees.push(Tree { path: self.dir.clone(), relative_to: self.dir.clone() });
            } else {
                for word in &self.written_command {
                    let named = Path::new(word);
                    if word.starts_with('-') || !named.is_relative() {
                        continue;
                    }
                    // Named from its own folder: how the command reaches
                    // the file is in the command words already.
                    let Ok(path) = self.dir.join(named).canonicalize() else { continue };
                    let relative_to = match path.parent() {
                        Some(parent) if path.is_file() => parent.to_path_buf(),
                        _ => path.clone(),
                    };
                    trees.push(Tree { path, relative_to });
                }
            }
        }
        BotMaterial {
            command: &self.written_command,
            env: &self.env,
            version: self.version.as_deref(),
            trees,
            excluded: excluded.to_vec(),
        }
        .fingerprint()
    }
}

/// `path` without the `..` steps that undo a folder before them, for the
/// user to read: `tournaments/../results/demo` is `results/demo`. The part
/// that exists is resolved by the system (so a link is followed, never
/// skipped), the rest by its words; the result is relative to the working
/// folder when it lies inside it. A path without `..` is kept as written.
pub fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    if !path.components().any(|part| part == Component::ParentDir) {
        return path.to_owned();
    }
    let Ok(here) = std::env::current_dir().and_then(|here| here.canonicalize()) else {
        return path.to_owned();
    };
    let absolute = here.join(path);
    let mut existing = absolute.as_path();
    let mut missing = Vec::new();
    let resolved = loop {
        if let Ok(real) = existing.canonicalize() {
            break real;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                missing.push(last);
                existing = parent;
            }
            _ => return path.to_owned(),
        }
    };
    let mut tidy = resolved;
    for part in missing.into_iter().rev() {
        match part {
            Component::ParentDir => {
                tidy.pop();
            }
            Component::CurDir => {}
            other => tidy.push(other),
        }
    }
    match tidy.strip_prefix(&here) {
        Ok(inside) if !inside.as_os_str().is_empty() => inside.to_owned(),
        _ => tidy,
    }
}

/// A tournament file that cannot be used, located as precisely as possible.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", file.display(), location.as_ref().map(|(line, column)| format!(":{line}:{column}")).unwrap_or_default())]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTournament {
    game: Spanned<String>,
    params: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    openings: Option<Spanned<String>>,
    seed: Option<Spanned<u64>>,
    games_per_pair: Option<Spanned<u32>>,
    startup_timeout: Option<Spanned<String>>,
    move_timeout: Option<Spanned<String>>,
    time_control: Option<Spanned<ControlKind>>,
    bank: Option<Spanned<String>>,
    increment: Option<Spanned<String>>,
    move_cap: Option<Spanned<String>>,
    time_margin: Option<Spanned<String>>,
    concurrency: Option<Spanned<u32>>,
    withdraw_after: Option<Spanned<u32>>,
    out: Option<Spanned<String>>,
    restart: Option<Spanned<Restart>>,
    transcripts: Option<bool>,
    pin: Option<bool>,
    max_line_bytes: Option<Spanned<usize>>,
    stderr_cap: Option<Spanned<u64>>,
    sandbox: Option<Spanned<toml::Value>>,
    memory_limit: Option<Spanned<String>>,
    process_limit: Option<Spanned<u64>>,
    cpu_limit: Option<Spanned<String>>,
    open_files_limit: Option<Spanned<u64>>,
    file_size_limit: Option<Spanned<String>>,
    network: Option<bool>,
    #[serde(default)]
    read_paths: Vec<Spanned<String>>,
    #[serde(rename = "bot", default)]
    bots: Vec<Spanned<RawBot>>,
    challengers: Option<Spanned<Vec<Spanned<String>>>>,
    sprt: Option<Spanned<RawSprt>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSprt {
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    max_games: Option<Spanned<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBot {
    name: Spanned<String>,
    command: Spanned<Vec<String>>,
    dir: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    version: Option<Spanned<String>>,
    time_control: Option<Spanned<ControlKind>>,
    move_timeout: Option<Spanned<String>>,
    bank: Option<Spanned<String>>,
    increment: Option<Spanned<String>>,
    move_cap: Option<Spanned<String>>,
}

/// The time keys of a table as written, with where each one is.
struct WrittenTimeKeys<'a> {
    control: &'a Option<Spanned<ControlKind>>,
    move_timeout: &'a Option<Spanned<String>>,
    bank: &'a Option<Spanned<String>>,
    increment: &'a Option<Spanned<String>>,
    move_cap: &'a Option<Spanned<String>>,
}

impl WrittenTimeKeys<'_> {
    /// Where `key` is written, if it is.
    fn span(&self, key: TimeKey) -> Option<Range<usize>> {
        match key {
            TimeKey::Control => self.control.as_ref().map(Spanned::span),
            TimeKey::MoveTimeout => self.move_timeout.as_ref().map(Spanned::span),
            TimeKey::Bank => self.bank.as_ref().map(Spanned::span),
            TimeKey::Increment => self.increment.as_ref().map(Spanned::span),
            TimeKey::MoveCap => self.move_cap.as_ref().map(Spanned::span),
        }
    }

    /// The keys' values: durations read, an error naming the key (after
    /// `prefix`) and its place if one is not a duration.
    fn read(
        &self,
        prefix: &str,
        fail: impl Fn(Option<Range<usize>>, String) -> ConfigError,
    ) -> Result<TimeKeys, ConfigError> {
        let read = |value: &Option<Spanned<String>>, key: TimeKey, zero_allowed: bool| {
            let Some(text) = value else { return Ok(None) };
            let parsed = if zero_allowed {
                parse_duration_or_zero(text.get_ref())
            } else {
                parse_duration(text.get_ref())
            };
            parsed.map(Some).map_err(|error| {
                fail(Some(text.span()), format!("{prefix}{}: {error}", key.file_key()))
            })
        };
        Ok(TimeKeys {
            control: self.control.as_ref().map(|kind| *kind.get_ref()),
            move_timeout: read(self.move_timeout, TimeKey::MoveTimeout, false)?,
            bank: read(self.bank, TimeKey::Bank, false)?,
            increment: read(self.increment, TimeKey::Increment, true)?,
            move_cap: read(self.move_cap, TimeKey::MoveCap, false)?,
        })
    }
}

impl Tournament {
    /// Reads and checks a tournament file. `out` overrides the file's `out`.
    pub fn load(file: &Path, out: Option<&Path>) -> Result<Tournament, ConfigError> {
        // A tournament file is a few kilobytes; a megabyte is plenty.
        let text = read_bounded(file, 1 << 20).map_err(|error| ConfigError {
            file: file.to_owned(),
            location: None,
            message: format!("cannot read the tournament file: {error}"),
        })?;
        Tournament::parse(file, &text, out)
    }

    /// Checks a tournament file's text; `file` names it in errors and anchors
    /// relative paths.
    pub fn parse(file: &Path, text: &str, out: Option<&Path>) -> Result<Tournament, ConfigError> {
        let fail = |span: Option<Range<usize>>, message: String| ConfigError {
            file: file.to_owned(),
            location: span.map(|span| line_and_column(text, span.start)),
            message,
        };
        // Every mistake of kind and form at once, in the file's terms.
        if let Some(error) = file_check::error(file, text, &file_check::check(text)) {
            return Err(error);
        }
        let toml_error = |error: toml::de::Error| fail(error.span(), error.message().to_owned());
        let document = toml::Deserializer::parse(text).map_err(toml_error)?;
        // The path names the key of a value of the wrong type, which toml's
        // own message leaves out.
        let raw: RawTournament = serde_path_to_error::deserialize(document).map_err(|error| {
            let key = key_path(error.path());
            let error = error.into_inner();
            match key.is_empty() {
                true => fail(error.span(), error.message().to_owned()),
                false => fail(error.span(), format!("{key}: {}", error.message())),
            }
        })?;
        let folder =
            file.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));

        let game: GameId =
            raw.game.get_ref().parse().map_err(|error: crate::games::UnknownGame| {
                fail(Some(raw.game.span()), format!("game: {error}"))
            })?;
        let setup = match &raw.params {
            None => GameSetup::new(game, serde_json::Map::new())
                .expect("every game's defaults are valid (a unit test checks them)"),
            Some(table) => {
                let value = serde_json::to_value(table.get_ref())
                    .map_err(|error| fail(Some(table.span()), format!("params: {error}")))?;
                let serde_json::Value::Object(map) = value else {
                    unreachable!("a table is an object")
                };
                GameSetup::new(game, map).map_err(|error| {
                    // At the parameter's value when one is at fault.
                    let span =
                        match error.error.param().and_then(|param| table.get_ref().get(param)) {
                            Some(value) => value.span(),
                            None => table.span(),
                        };
                    fail(Some(span), format!("params: {error}"))
                })?
            }
        };
        let openings = match &raw.openings {
            None => None,
            Some(written) => {
                let path = folder.join(written.get_ref());
                let text = read_bounded(&path, MAX_OPENINGS_BYTES).map_err(|error| {
                    fail(
                        Some(written.span()),
                        format!("openings: cannot read {}: {error}", path.display()),
                    )
                })?;
                Some(Openings::parse(&path, written.get_ref(), &text, &setup)?)
            }
        };
        let (sprt, sprt_games) = read_sprt(raw.sprt.as_ref(), raw.games_per_pair.as_ref(), &fail)?;
        let games_per_pair = match (&raw.games_per_pair, &openings, sprt_games) {
            // A test plays until it decides, at most its `max_games`.
            (None, _, Some(max_games)) => max_games,
            (None, None, None) => 2,
            // Each setup of the file once, in both seat orders.
            (None, Some(openings), None) => {
                let games = u32::try_from(openings.entries.len() * 2).unwrap_or(u32::MAX);
                check_games_per_pair(games).map_err(|_| {
                    fail(
                        raw.openings.as_ref().map(Spanned::span),
                        format!(
                            "openings: {} setups in both seat orders are more than games_per_pair allows ({MAX_GAMES_PER_PAIR}); set games_per_pair",
                            openings.entries.len()
                        ),
                    )
                })?
            }
            (Some(value), _, _) => check_games_per_pair(*value.get_ref())
                .map_err(|message| fail(Some(value.span()), message))?,
        };
        let duration = |value: &Option<Spanned<String>>, key: &str, default: Duration| match value {
            None => Ok(default),
            Some(text) => parse_duration(text.get_ref())
                .map_err(|error| fail(Some(text.span()), format!("{key}: {error}"))),
        };
        let written_time = WrittenTimeKeys {
            control: &raw.time_control,
            move_timeout: &raw.move_timeout,
            bank: &raw.bank,
            increment: &raw.increment,
            move_cap: &raw.move_cap,
        };
        let time_control =
            written_time.read("", fail)?.over(TimeControl::default()).map_err(|error| {
                fail(written_time.span(error.key()), error.describe(TimeKey::file_key))
            })?;
        let time_margin = match &raw.time_margin {
            None => Duration::ZERO,
            Some(text) => parse_duration_or_zero(text.get_ref())
                .map_err(|error| fail(Some(text.span()), format!("time_margin: {error}")))?,
        };
        let defaults = Settings::default();
        let mut settings = Settings {
            startup_timeout: duration(
                &raw.startup_timeout,
                "startup_timeout",
                defaults.startup_timeout,
            )?,
            time_control,
            time_margin,
            ..defaults
        };
        if let Some(bytes) = &raw.max_line_bytes {
            if !(64..=MAX_LINE_BYTES).contains(bytes.get_ref()) {
                return Err(fail(
                    Some(bytes.span()),
                    format!(
                        "max_line_bytes must be from 64 to {MAX_LINE_BYTES} (64 MiB), got {}",
                        bytes.get_ref()
                    ),
                ));
            }
            settings.max_line_bytes = *bytes.get_ref();
        }
        if let Some(cap) = &raw.stderr_cap {
            settings.stderr_cap = *cap.get_ref();
        }
        let concurrency = match &raw.concurrency {
            None => 1,
            Some(value) => check_concurrency(*value.get_ref())
                .map_err(|message| fail(Some(value.span()), message))?,
        };

        let mut sandbox = SandboxSettings::default();
        if let Some(value) = &raw.sandbox {
            sandbox.mode = match value.get_ref() {
                toml::Value::Boolean(true) => SandboxMode::On,
                toml::Value::Boolean(false) => SandboxMode::Off,
                toml::Value::String(word) if word == "required" => SandboxMode::Required,
                other => {
                    return Err(fail(
                        Some(value.span()),
                        format!("sandbox must be true, false or \"required\", got {other}"),
                    ));
                }
            };
        }
        let size = |value: &Option<Spanned<String>>, key: &str, default: u64| match value {
            None => Ok(default),
            Some(text) => parse_size(text.get_ref())
                .map_err(|error| fail(Some(text.span()), format!("{key}: {error}"))),
        };
        let count = |value: &Option<Spanned<u64>>, key: &str, default: u64| match value {
            None => Ok(default),
            Some(number) if *number.get_ref() == 0 => {
                Err(fail(Some(number.span()), format!("{key} must be at least 1")))
            }
            Some(number) => Ok(*number.get_ref()),
        };
        let limits = &mut sandbox.limits;
        limits.memory = size(&raw.memory_limit, "memory_limit", limits.memory)?;
        limits.file_size = size(&raw.file_size_limit, "file_size_limit", limits.file_size)?;
        limits.processes = count(&raw.process_limit, "process_limit", limits.processes)?;
        limits.open_files = count(&raw.open_files_limit, "open_files_limit", limits.open_files)?;
        limits.cpu_time = duration(&raw.cpu_limit, "cpu_limit", limits.cpu_time)?;
        sandbox.network = raw.network.unwrap_or(false);
        for path in &raw.read_paths {
            let full = folder.join(path.get_ref());
            if !full.exists() {
                return Err(fail(
                    Some(path.span()),
                    format!("read_paths: {} does not exist", full.display()),
                ));
            }
            sandbox.read_paths.push(full);
        }

        if raw.bots.len() < 2 {
            // Point to the lone bot, if there is one.
            return Err(fail(
                raw.bots.last().map(Spanned::span),
                format!(
                    "a tournament needs at least two [[bot]] tables, this file has {}",
                    raw.bots.len()
                ),
            ));
        }
        let mut names = HashSet::new();
        let mut bots = Vec::new();
        for bot in &raw.bots {
            let bot = bot.get_ref();
            let name = bot.name.get_ref().trim();
            if name.is_empty() {
                return Err(fail(Some(bot.name.span()), "bot name: must not be empty".to_owned()));
            }
            if let Err(problem) = check_tournament_bot_name(name) {
                return Err(fail(
                    Some(bot.name.span()),
                    format!("bot `{}`: {problem}", printable(name)),
                ));
            }
            if !names.insert(name.to_owned()) {
                return Err(fail(
                    Some(bot.name.span()),
                    format!("bot `{name}`: the name is used twice"),
                ));
            }
            let dir = match &bot.dir {
                None => folder.to_path_buf(),
                Some(dir) => folder.join(dir.get_ref()),
            };
            let dir = std::path::absolute(&dir).unwrap_or(dir);
            if !dir.is_dir() {
                let span = bot.dir.as_ref().map(Spanned::span).unwrap_or(bot.name.span());
                return Err(fail(
                    Some(span),
                    format!("bot `{name}`: dir {} is not a folder", dir.display()),
                ));
            }
            let mut argv = bot.command.get_ref().clone();
            if argv.first().is_none_or(String::is_empty) {
                return Err(fail(
                    Some(bot.command.span()),
                    format!("bot `{name}`: command is empty"),
                ));
            }
            // A relative program path means relative to the bot's folder.
            if argv[0].contains('/') && Path::new(&argv[0]).is_relative() {
                argv[0] = dir.join(&argv[0]).to_string_lossy().into_owned();
            }
            if let Some(key) = bot.env.keys().find(|key| !valid_env_key(key)) {
                return Err(fail(
                    Some(bot.name.span()),
                    format!(
                        "bot `{name}`: env key `{}` is not a variable name (letters, digits and `_`, not starting with a digit)",
                        printable(key)
                    ),
                ));
            }
            let version = match &bot.version {
                Some(version) if version.get_ref().trim().is_empty() => {
                    return Err(fail(
                        Some(version.span()),
                        format!("bot `{name}`: version must not be empty"),
                    ));
                }
                version => version.as_ref().map(|version| version.get_ref().clone()),
            };
            let written_time = WrittenTimeKeys {
                control: &bot.time_control,
                move_timeout: &bot.move_timeout,
                bank: &bot.bank,
                increment: &bot.increment,
                move_cap: &bot.move_cap,
            };
            let time_keys = written_time.read(&format!("bot `{name}`: "), fail)?;
            let time_control = match time_keys.is_empty() {
                true => None,
                false => Some(time_keys.over(settings.time_control).map_err(|error| {
                    fail(
                        written_time.span(error.key()),
                        format!("bot `{name}`: {}", error.describe(TimeKey::file_key)),
                    )
                })?),
            };
            let entry = BotEntry {
                name: name.to_owned(),
                argv,
                dir,
                env: bot.env.clone(),
                written_command: bot.command.get_ref().clone(),
                written_dir: bot.dir.as_ref().map(|dir| dir.get_ref().clone()),
                version,
                time_keys,
                time_control,
            };
            entry.command().check_files().map_err(|error| {
                fail(Some(bot.command.span()), format!("bot `{name}`: command: {error}"))
            })?;
            bots.push(entry);
        }

        let challengers = read_challengers(raw.challengers.as_ref(), &bots, &fail)?;
        if let (Some(table), true) = (&raw.sprt, bots.len() != 2 || !challengers.is_empty()) {
            return Err(fail(
                Some(table.span()),
                format!(
                    "[sprt] tests the first [[bot]] against the second: the file needs exactly two bots and no challengers, it has {} bots",
                    bots.len()
                ),
            ));
        }

        let out = match (out, &raw.out) {
            (Some(out), _) => out.to_path_buf(),
            (None, Some(path)) => tidy(&folder.join(path.get_ref())),
            (None, None) => {
                let stem = file.file_stem().and_then(|stem| stem.to_str()).unwrap_or("tournament");
                Path::new("results").join(stem)
            }
        };
        Ok(Tournament {
            file: file.to_owned(),
            setup,
            openings,
            seed: raw.seed.map(Spanned::into_inner).unwrap_or(1),
            games_per_pair,
            settings,
            concurrency,
            withdraw_after: raw.withdraw_after.map_or(DEFAULT_WITHDRAW_AFTER, Spanned::into_inner),
            out,
            restart: raw.restart.map(Spanned::into_inner).unwrap_or(Restart::AfterDoubt),
            transcripts: match raw.transcripts.unwrap_or(true) {
                true => TranscriptStore::Archive,
                false => TranscriptStore::Off,
            },
            pin: raw.pin.unwrap_or(true),
            sandbox,
            challengers,
            sprt,
            bots,
        })
    }
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

/// The `[sprt]` table, checked, and the games it plays at most (in place of
/// `games_per_pair`, which it may not be given with).
fn read_sprt(
    table: Option<&Spanned<RawSprt>>,
    games_per_pair: Option<&Spanned<u32>>,
    fail: &impl Fn(Option<Range<usize>>, String) -> ConfigError,
) -> Result<(Option<SprtSettings>, Option<u32>), ConfigError> {
    let Some(table) = table else { return Ok((None, None)) };
    if let Some(games) = games_per_pair {
        return Err(fail(
            Some(games.span()),
            "games_per_pair: a file with [sprt] plays until the test decides; set the most games it may play with max_games in [sprt]".to_owned(),
        ));
    }
    let raw = table.get_ref();
    let defaults = SprtSettings::default();
    let settings = SprtSettings {
        elo0: raw.elo0.unwrap_or(defaults.elo0),
        elo1: raw.elo1.unwrap_or(defaults.elo1),
        alpha: raw.alpha.unwrap_or(defaults.alpha),
        beta: raw.beta.unwrap_or(defaults.beta),
    };
    settings.validate().map_err(|error| fail(Some(table.span()), format!("sprt: {error}")))?;
    let max_games = match &raw.max_games {
        None => DEFAULT_MAX_GAMES,
        Some(games) => {
            let value = *games.get_ref();
            if value < 2 || value % 2 == 1 || value > MAX_GAMES_PER_PAIR {
                return Err(fail(
                    Some(games.span()),
                    format!(
                        "sprt.max_games must be an even number from 2 to {MAX_GAMES_PER_PAIR} (the test counts pairs of games), got {value}"
                    ),
                ));
            }
            value
        }
    };
    Ok((Some(settings), Some(max_games)))
}

/// The `challengers` key: names of the file's bots, as indexes.
fn read_challengers(
    names: Option<&Spanned<Vec<Spanned<String>>>>,
    bots: &[BotEntry],
    fail: &impl Fn(Option<Range<usize>>, String) -> ConfigError,
) -> Result<Vec<usize>, ConfigError> {
    let Some(names) = names else { return Ok(Vec::new()) };
    let mut challengers = Vec::new();
    for name in names.get_ref() {
        let Some(index) = bots.iter().position(|bot| bot.name == name.get_ref().trim()) else {
            let known: Vec<&str> = bots.iter().map(|bot| bot.name.as_str()).collect();
            return Err(fail(
                Some(name.span()),
                format!(
                    "challengers: no [[bot]] is named `{}` (the bots are {})",
                    printable(name.get_ref()),
                    known.join(", ")
                ),
            ));
        };
        if challengers.contains(&index) {
            return Err(fail(
                Some(name.span()),
                format!("challengers: `{}` is named twice", bots[index].name),
            ));
        }
        challengers.push(index);
    }
    if challengers.is_empty() || challengers.len() == bots.len() {
        return Err(fail(
            Some(names.span()),
            "challengers: a gauntlet needs at least one challenger and one bot of the field (a bot not named here)".to_owned(),
        ));
    }
    Ok(challengers)
}

/// Checks that `name` can name a bot of a tournament: printable, and free
/// of the `;` and ` vs ` that games.csv joins names with.
pub fn check_tournament_bot_name(name: &str) -> Result<(), String> {
    check_bot_name(name)?;
    if name.contains(';') || name.contains(" vs ") {
        return Err("a name may not contain `;` or ` vs `".to_owned());
    }
    Ok(())
}

/// Whether `key` can name an environment variable that every program reads
/// back: `[A-Za-z_][A-Za-z0-9_]*`.
fn valid_env_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// 1-based line and column of a byte offset.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |tail| tail.chars().count()) + 1;
    (line, column)
}

/// Where a value sits in the file, as a user finds it: `concurrency`,
/// `[[bot]] 2, command, item 3`, `[[bot]] 1, env.HOME`.
fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut parts: Vec<String> = Vec::new();
    for segment in path.iter() {
        match segment {
            // The wrapper that records where a value was; not a key.
            Segment::Map { key } if key.starts_with("$__serde_spanned") => {}
            Segment::Map { key } => match parts.last_mut() {
                // A key inside a table: `env.HOME`.
                Some(last) if !last.contains(' ') => {
                    last.push('.');
                    last.push_str(key);
                }
                _ => parts.push(key.clone()),
            },
            Segment::Seq { index } => match parts.last_mut() {
                Some(last) if last == "bot" => *last = format!("[[bot]] {}", index + 1),
                _ => parts.push(format!("item {}", index + 1)),
            },
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
game = "number-snatch"
seed = 3
games_per_pair = 4
move_timeout = "200ms"

[params]
count = 12

[[bot]]
name = "a"
command = ["sh", "-c", "true"]

[[bot]]
name = "b"
command = ["sh"]
env = { LEVEL = "3" }
"#;

    fn parse(text: &str) -> Result<Tournament, ConfigError> {
        Tournament::parse(Path::new("t.toml"), text, None)
    }

    #[test]
    fn a_good_file_reads_with_defaults_filled_in() {
        let tournament = parse(GOOD).unwrap();
        assert_eq!(tournament.setup.game(), GameId::NumberSnatch);
        assert_eq!(tournament.games_per_pair, 4);
        assert_eq!(
            tournament.settings.time_control,
            TimeControl::PerMove { limit: Duration::from_millis(200) }
        );
        assert_eq!(tournament.settings.time_margin, Duration::ZERO);
        assert_eq!(tournament.bots[0].time_control, None);
        assert_eq!(tournament.settings.startup_timeout, Duration::from_secs(5));
        assert_eq!(tournament.concurrency, 1);
        assert_eq!(tournament.out, Path::new("results/t"));
        assert_eq!(tournament.bots[1].env["LEVEL"], "3");
        assert_eq!(tournament.setup.overrides()["count"], 12);
    }

    fn error_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn paths_are_tidied_of_steps_back() {
        // Tests run in the package's folder, which holds tournaments/.
        assert_eq!(tidy(Path::new("tournaments/../results/demo")), Path::new("results/demo"));
        assert_eq!(tidy(Path::new("no-such/../x/./y")), Path::new("x/y"));
        assert_eq!(tidy(Path::new("results/demo")), Path::new("results/demo"));
        let outside = tidy(Path::new("../elsewhere"));
        assert!(outside.is_absolute() && outside.ends_with("elsewhere"), "{outside:?}");
    }

    /// The check that runs first (file_check.rs) knows every key the reader
    /// takes, and no other: serde's refusal of an unknown key lists them.
    #[test]
    fn the_file_check_knows_the_keys_the_reader_takes() {
        fn keys_of<T: serde::de::DeserializeOwned>(text: &str) -> Vec<String> {
            let error = toml::from_str::<T>(text).err().expect("an unknown key").to_string();
            let listed = error.split("expected one of ").nth(1).expect("the keys").lines().next();
            let mut keys: Vec<String> = listed
                .unwrap_or_default()
                .split(", ")
                .map(|key| key.trim().trim_matches('`').to_owned())
                .collect();
            keys.sort();
            keys
        }
        let [file, bot, sprt] = file_check::known_keys().map(|mut keys| {
            keys.sort();
            keys
        });
        assert_eq!(keys_of::<RawTournament>("xyzzy = 1"), file);
        assert_eq!(keys_of::<RawBot>("xyzzy = 1"), bot);
        assert_eq!(keys_of::<RawSprt>("xyzzy = 1"), sprt);
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let error = error_of(&GOOD.replace("games_per_pair = 4", "games_per_pair = 3"));
        assert!(error.starts_with("t.toml:4:") && error.contains("games_per_pair"), "{error}");
        let error = error_of(&GOOD.replace("seed = 3", "sed = 3"));
        assert!(error.starts_with("t.toml:3:") && error.contains("sed"), "{error}");
        let error = error_of(&GOOD.replace("seed = 3", "seed = \"x\""));
        assert!(
            error.starts_with(
                "t.toml:3:8: seed: expected a whole number, such as 20, got the string \"x\""
            ),
            "{error}"
        );
        let error = error_of(&GOOD.replace("[\"sh\"]", "[\"sh\", 4]"));
        assert!(
            error.starts_with("t.toml:16:")
                && error.contains("[[bot]] 2 (`b`), command: item 2 is the number 4"),
            "{error}"
        );
        let error = error_of(&GOOD.replace("number-snatch", "chess"));
        assert!(error.starts_with("t.toml:2:") && error.contains("number-duel"), "{error}");
        let error = error_of(&GOOD.replace("count = 12", "colour = 12"));
        assert!(error.starts_with("t.toml:8:10: ") && error.contains("`colour`"), "{error}");
        let error = error_of(&GOOD.replace("count = 12", "max = 30\ncount = \"x\""));
        assert!(
            error.starts_with("t.toml:9:9: ")
                && error.ends_with(
                    "params: parameter `count` of number-snatch: expected a whole number, got \"x\""
                ),
            "{error}"
        );
        let error = error_of(&GOOD.replace("name = \"b\"", "name = \"a\""));
        assert!(error.starts_with("t.toml:15:") && error.contains("used twice"), "{error}");
        let error = error_of(&GOOD.replace("name = \"b\"", "name = \" \""));
        assert!(error.contains("empty"), "{error}");
        let error = error_of(&GOOD.replace("[\"sh\"]", "[\"no-such-program-here\"]"));
        assert!(
            error.starts_with("t.toml:16:")
                && error.contains("bot `b`")
                && error.contains("no-such-program-here"),
            "{error}"
        );
        let error = error_of(&GOOD.replace("move_timeout = \"200ms\"", "move_timeout = \"fast\""));
        assert!(error.starts_with("t.toml:5:") && error.contains("move_timeout"), "{error}");
    }

    /// GOOD with a clock instead of its limit per move, and `bot_b`'s keys
    /// in the second bot's table.
    fn with_clock(top: &str, bot_b: &str) -> String {
        GOOD.replace("move_timeout = \"200ms\"", top)
            .replace("env = { LEVEL = \"3\" }", &format!("env = {{ LEVEL = \"3\" }}\n{bot_b}"))
    }

    #[test]
    fn a_clock_a_margin_and_a_handicap_read_from_their_keys() {
        let ms = Duration::from_millis;
        let text = with_clock(
            "time_control = \"clock\"\nbank = \"10s\"\nincrement = \"100ms\"\ntime_margin = \"50ms\"",
            "bank = \"5s\"",
        );
        let tournament = parse(&text).unwrap();
        let clock = |bank, increment| {
            TimeControl::Clock(crate::referee::GameClock {
                bank: ms(bank),
                increment: ms(increment),
                move_cap: None,
            })
        };
        assert_eq!(tournament.settings.time_control, clock(10_000, 100));
        assert_eq!(tournament.settings.time_margin, ms(50));
        assert_eq!(tournament.bots[0].time_control, None);
        assert_eq!(tournament.bots[1].time_control, Some(clock(5000, 100)), "the rest inherited");

        // The command line changes the file's keys; the bot's own still apply.
        let mut changed = tournament.clone();
        let flags = TimeKeys { increment: Some(Duration::ZERO), ..TimeKeys::default() };
        changed.change_time_control(&flags).unwrap();
        assert_eq!(changed.settings.time_control, clock(10_000, 0));
        assert_eq!(changed.bots[1].time_control, Some(clock(5000, 0)));
        let mut per_move = tournament.clone();
        let flags = TimeKeys { move_timeout: Some(ms(300)), ..TimeKeys::default() };
        per_move.change_time_control(&flags).unwrap();
        assert_eq!(per_move.settings.time_control, TimeControl::PerMove { limit: ms(300) });
        assert_eq!(per_move.bots[1].time_control, Some(clock(5000, 0)), "its bank alone");

        let mut inherits_the_bank =
            parse(&with_clock("bank = \"10s\"", "time_control = \"clock\"\nincrement = \"1s\""))
                .unwrap();
        assert_eq!(inherits_the_bank.bots[1].time_control, Some(clock(10_000, 1000)));
        let error = inherits_the_bank.change_time_control(&flags).unwrap_err();
        assert!(error.starts_with("bot `b`: `time_control` makes a game clock"), "{error}");
        assert!(error.ends_with("(over the time control the command line sets)"), "{error}");

        let handicap = parse(&with_clock("", "move_timeout = \"50ms\"")).unwrap();
        assert_eq!(handicap.settings.time_control, TimeControl::default());
        assert_eq!(handicap.bots[1].time_control, Some(TimeControl::PerMove { limit: ms(50) }));
    }

    #[test]
    fn time_keys_that_make_no_control_are_named_with_their_place() {
        let error = error_of(&with_clock("increment = \"1s\"", ""));
        assert!(
            error.starts_with("t.toml:5:13: `increment` makes a game clock, which needs `bank`"),
            "{error}"
        );
        let error = error_of(&with_clock("bank = \"5s\"\nmove_timeout = \"1s\"", ""));
        assert!(
            error.starts_with("t.toml:6:")
                && error.contains("`move_timeout` is the limit of a per-move time control")
                && error.contains("`move_cap`"),
            "{error}"
        );
        let error = error_of(&with_clock("bank = \"0s\"", ""));
        assert!(
            error.starts_with("t.toml:5:8: bank: a time limit must be more than zero"),
            "{error}"
        );
        let error = error_of(&with_clock("time_control = \"sundial\"", ""));
        assert!(error.starts_with("t.toml:5:") && error.contains("time_control"), "{error}");
        let error = error_of(&with_clock("time_margin = \"soon\"", ""));
        assert!(error.starts_with("t.toml:5:") && error.contains("time_margin: "), "{error}");
        let error = error_of(&with_clock("", "time_control = \"clock\""));
        assert!(
            error.starts_with("t.toml:18:16: bot `b`: `time_control` makes a game clock"),
            "{error}"
        );
        let error = error_of(&with_clock("", "increment = \"fast\""));
        assert!(error.starts_with("t.toml:18:13: [[bot]] 2 (`b`), increment: `fast`"), "{error}");
    }

    #[test]
    fn openings_are_read_beside_the_file_and_set_games_per_pair() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join("openings")).unwrap();
        let openings = folder.path().join("openings/o.jsonl");
        std::fs::write(&openings, "{\"seed\": 5}\n{\"params\": {\"count\": 4}}\n").unwrap();
        let text = GOOD.replace("games_per_pair = 4\n", "openings = \"openings/o.jsonl\"\n");
        let file = folder.path().join("t.toml");
        let tournament = Tournament::parse(&file, &text, None).unwrap();
        assert_eq!(tournament.games_per_pair, 4, "each setup in both seat orders");
        assert_eq!(tournament.setup_of(1), &tournament.setup);
        assert_eq!(tournament.setup.overrides()["count"], 12);
        assert_eq!(tournament.setup_of(2).overrides()["count"], 4, "the entry's over the file's");
        assert_eq!(tournament.setup_of(3), &tournament.setup, "cycled");
        let schedule = tournament.schedule();
        let seeds: Vec<u64> = schedule.iter().map(|game| game.seed).collect();
        assert_eq!(seeds[..2], [5, 5]);
        assert_eq!(seeds[2], tournament.setup_seeds().seed(1));

        // A line of the openings file that is wrong is named, with its field.
        std::fs::write(&openings, "{\"seed\": 5}\n{\"params\": {\"count\": \"x\"}}\n").unwrap();
        let error = Tournament::parse(&file, &text, None).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}:2:", openings.display())), "{error}");
        assert!(
            error.contains("parameter `count` of number-snatch: expected a whole number"),
            "{error}"
        );
        // A missing one is named where the tournament file names it.
        let text = text.replace("o.jsonl", "missing.jsonl");
        let error = Tournament::parse(&file, &text, None).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}:4:", file.display())), "{error}");
        assert!(
            error.contains("openings: cannot read") && error.contains("missing.jsonl"),
            "{error}"
        );
    }

    #[test]
    fn overrides_replace_the_files_values() {
        let mut tournament = parse(GOOD).unwrap();
        Overrides::default().apply(&mut tournament);
        assert_eq!((tournament.seed, tournament.games_per_pair, tournament.concurrency), (3, 4, 1));
        let overrides = Overrides { seed: Some(8), games_per_pair: Some(10), concurrency: Some(2) };
        overrides.apply(&mut tournament);
        assert_eq!(
            (tournament.seed, tournament.games_per_pair, tournament.concurrency),
            (8, 10, 2)
        );
        assert!(check_games_per_pair(3).is_err() && check_games_per_pair(0).is_err());
        assert!(check_concurrency(0).is_err() && check_concurrency(MAX_CONCURRENCY + 1).is_err());
    }

    #[test]
    fn challengers_make_a_gauntlet_and_must_be_bots() {
        let three = format!("{GOOD}\n[[bot]]\nname = \"c\"\ncommand = [\"sh\"]\n");
        let gauntlet =
            parse(&three.replace("seed = 3", "seed = 3\nchallengers = [\"c\"]")).unwrap();
        assert_eq!(gauntlet.challengers, [2]);
        assert_eq!(gauntlet.schedule().len(), 2 * 4, "c plays a and b, who do not meet");
        let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"x\"]"));
        assert!(
            error.starts_with("t.toml:4:")
                && error.contains("challengers: no [[bot]] is named `x`"),
            "{error}"
        );
        let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"a\", \"b\"]"));
        assert!(error.starts_with("t.toml:4:") && error.contains("field"), "{error}");
        let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"a\", \"a\"]"));
        assert!(error.contains("named twice"), "{error}");
    }

    #[test]
    fn an_sprt_table_is_checked_and_sets_the_most_games() {
        let without_count = GOOD.replace("games_per_pair = 4\n", "");
        let with_table = |table: &str| {
            without_count.replace("[params]", &format!("[sprt]\n{table}\n\n[params]"))
        };
        let tournament = parse(&with_table("elo1 = 5\nmax_games = 400")).unwrap();
        let settings = tournament.sprt.unwrap();
        assert_eq!((settings.elo0, settings.elo1, settings.alpha), (0.0, 5.0, 0.05));
        assert_eq!(tournament.games_per_pair, 400);
        assert_eq!(parse(&with_table("")).unwrap().games_per_pair, DEFAULT_MAX_GAMES);
        let error = error_of(&with_table("elo0 = 5\nelo1 = 5"));
        assert!(
            error.starts_with("t.toml:")
                && error.contains("sprt: elo0 (5) must be less than elo1 (5)"),
            "{error}"
        );
        let error = error_of(&with_table("max_games = 3"));
        assert!(error.contains("sprt.max_games") && error.contains("even"), "{error}");
        let error = error_of(&with_table("elo2 = 3"));
        assert!(error.contains("elo2"), "{error}");
        let error = error_of(&GOOD.replace("[params]", "[sprt]\n\n[params]"));
        assert!(error.starts_with("t.toml:4:") && error.contains("max_games"), "{error}");
        let three = format!("{}\n[[bot]]\nname = \"c\"\ncommand = [\"sh\"]\n", with_table(""));
        assert!(error_of(&three).contains("exactly two bots"));
    }

    #[test]
    fn fewer_than_two_bots_is_refused() {
        let one_bot = &GOOD[..GOOD.rfind("[[bot]]").unwrap()];
        assert!(error_of(one_bot).contains("at least two"));
    }
}
