//! Number Duel.
//!
//! A shared pool holds each of `1..=max` `copies` times; both scores start at
//! 0. Players alternate, seat 1 first. A move names a number still in the pool
//! and an operation: the mover's score becomes `score + number` or
//! `score * number`, and one copy of the number leaves the pool. Multiplying
//! a score of 0 is legal and leaves 0; no operation is ever forbidden.
//!
//! A new score above `target` drops to 0. A new score of exactly `target` wins
//! at once. If the pool runs out with no winner, the higher score wins (scores
//! never exceed the target, so it is the one closer to it); on equal scores
//! the player who took the last turn loses. There is no randomness in the
//! setup.

mod narrate;

use std::cmp::Ordering;
use std::iter;

use serde::{Deserialize, Serialize};

use super::{
    Game, GameId, GameParams, MAX_NUMBERS, Outcome, ParamError, Seat, alone_to_move, check_range,
};
use arena_base::json::WriteJson;

/// Number Duel's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DuelParams {
    /// The largest number in the pool.
    pub max: u32,
    /// How many times each number is in the pool.
    pub copies: u32,
    /// The score that wins.
    pub target: u32,
}

impl Default for DuelParams {
    fn default() -> Self {
        DuelParams { max: 10, copies: 2, target: 50 }
    }
}

impl GameParams for DuelParams {
    fn validate(&self) -> Result<(), ParamError> {
        check_range("max", self.max, 1..=MAX_NUMBERS)?;
        check_range("copies", self.copies, 1..=100)?;
        check_range("target", self.target, 1..=1_000_000_000)?;
        if self.max * self.copies > MAX_NUMBERS {
            return Err(ParamError::new(
                "copies",
                format!(
                    "max × copies is the pool's size and may be at most {MAX_NUMBERS}, got {} × {}",
                    self.max, self.copies
                ),
            ));
        }
        Ok(())
    }
}

/// What a move does with the chosen number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, WriteJson)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Add the number to the score.
    Add,
    /// Multiply the score by the number.
    Multiply,
}

impl<'de> Deserialize<'de> for Op {
    /// `"add"` or `"multiply"`, and nothing else.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Op, D::Error> {
        Ok([Op::Add, Op::Multiply][super::name_from_string(deserializer, &["add", "multiply"])?])
    }
}

/// A number from the pool and what to do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, WriteJson)]
pub struct DuelMove {
    /// The number taken from the pool.
    pub number: u32,
    /// What it does to the mover's score.
    pub op: Op,
}

impl<'de> Deserialize<'de> for DuelMove {
    /// An object `{"number": N, "op": "add"}` (other fields ignored), and
    /// nothing else.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<DuelMove, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            number: u32,
            op: Op,
        }
        let Fields { number, op } = super::fields_from_object(
            deserializer,
            r#"an object {"number": N, "op": "add" or "multiply"}"#,
        )?;
        Ok(DuelMove { number, op })
    }
}

impl DuelMove {
    /// Take `number` and add it to the score.
    pub fn add(number: u32) -> DuelMove {
        DuelMove { number, op: Op::Add }
    }

    /// Take `number` and multiply the score by it.
    pub fn multiply(number: u32) -> DuelMove {
        DuelMove { number, op: Op::Multiply }
    }
}

/// A game of Number Duel in progress.
#[derive(Clone, Debug, Serialize)]
pub struct NumberDuel {
    /// Copies left of each number, indexed by number - 1.
    pool: Vec<u32>,
    /// Copies left in all.
    left: u64,
    scores: [i64; 2],
    target: i64,
    /// Set when a move lands exactly on the target.
    winner: Option<Seat>,
    next: Seat,
}

/// What a seat sees: everything, as the game has no hidden information.
#[derive(Clone, Debug, PartialEq, Serialize, WriteJson)]
pub struct DuelView {
    /// Every copy left, ascending.
    pub pool: Vec<u32>,
    /// Each seat's score.
    pub scores: [i64; 2],
    /// The score that wins.
    pub target: i64,
}

impl NumberDuel {
    /// The starting position for `params`; it is the same for every seed.
    pub fn with(params: &DuelParams) -> Self {
        NumberDuel {
            pool: vec![params.copies; params.max as usize],
            left: u64::from(params.max) * u64::from(params.copies),
            scores: [0; 2],
            target: params.target.into(),
            winner: None,
            next: Seat::One,
        }
    }

    fn is_over(&self) -> bool {
        self.winner.is_some() || self.left == 0
    }

    /// The copies left of `number`, 0 for a number never in the pool.
    fn copies_left(&self, number: u32) -> u32 {
        (number as usize).checked_sub(1).and_then(|i| self.pool.get(i)).copied().unwrap_or(0)
    }
}

impl Game for NumberDuel {
    const ID: GameId = GameId::NumberDuel;
    type Params = DuelParams;
    type Move = DuelMove;
    type View = DuelView;

    fn new(params: &DuelParams, _seed: u64) -> Self {
        Self::with(params)
    }

    fn to_move(&self) -> &'static [Seat] {
        alone_to_move(self.next, self.is_over())
    }

    /// Each distinct number left, ascending, with `add` before `multiply`.
    fn legal_moves(&self, seat: Seat) -> Vec<DuelMove> {
        if !self.is_to_move(seat) {
            return Vec::new();
        }
        (1..)
            .zip(&self.pool)
            .filter(|&(_, &copies)| copies > 0)
            .flat_map(|(number, _)| [Op::Add, Op::Multiply].map(|op| DuelMove { number, op }))
            .collect()
    }

    fn is_legal(&self, seat: Seat, mv: &DuelMove) -> bool {
        self.is_to_move(seat) && self.copies_left(mv.number) > 0
    }

    fn apply(&mut self, seat: Seat, mv: &DuelMove) {
        assert!(self.is_legal(seat, mv), "seat {seat} may not play {mv:?} now");
        self.pool[mv.number as usize - 1] -= 1;
        self.left -= 1;

        let number = i64::from(mv.number);
        let score = &mut self.scores[seat.index()];
        // At most target * max, about 10^12: no overflow within the limits.
        let reached = match mv.op {
            Op::Add => *score + number,
            Op::Multiply => *score * number,
        };
        *score = if reached > self.target { 0 } else { reached };
        if reached == self.target {
            self.winner = Some(seat);
        }
        self.next = seat.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(seat) = self.winner {
            return Some(Outcome::win(seat));
        }
        if self.left > 0 {
            return None;
        }
        Some(match self.scores[0].cmp(&self.scores[1]) {
            Ordering::Greater => Outcome::win(Seat::One),
            Ordering::Less => Outcome::win(Seat::Two),
            // The last mover loses, so the seat that would move next wins.
            Ordering::Equal => Outcome::win(self.next),
        })
    }

    fn scores(&self) -> [i64; 2] {
        self.scores
    }

    fn view(&self, _seat: Seat) -> DuelView {
        let pool = (1..)
            .zip(&self.pool)
            .flat_map(|(number, &copies)| iter::repeat_n(number, copies as usize))
            .collect();
        DuelView { pool, scores: self.scores, target: self.target }
    }
}




#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::replay;
    use crate::{ParamsError, parse_params};

    use DuelMove as Move;


    #[test]
    fn rule_book_example_wins_on_the_target_at_once() {
        let mut game = NumberDuel::with(&DuelParams::default());
        replay(&mut game, &[(Move::add(5), [5, 0]), (Move::add(10), [5, 10])]);
        assert_eq!(game.outcome(), None);
        replay(&mut game, &[(Move::multiply(10), [50, 10])]);
        assert_eq!(game.to_move(), &[]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)));
        assert_eq!(
            serde_json::to_value(game.view(Seat::Two)).unwrap(),
            serde_json::json!({
                "pool": [1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8, 8, 9, 9],
                "scores": [50, 10],
                "target": 50,
            })
        );
    }

    #[test]
    fn a_score_above_the_target_drops_to_zero() {
        let mut game = NumberDuel::with(&DuelParams { target: 10, ..DuelParams::default() });
        replay(
            &mut game,
            &[(Move::add(9), [9, 0]), (Move::add(1), [9, 1]), (Move::add(2), [0, 1])],
        );
        replay(&mut game, &[(Move::add(10), [0, 0])]);
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn multiplying_zero_is_legal_and_stays_zero() {
        let mut game = NumberDuel::with(&DuelParams::default());
        assert!(game.is_legal(Seat::One, &Move::multiply(7)));
        replay(&mut game, &[(Move::multiply(7), [0, 0])]);
        assert_eq!(game.copies_left(7), 1);
    }

    #[test]
    fn an_exhausted_pool_goes_to_the_higher_score() {
        let mut game = NumberDuel::with(&DuelParams { max: 2, copies: 1, target: 50 });
        replay(&mut game, &[(Move::add(1), [1, 0]), (Move::add(2), [1, 2])]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)));

        let mut game = NumberDuel::with(&DuelParams { max: 2, copies: 2, target: 50 });
        replay(
            &mut game,
            &[
                (Move::add(2), [2, 0]),
                (Move::add(1), [2, 1]),
                (Move::add(2), [4, 1]),
                (Move::add(1), [4, 2]),
            ],
        );
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)));
    }

    #[test]
    fn equal_scores_on_an_exhausted_pool_lose_for_the_last_mover() {
        let mut game = NumberDuel::with(&DuelParams { max: 1, copies: 2, target: 50 });
        replay(&mut game, &[(Move::add(1), [1, 0]), (Move::add(1), [1, 1])]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)), "seat 2 moved last");

        let mut game = NumberDuel::with(&DuelParams { max: 3, copies: 1, target: 50 });
        replay(
            &mut game,
            &[(Move::add(1), [1, 0]), (Move::add(3), [1, 3]), (Move::add(2), [3, 3])],
        );
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)), "seat 1 moved last");
    }

    #[test]
    fn legal_moves_pair_each_distinct_number_with_both_operations() {
        let mut game = NumberDuel::with(&DuelParams { max: 3, copies: 2, target: 50 });
        replay(&mut game, &[(Move::add(2), [2, 0]), (Move::multiply(2), [2, 0])]);
        assert_eq!(
            game.legal_moves(Seat::One),
            [Move::add(1), Move::multiply(1), Move::add(3), Move::multiply(3)]
        );
        assert!(game.legal_moves(Seat::Two).is_empty());
        for number in [0, 2, 4] {
            assert!(!game.is_legal(Seat::One, &Move::add(number)), "{number}");
        }
    }

    #[test]
    fn moves_serialize_with_lowercase_operations() {
        let json = serde_json::json!({"number": 10, "op": "multiply"});
        assert_eq!(serde_json::to_value(Move::multiply(10)).unwrap(), json);
        assert_eq!(serde_json::from_value::<DuelMove>(json).unwrap(), Move::multiply(10));
        let bad = [
            serde_json::json!({"number": 1, "op": "Add"}),
            serde_json::json!({"number": 1, "op": "subtract"}),
            serde_json::json!({"number": 1}),
            // serde's derive would read these as the move add 1.
            serde_json::json!([1, "add"]),
            serde_json::json!({"number": 1, "op": {"add": null}}),
        ];
        for json in bad {
            assert!(serde_json::from_value::<DuelMove>(json.clone()).is_err(), "{json}");
            assert!(serde_json::from_str::<DuelMove>(&json.to_string()).is_err(), "{json}");
        }
        let error = serde_json::from_str::<DuelMove>(r#"[7,"add"]"#).unwrap_err().to_string();
        assert!(error.contains(r#"expected an object {"number": N"#), "{error}");
        // Unknown fields are ignored everywhere in the protocol, moves included.
        let extra = serde_json::json!({"number": 1, "op": "add", "note": "mine"});
        assert_eq!(
            serde_json::from_value::<DuelMove>(extra).unwrap(),
            DuelMove { number: 1, op: Op::Add }
        );
    }

    #[test]
    fn the_setup_ignores_the_seed() {
        let params = DuelParams { max: 3, copies: 2, target: 7 };
        let game = NumberDuel::new(&params, 42);
        assert_eq!(game.view(Seat::One), NumberDuel::with(&params).view(Seat::One));
        assert_eq!(game.view(Seat::One).pool, [1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn parameters_are_checked() {
        let parse = |json: serde_json::Value| {
            parse_params::<DuelParams>(serde_json::from_value(json).unwrap())
        };
        let params = parse(serde_json::json!({"target": 30})).unwrap();
        assert_eq!(params, DuelParams { target: 30, ..DuelParams::default() });
        assert!(matches!(parse(serde_json::json!({"goal": 30})), Err(ParamsError::Shape(_))));

        let invalid =
            |max, copies, target| DuelParams { max, copies, target }.validate().unwrap_err();
        assert_eq!(invalid(0, 2, 50).param, "max");
        assert_eq!(invalid(1001, 2, 50).param, "max");
        assert_eq!(invalid(10, 0, 50).param, "copies");
        assert_eq!(invalid(10, 101, 50).param, "copies");
        assert_eq!(invalid(10, 2, 0).param, "target");
        assert_eq!(invalid(10, 2, 1_000_000_001).param, "target");
        // The pool (max × copies numbers) stays within the position limit.
        assert_eq!(invalid(100, 11, 50).param, "copies");
        assert!(DuelParams { max: 100, copies: 10, target: 50 }.validate().is_ok());
    }
}
