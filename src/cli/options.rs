//! Pieces of argument handling that several commands share.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::games::{Game, GameId, parse_params};
use crate::referee::BotCommand;
use crate::with_game;

/// Input that the user must correct (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses "500ms", "5s", "1m 30s" (clap value parser).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text)
        .map_err(|error| format!("`{text}` is not a duration like 500ms or 5s ({error})"))?;
    if duration.is_zero() {
        return Err("a time limit must be more than zero".to_owned());
    }
    Ok(duration)
}

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

/// Checks `overrides` against `game`'s parameters, naming what is wrong.
pub fn check_params(game: GameId, overrides: &Map<String, Value>) -> Result<(), UsageError> {
    with_game!(game, G => {
        parse_params::<<G as Game>::Params>(overrides.clone())
            .map(drop)
            .map_err(|error| UsageError(format!("{game} parameters: {error}")))
    })
}

/// The name a bot goes by when the user gave none: the file stem of the
/// last word of its command that names an existing file (the script of
/// `python3 bot.py`), else of the program itself.
pub fn default_bot_name(command: &BotCommand) -> String {
    let base = command.dir.as_deref().unwrap_or(Path::new("."));
    let word = command
        .argv
        .iter()
        .skip(1)
        .rev()
        .find(|word| !word.starts_with('-') && base.join(word).is_file())
        .unwrap_or(&command.argv[0]);
    Path::new(word)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .filter(|stem| !stem.is_empty())
        .unwrap_or(word)
        .to_owned()
}

/// Checks that a bot's program can be found and run, so a typo is reported
/// before any game starts instead of as a forfeit.
pub fn check_program(command: &BotCommand) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let program = Path::new(&command.argv[0]);
    let base = command.dir.as_deref().unwrap_or(Path::new("."));
    let executable = |path: &Path| {
        path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        let path = base.join(program);
        return match path.metadata() {
            Err(_) => Err(format!("program `{}` does not exist", path.display())),
            Ok(_) if !executable(&path) => Err(format!(
                "program `{}` is not an executable file (a script needs `chmod +x` and a #! line, or name its interpreter first)",
                path.display()
            )),
            Ok(_) => Ok(()),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| executable(&dir.join(program))) {
        Ok(())
    } else {
        Err(format!("program `{}` was not found in PATH", program.display()))
    }
}

/// Names for two bots: the given ones, else defaults, made distinct.
pub fn distinct_names(names: [String; 2]) -> [String; 2] {
    let [first, second] = names;
    if first == second { [format!("{first}-1"), format!("{second}-2")] } else { [first, second] }
}

/// `arena games`: every game with its parameters and defaults.
pub fn describe_games() -> String {
    let mut text = String::new();
    for game in GameId::ALL {
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
    fn bad_params_name_the_game_and_field() {
        let mut overrides = Map::new();
        overrides.insert("cnt".into(), Value::from(3));
        let error = check_params(GameId::NumberSnatch, &overrides).unwrap_err().to_string();
        assert!(error.contains("number-snatch") && error.contains("cnt"), "{error}");
        let mut overrides = Map::new();
        overrides.insert("count".into(), Value::from(7));
        let error = check_params(GameId::NumbersWar, &overrides).unwrap_err().to_string();
        assert!(error.contains("count"), "{error}");
    }

    #[test]
    fn durations_take_human_units() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("0s").is_err());
    }

    #[test]
    fn default_names_prefer_the_script() {
        let command = BotCommand::parse("python3 Cargo.toml").unwrap();
        assert_eq!(default_bot_name(&command), "Cargo");
        let command = BotCommand::parse("target/release/random-bot --fast").unwrap();
        assert_eq!(default_bot_name(&command), "random-bot");
        assert_eq!(distinct_names(["a".into(), "a".into()]), ["a-1".to_owned(), "a-2".to_owned()]);
    }
}
