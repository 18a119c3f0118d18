//! The games arena referees.
//!
//! Every game is a pure, deterministic state machine behind the [`Game`]
//! trait: a seeded setup, the legal moves of a seat, applying a move, the
//! outcome, and the view of one seat (the only thing a bot is ever sent).
//! Nothing here touches processes, clocks or files.
//!
//! A game is a sequence of `(seat, move)` applications. In a turn-based game
//! [`Game::to_move`] names one seat at a time. In a simultaneous game it names
//! both seats; the referee collects both choices first and only then applies
//! them, in seat order, so no view ever depends on a pending choice.

pub mod narrate;

use std::any::Any;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::Arc;

use crate::json::WriteJson;
use rand::SeedableRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// One of the two players. Serialized as the number `1` or `2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    /// Seat 1, which moves first.
    One,
    /// Seat 2.
    Two,
}

impl Seat {
    /// Both seats, seat 1 first.
    pub const BOTH: [Seat; 2] = [Seat::One, Seat::Two];

    /// 0 for seat 1, 1 for seat 2: the index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            Seat::One => 0,
            Seat::Two => 1,
        }
    }

    /// 1 or 2, as players and the protocol number seats.
    pub fn number(self) -> u8 {
        self.index() as u8 + 1
    }

    /// The seat numbered 1 or 2; `None` for any other number.
    pub fn from_number(number: u8) -> Option<Seat> {
        match number {
            1 => Some(Seat::One),
            2 => Some(Seat::Two),
            _ => None,
        }
    }

    /// The opponent's seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::One => Seat::Two,
            Seat::Two => Seat::One,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl Serialize for Seat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.number())
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u8::deserialize(deserializer)?;
        Seat::from_number(number)
            .ok_or_else(|| serde::de::Error::custom(format!("seat must be 1 or 2, not {number}")))
    }
}

impl WriteJson for Seat {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'0' + self.number());
    }
}

/// How a finished game came out on the board (forfeits are the referee's business).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning seat; `None` is a draw.
    pub winner: Option<Seat>,
}

impl Outcome {
    /// `seat` won.
    pub fn win(seat: Seat) -> Outcome {
        Outcome { winner: Some(seat) }
    }

    /// Nobody won.
    pub fn draw() -> Outcome {
        Outcome { winner: None }
    }
}

/// The generator every random setup comes from. ChaCha8's output is fixed by
/// its specification, so a game seed reproduces the same setup across versions.
pub type SetupRng = rand::rngs::ChaCha8Rng;

/// The setup generator for one game seed.
pub fn setup_rng(seed: u64) -> SetupRng {
    SetupRng::seed_from_u64(seed)
}

/// A parameter value that the rules do not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}`: {message}")]
pub struct ParamError {
    /// The parameter's name, as files and `--param` spell it.
    pub param: &'static str,
    /// What is wrong with its value.
    pub message: String,
}

impl ParamError {
    /// Refuses the value of `param`, saying why.
    pub fn new(param: &'static str, message: impl Into<String>) -> ParamError {
        ParamError { param, message: message.into() }
    }
}

/// The most numbers a list, pool or grid may hold. Every request carries
/// the whole position and a transcript is kept in memory until its game
/// ends, so positions stay small.
pub const MAX_NUMBERS: u32 = 1000;

/// Checks that parameter `param` lies in `range`, with a message that names
/// the allowed bounds and the value given.
pub fn check_range(
    param: &'static str,
    value: u32,
    range: RangeInclusive<u32>,
) -> Result<(), ParamError> {
    if range.contains(&value) {
        Ok(())
    } else {
        let (low, high) = range.into_inner();
        Err(ParamError::new(param, format!("must be between {low} and {high}, got {value}")))
    }
}

/// A game's settings. Defaults are the rule book's own numbers; every
/// implementation denies unknown fields so a misspelt parameter is an error.
pub trait GameParams:
    Clone + fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Checks ranges and relations between fields, naming the offending one.
    fn validate(&self) -> Result<(), ParamError>;
}

/// The rules of one game, as a pure state machine.
pub trait Game: Clone + fmt::Debug + Serialize + Send + Sync + 'static {
    /// The id the game goes by in the protocol, on the command line and in files.
    const ID: GameId;
    /// The game's parameters, with the rule book's values as defaults.
    type Params: GameParams;
    /// A move, serialized exactly as a bot sends it.
    type Move: Clone
        + fmt::Debug
        + PartialEq
        + Serialize
        + WriteJson
        + DeserializeOwned
        + Send
        + Sync;
    /// What one seat is shown of the state.
    type View: Serialize + WriteJson + fmt::Debug;

    /// The starting position for these (validated) parameters and this seed.
    fn new(params: &Self::Params, seed: u64) -> Self;

    /// The seats whose move is awaited: one seat in a turn-based game, both in
    /// a simultaneous turn, none once the game is over.
    fn to_move(&self) -> &'static [Seat];

    /// Whether `seat` is one of [`Game::to_move`].
    fn is_to_move(&self, seat: Seat) -> bool {
        self.to_move().contains(&seat)
    }

    /// Every move `seat` may make now, in a stable order. Empty when it is not
    /// that seat's turn.
    fn legal_moves(&self, seat: Seat) -> Vec<Self::Move>;

    /// Whether `mv` is one of [`Game::legal_moves`] for `seat`.
    fn is_legal(&self, seat: Seat, mv: &Self::Move) -> bool {
        self.legal_moves(seat).contains(mv)
    }

    /// Plays a legal move of `seat`. Panics on an illegal one: the referee
    /// checks legality first, and a game must never be left half-updated.
    fn apply(&mut self, seat: Seat, mv: &Self::Move);

    /// The result once the game is over, `None` before.
    fn outcome(&self) -> Option<Outcome>;

    /// Each seat's score as the game counts it (points, sum, or life).
    fn scores(&self) -> [i64; 2];

    /// Everything `seat` may know of the state right now.
    fn view(&self, seat: Seat) -> Self::View;
}

/// One move of a game: the seat and its move (in the protocol, an entry
/// of `history`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Played<M> {
    /// Who moved.
    pub seat: Seat,
    /// The move.
    #[serde(rename = "move")]
    pub mv: M,
}

/// Checks that `max` (parameter `max`) is at least `count`, so that
/// `count` distinct numbers up to `max` can be drawn.
pub fn check_distinct(count: u32, max: u32) -> Result<(), ParamError> {
    if max < count {
        return Err(ParamError::new(
            "max",
            format!("must be at least count ({count}) so the numbers can be distinct, got {max}"),
        ));
    }
    Ok(())
}

/// [`Game::to_move`] of a turn-based game: `next` alone, nobody once `over`.
pub fn alone_to_move(next: Seat, over: bool) -> &'static [Seat] {
    match next {
        _ if over => &[],
        Seat::One => &[Seat::One],
        Seat::Two => &[Seat::Two],
    }
}

/// The one list of games: each line names a game's [`GameId`] variant, its
/// module (the folder `src/games/<module>/`), its id in the protocol and on
/// the command line, the title its rule book gives it, and its [`Game`]
/// type in that module. Everything that goes from an id to a game is
/// generated from it: the module declarations, the [`GameId`] enum and its
/// serde names, [`GameId::ALL`], parsing, titles, the help texts that list
/// games, and the dispatch of [`with_game!`](crate::with_game). Adding a
/// game is a new folder and one line here (docs/adding-a-game.md).
///
/// `games_list!(callback! { args })` calls `callback! { args; list }`.
#[macro_export]
#[doc(hidden)]
macro_rules! games_list {
    ($callback:ident ! { $($args:tt)* }) => {
        $crate::$callback! { $($args)*;
            (NumberSnatch, snatch, "number-snatch", "Number Snatch", NumberSnatch),
            (NumbersWar, numbers_war, "numbers-war", "Numbers War", NumbersWar),
            (NumberWarriors, warriors, "number-warriors", "Number Warriors", NumberWarriors),
            (NumberClaim, claim, "number-claim", "Number Claim", NumberClaim),
            (NumberDuel, duel, "number-duel", "Number Duel", NumberDuel),
        }
    };
}

/// Declares each game's module from the list of games.
#[macro_export]
#[doc(hidden)]
macro_rules! declare_game_modules {
    (; $(($variant:ident, $module:ident, $id:literal, $title:literal, $game:ident)),+ $(,)?) => {
        $(pub mod $module;)+
    };
}

games_list!(declare_game_modules! {});

/// Defines [`GameId`] from the list of games.
#[macro_export]
#[doc(hidden)]
macro_rules! define_game_ids {
    (; $(($variant:ident, $module:ident, $id:literal, $title:literal, $game:ident)),+ $(,)?) => {
        /// The games arena knows, by protocol id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum GameId {
            $(
                #[doc = $title]
                #[serde(rename = $id)]
                $variant,
            )+
        }

        impl GameId {
            /// Every game, in the list's order.
            pub const ALL: &'static [GameId] = &[$(GameId::$variant),+];

            /// The id used in the protocol, on the command line and in files.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(GameId::$variant => $id,)+
                }
            }

            /// The name the rule books give the game.
            pub fn title(self) -> &'static str {
                match self {
                    $(GameId::$variant => $title,)+
                }
            }
        }
    };
}

games_list!(define_game_ids! {});

/// The `match` arm of [`with_game!`], one per game of the list.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_game {
    ($id:expr, $G:ident, $body:expr; $(($variant:ident, $module:ident, $name:literal, $title:literal, $game:ident)),+ $(,)?) => {
        match $id {
            $(
                $crate::games::GameId::$variant => {
                    type $G = $crate::games::$module::$game;
                    $body
                }
            )+
        }
    };
}

/// Runs `$body` with `$G` standing for the [`Game`] type of `$id`, so code
/// generic over `G: Game` can be entered from a runtime game id.
#[macro_export]
macro_rules! with_game {
    ($id:expr, $G:ident => $body:expr) => {
        $crate::games_list!(dispatch_game! { $id, $G, $body })
    };
}

impl GameId {
    /// All ids, comma-separated, for error messages and help.
    pub fn list() -> String {
        GameId::ALL.iter().map(|id| id.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game id that arena does not know.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown game `{given}`; the games are: {}", GameId::list())]
pub struct UnknownGame {
    /// The id as given.
    pub given: String,
}

impl FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        GameId::ALL
            .iter()
            .copied()
            .find(|id| id.as_str() == s)
            .ok_or_else(|| UnknownGame { given: s.to_owned() })
    }
}

/// Reads a game's parameters from a JSON object of overrides (missing fields
/// keep the rule book's default) and validates them.
pub fn parse_params<P: GameParams>(
    overrides: serde_json::Map<String, serde_json::Value>,
) -> Result<P, ParamsError> {
    // The path names the parameter of a value of the wrong type, which
    // serde's own message leaves out.
    let params: P = serde_path_to_error::deserialize(serde_json::Value::Object(overrides))
        .map_err(|error| {
            let name = error.path().to_string();
            let error = error.into_inner();
            ParamsError::Shape(match name.as_str() {
                "" | "." => error.to_string(),
                name => format!("{name}: {error}"),
            })
        })?;
    params.validate()?;
    Ok(params)
}

/// A game with its parameters, checked once where they are read (a
/// tournament file, `--param`) and passed around from there. Generic code
/// takes the typed parameters with [`GameSetup::params`].
#[derive(Clone)]
pub struct GameSetup {
    game: GameId,
    overrides: serde_json::Map<String, serde_json::Value>,
    params: Arc<dyn Any + Send + Sync>,
}

impl GameSetup {
    /// Reads and checks `overrides` (missing parameters keep the rule
    /// book's defaults) for `game`, naming what is wrong.
    pub fn new(
        game: GameId,
        overrides: serde_json::Map<String, serde_json::Value>,
    ) -> Result<GameSetup, ParamsError> {
        let params = with_game!(game, G => parse_params::<<G as Game>::Params>(overrides.clone())
            .map(|params| Arc::new(params) as Arc<dyn Any + Send + Sync>))?;
        Ok(GameSetup { game, overrides, params })
    }

    /// The game.
    pub fn game(&self) -> GameId {
        self.game
    }

    /// The parameters as given: what records and transcripts keep.
    pub fn overrides(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.overrides
    }

    /// The typed parameters. `G` must be this setup's game (callers
    /// dispatch on [`GameSetup::game`] with `with_game!`); another is a bug.
    pub fn params<G: Game>(&self) -> &G::Params {
        match self.params.downcast_ref() {
            Some(params) => params,
            None => panic!("a setup of {} used as {}", self.game, G::ID),
        }
    }
}

impl fmt::Debug for GameSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameSetup")
            .field("game", &self.game)
            .field("overrides", &self.overrides)
            .finish()
    }
}

impl PartialEq for GameSetup {
    fn eq(&self, other: &GameSetup) -> bool {
        (self.game, &self.overrides) == (other.game, &other.overrides)
    }
}

/// Why a set of game parameters was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ParamsError {
    /// An unknown name or a value of the wrong type.
    #[error("{0}")]
    Shape(String),
    /// A value the rules do not allow.
    #[error(transparent)]
    Invalid(#[from] ParamError),
}

/// Test helpers shared by the games' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::Game;

    /// Plays `moves` in turn order (a turn-based game), checking each is
    /// legal and the scores after it.
    pub(crate) fn replay<G: Game>(game: &mut G, moves: &[(G::Move, [i64; 2])]) {
        for (turn, (mv, expected)) in moves.iter().enumerate() {
            let seat = game.to_move()[0];
            assert!(game.is_legal(seat, mv), "turn {}: {mv:?} is illegal", turn + 1);
            game.apply(seat, mv);
            assert_eq!(game.scores(), *expected, "after turn {} ({mv:?})", turn + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_takes_its_defaults() {
        for &game in GameId::ALL {
            let setup = GameSetup::new(game, serde_json::Map::new()).unwrap();
            assert_eq!(setup.game(), game);
        }
    }

    #[test]
    fn game_ids_round_trip_and_unknown_ones_list_the_valid_ones() {
        for &id in GameId::ALL {
            assert_eq!(id.as_str().parse::<GameId>().unwrap(), id);
            assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{id}\""));
        }
        let error = "chess".parse::<GameId>().unwrap_err().to_string();
        assert!(error.contains("chess") && error.contains("number-duel"), "{error}");
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

    #[test]
    fn seats_serialize_as_numbers() {
        assert_eq!(serde_json::to_string(&Seat::Two).unwrap(), "2");
        assert_eq!(serde_json::from_str::<Seat>("1").unwrap(), Seat::One);
        assert!(serde_json::from_str::<Seat>("3").is_err());
    }
}
