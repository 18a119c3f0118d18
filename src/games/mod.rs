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
mod setup_rng;

use std::any::Any;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::Arc;

use crate::json::WriteJson;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
pub use setup_rng::{SetupRng, setup_rng};

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

/// Reads a unit-like move part (`"L"`, `"add"`) from a JSON string naming
/// one of `names`, and from nothing else: serde's derive would also take
/// `{"L": null}`, which protocol.md does not allow. Returns the index of
/// the name in `names`.
pub fn name_from_string<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    struct Names(&'static [&'static str]);
    impl serde::de::Visitor<'_> for Names {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let quoted: Vec<String> = self.0.iter().map(|name| format!("\"{name}\"")).collect();
            write!(f, "one of the strings {}", quoted.join(", "))
        }
        fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<usize, E> {
            self.0
                .iter()
                .position(|name| *name == value)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(value), &self))
        }
    }
    deserializer.deserialize_str(Names(names))
}

/// Reads a move's fields `F` from a JSON object, and from nothing else:
/// serde's derive would also read a struct from an array (`[7, "add"]`),
/// which protocol.md does not allow. `expecting` says what a move is.
pub fn fields_from_object<'de, D, F>(
    deserializer: D,
    expecting: &'static str,
) -> Result<F, D::Error>
where
    D: serde::Deserializer<'de>,
    F: Deserialize<'de>,
{
    struct ObjectOnly<F>(&'static str, std::marker::PhantomData<F>);
    impl<'de, F: Deserialize<'de>> serde::de::Visitor<'de> for ObjectOnly<F> {
        type Value = F;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<F, A::Error> {
            F::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(ObjectOnly(expecting, std::marker::PhantomData))
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
///
/// Each override is first compared with the rule book's default: a name the
/// game does not have, or a value of another JSON type than the default's,
/// is refused with the parameter's name and what it should be.
pub fn parse_params<P: GameParams>(
    overrides: serde_json::Map<String, serde_json::Value>,
) -> Result<P, ParamsError> {
    let defaults = serde_json::to_value(P::default()).expect("parameters serialize");
    let defaults = defaults.as_object().expect("parameters are an object");
    for (name, value) in &overrides {
        let Some(default) = defaults.get(name) else {
            let known: Vec<&str> = defaults.keys().map(String::as_str).collect();
            return Err(ParamsError::Shape(ShapeError::Unknown {
                param: name.clone(),
                known: known.join(", "),
            }));
        };
        if let Some(expected) = expected_like(default, value) {
            return Err(ParamsError::Shape(ShapeError::WrongType {
                param: name.clone(),
                expected,
                got: value.to_string(),
            }));
        }
    }
    // What is left (a number too large for its type): the path names the
    // parameter, which serde's own message leaves out.
    let params: P = serde_path_to_error::deserialize(serde_json::Value::Object(overrides))
        .map_err(|error| {
            let name = error.path().to_string();
            ParamsError::Shape(ShapeError::Other {
                param: (!matches!(name.as_str(), "" | ".")).then_some(name),
                message: error.into_inner().to_string(),
            })
        })?;
    params.validate()?;
    Ok(params)
}

/// What `value` should have been, when it is not of the JSON type of
/// `default`: "a whole number" where the default is one, and so on.
fn expected_like(default: &serde_json::Value, value: &serde_json::Value) -> Option<&'static str> {
    use serde_json::Value;
    let (expected, fits) = match default {
        // -1 is a whole number to most people: say which ones.
        Value::Number(number) if number.is_u64() && value.as_i64().is_some_and(|v| v < 0) => {
            ("a whole number of 0 or more", false)
        }
        Value::Number(number) if number.is_u64() => ("a whole number", value.is_u64()),
        Value::Number(number) if number.is_i64() => ("an integer", value.is_i64()),
        Value::Number(_) => ("a number", value.is_number()),
        Value::Bool(_) => ("true or false", value.is_boolean()),
        Value::String(_) => ("a string", value.is_string()),
        _ => return None,
    };
    (!fits).then_some(expected)
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
    ) -> Result<GameSetup, SetupError> {
        let params = with_game!(game, G => parse_params::<<G as Game>::Params>(overrides.clone())
            .map(|params| Arc::new(params) as Arc<dyn Any + Send + Sync>))
        .map_err(|error| SetupError { game, error })?;
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamsError {
    /// An unknown name or a value of the wrong type.
    Shape(ShapeError),
    /// A value the rules do not allow.
    Invalid(ParamError),
}

/// A parameter the game does not have, or a value of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// No parameter has this name.
    Unknown {
        /// The name given.
        param: String,
        /// The game's parameters, comma-separated.
        known: String,
    },
    /// A value of another type than the parameter's.
    WrongType {
        /// The parameter's name.
        param: String,
        /// What its value must be: "a whole number".
        expected: &'static str,
        /// The value given, as JSON.
        got: String,
    },
    /// Anything else the parameters' reader refused.
    Other {
        /// The parameter's name, when the problem has one.
        param: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl From<ParamError> for ParamsError {
    fn from(error: ParamError) -> ParamsError {
        ParamsError::Invalid(error)
    }
}

impl ParamsError {
    /// The parameter at fault, when one is.
    pub fn param(&self) -> Option<&str> {
        match self {
            ParamsError::Shape(
                ShapeError::Unknown { param, .. } | ShapeError::WrongType { param, .. },
            ) => Some(param),
            ParamsError::Shape(ShapeError::Other { param, .. }) => param.as_deref(),
            ParamsError::Invalid(error) => Some(error.param),
        }
    }

    /// What is wrong, without the parameter's name.
    fn problem(&self) -> String {
        match self {
            ParamsError::Shape(ShapeError::Unknown { known, .. }) => {
                format!("no such parameter (the parameters are {known})")
            }
            ParamsError::Shape(ShapeError::WrongType { expected, got, .. }) => {
                format!("expected {expected}, got {got}")
            }
            ParamsError::Shape(ShapeError::Other { message, .. }) => message.clone(),
            ParamsError::Invalid(error) => error.message.clone(),
        }
    }
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.param() {
            Some(param) => write!(f, "parameter `{param}`: {}", self.problem()),
            None => f.write_str(&self.problem()),
        }
    }
}

impl std::error::Error for ParamsError {}

/// Parameters refused for a game: the game, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    /// The game the parameters were for.
    pub game: GameId,
    /// What is wrong with them.
    pub error: ParamsError,
}

impl fmt::Display for SetupError {
    /// "parameter `count` of numbers-war: expected a whole number, got \"x\"".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error.param() {
            Some(param) => {
                write!(f, "parameter `{param}` of {}: {}", self.game, self.error.problem())
            }
            None => write!(f, "{} parameters: {}", self.game, self.error.problem()),
        }
    }
}

impl std::error::Error for SetupError {}

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
            refused("cnt", 3.into()),
            "parameter `cnt` of numbers-war: no such parameter (the parameters are count, max)"
        );
        let error = refused("count", 5_000_000_000u64.into());
        assert!(error.starts_with("parameter `count` of numbers-war: "), "{error}");
        let error = refused("count", 3.into());
        assert!(error.starts_with("parameter `count` of numbers-war: must be"), "{error}");
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
