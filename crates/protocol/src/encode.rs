//! The messages sent on every move, written straight into a buffer.
//!
//! serde_json writes any message correctly; these write the frequent ones
//! (`start`, `move`, `over`, and the history they carry) several times
//! faster, because the referee sends one per move. Each produces exactly
//! the bytes serde_json writes for the matching [`ToBot`] message: the
//! tests below check that for every game, over generated parameters and
//! positions.

use serde::Serialize;

use super::{ForfeitNotice, Limits, PROTOCOL_VERSION, ResultReason};
#[cfg(doc)]
use super::{Played, ToBot};
use arena_base::json::WriteJson;
use arena_games::Seat;

/// A `move` request as one line, newline included: the same bytes as
/// serializing [`ToBot::Move`], written directly because it is the message
/// sent most, and with the history already serialized. `bank_ms` is sent
/// under a game clock only.
pub fn move_request<V: WriteJson, M: WriteJson>(
    id: u64,
    state: &V,
    history_json: &[u8],
    legal_moves: &[M],
    time_ms: u64,
    bank_ms: Option<u64>,
) -> Vec<u8> {
    let mut line = Vec::with_capacity(256 + history_json.len());
    line.extend_from_slice(br#"{"type":"move","id":"#);
    line.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    line.extend_from_slice(br#","state":"#);
    state.write_json(&mut line);
    line.extend_from_slice(br#","history":["#);
    line.extend_from_slice(history_json);
    line.extend_from_slice(br#"],"legal_moves":"#);
    legal_moves.write_json(&mut line);
    line.extend_from_slice(br#","time_ms":"#);
    line.extend_from_slice(itoa::Buffer::new().format(time_ms).as_bytes());
    if let Some(bank_ms) = bank_ms {
        line.extend_from_slice(br#","bank_ms":"#);
        line.extend_from_slice(itoa::Buffer::new().format(bank_ms).as_bytes());
    }
    line.extend_from_slice(b"}\n");
    line
}

/// The fields of a `start` message.
pub struct StartMessage<'a> {
    /// The request's id, which the `ready` reply echoes.
    pub id: u64,
    /// The game's id.
    pub game: &'a str,
    /// Every parameter with its value, as compact JSON.
    pub params_json: &'a str,
    /// The seat the bot plays.
    pub seat: Seat,
    /// The game's setup seed.
    pub seed: u64,
    /// The limits the bot plays under.
    pub limits: Limits,
}

impl StartMessage<'_> {
    /// The message as one line, newline included: the same bytes as
    /// serializing [`ToBot::Start`], written directly as it goes to both
    /// seats of every game.
    pub fn line(&self) -> Vec<u8> {
        let mut number = itoa::Buffer::new();
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(br#"{"type":"start","id":"#);
        line.extend_from_slice(number.format(self.id).as_bytes());
        line.extend_from_slice(br#","protocol":"#);
        line.extend_from_slice(number.format(PROTOCOL_VERSION).as_bytes());
        line.extend_from_slice(br#","game":""#);
        line.extend_from_slice(self.game.as_bytes());
        line.extend_from_slice(br#"","params":"#);
        line.extend_from_slice(self.params_json.as_bytes());
        line.extend_from_slice(br#","seat":"#);
        line.push(b'0' + self.seat.number());
        line.extend_from_slice(br#","seed":"#);
        line.extend_from_slice(number.format(self.seed).as_bytes());
        line.extend_from_slice(br#","limits":{"startup_ms":"#);
        line.extend_from_slice(number.format(self.limits.startup_ms).as_bytes());
        line.extend_from_slice(br#","move_ms":"#);
        line.extend_from_slice(number.format(self.limits.move_ms).as_bytes());
        line.extend_from_slice(br#","max_line_bytes":"#);
        line.extend_from_slice(number.format(self.limits.max_line_bytes).as_bytes());
        if let Some(bank_ms) = self.limits.bank_ms {
            line.extend_from_slice(br#","bank_ms":"#);
            line.extend_from_slice(number.format(bank_ms).as_bytes());
        }
        if let Some(increment_ms) = self.limits.increment_ms {
            line.extend_from_slice(br#","increment_ms":"#);
            line.extend_from_slice(number.format(increment_ms).as_bytes());
        }
        line.extend_from_slice(b"}}\n");
        line
    }
}

/// The fields of an `over` message, with the history already serialized.
pub struct OverMessage<'a, V> {
    /// The winning seat, `None` for a draw or a double forfeit.
    pub winner: Option<Seat>,
    /// How the game ended.
    pub reason: ResultReason,
    /// The forfeits of the game, if any.
    pub forfeits: &'a [ForfeitNotice],
    /// Both seats' scores.
    pub scores: [i64; 2],
    /// The seat's view of the final state.
    pub state: &'a V,
    /// Every move of the game, already serialized, without the brackets.
    pub history_json: &'a [u8],
}

impl<V: WriteJson> OverMessage<'_, V> {
    /// The message as one line, newline included: the same bytes as
    /// serializing [`ToBot::Over`], with the history copied, not serialized
    /// again.
    pub fn line(&self) -> Vec<u8> {
        let mut line = Vec::with_capacity(256 + self.history_json.len());
        line.extend_from_slice(br#"{"type":"over","winner":"#);
        match self.winner {
            Some(seat) => line.push(b'0' + seat.number()),
            None => line.extend_from_slice(b"null"),
        }
        line.extend_from_slice(br#","reason":"#);
        serde_json::to_writer(&mut line, &self.reason).expect("reasons serialize");
        line.extend_from_slice(br#","forfeits":"#);
        serde_json::to_writer(&mut line, self.forfeits).expect("forfeits serialize");
        line.extend_from_slice(br#","scores":"#);
        serde_json::to_writer(&mut line, &self.scores).expect("scores serialize");
        line.extend_from_slice(br#","state":"#);
        self.state.write_json(&mut line);
        line.extend_from_slice(br#","history":["#);
        line.extend_from_slice(self.history_json);
        line.extend_from_slice(b"]}\n");
        line
    }
}

/// Appends one entry of `history` to its JSON (without brackets): the same
/// bytes as serializing [`Played`], written directly.
pub fn append_played<M: WriteJson>(history_json: &mut Vec<u8>, seat: Seat, mv: &M) {
    if !history_json.is_empty() {
        history_json.push(b',');
    }
    history_json.extend_from_slice(br#"{"seat":"#);
    history_json.push(b'0' + seat.number());
    history_json.extend_from_slice(br#","move":"#);
    mv.write_json(history_json);
    history_json.push(b'}');
}

/// A message as one line, newline included.
pub fn message_line<T: Serialize>(message: &T) -> Vec<u8> {
    // Most requests fit: no regrowing (and copying) while serializing.
    let mut line = Vec::with_capacity(1024);
    serde_json::to_writer(&mut line, message).expect("protocol messages serialize");
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::{ForfeitReason, Played, ToBot};
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
            let fast = StartMessage {
                id,
                game: G::ID.as_str(),
                params_json: &params_json,
                seat,
                seed,
                limits,
            };
            assert_eq!(text(fast.line()), text(message_line(&expected)));
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
                    history: &history,
                    legal_moves: &legal,
                    time_ms,
                    bank_ms,
                };
                let fast =
                    move_request(id, &game.view(seat), &history_json, &legal, time_ms, bank_ms);
                assert_eq!(text(fast), text(message_line(&expected)));
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
                    scores: game.scores(),
                    state: game.view(seat),
                    history: &history,
                };
                let fast = OverMessage {
                    winner,
                    reason,
                    forfeits,
                    scores: game.scores(),
                    state: &game.view(seat),
                    history_json: &history_json,
                };
                assert_eq!(text(fast.line()), text(message_line(&expected)));
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
