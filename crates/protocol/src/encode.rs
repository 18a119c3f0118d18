//! The messages as lines, and the history they carry written once.
//!
//! Every message is written by the writer `#[derive(WriteJson)]` makes of
//! [`ToBot`]'s definition; the tests below check its bytes against
//! serde_json's for every game, over generated parameters and positions.
//! What is not written again on every move is the history: the referee
//! appends one entry a move ([`append_played`]) and the `move` and `over`
//! messages copy it ([`History::Written`]).

use serde::Serialize;
use serde_json::value::RawValue;

use super::ToBot;
use arena_base::json::WriteJson;
use arena_games::{Played, Seat};

/// The `history` of a `move` or `over` message.
#[derive(Clone, Copy, Debug)]
pub enum History<'a, M> {
    /// The moves themselves.
    Moves(&'a [Played<M>]),
    /// Their entries already written, comma-separated without the brackets,
    /// as [`append_played`] writes them.
    Written(&'a [u8]),
}

impl<M> History<'_, M> {
    /// About how many bytes the history takes, for sizing a line.
    fn size_hint(&self) -> usize {
        match self {
            History::Moves(moves) => 16 * moves.len(),
            History::Written(entries) => entries.len() + 2,
        }
    }
}

impl<M: WriteJson> WriteJson for History<'_, M> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            History::Moves(moves) => moves.write_json(out),
            History::Written(entries) => {
                out.push(b'[');
                out.extend_from_slice(entries);
                out.push(b']');
            }
        }
    }
}

impl<M: Serialize> Serialize for History<'_, M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            History::Moves(moves) => moves.serialize(serializer),
            History::Written(entries) => {
                let text = std::str::from_utf8(entries)
                    .ok()
                    .and_then(|entries| RawValue::from_string(format!("[{entries}]")).ok())
                    .ok_or_else(|| serde::ser::Error::custom("a written history holds JSON"))?;
                text.serialize(serializer)
            }
        }
    }
}

impl<P: WriteJson, V: WriteJson, M: WriteJson> ToBot<'_, P, V, M> {
    /// The message as one line, newline included.
    pub fn line(&self) -> Vec<u8> {
        let history = match self {
            ToBot::Move { history, .. } | ToBot::Over { history, .. } => history.size_hint(),
            ToBot::Start { .. } | ToBot::Reveal { .. } => 0,
        };
        // Room for the rest of the message: rarely a regrowing (and copying).
        let mut line = Vec::with_capacity(256 + history);
        self.write_json(&mut line);
        line.push(b'\n');
        line
    }
}

/// Appends one entry of `history` to its JSON (without brackets), as
/// [`History::Written`] holds it.
pub fn append_played<M: WriteJson>(history_json: &mut Vec<u8>, seat: Seat, mv: &M) {
    if !history_json.is_empty() {
        history_json.push(b',');
    }
    Played { seat, mv }.write_json(history_json);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::{ForfeitNotice, ForfeitReason, Limits, PROTOCOL_VERSION, ResultReason};
    use arena_base::json::JsonText;
    use arena_games::with_game;
    use arena_games::{Game, GameParams};

    /// Parameters of `G` from `values`, one per field in the order the
    /// defaults serialize, or `None` when the rules refuse them. Generic
    /// over the fields, so a new game is covered without writing anything.
    fn params_from<G: Game>(values: &[u32]) -> Option<G::Params> {
        let serde_json::Value::Object(defaults) =
            serde_json::to_value(G::Params::default()).ok()?
        else {
            return None;
        };
        let chosen: serde_json::Map<_, _> =
            defaults.keys().zip(values).map(|(key, &value)| (key.clone(), value.into())).collect();
        let params: G::Params = serde_json::from_value(chosen.into()).ok()?;
        params.validate().ok().map(|()| params)
    }

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("messages are UTF-8")
    }

    /// The message as serde_json writes it, as a line.
    fn serde_line<T: Serialize>(message: &T) -> String {
        serde_json::to_string(message).unwrap() + "\n"
    }

    /// Plays a game of `G` from `seed` with moves picked by `choices`,
    /// checking every start, move and over message against serde_json.
    fn encoders_agree_with_serde<G: Game>(values: &[u32], seed: u64, choices: u64) -> bool {
        let Some(params) = params_from::<G>(values) else { return false };
        // Under a clock (every other case) the limits and requests carry
        // the bank; the property covers both shapes of each message.
        let clock = choices % 2 == 1;
        let limits = Limits {
            startup_ms: 5000,
            move_ms: 250,
            max_line_bytes: 65536,
            bank_ms: clock.then_some(choices % 100_000),
            increment_ms: clock.then_some(choices % 1000),
        };
        for seat in Seat::BOTH {
            let id = choices % 1000 + 1;
            let expected: ToBot<'_, G::Params, G::View, G::Move> = ToBot::Start {
                id,
                protocol: PROTOCOL_VERSION,
                game: G::ID.as_str(),
                params: &params,
                seat,
                seed,
                limits,
            };
            let params_json = serde_json::to_string(&params).unwrap();
            let written: ToBot<'_, JsonText, G::View, G::Move> = ToBot::Start {
                id,
                protocol: PROTOCOL_VERSION,
                game: G::ID.as_str(),
                params: &JsonText(&params_json),
                seat,
                seed,
                limits,
            };
            assert_eq!(text(written.line()), serde_line(&expected));
        }
        let mut game = G::new(&params, seed);
        let mut picker = rand::rngs::ChaCha8Rng::seed_from_u64(choices);
        let mut history: Vec<Played<G::Move>> = Vec::new();
        let mut history_json = Vec::new();
        let mut id = 2;
        while !game.to_move().is_empty() {
            let mut chosen = Vec::new();
            for &seat in game.to_move() {
                let legal = game.legal_moves(seat);
                let time_ms = picker.random_range(0..100_000);
                let bank_ms = clock.then(|| picker.random_range(0..u64::MAX));
                let expected: ToBot<'_, G::Params, G::View, G::Move> = ToBot::Move {
                    id,
                    state: game.view(seat),
                    history: History::Moves(&history),
                    history_from: clock.then_some(id),
                    legal_moves: &legal,
                    time_ms,
                    bank_ms,
                };
                let written: ToBot<'_, JsonText, G::View, G::Move> = ToBot::Move {
                    id,
                    state: game.view(seat),
                    history: History::Written(&history_json),
                    history_from: clock.then_some(id),
                    legal_moves: &legal,
                    time_ms,
                    bank_ms,
                };
                assert_eq!(text(written.line()), serde_line(&expected));
                id += 1;
                chosen.push((seat, legal[picker.random_range(0..legal.len())].clone()));
            }
            for (seat, mv) in chosen {
                game.apply(seat, &mv);
                append_played(&mut history_json, seat, &mv);
                history.push(Played { seat, mv });
            }
        }
        let forfeits = [ForfeitNotice {
            seat: Seat::Two,
            reason: ForfeitReason::Timeout,
            detail: "late \"quoted\" \u{1b}".into(),
        }];
        let reasons = [ResultReason::Normal, ResultReason::Forfeit(ForfeitReason::Timeout)];
        for (reason, forfeits) in reasons.into_iter().zip([&[][..], &forfeits[..]]) {
            for seat in Seat::BOTH {
                let winner = game.outcome().and_then(|outcome| outcome.winner);
                let expected: ToBot<'_, G::Params, G::View, G::Move> = ToBot::Over {
                    winner,
                    reason,
                    forfeits,
                    scores: game.scores().map(arena_base::score::Score::from),
                    state: game.view(seat),
                    history: History::Moves(&history),
                    history_from: clock.then_some(3),
                };
                let written: ToBot<'_, JsonText, G::View, G::Move> = ToBot::Over {
                    winner,
                    reason,
                    forfeits,
                    scores: game.scores().map(arena_base::score::Score::from),
                    state: game.view(seat),
                    history: History::Written(&history_json),
                    history_from: clock.then_some(3),
                };
                assert_eq!(text(written.line()), serde_line(&expected));
            }
        }
        true
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Every game, through the registry's list: a game added there is
        /// checked here with no change to this test.
        #[test]
        fn every_message_of_every_game_is_written_as_serde_writes_it(
            values in proptest::collection::vec(1u32..=24, 4),
            seed in any::<u64>(),
            choices in any::<u64>(),
        ) {
            let seed = seed % crate::MAX_SEED;
            for &id in arena_games::GameId::ALL {
                with_game!(id, G => encoders_agree_with_serde::<G>(&values, seed, choices));
            }
            // Parameters the rules refuse are skipped, game by game; the
            // defaults are always checked so no case passes vacuously.
            for &id in arena_games::GameId::ALL {
                let defaults = with_game!(id, G => {
                    let defaults = serde_json::to_value(<G as Game>::Params::default()).unwrap();
                    let values: Vec<u32> = defaults
                        .as_object()
                        .unwrap()
                        .values()
                        .map(|value| value.as_u64().unwrap() as u32)
                        .collect();
                    encoders_agree_with_serde::<G>(&values, seed, choices)
                });
                prop_assert!(defaults, "{id}: the default parameters must be valid");
            }
        }
    }
}
