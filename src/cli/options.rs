//! Pieces of argument handling that several commands share.

use std::path::Path;

use serde_json::Value;

use arena_games::with_game;
use arena_games::{Game, GameId};
use arena_referee::{BotCommand, Script};

/// The outputs asked for on the command line (`--markdown FILE`), each
/// checked writable now rather than after every game.
pub fn requested_exports(
    markdown: Option<&Path>,
    html: Option<&Path>,
) -> Result<Vec<arena_tournament::results::store::export::Export>, UsageError> {
    use arena_tournament::results::store::export::{Export, ExportFormat};
    let mut exports = Vec::new();
    for (flag, format, path) in [
        ("--markdown", ExportFormat::Markdown, markdown),
        ("--html", ExportFormat::Html { shows_stderr: false }, html),
    ] {
        if let Some(path) = path {
            arena_base::text_file::check_writable(path)
                .map_err(|error| UsageError(format!("{flag}: {error}")))?;
            exports.push(Export { format, path: path.to_owned() });
        }
    }
    Ok(exports)
}

/// Names each of `exports` once written: "wrote leaderboard.html".
pub fn say_written(exports: &[arena_tournament::results::store::export::Export]) {
    for export in exports {
        crate::say!("wrote {}", export.path.display());
    }
}

/// The command of `arena check` and `arena check-game`, given as one
/// quoted line (`"python3 my_bot.py"`, split as [`BotCommand::parse`]
/// splits any command line, so a one-word path to an existing file is
/// that file) or as its words (`python3 my_bot.py`, each word one argument
/// as the shell gave it): the second is what people type first, and
/// refusing it would only teach them to quote.
pub fn command_from_words(words: &[String]) -> Result<BotCommand, UsageError> {
    let command = match words {
        [line] => BotCommand::parse(line),
        words => BotCommand::from_argv(words.to_vec()),
    };
    command.map_err(|error| UsageError(error.to_string()))
}

/// Input that the user must correct (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses one `name=value` game parameter (clap value parser). Numbers and
/// booleans become JSON numbers and booleans; anything else a string.
pub fn parse_param(text: &str) -> Result<(String, Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not of the form name=value (for example count=12)"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{text}` has no parameter name before `=`"));
    }
    let value = serde_json::from_str::<Value>(value.trim())
        .ok()
        .filter(|value| value.is_number() || value.is_boolean())
        .unwrap_or_else(|| Value::String(value.trim().to_owned()));
    Ok((name.to_owned(), value))
}

/// The name a bot goes by when the user gave none: its script's name for
/// an interpreter, else its program's, without folder or extension.
///
/// A program looked up in PATH or living in a system folder (`python3`,
/// `node`, `/usr/bin/java`) is taken as an interpreter: the bot is named
/// after the first of its arguments that is not an option (`-u`) and names
/// a file, an existing one or a word with a `/` or an extension (so a
/// script that is missing still names its bot). `python3 -u bots/my_bot.py`
/// is `my_bot`, `node x/strong.js` is `strong`, `java -jar bot.jar` is
/// `bot`. A program named by a path of its own is the bot itself, whatever
/// its arguments: `target/release/random-bot --fast` is `random-bot`,
/// `./bot data.txt` is `bot`; and so is an interpreter none of whose
/// arguments names a file (`python3 -m mybot` is `python3`).
///
/// A file called `bot` or `main` (any extension) says nothing about its
/// bot, so it is named after its folder when the command names one: the
/// starter kits' launchers `bots/cpp/bot` and `bots/go/bot` are `cpp` and
/// `go`, `python3 my_bot/main.py` is `my_bot`. A command run by `env`
/// (`env NAME=VALUE ... PROGRAM`) is named as PROGRAM's would be.
pub fn default_bot_name(command: &BotCommand) -> String {
    if let Some(run) = command.run_by_env() {
        return default_bot_name(&run);
    }
    let base = command.dir.as_deref().unwrap_or(Path::new("."));
    let program = &command.argv[0];
    let is_interpreter =
        !program.contains('/') || arena_system::sandbox::in_system_folder(Path::new(program));
    let names_a_file = |word: &&String| {
        !word.starts_with('-')
            && (base.join(word).is_file()
                || word.contains('/')
                || Path::new(word).extension().is_some())
    };
    let script = match command.script() {
        Script::File(script) => Some(script),
        // Code given inline, a module, or nothing (refused before a game):
        // the interpreter is all there is.
        Script::Inline | Script::Absent { .. } => None,
        Script::Unknown => command.argv[1..]
            .iter()
            .find(names_a_file)
            .filter(|_| is_interpreter)
            .map(String::as_str),
    };
    let word = Path::new(script.unwrap_or(program));
    let stem = word.file_stem().and_then(|stem| stem.to_str()).filter(|stem| !stem.is_empty());
    let folder = || word.parent()?.file_name()?.to_str();
    match stem {
        Some("bot" | "main") => folder().or(stem),
        Some(stem) => Some(stem),
        None => None,
    }
    .unwrap_or(word.to_str().unwrap_or_default())
    .to_owned()
}

/// Names made distinct: a name given to several bots gets `-1`, `-2`...
/// in order, skipping suffixes that would make another bot's name.
pub fn distinct(names: Vec<String>) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> = names.iter().cloned().collect();
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let shared: Vec<bool> =
        names.iter().map(|name| names.iter().filter(|other| *other == name).count() > 1).collect();
    names
        .into_iter()
        .zip(shared)
        .map(|(name, shared)| {
            if !shared {
                return name;
            }
            let count = next.entry(name.clone()).or_default();
            loop {
                *count += 1;
                let candidate = format!("{name}-{count}");
                if taken.insert(candidate.clone()) {
                    return candidate;
                }
            }
        })
        .collect()
}

/// `arena games`: every game with its parameters and defaults.
pub fn describe_games() -> String {
    let mut text = String::new();
    for &game in GameId::ALL {
        let defaults = with_game!(game, G => {
            serde_json::to_string(&<G as Game>::Params::default())
                .expect("parameters serialize")
        });
        text.push_str(&format!("{:<16} {:<16} defaults {defaults}\n", game.as_str(), game.title()));
    }
    text.push_str("\nSet parameters with --param name=value; docs/rules.md has the rules.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse_numbers_and_keep_words() {
        assert_eq!(parse_param("count=12").unwrap(), ("count".into(), Value::from(12)));
        assert_eq!(parse_param(" n = 4 ").unwrap(), ("n".into(), Value::from(4)));
        assert_eq!(parse_param("x=abc").unwrap(), ("x".into(), Value::from("abc")));
        assert!(parse_param("count").is_err());
        assert!(parse_param("=3").is_err());
    }

    #[test]
    fn default_names_come_from_the_script_of_an_interpreter() {
        let name = |line: &str| default_bot_name(&BotCommand::parse(line).unwrap());
        assert_eq!(name("python3 Cargo.toml"), "Cargo");
        assert_eq!(name("python3 bots/my_bot.py"), "my_bot");
        assert_eq!(name("python3 -u bots/missing_bot.py --level 3"), "missing_bot");
        assert_eq!(name("node x/strong.js"), "strong");
        assert_eq!(name("/usr/bin/node x/strong.js"), "strong");
        assert_eq!(name("java -jar bot.jar"), "bot");
        assert_eq!(name("python3 bot.py config.json"), "bot");
        assert_eq!(name("python3 -m mybot"), "python3");
        assert_eq!(name("python3 -c 'import sys; sys.exit(3)'"), "python3");
        assert_eq!(name("target/release/random-bot --fast"), "random-bot");
        assert_eq!(name("./bot data.txt"), "bot");
        assert_eq!(name("bots/cpp/bot"), "cpp");
        assert_eq!(name("python3 -u my_bot/main.py"), "my_bot");
        assert_eq!(name("java -jar bots/java/bot.jar"), "java");
        // `env` sets variables for the bot it runs.
        assert_eq!(name("env FILE=data/big.dat bots/probe"), "probe");
        assert_eq!(distinct(vec!["a".into(), "a".into()]), ["a-1", "a-2"]);
        let names = distinct(["a", "b", "a", "c", "a"].map(String::from).to_vec());
        assert_eq!(names, ["a-1", "b", "a-2", "c", "a-3"]);
        let names = distinct(["r", "r-1", "r"].map(String::from).to_vec());
        assert_eq!(names, ["r-2", "r-1", "r-3"], "a suffix never makes a name given");
    }
}
