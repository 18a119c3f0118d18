//! The history of a game in progress as each seat is shown it: one for
//! both seats, or, with hidden moves, each seat's own moves and what it
//! learned of the other's.

use super::super::table::Table;
use super::Referee;
use arena_games::{MoveValue, Seat};
use arena_protocol::Played;
use arena_protocol::encode::append_played;

impl<M: MoveValue> Referee<'_, M> {
    /// Adds an applied turn's moves to the history, each seat's own with
    /// hidden moves.
    pub(super) fn record_turn<T: Table<Move = M>, const N: usize>(
        &mut self,
        game: &T,
        turn: [Played<M>; N],
    ) {
        for played in turn {
            match &mut self.seat_histories {
                None => append_played(&mut self.history_json, played.seat, &played.mv),
                Some(histories) => {
                    for (seat, history) in Seat::BOTH.into_iter().zip(histories) {
                        if seat == played.seat {
                            append_played(history, played.seat, &played.mv);
                        } else {
                            append_played(history, played.seat, &Learned(game, seat));
                        }
                    }
                }
            }
            self.history.push(played);
        }
    }

    /// The history `seat` is shown, as JSON without its brackets.
    pub(super) fn history_of(&self, seat: Seat) -> &[u8] {
        match &self.seat_histories {
            None => &self.history_json,
            Some(histories) => &histories[seat.index()],
        }
    }
}

/// What a seat learned of the other seat's move in the turn just applied
/// (a game with hidden moves), as a value that writes itself.
struct Learned<'a, T>(&'a T, Seat);

impl<T: Table> arena_base::json::WriteJson for Learned<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.0.write_learned(self.1, out);
    }
}
