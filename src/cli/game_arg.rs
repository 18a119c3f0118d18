//! The GAME argument every command takes: a built-in game's id, or the
//! command line of a game program (split like a bot's), which is asked to
//! describe itself before anything is played.

use std::path::Path;

use serde_json::Value;

use super::options::UsageError;
use arena_games::{GameId, GameSetup};
use arena_referee::game_program::{DescribeError, describe_program};
use arena_referee::{BotCommand, ProgramSettings};
use arena_system::sandbox::SandboxSettings;

/// A game as given on the command line.
#[derive(Clone, Debug)]
pub enum GameArg {
    /// A built-in game.
    Builtin(GameId),
    /// A game program's command.
    Program(BotCommand),
}

impl GameArg {
    /// A built-in game's id, or else a command that names a program.
    pub fn parse(text: &str) -> Result<GameArg, String> {
        if let Ok(id) = text.parse::<GameId>() {
            return Ok(GameArg::Builtin(id));
        }
        let command = BotCommand::parse(text).map_err(|error| error.to_string())?;
        command.check_files().map_err(|problem| {
            format!(
                "`{}` is neither a game ({}) nor a game program's command: {problem}",
                arena_base::printable::printable(text),
                GameId::list()
            )
        })?;
        Ok(GameArg::Program(command))
    }
}

/// The clap parser of a GAME argument: a built-in game's id, or any other
/// text taken as a game program's command. Its help lists the built-in
/// games (from the list of games) under clap's "Possible values", and
/// `<COMMAND>` last, so that the list does not read as closed.
#[derive(Clone)]
pub struct GameArgParser;

impl clap::builder::TypedValueParser for GameArgParser {
    type Value = GameArg;

    fn parse_ref(
        &self,
        command: &clap::Command,
        argument: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<GameArg, clap::Error> {
        let text = clap::builder::StringValueParser::new().parse_ref(command, argument, value)?;
        GameArg::parse(&text).map_err(|message| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{message}\n"))
                .with_cmd(command)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let games = GameId::ALL
            .iter()
            .map(|id| clap::builder::PossibleValue::new(id.as_str()).help(id.title()));
        let command = clap::builder::PossibleValue::new("<COMMAND>")
            .help("a game program's command line (game-protocol.md)");
        Some(Box::new(games.chain([command])))
    }
}

/// The game of `game` with `params`: a built-in game's parameters checked
/// against its rule book; or a game program asked to describe itself (in
/// a sandbox of `sandbox`'s settings that may not read `protected`), its
/// parameters checked against what it declared, then by the program
/// itself (it must set up a game with them). `timeout_flag` names how the
/// user gives the program more time, if the command has a way.
pub fn game_setup(
    game: &GameArg,
    params: &[(String, Value)],
    sandbox: &SandboxSettings,
    protected: &[&Path],
    settings: ProgramSettings,
    timeout_flag: Option<&str>,
) -> anyhow::Result<GameSetup> {
    let overrides: serde_json::Map<String, Value> = params.iter().cloned().collect();
    match game {
        GameArg::Builtin(id) => {
            GameSetup::new(*id, overrides).map_err(|error| UsageError(error.to_string()).into())
        }
        GameArg::Program(command) => {
            let written = &command.argv;
            describe_program(command, written, overrides, sandbox, protected, settings).map_err(
                |error| match error {
                    // The sandbox's error stays in the chain: one closed to
                    // others is input to correct (exit status 2).
                    DescribeError::Sandbox(error) => anyhow::Error::new(error)
                        .context("cannot put the game program in its sandbox"),
                    DescribeError::Runtime(_) => error.into(),
                    _ => match timeout_flag {
                        Some(flag) if error.may_need_more_time() => {
                            UsageError(format!("{error}: if the game needs longer, raise {flag}"))
                                .into()
                        }
                        _ => UsageError(error.to_string()).into(),
                    },
                },
            )
        }
    }
}
