//! Checking a tournament file into a [`Tournament`]: each part of the file
//! (game, openings, games per pairing, time, sandbox, bots, challengers)
//! read by a step of its own, in the order errors are reported; the bots' steps
//! are in `bots`.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use super::check;
use super::error::key_path;
use super::raw::{RawSprt, RawTournament, WrittenTimeKeys};
use super::{
    ConfigError, DEFAULT_WITHDRAW_AFTER, MAX_GAMES_PER_PAIR, MAX_LINE_BYTES, Restart, Tournament,
    check_concurrency, check_games_per_pair,
};
use crate::config::BuildSettings;
use crate::config::TranscriptStore;
use crate::config::openings::{MAX_OPENINGS_BYTES, Openings};
use crate::sprt::{DEFAULT_MAX_GAMES, SprtSettings};
use arena_base::text_file::read_bounded;
use arena_base::units::{parse_duration, parse_duration_or_zero, parse_size};
use arena_games::{GameId, GameSetup};
use arena_referee::clock::TimeKey;
use arena_referee::game_program::{DescribeError, describe_program};
use arena_referee::{BotCommand, Settings, TimeControl};
use arena_system::sandbox::{SandboxMode, SandboxSettings};

mod bots;

use bots::{read_bots, read_challengers};

/// Makes the error of a value at a place of the file.
type Fail<'a> = dyn Fn(Option<Range<usize>>, String) -> ConfigError + 'a;

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
        let fail = |span: Option<Range<usize>>, message: String| {
            ConfigError::at(file, text, span, message)
        };
        let fail: &Fail = &fail;
        // Every mistake of kind and form at once, in the file's terms.
        if let Some(error) = check::error(file, text, &check::check(text)) {
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

        let out = match (out, &raw.out) {
            (Some(out), _) => out.to_path_buf(),
            (None, Some(path)) => tidy(&folder.join(path.get_ref())),
            (None, None) => {
                let stem = file.file_stem().and_then(|stem| stem.to_str()).unwrap_or("tournament");
                Path::new("results").join(stem)
            }
        };
        let settings = read_settings(&raw, fail)?;
        let sandbox = read_sandbox(&raw, folder, fail)?;
        let build = BuildSettings {
            network: raw.build_network.unwrap_or(false),
            timeout: read_duration(
                &raw.build_timeout,
                "build_timeout",
                BuildSettings::default().timeout,
                fail,
            )?,
        };
        // A game program describes itself in the sandbox its bots will
        // have, which may read neither the file nor the results.
        let protected = [file, out.as_path()];
        let setup = read_setup(&raw, folder, &sandbox, &protected, &settings, fail)?;
        let openings = read_openings(&raw, folder, &setup, fail)?;
        let (sprt, sprt_games) = read_sprt(raw.sprt.as_ref(), raw.games_per_pair.as_ref(), fail)?;
        let games_per_pair = read_games_per_pair(&raw, openings.as_ref(), sprt_games, fail)?;
        let concurrency = match &raw.concurrency {
            None => 1,
            Some(value) => check_concurrency(*value.get_ref())
                .map_err(|message| fail(Some(value.span()), message))?,
        };
        let bots = read_bots(&raw, folder, settings.time_control, fail)?;
        let challengers = read_challengers(raw.challengers.as_ref(), &bots, fail)?;
        if let (Some(table), true) = (&raw.sprt, bots.len() != 2 || !challengers.is_empty()) {
            return Err(fail(
                Some(table.span()),
                format!(
                    "[sprt] tests the first [[bot]] against the second: the file needs exactly two bots and no challengers, it has {} bots",
                    bots.len()
                ),
            ));
        }

        let tournament = Tournament {
            file: file.to_owned(),
            game_dir: raw.game_dir.as_ref().map(|dir| dir.get_ref().clone()),
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
            build,
            challengers,
            sprt,
            bots,
            seed_key_file: None,
        };
        // At the key that sets the size, or the whole file.
        let size_span = raw.games_per_pair.as_ref().map(Spanned::span);
        tournament.check_schedule_size().map_err(|message| fail(size_span, message))?;
        Ok(tournament)
    }
}

/// A bot's or game program's folder, resolved (`../bots/x` from
/// tournaments/, or through a link): its box holds the folders on the way
/// to it, not the ones a `..` passes through. One that does not exist is
/// made absolute, for the check that refuses it to name.
pub(super) fn own_folder(dir: &Path) -> PathBuf {
    dir.canonicalize().or_else(|_| std::path::absolute(dir)).unwrap_or_else(|_| dir.to_owned())
}

/// `path` without the `..` steps that undo a folder before them, for the
/// user to read: `tournaments/../results/demo` is `results/demo`. The part
/// that exists is resolved by the system (so a link is followed, never
/// skipped), the rest by its words; the result is relative to the working
/// folder when it lies inside it. A path without `..` is kept as written.
pub(super) fn tidy(path: &Path) -> PathBuf {
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

/// `game` or `game_command`, and `[params]`: the game's setup, checked.
/// A game program is asked to describe itself (in the sandbox of
/// `sandbox`, which may not read `protected`), and its parameters are
/// checked against its declaration and by the program.
fn read_setup(
    raw: &RawTournament,
    folder: &Path,
    sandbox: &SandboxSettings,
    protected: &[&Path],
    settings: &Settings,
    fail: &Fail,
) -> Result<GameSetup, ConfigError> {
    let params = match &raw.params {
        None => serde_json::Map::new(),
        Some(table) => {
            let value = serde_json::to_value(table.get_ref())
                .map_err(|error| fail(Some(table.span()), format!("params: {error}")))?;
            let serde_json::Value::Object(map) = value else {
                unreachable!("a table is an object")
            };
            map
        }
    };
    // At the parameter's value when one is at fault.
    let param_span = |param: Option<&str>| {
        let table = raw.params.as_ref()?;
        Some(match param.and_then(|param| table.get_ref().get(param)) {
            Some(value) => value.span(),
            None => table.span(),
        })
    };
    if let (Some(dir), None) = (&raw.game_dir, &raw.game_command) {
        return Err(fail(
            Some(dir.span()),
            "game_dir is a game program's folder: give game_command too".to_owned(),
        ));
    }
    let command = match (&raw.game, &raw.game_command) {
        (Some(game), None) => {
            let game: GameId =
                game.get_ref().parse().map_err(|error: arena_games::UnknownGame| {
                    fail(Some(game.span()), format!("game: {error}"))
                })?;
            return GameSetup::new(game, params).map_err(|error| {
                fail(param_span(error.error.param()), format!("params: {error}"))
            });
        }
        (Some(game), Some(_)) => {
            return Err(fail(Some(game.span()), super::check::GAME_AND_COMMAND.to_owned()));
        }
        (None, None) => {
            return Err(fail(
                None,
                "the file names no game: give `game` (a built-in game's id) or `game_command` (a game program's command, game-protocol.md)".to_owned(),
            ));
        }
        (None, Some(command)) => command,
    };
    let written = command.get_ref();
    let mut argv = written.clone();
    if argv.first().is_none_or(String::is_empty) {
        return Err(fail(Some(command.span()), "game_command is empty".to_owned()));
    }
    // As a bot's: a relative program path is relative to the folder the
    // game program runs in, `game_dir` or the file's.
    // Resolved as a bot's `dir` is.
    let dir = match &raw.game_dir {
        None => own_folder(folder),
        Some(written) => {
            let dir = folder.join(written.get_ref());
            if !dir.is_dir() {
                return Err(fail(
                    Some(written.span()),
                    format!("game_dir: {} is not a folder", dir.display()),
                ));
            }
            own_folder(&dir)
        }
    };
    if argv[0].contains('/') && Path::new(&argv[0]).is_relative() {
        argv[0] = dir.join(&argv[0]).to_string_lossy().into_owned();
    }
    let declared = arena_system::sandbox::Declared {
        folder: raw.game_dir.as_ref().map(|_| dir.clone()),
        read_paths: Vec::new(),
    };
    let program = BotCommand { argv, dir: Some(dir), declared, ..BotCommand::default() };
    program
        .check_files()
        .map_err(|problem| fail(Some(command.span()), format!("game_command: {problem}")))?;
    describe_program(&program, written, params, sandbox, protected, settings.program_settings())
        .map_err(|error| match &error {
            DescribeError::Params(refused) => {
                fail(param_span(refused.error.param()), format!("params: {error}"))
            }
            DescribeError::Refused { refusal, .. } => {
                fail(param_span(refusal.param.as_deref()), format!("params: {error}"))
            }
            // The time may be what is wrong: said where it is set.
            _ if error.may_need_more_time() => match &raw.game_timeout {
                Some(timeout) => fail(
                    Some(timeout.span()),
                    format!("game_timeout: {error}: raise it if the game needs longer"),
                ),
                None => fail(
                    Some(command.span()),
                    format!("game_command: {error}: if the game needs longer, set game_timeout"),
                ),
            },
            _ => fail(Some(command.span()), format!("game_command: {error}")),
        })
}

/// `openings`: the openings file, read beside the tournament file.
fn read_openings(
    raw: &RawTournament,
    folder: &Path,
    setup: &GameSetup,
    fail: &Fail,
) -> Result<Option<Openings>, ConfigError> {
    Ok(match &raw.openings {
        None => None,
        Some(written) => {
            let path = folder.join(written.get_ref());
            let text = read_bounded(&path, MAX_OPENINGS_BYTES).map_err(|error| {
                fail(
                    Some(written.span()),
                    format!("openings: cannot read {}: {error}", path.display()),
                )
            })?;
            Some(Openings::parse(&path, written.get_ref(), &text, setup)?)
        }
    })
}

/// `games_per_pair`, or what takes its place: an SPRT's most games, or
/// each setup of the openings file in both seat orders.
fn read_games_per_pair(
    raw: &RawTournament,
    openings: Option<&Openings>,
    sprt_games: Option<u32>,
    fail: &Fail,
) -> Result<u32, ConfigError> {
    Ok(match (&raw.games_per_pair, openings, sprt_games) {
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
    })
}

/// A duration key, `default` when absent.
fn read_duration(
    value: &Option<Spanned<String>>,
    key: &str,
    default: Duration,
    fail: &Fail,
) -> Result<Duration, ConfigError> {
    match value {
        None => Ok(default),
        Some(text) => parse_duration(text.get_ref())
            .map_err(|error| fail(Some(text.span()), format!("{key}: {error}"))),
    }
}

/// The referee's settings: time control, margin, start-up time and limits
/// on what bots write.
fn read_settings(raw: &RawTournament, fail: &Fail) -> Result<Settings, ConfigError> {
    let written_time = WrittenTimeKeys {
        control: &raw.time_control,
        move_timeout: &raw.move_timeout,
        bank: &raw.bank,
        increment: &raw.increment,
        move_cap: &raw.move_cap,
    };
    let time_control = written_time
        .read("", fail)?
        .over(TimeControl::default())
        .map_err(|error| fail(written_time.span(error.key()), error.describe(TimeKey::file_key)))?;
    let time_margin = match &raw.time_margin {
        None => Duration::ZERO,
        Some(text) => parse_duration_or_zero(text.get_ref())
            .map_err(|error| fail(Some(text.span()), format!("time_margin: {error}")))?,
    };
    let defaults = Settings::default();
    let mut settings = Settings {
        startup_timeout: read_duration(
            &raw.startup_timeout,
            "startup_timeout",
            defaults.startup_timeout,
            fail,
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
    settings.game_timeout =
        read_duration(&raw.game_timeout, "game_timeout", defaults.game_timeout, fail)?;
    Ok(settings)
}

/// The sandbox keys: mode, limits, network and the paths bots may read.
fn read_sandbox(
    raw: &RawTournament,
    folder: &Path,
    fail: &Fail,
) -> Result<SandboxSettings, ConfigError> {
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
    limits.scratch = size(&raw.scratch_limit, "scratch_limit", limits.scratch)?;
    limits.processes = count(&raw.process_limit, "process_limit", limits.processes)?;
    limits.open_files = count(&raw.open_files_limit, "open_files_limit", limits.open_files)?;
    limits.cpu_time = read_duration(&raw.cpu_limit, "cpu_limit", limits.cpu_time, fail)?;
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
    Ok(sandbox)
}

/// The `[sprt]` table, checked, and the games it plays at most (in place of
/// `games_per_pair`, which it may not be given with).
fn read_sprt(
    table: Option<&Spanned<RawSprt>>,
    games_per_pair: Option<&Spanned<u32>>,
    fail: &Fail,
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
        // Given payoff1, payoff0 is 0 unless given: recorded so, the same
        // test resumes whether payoff0 was written or not.
        payoff0: raw.payoff0.or(raw.payoff1.map(|_| 0.0)),
        payoff1: raw.payoff1,
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
