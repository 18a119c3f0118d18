//! Numbers War.
//!
//! The list holds `count` distinct numbers drawn from `1..=max`, in random
//! order. `count` is even, so both players take the same number of turns.
//! Players alternate, seat 1 first, and each turn take the number at the left
//! end (`L`) or the right end (`R`) of the list. When one number is left both
//! ends name it, so `L` and `R` are both legal and take it.
//!
//! When the list is empty the higher sum of taken numbers wins; on equal sums
//! the player who took the last number wins, so there are no draws.

mod narrate;

use std::cmp::Ordering;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{check_distinct, 
    Game, GameId, GameParams, MAX_NUMBERS, Outcome, ParamError, Seat, alone_to_move, check_range,
    setup_rng,
};
use arena_base::json::WriteJson;

/// Bound on `count` and `max`, which keeps every sum far inside `i64`.
const LIMIT: u32 = 1_000_000;

/// Numbers War's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NumbersWarParams {
    /// How many numbers the list holds; even.
    pub count: u32,
    /// The largest number that may be drawn.
    pub max: u32,
}

impl Default for NumbersWarParams {
    fn default() -> Self {
        NumbersWarParams { count: 8, max: 9 }
    }
}

impl GameParams for NumbersWarParams {
    fn validate(&self) -> Result<(), ParamError> {
        check_range("count", self.count, 2..=MAX_NUMBERS)?;
        if !self.count.is_multiple_of(2) {
            return Err(ParamError::new(
                "count",
                format!("must be even so both players take as many turns, got {}", self.count),
            ));
        }
        check_range("max", self.max, 1..=LIMIT)?;
        check_distinct(self.count, self.max)
    }
}

/// Which end of the list a player takes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, WriteJson)]
pub enum Side {
    /// The left end.
    L,
    /// The right end.
    R,
}

impl<'de> Deserialize<'de> for Side {
    /// `"L"` or `"R"`, and nothing else.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Side, D::Error> {
        Ok([Side::L, Side::R][super::name_from_string(deserializer, &["L", "R"])?])
    }
}

/// A game of Numbers War in progress.
#[derive(Clone, Debug, Serialize)]
pub struct NumbersWar {
    /// The numbers still on the list, left to right.
    numbers: VecDeque<u32>,
    /// Each seat's numbers, in the order taken.
    taken: [Vec<u32>; 2],
    sums: [i64; 2],
    next: Seat,
}

/// What a seat sees: everything, as the game has no hidden information.
#[derive(Clone, Debug, PartialEq, Serialize, WriteJson)]
pub struct NumbersWarView {
    /// The numbers still on the list, left to right.
    pub numbers: Vec<u32>,
    /// Each seat's numbers, in the order taken.
    pub taken: [Vec<u32>; 2],
    /// The sum of each seat's numbers.
    pub sums: [i64; 2],
}

impl NumbersWar {
    /// A game on an explicit list, as a test or a replay names it.
    ///
    /// # Panics
    /// If the list is empty or has an odd length.
    pub fn from_numbers(numbers: Vec<u32>) -> Self {
        assert!(
            !numbers.is_empty() && numbers.len().is_multiple_of(2),
            "the list must have a positive even length: {numbers:?}"
        );
        NumbersWar {
            numbers: numbers.into(),
            taken: [Vec::new(), Vec::new()],
            sums: [0; 2],
            next: Seat::One,
        }
    }

    fn is_over(&self) -> bool {
        self.numbers.is_empty()
    }
}

impl Game for NumbersWar {
    const ID: GameId = GameId::NumbersWar;
    type Params = NumbersWarParams;
    type Move = Side;
    type View = NumbersWarView;

    fn new(params: &NumbersWarParams, seed: u64) -> Self {
        // `sample` returns its numbers in random order: that is the shuffle.
        let numbers =
            setup_rng(seed).sample(params.max, params.count).into_iter().map(|i| i + 1).collect();
        Self::from_numbers(numbers)
    }

    fn to_move(&self) -> &'static [Seat] {
        alone_to_move(self.next, self.is_over())
    }

    fn legal_moves(&self, seat: Seat) -> Vec<Side> {
        if self.is_to_move(seat) { vec![Side::L, Side::R] } else { Vec::new() }
    }

    fn is_legal(&self, seat: Seat, _side: &Side) -> bool {
        self.is_to_move(seat)
    }

    fn apply(&mut self, seat: Seat, side: &Side) {
        assert!(self.is_to_move(seat), "seat {seat} moved out of turn");
        let number = match side {
            Side::L => self.numbers.pop_front(),
            Side::R => self.numbers.pop_back(),
        }
        .expect("a game in progress has numbers left");
        self.taken[seat.index()].push(number);
        self.sums[seat.index()] += i64::from(number);
        self.next = seat.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(match self.sums[0].cmp(&self.sums[1]) {
            Ordering::Greater => Outcome::win(Seat::One),
            Ordering::Less => Outcome::win(Seat::Two),
            // The seat that took the last number is the one that moved last.
            Ordering::Equal => Outcome::win(self.next.other()),
        })
    }

    fn scores(&self) -> [i64; 2] {
        self.sums
    }

    fn view(&self, _seat: Seat) -> NumbersWarView {
        NumbersWarView {
            numbers: self.numbers.iter().copied().collect(),
            taken: self.taken.clone(),
            sums: self.sums,
        }
    }
}



#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::replay;
    use crate::{ParamsError, parse_params};
    use Side::{L, R};


    #[test]
    fn rule_book_example() {
        let mut game = NumbersWar::from_numbers(vec![3, 9, 1, 2, 4, 8]);
        replay(&mut game, &[(R, [8, 0]), (R, [8, 4]), (L, [11, 4]), (L, [11, 13]), (R, [13, 13])]);
        assert_eq!(game.view(Seat::Two).numbers, [1]);
        game.apply(Seat::Two, &L);
        let view = serde_json::to_value(game.view(Seat::One)).unwrap();
        assert_eq!(
            view,
            serde_json::json!({"numbers": [], "taken": [[8, 3, 2], [4, 9, 1]], "sums": [13, 14]})
        );
        assert_eq!(game.to_move(), &[]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)));
    }

    #[test]
    fn both_ends_name_the_last_number() {
        for side in [L, R] {
            let mut game = NumbersWar::from_numbers(vec![5, 6]);
            game.apply(Seat::One, &L);
            assert_eq!(game.legal_moves(Seat::Two), [L, R]);
            assert!(game.is_legal(Seat::Two, &side));
            game.apply(Seat::Two, &side);
            assert_eq!(game.scores(), [5, 6]);
            assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)));
        }
    }

    #[test]
    fn equal_sums_go_to_whoever_took_the_last_number() {
        let mut game = NumbersWar::from_numbers(vec![4, 1, 2, 3]);
        replay(&mut game, &[(L, [4, 0]), (R, [4, 3]), (L, [5, 3]), (L, [5, 5])]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)));
    }

    #[test]
    fn only_the_mover_has_moves() {
        let game = NumbersWar::from_numbers(vec![1, 2]);
        assert_eq!(game.to_move(), &[Seat::One]);
        assert!(!game.is_legal(Seat::Two, &L));
        assert!(game.legal_moves(Seat::Two).is_empty());
    }

    #[test]
    fn sides_serialize_as_letters() {
        assert_eq!(serde_json::to_string(&R).unwrap(), "\"R\"");
        assert_eq!(serde_json::from_str::<Side>("\"L\"").unwrap(), L);
        assert!(serde_json::from_str::<Side>("\"l\"").is_err());
        // serde's derive would read these as `L`.
        for shape in [r#"{"L":null}"#, r#"["L"]"#, "0"] {
            let error = serde_json::from_str::<Side>(shape).unwrap_err().to_string();
            assert!(error.contains(r#"one of the strings "L", "R""#), "{shape}: {error}");
        }
    }

    #[test]
    fn seeded_setups_are_reproducible_distinct_and_in_range() {
        let params = NumbersWarParams::default();
        for seed in 0..50 {
            let game = NumbersWar::new(&params, seed);
            assert_eq!(game.numbers, NumbersWar::new(&params, seed).numbers);
            let mut sorted: Vec<u32> = game.numbers.iter().copied().collect();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 8);
            assert!(sorted.iter().all(|n| (1..=9).contains(n)));
        }
        let orders: Vec<_> = (0..10).map(|seed| NumbersWar::new(&params, seed).numbers).collect();
        assert!(orders.iter().any(|order| !order.iter().is_sorted()), "lists are shuffled");
    }

    #[test]
    fn parameters_are_checked() {
        let parse = |json: serde_json::Value| {
            parse_params::<NumbersWarParams>(serde_json::from_value(json).unwrap())
        };
        assert_eq!(parse(serde_json::json!({})).unwrap(), NumbersWarParams::default());
        assert!(matches!(parse(serde_json::json!({"size": 4})), Err(ParamsError::Shape(_))));

        let invalid = |count, max| NumbersWarParams { count, max }.validate().unwrap_err();
        let odd = invalid(7, 9);
        assert_eq!(odd.param, "count");
        assert!(odd.message.contains("even") && odd.message.ends_with("got 7"), "{odd}");
        assert_eq!(invalid(0, 9).param, "count");
        assert_eq!(invalid(10, 9).param, "max");
        assert!(NumbersWarParams { count: 2, max: 2 }.validate().is_ok());
    }
}
