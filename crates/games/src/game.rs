//! The [`Game`] trait: a game's rules as a pure state machine, what a move
//! is, and a move as played by its seat.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{GameId, GameParams, Outcome, Seat};
use arena_base::json::WriteJson;

/// What a move is to everything that carries one: read from a bot's reply,
/// compared with the legal moves, written straight into requests and
/// serialized into transcripts.
pub trait MoveValue:
    Clone + fmt::Debug + PartialEq + Serialize + WriteJson + DeserializeOwned + Send + Sync
{
}

impl<T> MoveValue for T where
    T: Clone + fmt::Debug + PartialEq + Serialize + WriteJson + DeserializeOwned + Send + Sync
{
}

/// The rules of one game, as a pure state machine.
pub trait Game: Clone + fmt::Debug + Serialize + Send + Sync + 'static {
    /// The id the game goes by in the protocol, on the command line and in files.
    const ID: GameId;
    /// The game's parameters, with the rule book's values as defaults.
    type Params: GameParams;
    /// A move, serialized exactly as a bot sends it.
    type Move: MoveValue;
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, WriteJson)]
pub struct Played<M> {
    /// Who moved.
    pub seat: Seat,
    /// The move.
    #[serde(rename = "move")]
    pub mv: M,
}

/// [`Game::to_move`] of a turn-based game: `next` alone, nobody once `over`.
pub fn alone_to_move(next: Seat, over: bool) -> &'static [Seat] {
    match next {
        _ if over => &[],
        Seat::One => &[Seat::One],
        Seat::Two => &[Seat::Two],
    }
}
