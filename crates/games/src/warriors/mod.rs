//! Number Warriors.
//!
//! Both players start with `life` Life Points; the pool holds `1..=max`.
//! Every turn both players choose, at the same time and in secret, a number
//! still in the pool (they may choose the same one). Neither learns anything
//! of the other's choice before both are locked in; then both are revealed.
//!
//! Different numbers: the higher chooser deals `higher - lower` damage to the
//! other, whose Life Points stop at 0. Equal numbers: no damage. The chosen
//! numbers leave the pool (one number when both chose the same).
//!
//! The game ends at once when a player is at 0 Life Points (the other wins),
//! or when the pool is empty: then higher Life Points win and equal Life
//! Points are a draw. (The book would play on "with no numbers", which can
//! decide nothing.) There is no randomness in the setup.
//!
//! The referee applies seat 1's choice, then seat 2's: the first only locks in
//! a pending choice, which no view shows; the second resolves the turn.

mod narrate;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::{Game, GameId, GameParams, MAX_NUMBERS, Outcome, ParamError, Seat, check_range};
use arena_base::json::WriteJson;

/// Bound on `life`: far more than any game needs, and far from overflow.
const LIFE_LIMIT: u32 = 1_000_000_000;

/// Number Warriors' parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WarriorsParams {
    /// Each player's starting Life Points.
    pub life: u32,
    /// The largest number in the pool.
    pub max: u32,
}

impl Default for WarriorsParams {
    fn default() -> Self {
        WarriorsParams { life: 15, max: 9 }
    }
}

impl GameParams for WarriorsParams {
    fn validate(&self) -> Result<(), ParamError> {
        check_range("life", self.life, 1..=LIFE_LIMIT)?;
        check_range("max", self.max, 1..=MAX_NUMBERS)
    }
}

/// A game of Number Warriors in progress.
#[derive(Clone, Debug, Serialize)]
pub struct NumberWarriors {
    /// The numbers still to be chosen, ascending.
    pool: Vec<u32>,
    life: [u32; 2],
    /// The turn being played, from 1; the last one played once over.
    turn: u32,
    /// The choices locked in for this turn. Never part of a view.
    chosen: [Option<u32>; 2],
}

/// What a seat sees: the public state, without any pending choice.
#[derive(Clone, Debug, PartialEq, Serialize, WriteJson)]
pub struct WarriorsView {
    /// The numbers still to be chosen, ascending.
    pub pool: Vec<u32>,
    /// Each seat's Life Points.
    pub life: [u32; 2],
    /// The turn being played, from 1.
    pub turn: u32,
}

impl NumberWarriors {
    /// The starting position for `params`; it is the same for every seed.
    pub fn with(params: &WarriorsParams) -> Self {
        NumberWarriors {
            pool: (1..=params.max).collect(),
            life: [params.life; 2],
            turn: 1,
            chosen: [None; 2],
        }
    }

    fn is_over(&self) -> bool {
        self.pool.is_empty() || self.life.contains(&0)
    }

    /// Both numbers are in: deal the damage, spend the numbers, move on.
    fn resolve(&mut self, one: u32, two: u32) {
        // Equal numbers deal a damage of 0, whoever counts as the loser.
        let loser = if one > two { Seat::Two } else { Seat::One };
        let life = &mut self.life[loser.index()];
        *life = life.saturating_sub(one.abs_diff(two));
        self.pool.retain(|&n| n != one && n != two);
        if !self.is_over() {
            self.turn += 1;
        }
    }
}

impl Game for NumberWarriors {
    const ID: GameId = GameId::NumberWarriors;
    type Params = WarriorsParams;
    type Move = u32;
    type View = WarriorsView;

    fn new(params: &WarriorsParams, _seed: u64) -> Self {
        Self::with(params)
    }

    fn to_move(&self) -> &'static [Seat] {
        match self.chosen {
            _ if self.is_over() => &[],
            [None, None] => &Seat::BOTH,
            [Some(_), None] => &[Seat::Two],
            [None, Some(_)] => &[Seat::One],
            [Some(_), Some(_)] => unreachable!("a turn resolves as soon as both have chosen"),
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<u32> {
        if self.to_move().contains(&seat) { self.pool.clone() } else { Vec::new() }
    }

    fn is_legal(&self, seat: Seat, number: &u32) -> bool {
        self.to_move().contains(&seat) && self.pool.binary_search(number).is_ok()
    }

    fn apply(&mut self, seat: Seat, number: &u32) {
        assert!(self.is_legal(seat, number), "seat {seat} may not choose {number} now");
        self.chosen[seat.index()] = Some(*number);
        if let [Some(one), Some(two)] = self.chosen {
            self.chosen = [None; 2];
            self.resolve(one, two);
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        // Only one player takes damage per turn, so a player at 0 has less
        // life than the other: one comparison settles both endings.
        Some(match self.life[0].cmp(&self.life[1]) {
            Ordering::Greater => Outcome::win(Seat::One),
            Ordering::Less => Outcome::win(Seat::Two),
            Ordering::Equal => Outcome::draw(),
        })
    }

    fn scores(&self) -> [i64; 2] {
        self.life.map(i64::from)
    }

    fn view(&self, _seat: Seat) -> WarriorsView {
        WarriorsView { pool: self.pool.clone(), life: self.life, turn: self.turn }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParamsError, parse_params};

    /// Plays one turn, checking the Life Points and pool after it.
    fn turn(game: &mut NumberWarriors, one: u32, two: u32, life: [i64; 2], pool: &[u32]) {
        assert_eq!(game.to_move(), &Seat::BOTH);
        assert!(game.is_legal(Seat::One, &one) && game.is_legal(Seat::Two, &two));
        game.apply(Seat::One, &one);
        game.apply(Seat::Two, &two);
        assert_eq!(game.scores(), life, "after {one} against {two}");
        assert_eq!(game.pool, pool, "after {one} against {two}");
    }

    #[test]
    fn rule_book_example() {
        let mut game = NumberWarriors::with(&WarriorsParams::default());
        turn(&mut game, 5, 7, [13, 15], &[1, 2, 3, 4, 6, 8, 9]);
        assert_eq!(game.view(Seat::One).turn, 2);
        turn(&mut game, 9, 8, [13, 14], &[1, 2, 3, 4, 6]);
        turn(&mut game, 6, 6, [13, 14], &[1, 2, 3, 4]);
        turn(&mut game, 4, 3, [13, 13], &[1, 2]);
        assert_eq!(game.outcome(), None);
        turn(&mut game, 2, 1, [13, 12], &[]);
        assert_eq!(game.to_move(), &[]);
        assert_eq!(game.view(Seat::Two).turn, 5);
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::One)));
    }

    #[test]
    fn life_stops_at_zero_and_ends_the_game_at_once() {
        let mut game = NumberWarriors::with(&WarriorsParams { life: 3, max: 9 });
        turn(&mut game, 1, 9, [0, 3], &[2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(game.to_move(), &[]);
        assert!(game.legal_moves(Seat::One).is_empty());
        assert_eq!(game.outcome(), Some(Outcome::win(Seat::Two)));
    }

    #[test]
    fn equal_life_with_an_empty_pool_is_a_draw() {
        let mut game = NumberWarriors::with(&WarriorsParams { life: 5, max: 4 });
        turn(&mut game, 4, 3, [5, 4], &[1, 2]);
        turn(&mut game, 1, 2, [4, 4], &[]);
        assert_eq!(game.outcome(), Some(Outcome::draw()));
    }

    #[test]
    fn the_same_number_deals_nothing_and_leaves_once() {
        let mut game = NumberWarriors::with(&WarriorsParams { life: 5, max: 3 });
        turn(&mut game, 2, 2, [5, 5], &[1, 3]);
        assert_eq!(game.view(Seat::One).turn, 2);
    }

    #[test]
    fn a_pending_choice_is_never_shown() {
        let mut game = NumberWarriors::with(&WarriorsParams::default());
        let views = |game: &NumberWarriors| {
            Seat::BOTH.map(|seat| serde_json::to_value(game.view(seat)).unwrap())
        };
        let before = views(&game);
        game.apply(Seat::One, &9);
        assert_eq!(game.to_move(), &[Seat::Two]);
        assert!(game.legal_moves(Seat::One).is_empty());
        assert!(!game.is_legal(Seat::One, &8));
        assert!(game.is_legal(Seat::Two, &9), "both may choose the same number");
        assert_eq!(views(&game), before);
        assert_eq!(
            before[0],
            serde_json::json!({"pool": [1, 2, 3, 4, 5, 6, 7, 8, 9], "life": [15, 15], "turn": 1})
        );
    }

    #[test]
    #[should_panic(expected = "may not choose")]
    fn a_spent_number_cannot_be_chosen() {
        let mut game = NumberWarriors::with(&WarriorsParams::default());
        turn(&mut game, 5, 7, [13, 15], &[1, 2, 3, 4, 6, 8, 9]);
        game.apply(Seat::One, &5);
    }

    #[test]
    fn the_setup_ignores_the_seed() {
        let params = WarriorsParams { life: 7, max: 4 };
        let game = NumberWarriors::new(&params, 99);
        assert_eq!(game.view(Seat::One), NumberWarriors::with(&params).view(Seat::One));
        assert_eq!(game.scores(), [7, 7]);
    }

    #[test]
    fn parameters_are_checked() {
        let parse = |json: serde_json::Value| {
            parse_params::<WarriorsParams>(serde_json::from_value(json).unwrap())
        };
        assert_eq!(parse(serde_json::json!({"max": 5})).unwrap().life, 15);
        assert!(matches!(parse(serde_json::json!({"lives": 5})), Err(ParamsError::Shape(_))));
        assert!(matches!(parse(serde_json::json!({"life": -1})), Err(ParamsError::Shape(_))));

        let invalid = |life, max| WarriorsParams { life, max }.validate().unwrap_err();
        assert_eq!(invalid(0, 9).param, "life");
        assert_eq!(invalid(15, 0).param, "max");
        assert_eq!(invalid(15, 0).message, "must be between 1 and 1000, got 0");
        assert_eq!(invalid(15, 1001).param, "max");
    }
}
