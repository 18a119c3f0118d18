//! Number Claim.
//!
//! An `n` x `n` grid holds a random permutation of `1..=n*n` (the book's grid
//! is 3 x 3; larger grids are its "Larger Grids" variation). Players
//! alternate, seat 1 first, and each turn claim any unclaimed number, named by
//! its value, which is added to their sum.
//!
//! Once every number is claimed the higher sum wins; equal sums are a draw.
//! A draw needs an even total, so it cannot happen for `n = 3` (45) but can
//! for `n = 4` (136). The book's scoring table gives turn 9 to Player 2; with
//! nine numbers and Player 1 first, turn 9 is Player 1's.

mod narrate;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::{
    Game, GameId, GameParams, Outcome, ParamError, Seat, alone_to_move, check_range, setup_rng,
};
use arena_base::json::WriteJson;

/// Number Claim's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClaimParams {
    /// The side of the square grid.
    pub n: u32,
}

impl Default for ClaimParams {
    fn default() -> Self {
        ClaimParams { n: 3 }
    }
}

impl GameParams for ClaimParams {
    fn validate(&self) -> Result<(), ParamError> {
        check_range("n", self.n, 1..=16)
    }
}

/// A game of Number Claim in progress.
#[derive(Clone, Debug, Serialize)]
pub struct NumberClaim {
    grid: Vec<Vec<u32>>,
    /// Who claimed each number, indexed by value - 1.
    owners: Vec<Option<Seat>>,
    sums: [i64; 2],
    unclaimed: usize,
    next: Seat,
}

/// What a seat sees: everything, as the game has no hidden information.
#[derive(Clone, Debug, PartialEq, Serialize, WriteJson)]
pub struct ClaimView {
    /// The grid's numbers, row by row.
    pub grid: Vec<Vec<u32>>,
    /// Per cell: 0 while unclaimed, else the claiming seat's number.
    pub owners: Vec<Vec<u8>>,
    /// The sum of each seat's claimed numbers.
    pub sums: [i64; 2],
}

impl NumberClaim {
    /// A game on an explicit grid, as a test or a replay names it.
    ///
    /// # Panics
    /// If the grid is not square or does not hold each of `1..=n*n` once.
    pub fn from_grid(grid: Vec<Vec<u32>>) -> Self {
        let n = grid.len();
        assert!(
            n > 0 && grid.iter().all(|row| row.len() == n),
            "the grid must be square: {grid:?}"
        );
        let mut values = grid.concat();
        values.sort_unstable();
        assert!(
            values.into_iter().eq(1..=(n * n) as u32),
            "the grid must hold 1..={} once each: {grid:?}",
            n * n
        );
        NumberClaim {
            grid,
            owners: vec![None; n * n],
            sums: [0; 2],
            unclaimed: n * n,
            next: Seat::One,
        }
    }

    fn is_over(&self) -> bool {
        self.unclaimed == 0
    }

    /// The owner slot of `value`, or `None` for a value not on the grid.
    fn owner(&self, value: u32) -> Option<Option<Seat>> {
        (value as usize).checked_sub(1).and_then(|i| self.owners.get(i)).copied()
    }
}

impl Game for NumberClaim {
    const ID: GameId = GameId::NumberClaim;
    type Params = ClaimParams;
    type Move = u32;
    type View = ClaimView;

    fn new(params: &ClaimParams, seed: u64) -> Self {
        let n = params.n as usize;
        let mut values: Vec<u32> = (1..=params.n * params.n).collect();
        setup_rng(seed).shuffle(&mut values);
        Self::from_grid(values.chunks(n).map(<[u32]>::to_vec).collect())
    }

    fn to_move(&self) -> &'static [Seat] {
        alone_to_move(self.next, self.is_over())
    }

    /// The unclaimed numbers, ascending.
    fn legal_moves(&self, seat: Seat) -> Vec<u32> {
        if !self.is_to_move(seat) {
            return Vec::new();
        }
        (1..)
            .zip(&self.owners)
            .filter(|(_, owner)| owner.is_none())
            .map(|(value, _)| value)
            .collect()
    }

    fn is_legal(&self, seat: Seat, &value: &u32) -> bool {
        self.is_to_move(seat) && self.owner(value) == Some(None)
    }

    fn apply(&mut self, seat: Seat, &value: &u32) {
        assert!(self.is_legal(seat, &value), "seat {seat} may not claim {value} now");
        self.owners[value as usize - 1] = Some(seat);
        self.sums[seat.index()] += i64::from(value);
        self.unclaimed -= 1;
        self.next = seat.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(match self.sums[0].cmp(&self.sums[1]) {
            Ordering::Greater => Outcome::win(Seat::One),
            Ordering::Less => Outcome::win(Seat::Two),
            Ordering::Equal => Outcome::draw(),
        })
    }

    fn scores(&self) -> [i64; 2] {
        self.sums
    }

    fn view(&self, _seat: Seat) -> ClaimView {
        let owner_number = |&value: &u32| self.owners[value as usize - 1].map_or(0, Seat::number);
        ClaimView {
            grid: self.grid.clone(),
            owners: self.grid.iter().map(|row| row.iter().map(owner_number).collect()).collect(),
            sums: self.sums,
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::replay;
    use crate::{ParamsError, parse_params};


    #[test]
    fn rule_book_example_with_turn_nine_to_player_one() {
        let mut game = NumberClaim::from_grid(vec![vec![2, 7, 6], vec![9, 5, 1], vec![4, 3, 8]]);
        replay(&mut game, &[(9, [9, 0]), (8, [9, 8])]);
        assert_eq!(
            serde_json::to_value(game.view(Seat::One)).unwrap(),
            serde_json::json!({
                "grid": [[2, 7, 6], [9, 5, 1], [4, 3, 8]],
                "owners": [[0, 0, 0], [1, 0, 0], [0, 0, 2]],
                "sums": [9, 8],
            })
        );
        // The book shows the first four claims and the final 25 to 20; this
        // is one way to get there, with Player 2 reaching 20 on turn 8.
        replay(
            &mut game,
            &[
                (7, [16, 8]),
                (6, [16, 14]),
                (5, [21, 14]),
                (4, [21, 18]),
                (3, [24, 18]),
                (2, [24, 20]),
            ],
        );
        assert_eq!(game.to_move(), &[Seat::One], "turn 9 is Player 1's");
        replay(&mut game, &[(1, [25, 20])]);
        assert_eq!(game.to_move(), &[]);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)));
    }

    #[test]
    fn equal_sums_on_a_four_by_four_grid_are_a_draw() {
        let grid = (0..4).map(|row| (1..=4).map(|col| row * 4 + col).collect()).collect();
        let mut game = NumberClaim::from_grid(grid);
        for value in [16, 15, 13, 14, 12, 11, 9, 10, 8, 7, 5, 6, 4, 3, 1, 2] {
            assert_eq!(game.outcome(), None);
            game.apply(game.to_move()[0], &value);
        }
        assert_eq!(game.scores(), [68, 68]);
        assert_eq!(game.outcome(), Some(Outcome::draw()));
    }

    #[test]
    fn only_unclaimed_numbers_on_the_grid_are_legal() {
        let mut game = NumberClaim::from_grid(vec![vec![3, 1], vec![4, 2]]);
        assert_eq!(game.legal_moves(Seat::One), [1, 2, 3, 4]);
        assert!(game.legal_moves(Seat::Two).is_empty());
        game.apply(Seat::One, &3);
        assert_eq!(game.legal_moves(Seat::Two), [1, 2, 4]);
        for value in [0, 3, 5, u32::MAX] {
            assert!(!game.is_legal(Seat::Two, &value), "{value}");
        }
        assert!(!game.is_legal(Seat::One, &1), "not seat 1's turn");
    }

    #[test]
    #[should_panic(expected = "once each")]
    fn a_grid_with_a_repeat_is_refused() {
        NumberClaim::from_grid(vec![vec![1, 2], vec![2, 4]]);
    }

    #[test]
    fn seeded_grids_are_reproducible_permutations() {
        for (n, seed) in [(1, 0), (3, 1), (3, 2), (5, 3), (16, 4)] {
            let game = NumberClaim::new(&ClaimParams { n }, seed);
            assert_eq!(game.grid, NumberClaim::new(&ClaimParams { n }, seed).grid);
            assert_eq!(game.grid.len(), n as usize);
            let mut values: Vec<u32> = game.grid.concat();
            values.sort_unstable();
            assert!(values.into_iter().eq(1..=n * n));
        }
        let grids: Vec<_> =
            (0..5).map(|seed| NumberClaim::new(&ClaimParams::default(), seed).grid).collect();
        assert!(grids.windows(2).any(|pair| pair[0] != pair[1]));
    }

    #[test]
    fn parameters_are_checked() {
        let parse = |json: serde_json::Value| {
            parse_params::<ClaimParams>(serde_json::from_value(json).unwrap())
        };
        assert_eq!(parse(serde_json::json!({"n": 4})).unwrap(), ClaimParams { n: 4 });
        assert!(matches!(parse(serde_json::json!({"size": 4})), Err(ParamsError::Shape(_))));
        for n in [0, 17] {
            let error = ClaimParams { n }.validate().unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("parameter `n`: must be between 1 and 16, got {n}")
            );
        }
    }
}
