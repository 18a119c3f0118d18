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
                None => self.history_json.push(played.seat, &played.mv),
                Some(histories) => {
                    for (seat, history) in Seat::BOTH.into_iter().zip(histories) {
                        if seat == played.seat {
                            history.push(played.seat, &played.mv);
                        } else {
                            history.push(played.seat, &Learned(game, seat));
                        }
                    }
                }
            }
            self.history.push(played);
        }
    }

    /// The history `seat` is shown.
    pub(super) fn history_of(&self, seat: Seat) -> &WrittenHistory {
        match &self.seat_histories {
            None => &self.history_json,
            Some(histories) => &histories[seat.index()],
        }
    }

    /// For a seat that asked for the new moves only, the index of the first
    /// entry it has not been sent (what its next message lists from), which
    /// this message then sends; `None` for a seat sent the whole history.
    pub(super) fn history_from(&mut self, seat: Seat) -> Option<usize> {
        let entries = self.history_of(seat).len();
        let sent = std::mem::replace(&mut self.history_sent[seat.index()], entries);
        self.new_history[seat.index()].then_some(sent)
    }
}

/// A history as bots are sent it: its entries' JSON, comma-separated
/// without the brackets, and where each entry begins, so that the entries
/// since any one are a slice.
#[derive(Debug, Default)]
pub(super) struct WrittenHistory {
    json: Vec<u8>,
    starts: Vec<usize>,
}

impl WrittenHistory {
    fn push<M: arena_base::json::WriteJson>(&mut self, seat: Seat, mv: &M) {
        self.starts.push(if self.json.is_empty() { 0 } else { self.json.len() + 1 });
        append_played(&mut self.json, seat, mv);
    }

    /// Entries written.
    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The entries from the `first`th (0: all of them).
    pub(super) fn since(&self, first: usize) -> &[u8] {
        match self.starts.get(first) {
            Some(&start) => &self.json[start..],
            None => &[],
        }
    }
}

/// What a seat learned of the other seat's move in the turn just applied
/// (a game with hidden moves), as a value that writes itself.
pub(super) struct Learned<'a, T>(pub(super) &'a T, pub(super) Seat);

impl<T: Table> arena_base::json::WriteJson for Learned<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.0.write_learned(self.1, out);
    }
}
