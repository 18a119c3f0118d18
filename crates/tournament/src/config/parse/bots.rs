//! The bots of a tournament file: its `[[bot]]` tables (names, commands,
//! folders, environments, time controls, build commands) and the
//! `challengers` key that names some of them.

use std::collections::HashSet;
use std::path::Path;

use toml::Spanned;

use super::Fail;
use crate::config::bot::valid_env_key;
use crate::config::raw::{RawBot, RawTournament, WrittenTimeKeys};
use crate::config::{BotEntry, ConfigError, check_tournament_bot_name};
use arena_base::printable::printable;
use arena_referee::TimeControl;
use arena_referee::clock::TimeKey;

/// The `[[bot]]` tables (at least two, names unique).
pub(super) fn read_bots(
    raw: &RawTournament,
    folder: &Path,
    time_control: TimeControl,
    fail: &Fail,
) -> Result<Vec<BotEntry>, ConfigError> {
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
        bots.push(read_bot(bot.get_ref(), &mut names, folder, time_control, fail)?);
    }
    Ok(bots)
}

/// One `[[bot]]` table; `names` holds the names of the bots before it.
fn read_bot(
    bot: &RawBot,
    names: &mut HashSet<String>,
    folder: &Path,
    time_control: TimeControl,
    fail: &Fail,
) -> Result<BotEntry, ConfigError> {
    let name = bot.name.get_ref().trim();
    if name.is_empty() {
        return Err(fail(Some(bot.name.span()), "bot name: must not be empty".to_owned()));
    }
    if let Err(problem) = check_tournament_bot_name(name) {
        return Err(fail(Some(bot.name.span()), format!("bot `{}`: {problem}", printable(name))));
    }
    if !names.insert(name.to_owned()) {
        return Err(fail(Some(bot.name.span()), format!("bot `{name}`: the name is used twice")));
    }
    let dir = match &bot.dir {
        None => folder.to_path_buf(),
        Some(dir) => folder.join(dir.get_ref()),
    };
    let dir = super::own_folder(&dir);
    if !dir.is_dir() {
        let span = bot.dir.as_ref().map(Spanned::span).unwrap_or(bot.name.span());
        return Err(fail(
            Some(span),
            format!("bot `{name}`: dir {} is not a folder", dir.display()),
        ));
    }
    let mut argv = bot.command.get_ref().clone();
    if argv.first().is_none_or(String::is_empty) {
        return Err(fail(Some(bot.command.span()), format!("bot `{name}`: command is empty")));
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
        false => Some(time_keys.over(time_control).map_err(|error| {
            fail(
                written_time.span(error.key()),
                format!("bot `{name}`: {}", error.describe(TimeKey::file_key)),
            )
        })?),
    };
    let build = read_build(bot, name, fail)?;
    // As the command's words: relative to the bot's folder.
    let mut read_paths = Vec::new();
    for path in &bot.read_paths {
        let full = dir.join(path.get_ref());
        if !full.exists() {
            return Err(fail(
                Some(path.span()),
                format!("bot `{name}`: read_paths: {} does not exist", full.display()),
            ));
        }
        read_paths.push(std::path::absolute(&full).unwrap_or(full));
    }
    let entry = BotEntry {
        name: name.to_owned(),
        argv,
        dir,
        env: bot.env.clone(),
        written_command: bot.command.get_ref().clone(),
        written_dir: bot.dir.as_ref().map(|dir| dir.get_ref().clone()),
        read_paths,
        version,
        build,
        time_keys,
        time_control,
    };
    if let Some(build) = entry.build_command() {
        build.check_program().map_err(|error| {
            let span = bot.build.as_ref().map(Spanned::span);
            fail(span, format!("bot `{name}`: build: {error}"))
        })?;
    } else {
        // A bot with a build command may not be built yet: its program and
        // files are checked before it plays (`Tournament::check_built`).
        entry.command().check_files().map_err(|error| {
            fail(Some(bot.command.span()), format!("bot `{name}`: command: {error}"))
        })?;
    }
    Ok(entry)
}

/// A bot's `build` command: words, the first not empty, and a `dir` to run
/// in (the bot's folder, whose source files make its fingerprint).
fn read_build(bot: &RawBot, name: &str, fail: &Fail) -> Result<Option<Vec<String>>, ConfigError> {
    let Some(build) = &bot.build else { return Ok(None) };
    if build.get_ref().first().is_none_or(String::is_empty) {
        return Err(fail(Some(build.span()), format!("bot `{name}`: build is empty")));
    }
    if bot.dir.is_none() {
        return Err(fail(
            Some(build.span()),
            format!(
                "bot `{name}`: `build` needs `dir`: the bot's own folder, where its build runs and whose source files (those no .gitignore leaves out) make its fingerprint"
            ),
        ));
    }
    Ok(Some(build.get_ref().clone()))
}

/// The `challengers` key: names of the file's bots, as indexes.
pub(super) fn read_challengers(
    names: Option<&Spanned<Vec<Spanned<String>>>>,
    bots: &[BotEntry],
    fail: &Fail,
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
