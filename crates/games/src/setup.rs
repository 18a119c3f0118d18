//! What a game is played with: the game (built-in or a program) and its
//! parameters, checked once where they are read.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use super::program::{ParamValues, ProgramGame};
use super::{Game, GameId, SetupError, parse_params};
use crate::with_game;

/// A game arena plays: one of the built-in games, or a game program.
#[derive(Clone, Debug, PartialEq)]
pub enum GameRef {
    /// A game compiled into arena.
    Builtin(GameId),
    /// A game written as a program (game-protocol.md).
    Program(Arc<ProgramGame>),
}

impl GameRef {
    /// The game's id, as `start`, games.csv and transcripts write it.
    pub fn name(&self) -> &str {
        match self {
            GameRef::Builtin(id) => id.as_str(),
            GameRef::Program(program) => &program.declaration.name,
        }
    }

    /// The name people read.
    pub fn title(&self) -> &str {
        match self {
            GameRef::Builtin(id) => id.title(),
            GameRef::Program(program) => program.declaration.title(),
        }
    }

    /// The built-in game, if it is one.
    pub fn builtin(&self) -> Option<GameId> {
        match self {
            GameRef::Builtin(id) => Some(*id),
            GameRef::Program(_) => None,
        }
    }

    /// The game program, if it is one.
    pub fn program(&self) -> Option<&Arc<ProgramGame>> {
        match self {
            GameRef::Builtin(_) => None,
            GameRef::Program(program) => Some(program),
        }
    }

    /// Whether the game is a program that declares itself random: what it
    /// deals may be hidden from a seat (arena cannot tell), which no
    /// built-in game's setup is.
    pub fn is_random_program(&self) -> bool {
        self.program().is_some_and(|program| program.declaration.random)
    }

    /// Whether the game deals what one seat may see and the other not, so
    /// that no two of its games may share a setup. The built-in games deal
    /// nothing in secret: their setups are public.
    pub fn deals_privately(&self) -> bool {
        self.program().is_some_and(|program| program.declaration.deals_privately())
    }

    /// The payoffs' range, if the game's scores are payoffs. The built-in
    /// games score by wins: their scores (numbers taken, points) are how a
    /// game was won, not what it was worth.
    pub fn payoffs(&self) -> Option<crate::program::Payoffs> {
        self.program().and_then(|program| program.declaration.payoffs)
    }
}

impl fmt::Display for GameRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for GameRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A game with its parameters, checked once where they are read (a
/// tournament file, `--param`) and passed around from there. Generic code
/// takes the typed parameters of a built-in game with
/// [`GameSetup::params`], a game program's with
/// [`GameSetup::program_params`].
#[derive(Clone)]
pub struct GameSetup {
    game: GameRef,
    overrides: serde_json::Map<String, serde_json::Value>,
    /// The typed parameters, or a program's [`ParamValues`].
    params: Arc<dyn Any + Send + Sync>,
    /// Every parameter with its value, as compact JSON: what `start` and
    /// transcripts write (made once, not per game).
    params_json: Arc<str>,
}

impl GameSetup {
    /// Reads and checks `overrides` (missing parameters keep the rule
    /// book's defaults) for `game`, naming what is wrong.
    pub fn new(
        game: GameId,
        overrides: serde_json::Map<String, serde_json::Value>,
    ) -> Result<GameSetup, SetupError> {
        let (params, params_json) =
            with_game!(game, G => parse_params::<<G as Game>::Params>(overrides.clone())
            .map(|params| {
                let json = serde_json::to_string(&params).expect("parameters serialize");
                (Arc::new(params) as Arc<dyn Any + Send + Sync>, json)
            }))
            .map_err(|error| SetupError { game: game.as_str().to_owned(), error })?;
        Ok(GameSetup {
            game: GameRef::Builtin(game),
            overrides,
            params,
            params_json: params_json.into(),
        })
    }

    /// Checks `overrides` against what the game program declared.
    pub fn program(
        program: Arc<ProgramGame>,
        overrides: serde_json::Map<String, serde_json::Value>,
    ) -> Result<GameSetup, SetupError> {
        let values = program
            .declaration
            .params_from(&overrides)
            .map_err(|error| SetupError { game: program.declaration.name.clone(), error })?;
        let params_json = serde_json::to_string(&values).expect("parameters serialize");
        Ok(GameSetup {
            game: GameRef::Program(program),
            overrides,
            params: Arc::new(values),
            params_json: params_json.into(),
        })
    }

    /// The same game with other parameters (an openings file's), checked.
    pub fn with_overrides(
        &self,
        overrides: serde_json::Map<String, serde_json::Value>,
    ) -> Result<GameSetup, SetupError> {
        match &self.game {
            GameRef::Builtin(id) => GameSetup::new(*id, overrides),
            GameRef::Program(program) => GameSetup::program(Arc::clone(program), overrides),
        }
    }

    /// The game.
    pub fn game(&self) -> &GameRef {
        &self.game
    }

    /// The parameters as given: what records and transcripts keep.
    pub fn overrides(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.overrides
    }

    /// Every parameter with its value, as compact JSON.
    pub fn params_json(&self) -> &str {
        &self.params_json
    }

    /// The typed parameters. `G` must be this setup's game (callers
    /// dispatch on [`GameSetup::game`] with `with_game!`); another is a bug.
    pub fn params<G: Game>(&self) -> &G::Params {
        match self.params.downcast_ref() {
            Some(params) => params,
            None => panic!("a setup of {} used as {}", self.game, G::ID),
        }
    }

    /// A game program's parameters, every one with its value. Only for a
    /// setup of a game program; another is a bug.
    pub fn program_params(&self) -> &ParamValues {
        match self.params.downcast_ref() {
            Some(params) => params,
            None => panic!("a setup of {} used as a game program's", self.game),
        }
    }
}

impl fmt::Debug for GameSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameSetup")
            .field("game", &self.game.name())
            .field("overrides", &self.overrides)
            .finish()
    }
}

impl PartialEq for GameSetup {
    fn eq(&self, other: &GameSetup) -> bool {
        (&self.game, &self.overrides) == (&other.game, &other.overrides)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_takes_its_defaults() {
        for &game in GameId::ALL {
            let setup = GameSetup::new(game, serde_json::Map::new()).unwrap();
            assert_eq!(setup.game(), &GameRef::Builtin(game));
        }
    }

    #[test]
    fn a_refused_parameter_is_named_with_its_game() {
        let refused = |name: &str, value: serde_json::Value| {
            let overrides = serde_json::Map::from_iter([(name.to_owned(), value)]);
            GameSetup::new(GameId::NumbersWar, overrides).unwrap_err().to_string()
        };
        assert_eq!(
            refused("count", "x".into()),
            r#"parameter `count` of numbers-war: expected a whole number, got "x""#
        );
        for value in [serde_json::json!(1.5), serde_json::json!(true)] {
            let error = refused("count", value.clone());
            assert!(error.ends_with(&format!("expected a whole number, got {value}")), "{error}");
        }
        let error = refused("count", serde_json::json!(-1));
        assert!(error.ends_with("expected a whole number of 0 or more, got -1"), "{error}");
        assert_eq!(
            refused("count", "12".into()),
            r#"parameter `count` of numbers-war: expected a whole number, got "12": write it without quotes, count = 12"#
        );
        assert_eq!(
            refused("colour", 3.into()),
            "parameter `colour` of numbers-war: no such parameter (the parameters are count, max)"
        );
        assert_eq!(
            refused("cnt", 3.into()),
            "parameter `cnt` of numbers-war: no such parameter: did you mean `count`? (the parameters are count, max)"
        );
        let error = refused("count", 5_000_000_000u64.into());
        assert!(error.starts_with("parameter `count` of numbers-war: "), "{error}");
        let error = refused("count", 3.into());
        assert!(error.starts_with("parameter `count` of numbers-war: must be"), "{error}");
    }

    #[test]
    fn bad_overrides_name_the_field() {
        let mut overrides = serde_json::Map::new();
        overrides.insert("cnt".into(), 3.into());
        let error =
            GameSetup::new(GameId::NumberSnatch, overrides.clone()).unwrap_err().to_string();
        assert!(error.contains("cnt") && error.contains("count"), "{error}");
        let mut overrides = serde_json::Map::new();
        overrides.insert("count".into(), 7.into());
        let error = GameSetup::new(GameId::NumbersWar, overrides.clone()).unwrap_err().to_string();
        assert!(error.contains("count") && error.contains("even"), "{error}");
    }
}
