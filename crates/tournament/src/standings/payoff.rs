//! Mean payoff per game, for games whose scores are payoffs (poker's chips,
//! a general-sum game's utility): what a bot won on average, with a 95%
//! interval, the measure the ACPC ranks by (as mbb/hand).
//!
//! The interval is the mean ± 1.96 standard errors, the sample's standard
//! deviation over the root of its games: a normal approximation, sound
//! for the hundreds of games a payoff ranking needs to mean anything.

use crate::rows::GameRow;
use arena_games::Seat;
use arena_games::program::Payoffs;

/// A bot's mean payoff per game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanPayoff {
    /// Games counted.
    pub games: u64,
    /// The mean payoff (0 before any game).
    pub mean: f64,
    /// Half the width of the 95% interval; infinite before two games.
    pub margin: f64,
}

impl MeanPayoff {
    /// `+0.880 ± 0.214`, three decimals (chips and utilities are small
    /// numbers), `± ?` before two games.
    pub fn text(&self) -> String {
        let mean = signed_decimal(self.mean);
        match self.margin.is_finite() {
            true => format!("{mean} ± {:.3}", self.margin),
            false => format!("{mean} ± ?"),
        }
    }

    /// The ends of the 95% interval (infinite before two games).
    pub fn interval(&self) -> (f64, f64) {
        (self.mean - self.margin, self.mean + self.margin)
    }

    /// The mean as standings compare it: to a millionth, so that equal
    /// results share a rank whatever the sums' last digits.
    pub(super) fn rank_key(&self) -> i64 {
        (self.mean * 1e6).round() as i64
    }
}

/// `+0.880`, `-1.250`, `0.000`: a mean payoff with its sign.
fn signed_decimal(value: f64) -> String {
    let text = format!("{value:+.3}");
    match text.as_str() {
        "+0.000" | "-0.000" => "0.000".to_owned(),
        _ => text,
    }
}

/// One bot's payoffs so far: count, mean and the sum of squared
/// deviations, updated a game at a time (Welford's method, which keeps
/// the variance exact over millions of games where a sum of squares would
/// lose it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PayoffSum {
    games: u64,
    mean: f64,
    squares: f64,
}

impl PayoffSum {
    /// Counts `seat`'s payoff in `row`, forfeits charged as `payoffs` says.
    pub(crate) fn add(&mut self, payoffs: &Payoffs, row: &GameRow, seat: Seat) {
        self.add_value(row.payoff(payoffs, seat));
    }

    pub(crate) fn add_value(&mut self, payoff: f64) {
        self.games += 1;
        let step = payoff - self.mean;
        self.mean += step / self.games as f64;
        self.squares += step * (payoff - self.mean);
    }

    pub(crate) fn games(&self) -> u64 {
        self.games
    }

    pub(crate) fn mean(&self) -> f64 {
        self.mean
    }

    /// The variance of the values counted (of the sample itself, as a
    /// likelihood uses it; 0 before a game).
    pub(crate) fn variance(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.squares / self.games as f64 }
    }

    pub(crate) fn mean_payoff(&self) -> MeanPayoff {
        let margin = match self.games {
            0 | 1 => f64::INFINITY,
            games => {
                let variance = self.squares / (games - 1) as f64;
                1.96 * (variance / games as f64).sqrt()
            }
        };
        MeanPayoff { games: self.games, mean: self.mean, margin }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_and_interval_are_the_samples() {
        let mut sum = PayoffSum::default();
        assert_eq!(sum.mean_payoff().text(), "0.000 ± ?");
        sum.add_value(1.0);
        assert!(sum.mean_payoff().margin.is_infinite(), "one game has no spread");
        for payoff in [-1.0, 3.0, 1.0] {
            sum.add_value(payoff);
        }
        let mean = sum.mean_payoff();
        // Mean 1, sample variance 8/3, standard error sqrt(2/3).
        assert_eq!((mean.games, mean.mean), (4, 1.0));
        assert!((mean.margin - 1.96 * (2.0f64 / 3.0).sqrt()).abs() < 1e-12, "{mean:?}");
        assert_eq!(mean.text(), "+1.000 ± 1.600");
    }

    #[test]
    fn many_games_keep_the_variance() {
        // Payoffs far from zero with a small spread: a plain sum of squares
        // would cancel to noise here.
        let mut sum = PayoffSum::default();
        for game in 0..1_000_000u64 {
            sum.add_value(1e9 + if game % 2 == 0 { 0.5 } else { -0.5 });
        }
        let mean = sum.mean_payoff();
        let expected = 1.96 * (0.25f64 * 1e6 / 999_999.0).sqrt() / 1e3;
        assert!((mean.margin - expected).abs() < 1e-6, "{mean:?} against {expected}");
    }
}
