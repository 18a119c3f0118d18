//! Number Snatch.
//!
//! The list holds `count` distinct numbers drawn uniformly from `1..=max`,
//! shown in ascending order. Players alternate, seat 1 first, and each turn
//! take any number still on the list, which is added to their score.
//!
//! A pick that is a multiple of the opponent's most recent pick `L` is a
//! *snatch*: the opponent loses `d = min(L, their score)` points and the mover
//! gains the same `d`, so no score goes below zero and no points are created.
//! The opening move cannot snatch, since the opponent has picked nothing yet.
//! (In alternate play the opponent has just gained `L`, so `d` is `L` in
//! practice; the floor is a safeguard.)
//!
//! When the list is empty the higher score wins. Equal scores are a draw: the
//! rule book says ties cannot happen, but they can whenever the list's sum is
//! even. The book's worked example also snatches at Player 2's fourth turn,
//! where 20 is not a multiple of 12; played by the rule above, its moves end
//! 74 to 45 rather than the printed 62 to 57.

mod narrate;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::{check_distinct, 
    Game, GameId, GameParams, MAX_NUMBERS, Outcome, ParamError, Seat, alone_to_move, check_range,
    setup_rng,
};
use arena_base::json::WriteJson;

/// Bound on `count` and `max`, which keeps every score sum far inside `i64`.
const LIMIT: u32 = 1_000_000;

/// Number Snatch's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SnatchParams {
    /// How many numbers the list holds.
    pub count: u32,
    /// The largest number that may be drawn.
    pub max: u32,
}

impl Default for SnatchParams {
    fn default() -> Self {
        SnatchParams { count: 10, max: 20 }
    }
}

impl GameParams for SnatchParams {
    fn validate(&self) -> Result<(), ParamError> {
        check_range("count", self.count, 1..=MAX_NUMBERS)?;
        check_range("max", self.max, 1..=LIMIT)?;
        check_distinct(self.count, self.max)
    }
}

/// A game of Number Snatch in progress.
#[derive(Clone, Debug, Serialize)]
pub struct NumberSnatch {
    /// The numbers not taken yet, in list order.
    numbers: Vec<u32>,
    scores: [i64; 2],
    /// Each seat's most recent pick: what the opponent must hit a multiple of.
    last_picks: [Option<u32>; 2],
    next: Seat,
}

/// What a seat sees: everything, as the game has no hidden information.
#[derive(Clone, Debug, PartialEq, Serialize, WriteJson)]
pub struct SnatchView {
    /// The numbers not taken yet, in list order.
    pub numbers: Vec<u32>,
    /// Each seat's score.
    pub scores: [i64; 2],
    /// Each seat's most recent pick (`null` before its first).
    pub last_picks: [Option<u32>; 2],
}

impl NumberSnatch {
    /// A game on an explicit list, as a test or a replay names it.
    ///
    /// # Panics
    /// If the list is empty or holds a zero or a repeated number.
    pub fn from_numbers(numbers: Vec<u32>) -> Self {
        assert!(!numbers.is_empty(), "the list must not be empty");
        assert!(!numbers.contains(&0), "the numbers must be positive: {numbers:?}");
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        assert!(
            sorted.windows(2).all(|w| w[0] != w[1]),
            "the numbers must be distinct: {numbers:?}"
        );
        NumberSnatch { numbers, scores: [0; 2], last_picks: [None; 2], next: Seat::One }
    }

    fn is_over(&self) -> bool {
        self.numbers.is_empty()
    }
}

impl Game for NumberSnatch {
    const ID: GameId = GameId::NumberSnatch;
    type Params = SnatchParams;
    type Move = u32;
    type View = SnatchView;

    fn new(params: &SnatchParams, seed: u64) -> Self {
        let mut numbers: Vec<u32> =
            setup_rng(seed).sample(params.max, params.count).into_iter().map(|i| i + 1).collect();
        numbers.sort_unstable();
        Self::from_numbers(numbers)
    }

    fn to_move(&self) -> &'static [Seat] {
        alone_to_move(self.next, self.is_over())
    }

    fn legal_moves(&self, seat: Seat) -> Vec<u32> {
        if self.is_to_move(seat) { self.numbers.clone() } else { Vec::new() }
    }

    fn is_legal(&self, seat: Seat, pick: &u32) -> bool {
        self.is_to_move(seat) && self.numbers.contains(pick)
    }

    fn apply(&mut self, seat: Seat, &pick: &u32) {
        assert!(self.is_to_move(seat), "seat {seat} moved out of turn");
        let at = self
            .numbers
            .iter()
            .position(|&n| n == pick)
            .unwrap_or_else(|| panic!("{pick} is not on the list"));
        self.numbers.remove(at);

        let (me, them) = (seat.index(), seat.other().index());
        self.scores[me] += i64::from(pick);
        if let Some(last) = self.last_picks[them].filter(|&last| pick % last == 0) {
            let snatched = i64::from(last).min(self.scores[them]);
            self.scores[them] -= snatched;
            self.scores[me] += snatched;
        }
        self.last_picks[me] = Some(pick);
        self.next = seat.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(match self.scores[0].cmp(&self.scores[1]) {
            Ordering::Greater => Outcome::win(Seat::One),
            Ordering::Less => Outcome::win(Seat::Two),
            Ordering::Equal => Outcome::draw(),
        })
    }

    fn scores(&self) -> [i64; 2] {
        self.scores
    }

    fn view(&self, _seat: Seat) -> SnatchView {
        SnatchView {
            numbers: self.numbers.clone(),
            scores: self.scores,
            last_picks: self.last_picks,
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::replay;
    use crate::{ParamsError, parse_params};


    #[test]
    fn rule_book_example_with_the_corrected_fourth_turn() {
        let mut game = NumberSnatch::from_numbers(vec![2, 5, 7, 10, 12, 13, 15, 17, 18, 20]);
        replay(
            &mut game,
            &[
                (13, [13, 0]),
                (5, [13, 5]),
                (15, [33, 0]), // snatches 5
                (2, [33, 2]),
                (10, [45, 0]), // snatches 2
                (18, [45, 18]),
                (12, [57, 18]),
                (20, [57, 38]), // 20 is no multiple of 12: the book's snatch is wrong
                (17, [74, 38]),
                (7, [74, 45]),
            ],
        );
        assert_eq!(game.to_move(), &[]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)));
    }

    #[test]
    fn equal_final_scores_are_a_draw() {
        let mut game = NumberSnatch::from_numbers(vec![2, 5, 7, 10, 12, 13, 15, 17, 18, 19]);
        for pick in [2, 19, 10, 7, 12, 15, 17, 13, 18, 5] {
            assert_eq!(game.outcome(), None);
            game.apply(game.to_move()[0], &pick);
        }
        assert_eq!(game.scores(), [59, 59]);
        assert_eq!(game.outcome(), Some(Outcome::draw()));
    }

    #[test]
    fn a_snatch_moves_the_opponents_last_pick() {
        let mut game = NumberSnatch::from_numbers(vec![3, 4, 9]);
        replay(&mut game, &[(4, [4, 0]), (3, [4, 3]), (9, [16, 0])]);
    }

    #[test]
    fn a_snatch_takes_no_more_than_the_opponent_has() {
        // In alternate play the opponent has just gained L, so this position
        // (seat 1 holding less than its last pick) is built by hand.
        let mut game = NumberSnatch::from_numbers(vec![10, 11]);
        game.scores = [3, 0];
        game.last_picks = [Some(5), None];
        game.next = Seat::Two;
        game.apply(Seat::Two, &10);
        assert_eq!(game.scores, [0, 13]);
    }

    #[test]
    fn the_first_move_cannot_snatch_and_the_mover_needs_the_opponents_pick() {
        let mut game = NumberSnatch::from_numbers(vec![2, 4, 8]);
        replay(&mut game, &[(2, [2, 0]), (8, [0, 10]), (4, [4, 10])]);
        // 4 is no multiple of 8; seat 1's own earlier 2 does not count.
    }

    #[test]
    fn only_the_mover_may_pick_a_number_on_the_list() {
        let mut game = NumberSnatch::from_numbers(vec![1, 2]);
        assert!(game.is_legal(Seat::One, &2));
        assert!(!game.is_legal(Seat::Two, &2));
        assert!(!game.is_legal(Seat::One, &3));
        assert_eq!(game.legal_moves(Seat::Two), Vec::<u32>::new());
        game.apply(Seat::One, &2);
        assert_eq!(game.legal_moves(Seat::Two), vec![1]);
        assert!(!game.is_legal(Seat::Two, &2));
    }

    #[test]
    #[should_panic(expected = "not on the list")]
    fn applying_a_taken_number_panics() {
        let mut game = NumberSnatch::from_numbers(vec![1, 2]);
        game.apply(Seat::One, &2);
        game.apply(Seat::Two, &2);
    }

    #[test]
    fn the_view_shows_the_list_scores_and_last_picks() {
        let mut game = NumberSnatch::from_numbers(vec![5, 3, 9]);
        game.apply(Seat::One, &3);
        let view = serde_json::to_value(game.view(Seat::Two)).unwrap();
        assert_eq!(
            view,
            serde_json::json!({"numbers": [5, 9], "scores": [3, 0], "last_picks": [3, null]})
        );
    }

    #[test]
    fn seeded_setups_are_reproducible_distinct_and_in_range() {
        let params = SnatchParams::default();
        for seed in 0..50 {
            let game = NumberSnatch::new(&params, seed);
            assert_eq!(game.numbers, NumberSnatch::new(&params, seed).numbers);
            assert_eq!(game.numbers.len(), 10);
            assert!(game.numbers.windows(2).all(|w| w[0] < w[1]), "{:?}", game.numbers);
            assert!(game.numbers.iter().all(|n| (1..=20).contains(n)));
        }
        assert_ne!(NumberSnatch::new(&params, 1).numbers, NumberSnatch::new(&params, 2).numbers);
        let full = NumberSnatch::new(&SnatchParams { count: 5, max: 5 }, 7);
        assert_eq!(full.numbers, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn parameters_are_checked() {
        let parse = |json: serde_json::Value| {
            parse_params::<SnatchParams>(serde_json::from_value(json).unwrap())
        };
        assert_eq!(parse(serde_json::json!({})).unwrap(), SnatchParams::default());
        assert_eq!(parse(serde_json::json!({"count": 3})).unwrap().max, 20);
        assert!(matches!(parse(serde_json::json!({"cuont": 3})), Err(ParamsError::Shape(_))));

        let invalid = |count, max| SnatchParams { count, max }.validate().unwrap_err();
        assert_eq!(invalid(0, 20).param, "count");
        assert_eq!(invalid(10, 2_000_000).param, "max");
        let error = invalid(21, 20);
        assert_eq!(error.param, "max");
        assert!(error.message.contains("distinct"), "{error}");
        assert!(SnatchParams { count: 20, max: 20 }.validate().is_ok());
    }
}
