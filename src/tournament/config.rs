//! The tournament file (TOML), read and checked. tournaments/README.md
//! documents every key.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::identity::{BotMaterial, Fingerprint, FingerprintError, Tree};
use super::schedule::Schedule;
use super::sprt::{DEFAULT_MAX_GAMES, SprtSettings};
use crate::games::{GameId, GameSetup};
use crate::printable::{check_bot_name, printable};
use crate::referee::{BotCommand, Settings};
use crate::results::TranscriptStore;
use crate::sandbox::{SandboxMode, SandboxSettings, parse_size};
use crate::text_file::read_bounded;
use crate::units::parse_duration;

/// Most games a pairing may play: the schedule keeps a bit per game.
pub const MAX_GAMES_PER_PAIR: u32 = 10_000_000;
/// Longest line a bot may be allowed: lines are read whole into memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Most games at once.
pub const MAX_CONCURRENCY: u32 = 256;

/// A tournament, checked and ready to run.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// The tournament file; empty for a tournament made on the command line.
    pub file: PathBuf,
    /// The game and its parameters, checked.
    pub setup: GameSetup,
    pub seed: u64,
    /// Games each pairing plays: every setup once in each seat order.
    pub games_per_pair: u32,
    pub settings: Settings,
    /// Games played at once.
    pub concurrency: usize,
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
    /// The games to play: a round robin, or a gauntlet of the challengers.
    pub fn schedule(&self) -> Schedule {
        match &self.challengers[..] {
            [] => Schedule::new(self.bots.len(), self.games_per_pair, self.seed),
            challengers => {
                Schedule::gauntlet(self.bots.len(), self.games_per_pair, self.seed, challengers)
            }
        }
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
}

impl BotEntry {
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
    params: Option<Spanned<toml::Table>>,
    seed: Option<Spanned<u64>>,
    games_per_pair: Option<Spanned<u32>>,
    startup_timeout: Option<Spanned<String>>,
    move_timeout: Option<Spanned<String>>,
    concurrency: Option<Spanned<u32>>,
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
                GameSetup::new(game, map)
                    .map_err(|error| fail(Some(table.span()), format!("params: {error}")))?
            }
        };
        let (sprt, sprt_games) = read_sprt(raw.sprt.as_ref(), raw.games_per_pair.as_ref(), &fail)?;
        let games_per_pair = match &raw.games_per_pair {
            None => sprt_games.unwrap_or(2),
            Some(value) if *value.get_ref() == 0 || value.get_ref() % 2 == 1 => {
                return Err(fail(
                    Some(value.span()),
                    format!(
                        "games_per_pair must be a positive even number (every setup is played once in each seat order), got {}",
                        value.get_ref()
                    ),
                ));
            }
            Some(value) if *value.get_ref() > MAX_GAMES_PER_PAIR => {
                return Err(fail(
                    Some(value.span()),
                    format!(
                        "games_per_pair must be at most {MAX_GAMES_PER_PAIR}, got {}",
                        value.get_ref()
                    ),
                ));
            }
            Some(value) => *value.get_ref(),
        };
        let duration = |value: &Option<Spanned<String>>, key: &str, default: Duration| match value {
            None => Ok(default),
            Some(text) => parse_duration(text.get_ref())
                .map_err(|error| fail(Some(text.span()), format!("{key}: {error}"))),
        };
        let defaults = Settings::default();
        let mut settings = Settings {
            startup_timeout: duration(
                &raw.startup_timeout,
                "startup_timeout",
                defaults.startup_timeout,
            )?,
            move_timeout: duration(&raw.move_timeout, "move_timeout", defaults.move_timeout)?,
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
            Some(value) if *value.get_ref() == 0 => {
                return Err(fail(Some(value.span()), "concurrency must be at least 1".to_owned()));
            }
            Some(value) if *value.get_ref() > MAX_CONCURRENCY => {
                return Err(fail(
                    Some(value.span()),
                    format!(
                        "concurrency must be at most {MAX_CONCURRENCY} (each game at once is a thread and two bot processes; this machine has {} CPUs), got {}",
                        std::thread::available_parallelism().map_or(1, usize::from),
                        value.get_ref()
                    ),
                ));
            }
            Some(value) => *value.get_ref() as usize,
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
            let entry = BotEntry {
                name: name.to_owned(),
                argv,
                dir,
                env: bot.env.clone(),
                written_command: bot.command.get_ref().clone(),
                written_dir: bot.dir.as_ref().map(|dir| dir.get_ref().clone()),
                version,
            };
            entry.command().check_program().map_err(|error| {
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
            (None, Some(path)) => folder.join(path.get_ref()),
            (None, None) => {
                let stem = file.file_stem().and_then(|stem| stem.to_str()).unwrap_or("tournament");
                Path::new("results").join(stem)
            }
        };
        Ok(Tournament {
            file: file.to_owned(),
            setup,
            seed: raw.seed.map(Spanned::into_inner).unwrap_or(1),
            games_per_pair,
            settings,
            concurrency,
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
        assert_eq!(tournament.settings.move_timeout, Duration::from_millis(200));
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
    fn errors_name_the_file_line_and_key() {
        let error = error_of(&GOOD.replace("games_per_pair = 4", "games_per_pair = 3"));
        assert!(error.starts_with("t.toml:4:") && error.contains("games_per_pair"), "{error}");
        let error = error_of(&GOOD.replace("seed = 3", "sed = 3"));
        assert!(error.starts_with("t.toml:3:") && error.contains("sed"), "{error}");
        let error = error_of(&GOOD.replace("seed = 3", "seed = \"x\""));
        assert!(error.starts_with("t.toml:3:") && error.contains("seed: invalid type"), "{error}");
        let error = error_of(&GOOD.replace("[\"sh\"]", "[\"sh\", 4]"));
        assert!(
            error.starts_with("t.toml:16:") && error.contains("[[bot]] 2, command, item 2: "),
            "{error}"
        );
        let error = error_of(&GOOD.replace("number-snatch", "chess"));
        assert!(error.starts_with("t.toml:2:") && error.contains("number-duel"), "{error}");
        let error = error_of(&GOOD.replace("count = 12", "colour = 12"));
        assert!(error.contains("params") && error.contains("colour"), "{error}");
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
