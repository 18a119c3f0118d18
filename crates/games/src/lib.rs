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

#![warn(missing_docs)]

pub mod exact_numbers;
mod game;
mod move_json;
pub mod narrate;
mod params;
pub mod program;
mod registry;
mod seat;
mod setup;
mod setup_rng;
#[cfg(test)]
pub(crate) mod testing;

pub use game::{Game, MoveValue, Played, alone_to_move};
pub use move_json::{fields_from_object, name_from_string};
pub use params::{
    GameParams, MAX_NUMBERS, ParamError, ParamsError, SetupError, ShapeError, check_distinct,
    check_range, parse_params,
};
pub use registry::{GameId, UnknownGame, title_of};
pub use seat::{Outcome, Seat};
pub use setup::{GameRef, GameSetup};
pub use setup_rng::{SetupRng, setup_rng};

// Each game's module, declared here so that it is the folder
// `src/games/<module>/` (the list is in registry.rs).
crate::games_list!(declare_game_modules! {});
