//! Standings, ratings and the crosstable, computed from games.csv rows.
//!
//! Ratings are Elo from a Bradley-Terry maximum-likelihood fit over all
//! games at once (so the order of games does not matter): bot `i` scores
//! against bot `j` with probability `1 / (1 + 10^((r_j - r_i) / 400))`, a
//! draw counting as half a win. The ratings are shifted to mean 0. The 95%
//! interval is ±1.96 standard errors from the inverse Fisher information.
//!
//! A bot that won (or lost) every game has no finite maximum-likelihood
//! rating. Then, and only then, every bot gets a weak prior: one virtual
//! draw against a virtual bot rated 0, which keeps all ratings finite and
//! changes little once many games are played. The interval is always that
//! of the rating as shown (centred on the bots' mean), so the prior's own
//! uncertainty does not widen every bot's interval.
//!
//! Ranks are shared by equal points ("1, 1, 3"); within a shared rank,
//! bots are listed by Elo, then name. In a gauntlet the bots play different
//! numbers of games against different opponents, so points do not compare:
//! its standings are ranked by Elo, which weighs each result by who it was
//! against ([`gauntlet_standings`]).
//!
//! A game whose scores are payoffs (it declares `payoffs`) is ranked by
//! mean payoff per game instead, in a league and a gauntlet alike
//! ([`payoff`]): poker is won by chips, and a bot that wins many small
//! pots and loses a few large ones has won more games and less money.

use std::collections::HashMap;

pub mod payoff;
mod tables;

pub use tables::{crosstable_csv, signed, standings_csv, standings_text};

use crate::rows::{GameRow, Tally};
use arena_games::Seat;
use arena_games::program::Payoffs;
use payoff::{MeanPayoff, PayoffSum};

/// One line of standings.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The rank, from 1, shared by equals.
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// Its games, by result.
    pub tally: Tally,
    /// Elo, mean 0 over the bots.
    pub elo: f64,
    /// Half the width of the 95% interval; infinite when undetermined.
    pub elo_margin: f64,
    /// Its mean payoff, in a game whose scores are payoffs.
    pub payoff: Option<MeanPayoff>,
}

impl Standing {
    /// Points as a share of games played, in percent (0 before any game).
    pub fn score_percent(&self) -> f64 {
        if self.tally.games == 0 {
            0.0
        } else {
            100.0 * self.tally.points() / self.tally.games as f64
        }
    }
}

/// Everything the standings need, gathered one row at a time so a run of
/// any length needs no more memory than its number of bots does.
#[derive(Clone, Debug)]
pub struct Results {
    bots: Vec<String>,
    index: HashMap<String, usize>,
    /// Games between each pair: `games[i][j]`.
    games: Vec<Vec<f64>>,
    /// Points of `i` against `j`: `points[i][j]`.
    points: Vec<Vec<f64>>,
    tallies: Vec<Tally>,
    /// The game's payoffs, if its scores are payoffs.
    payoffs: Option<Payoffs>,
    /// Each bot's payoffs, counted when `payoffs` is set.
    payoff_sums: Vec<PayoffSum>,
}

impl Results {
    /// The points `bot` scored against `opponent`, and their games.
    pub fn head_to_head(&self, bot: &str, opponent: &str) -> (f64, u64) {
        match (self.index.get(bot), self.index.get(opponent)) {
            (Some(&i), Some(&j)) => (self.points[i][j], self.games[i][j] as u64),
            _ => (0.0, 0),
        }
    }

    /// No games yet between `bots` (every bot of the tournament), of a
    /// game whose scores are `payoffs` if it declares them.
    pub fn new(bots: &[String], payoffs: Option<Payoffs>) -> Results {
        let count = bots.len();
        Results {
            bots: bots.to_vec(),
            index: bots.iter().enumerate().map(|(i, bot)| (bot.clone(), i)).collect(),
            games: vec![vec![0.0; count]; count],
            points: vec![vec![0.0; count]; count],
            tallies: vec![Tally::default(); count],
            payoffs,
            payoff_sums: vec![PayoffSum::default(); count],
        }
    }

    /// The results of `rows`, for tests.
    #[cfg(test)]
    pub fn from_rows(bots: &[String], rows: &[GameRow]) -> Results {
        let mut results = Results::new(bots, None);
        for row in rows {
            results.add(row);
        }
        results
    }

    /// Counts one game; rows of bots not in the list are ignored.
    pub fn add(&mut self, row: &GameRow) {
        let (Some(&one), Some(&two)) = (self.index.get(&row.seat1), self.index.get(&row.seat2))
        else {
            return;
        };
        self.games[one][two] += 1.0;
        self.games[two][one] += 1.0;
        self.points[one][two] += row_points(row, Seat::One);
        self.points[two][one] += row_points(row, Seat::Two);
        self.tallies[one].add(row, Seat::One);
        self.tallies[two].add(row, Seat::Two);
        if let Some(payoffs) = &self.payoffs {
            self.payoff_sums[one].add(payoffs, row, Seat::One);
            self.payoff_sums[two].add(payoffs, row, Seat::Two);
        }
    }
}

/// Standings of every bot (played or not), best first.
pub fn standings(results: &Results) -> Vec<Standing> {
    let ratings = fit_ratings(results);
    let mut table: Vec<Standing> = results
        .bots
        .iter()
        .zip(&results.tallies)
        .zip(ratings)
        .zip(&results.payoff_sums)
        .map(|(((bot, tally), (elo, elo_margin)), sum)| Standing {
            rank: 0,
            bot: bot.clone(),
            tally: tally.clone(),
            elo,
            elo_margin,
            payoff: results.payoffs.map(|_| sum.mean_payoff()),
        })
        .collect();
    if results.payoffs.is_some() {
        return ranked_by_payoff(table);
    }
    table.sort_by(|a, b| {
        b.tally
            .points()
            .total_cmp(&a.tally.points())
            .then(b.elo.total_cmp(&a.elo))
            .then(a.bot.cmp(&b.bot))
    });
    share_ranks(&mut table, |standing| standing.tally.points());
    table
}

/// Numbers the ranks of `table`, in its order, from 1: a standing with
/// the same `key` as the one before shares its rank ("1, 1, 3").
fn share_ranks<K: PartialEq>(table: &mut [Standing], key: impl Fn(&Standing) -> K) {
    for index in 0..table.len() {
        table[index].rank = if index > 0 && key(&table[index]) == key(&table[index - 1]) {
            table[index - 1].rank
        } else {
            index + 1
        };
    }
}

/// Standings of a gauntlet, best first: ranked by Elo (equal Elo shares a
/// rank), then points, then name; a payoff game's by mean payoff, as
/// [`standings`] ranks it. Elo is compared to a thousandth, so that
/// equal results share a rank whatever the fit's last digits.
pub fn gauntlet_standings(results: &Results) -> Vec<Standing> {
    let mut table = standings(results);
    if results.payoffs.is_some() {
        return table;
    }
    let key = |standing: &Standing| (standing.elo * 1e3).round() as i64;
    table.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then(b.tally.points().total_cmp(&a.tally.points()))
            .then(a.bot.cmp(&b.bot))
    });
    share_ranks(&mut table, key);
    table
}

/// `table` ranked by mean payoff (equal to a millionth shares a rank),
/// then Elo, then name; a bot without a game last, whatever its mean of
/// nothing.
fn ranked_by_payoff(mut table: Vec<Standing>) -> Vec<Standing> {
    let key = |standing: &Standing| {
        let payoff = standing.payoff.filter(|payoff| payoff.games > 0);
        (payoff.is_some(), payoff.map_or(0, |payoff| payoff.rank_key()))
    };
    table.sort_by(|a, b| key(b).cmp(&key(a)).then(b.elo.total_cmp(&a.elo)).then(a.bot.cmp(&b.bot)));
    share_ranks(&mut table, key);
    table
}

const ELO_PER_NATURAL_UNIT: f64 = 400.0 / std::f64::consts::LN_10;

/// Points of `seat` in one row: 1, 0.5 or 0.
pub fn row_points(row: &GameRow, seat: Seat) -> f64 {
    row.outcome.points(seat)
}

/// The pairwise matrices the fit works on.
struct Pairwise {
    games: Vec<Vec<f64>>,
    points: Vec<Vec<f64>>,
}

/// Elo and 95% margin per bot, in the order the bots were given.
pub fn fit_ratings(results: &Results) -> Vec<(f64, f64)> {
    let count = results.bots.len();
    let mut results = Pairwise { games: results.games.clone(), points: results.points.clone() };
    let needs_prior = (0..count).any(|i| {
        let games: f64 = results.games[i].iter().sum();
        let points: f64 = results.points[i].iter().sum();
        games > 0.0 && (points == 0.0 || points == games)
    });
    // A game counts in the fit by the point it gave out: a double forfeit
    // gave none and says nothing of who is stronger (two bots that crash at
    // every start would otherwise be pushed apart without end).
    for i in 0..count {
        for j in 0..count {
            results.games[i][j] = results.points[i][j] + results.points[j][i];
        }
    }
    // The prior: one virtual draw against a virtual bot rated 0, added as
    // the last row and column and held fixed there.
    let anchored = needs_prior;
    if anchored {
        for i in 0..count {
            results.games[i].push(1.0);
            results.points[i].push(0.5);
        }
        results.games.push(vec![1.0; count + 1]);
        results.points.push(vec![0.5; count + 1]);
        results.games[count][count] = 0.0;
        results.points[count][count] = 0.0;
    }
    let size = results.games.len();
    // Minorization-maximization (Hunter, 2004) on strengths gamma = e^theta.
    let mut strength = vec![1.0f64; size];
    let played = |i: usize| results.games[i].iter().sum::<f64>() > 0.0;
    for _ in 0..10_000 {
        let mut largest_change = 0.0f64;
        for i in 0..size {
            if !played(i) || (anchored && i == count) {
                continue;
            }
            let wins: f64 = results.points[i].iter().sum();
            let denominator: f64 = (0..size)
                .filter(|&j| j != i && results.games[i][j] > 0.0)
                .map(|j| results.games[i][j] / (strength[i] + strength[j]))
                .sum();
            let updated = (wins / denominator).max(1e-300);
            largest_change = largest_change.max((updated.ln() - strength[i].ln()).abs());
            strength[i] = updated;
        }
        if !anchored {
            // Only differences matter: keep the geometric mean at 1.
            let mean_log =
                strength.iter().filter(|s| **s > 0.0).map(|s| s.ln()).sum::<f64>() / size as f64;
            strength.iter_mut().for_each(|s| *s /= mean_log.exp());
        }
        if largest_change < 1e-10 {
            break;
        }
    }
    let theta: Vec<f64> = strength.iter().map(|s| s.ln()).collect();
    let mean = theta[..count].iter().sum::<f64>() / count as f64;
    let margins = standard_errors(&results, &theta, count, anchored);
    (0..count)
        .map(|i| {
            ((theta[i] - mean) * ELO_PER_NATURAL_UNIT, 1.96 * margins[i] * ELO_PER_NATURAL_UNIT)
        })
        .collect()
}

/// Standard errors of the real bots' centred ratings, in natural units.
fn standard_errors(results: &Pairwise, theta: &[f64], count: usize, anchored: bool) -> Vec<f64> {
    let size = results.games.len();
    // Fisher information: a weighted graph Laplacian.
    let mut information = vec![vec![0.0; size]; size];
    for i in 0..size {
        for j in 0..size {
            if i != j && results.games[i][j] > 0.0 {
                let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                let weight = results.games[i][j] * p * (1.0 - p);
                information[i][j] -= weight;
                information[i][i] += weight;
            }
        }
    }
    let covariance = if anchored {
        // The virtual bot is fixed: drop its row and column and invert,
        // then take the covariance of the centred ratings, C = A S A' with
        // A = I - J/n, the ratings the standings show.
        let reduced: Vec<Vec<f64>> =
            information[..count].iter().map(|row| row[..count].to_vec()).collect();
        invert(reduced).map(|inverse| {
            let n = count as f64;
            let row_means: Vec<f64> =
                inverse.iter().map(|row| row.iter().sum::<f64>() / n).collect();
            let grand_mean = row_means.iter().sum::<f64>() / n;
            (0..count)
                .map(|i| {
                    (0..count)
                        .map(|j| inverse[i][j] - row_means[i] - row_means[j] + grand_mean)
                        .collect::<Vec<f64>>()
                })
                .collect::<Vec<_>>()
        })
    } else {
        // Ratings are determined up to a shift: the pseudo-inverse of a
        // connected Laplacian L is (L + J/n)^-1 - J/n.
        let n = size as f64;
        let shifted: Vec<Vec<f64>> = information
            .iter()
            .map(|row| row.iter().map(|value| value + 1.0 / n).collect())
            .collect();
        invert(shifted).map(|inverse| {
            inverse
                .into_iter()
                .map(|row| row.into_iter().map(|value| value - 1.0 / n).collect())
                .collect()
        })
    };
    match covariance {
        Some(covariance) => (0..count)
            .map(|i| if covariance[i][i] > 0.0 { covariance[i][i].sqrt() } else { f64::INFINITY })
            .collect(),
        None => vec![f64::INFINITY; count],
    }
}

/// Gauss-Jordan inversion with partial pivoting; `None` when singular.
fn invert(mut matrix: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = matrix.len();
    let mut inverse: Vec<Vec<f64>> =
        (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for column in 0..n {
        let pivot = (column..n)
            .max_by(|&a, &b| matrix[a][column].abs().total_cmp(&matrix[b][column].abs()))?;
        if matrix[pivot][column].abs() < 1e-12 {
            return None;
        }
        matrix.swap(column, pivot);
        inverse.swap(column, pivot);
        let scale = matrix[column][column];
        for j in 0..n {
            matrix[column][j] /= scale;
            inverse[column][j] /= scale;
        }
        for row in 0..n {
            if row != column {
                let factor = matrix[row][column];
                if factor != 0.0 {
                    for j in 0..n {
                        matrix[row][j] -= factor * matrix[column][j];
                        inverse[row][j] -= factor * inverse[column][j];
                    }
                }
            }
        }
    }
    Some(inverse)
}

impl Standing {
    /// Its Elo with the 95% margin: `+35 ± 20`, or `+35 ± ?` when the
    /// margin is unknown (a bot without a game). A bot that lost every game
    /// it played has no rating the games bound from below, one that won
    /// them all none bounded from above: shown is the interval's one end
    /// that means something, `< -412` or `> +380` ([`BOUND_NOTE`]).
    pub fn elo_text(&self) -> String {
        match (self.elo_margin.is_finite(), self.one_sided()) {
            (true, Some(Side::LostAll)) => format!("< {}", signed(self.elo + self.elo_margin)),
            (true, Some(Side::WonAll)) => format!("> {}", signed(self.elo - self.elo_margin)),
            (true, None) => format!("{} ± {}", signed(self.elo), self.elo_margin.round()),
            (false, _) => format!("{} ± ?", signed(self.elo)),
        }
    }

    /// Whether it lost, or won, every game it played (and played one that
    /// gave out a point).
    fn one_sided(&self) -> Option<Side> {
        let tally = &self.tally;
        match (tally.wins, tally.draws, tally.losses) {
            (0, 0, 1..) => Some(Side::LostAll),
            (1.., 0, 0) => Some(Side::WonAll),
            _ => None,
        }
    }
}

/// What a bound in the Elo column means, said under a table that shows one.
pub const BOUND_NOTE: &str = "< or >: the bot lost (won) every game it played, so its games bound its rating on one side only: shown is that end of the 95% interval";

/// Which way a bot's results went all the way.
enum Side {
    LostAll,
    WonAll,
}

impl Standing {
    /// The ends of its 95% interval; a bot whose results went one way has
    /// one end only, the other infinite (as [`Standing::elo_text`] shows).
    pub fn elo_interval(&self) -> (f64, f64) {
        let (low, high) = (self.elo - self.elo_margin, self.elo + self.elo_margin);
        match self.one_sided() {
            Some(Side::LostAll) => (f64::NEG_INFINITY, high),
            Some(Side::WonAll) => (low, f64::INFINITY),
            None => (low, high),
        }
    }

    /// Whether its Elo is shown as a bound.
    pub fn elo_is_bound(&self) -> bool {
        self.elo_margin.is_finite() && self.one_sided().is_some()
    }
}

#[cfg(test)]
pub(crate) mod tests;
