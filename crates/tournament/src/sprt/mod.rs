//! The sequential probability ratio test between two bots, on paired games.
//!
//! Games are played in pairs: one setup, each bot in each seat. A pair
//! scores 0, ½, 1, 1½ or 2 points for the challenger, so the results of a
//! test are five counts (the pentanomial). Pairs are what the test counts,
//! because the two games of a pair share a setup and are not independent.
//!
//! The test is the generalized SPRT in normalized Elo, as fishtest and
//! fastchess run it (M. Van den Bergh, "Comments on Normalized Elo"): under
//! each hypothesis the pair-score distribution is the one closest to the
//! observed frequencies (maximum likelihood) whose normalized Elo is `elo0`
//! or `elo1`; the log-likelihood ratio of the two is compared with Wald's
//! bounds `ln(β/(1-α))` and `ln((1-β)/α)`. Normalized Elo measures the
//! difference in standard deviations of the pair score, so the same bounds
//! suit a drawish game and a decisive one.
//!
//! A game whose scores are payoffs may be tested on payoffs instead
//! (`payoff0`, `payoff1`: [`payoff`]).
//!
//! [`SprtTest`] runs the test on a tournament's games as they are recorded
//! (it is the tournament's [`StopRule`]); the rest is arithmetic on counts.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

pub mod payoff;

use super::StopRule;
use crate::rows::GameRow;
use arena_games::Seat;
use arena_games::program::Payoffs;
use payoff::{PayoffEstimate, PayoffPairs};

/// 800 / ln 10: turns a score slope into Elo.
const ELO_PER_LOGIT: f64 = 800.0 / std::f64::consts::LN_10;
/// The two-sided 95% quantile of the normal distribution.
const Z_95: f64 = 1.959_963_984_540_054;
/// What an empty cell counts as, so that no likelihood is zero.
const EMPTY_CELL: f64 = 1e-3;

/// The challenger's pair results: `counts[k]` pairs scored `k` half-points
/// (0 = lost both, 2 = a win and a loss or two draws, 4 = won both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by the challenger's half-points, 0 to 4.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Adds one pair, given the challenger's points in each of its games
    /// (1, ½ or 0 each).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[half_points] += 1;
    }

    /// Pairs played.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The challenger's mean score per game, in [0, 1].
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| {
            let half_points: u64 = self.counts.iter().zip(0..).map(|(&n, k)| n * k).sum();
            half_points as f64 / (4 * pairs) as f64
        })
    }

    /// The observed frequency of each pair score.
    fn frequencies(&self) -> [f64; 5] {
        let pairs = self.pairs() as f64;
        self.counts.map(|count| count as f64 / pairs)
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// The pair scores, per game, of the five cells.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Most games a test plays when no maximum is given: enough for a
/// difference of about 10 normalized Elo to be found, usually.
pub const DEFAULT_MAX_GAMES: u32 = 10_000;

/// The hypotheses and error rates of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSettings {
    /// H0: the challenger is `elo0` (normalized Elo) stronger.
    pub elo0: f64,
    /// H1: the challenger is `elo1` stronger.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// In a game whose scores are payoffs, a test on them: H0, the
    /// challenger's mean payoff advantage a game is `payoff0` (0 when only
    /// `payoff1` is given); `elo0` and `elo1` are then unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoff0: Option<f64>,
    /// H1: its advantage is `payoff1` a game (more than `payoff0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoff1: Option<f64>,
}

impl Default for SprtSettings {
    /// Hypotheses fit for "is the new version at least not worse, and
    /// probably better": 0 against 10 normalized Elo, 5% errors.
    fn default() -> SprtSettings {
        SprtSettings {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            payoff0: None,
            payoff1: None,
        }
    }
}

/// Settings that make no test.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SprtSettingsError {
    /// H1 must claim more than H0.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    HypothesesOutOfOrder {
        /// The given H0.
        elo0: f64,
        /// The given H1.
        elo1: f64,
    },
    /// An error rate of 0 or 1 (or beyond) makes a test that never ends or
    /// never tests.
    #[error("{name} must be between 0 and 1 (exclusive), got {value}")]
    ErrorRateOutOfRange {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// Error rates that leave the bounds crossed.
    #[error("alpha + beta must be less than 1, got {0}")]
    ErrorRatesTooLarge(f64),
    /// payoff1 must claim more than payoff0.
    #[error("payoff0 ({payoff0}) must be less than payoff1 ({payoff1})")]
    PayoffsOutOfOrder {
        /// The given H0.
        payoff0: f64,
        /// The given H1.
        payoff1: f64,
    },
    /// payoff0 alone tests nothing.
    #[error(
        "payoff0 is given without payoff1: give payoff1, the mean payoff advantage a game that counts as stronger"
    )]
    Payoff0Alone,
    /// A test on payoffs of a game that does not declare them.
    #[error(
        "payoff0 and payoff1 test payoffs, and the game's scores are not payoffs (a game program declares `payoffs` in hello or in init's `declares`); test on wins with elo0 and elo1"
    )]
    NotPayoffs,
    /// NaN or infinity.
    #[error("{name} must be a finite number, got {value}")]
    NotFinite {
        /// The setting.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The log-likelihood ratio reached the lower bound: no better than elo0.
    AcceptH0,
    /// It reached the upper bound: at least elo1 better.
    AcceptH1,
    /// Neither yet: play more pairs.
    #[default]
    Continue,
}

impl SprtSettings {
    /// Checks that the settings make a test, naming the one that does not.
    pub fn validate(&self) -> Result<(), SprtSettingsError> {
        let payoffs = [("payoff0", self.payoff0), ("payoff1", self.payoff1)];
        let payoffs = payoffs.into_iter().filter_map(|(name, value)| Some((name, value?)));
        for (name, value) in
            [("elo0", self.elo0), ("elo1", self.elo1), ("alpha", self.alpha), ("beta", self.beta)]
                .into_iter()
                .chain(payoffs)
        {
            if !value.is_finite() {
                return Err(SprtSettingsError::NotFinite { name, value });
            }
        }
        match (self.payoff0, self.payoff1) {
            (Some(_), None) => return Err(SprtSettingsError::Payoff0Alone),
            (payoff0, Some(payoff1)) if payoff0.unwrap_or(0.0) >= payoff1 => {
                return Err(SprtSettingsError::PayoffsOutOfOrder {
                    payoff0: payoff0.unwrap_or(0.0),
                    payoff1,
                });
            }
            _ => {}
        }
        // A test on payoffs does not use the Elo hypotheses.
        if self.payoff1.is_none() && self.elo0 >= self.elo1 {
            return Err(SprtSettingsError::HypothesesOutOfOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtSettingsError::ErrorRateOutOfRange { name, value });
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return Err(SprtSettingsError::ErrorRatesTooLarge(self.alpha + self.beta));
        }
        Ok(())
    }

    /// The hypotheses of a test on payoffs, `(payoff0, payoff1)`, if it is one.
    pub fn payoff_hypotheses(&self) -> Option<(f64, f64)> {
        self.payoff1.map(|payoff1| (self.payoff0.unwrap_or(0.0), payoff1))
    }

    /// Wald's bounds on the log-likelihood ratio: (accept H0, accept H1).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for these pairs (0 before
    /// the first pair).
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let count = pairs.pairs();
        if count == 0 {
            return 0.0;
        }
        // Empty cells count a little, so both fitted distributions keep
        // every outcome possible.
        let cells = pairs.counts.map(|n| if n == 0 { EMPTY_CELL } else { n as f64 });
        let total: f64 = cells.iter().sum();
        let observed = cells.map(|cell| cell / total);
        // A pair's two games: its standard deviation is √2 that of a game's.
        let to_t = std::f64::consts::SQRT_2 / ELO_PER_LOGIT;
        let under_h0 = closest_with_normalized_elo(&observed, self.elo0 * to_t);
        let under_h1 = closest_with_normalized_elo(&observed, self.elo1 * to_t);
        let mean_log_ratio: f64 =
            (0..5).map(|cell| observed[cell] * (under_h1[cell].ln() - under_h0[cell].ln())).sum();
        total * mean_log_ratio
    }

    /// The test's decision at this log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// The distribution over [`PAIR_SCORES`] closest to `observed` (in
/// likelihood) whose mean lies `t` standard deviations above ½: the
/// fixed-point iteration of "Comments on Normalized Elo", section 4.1.
fn closest_with_normalized_elo(observed: &[f64; 5], t: f64) -> [f64; 5] {
    let mut fitted = [0.2; 5];
    for _ in 0..1000 {
        let mean: f64 = (0..5).map(|i| fitted[i] * PAIR_SCORES[i]).sum();
        let variance: f64 = (0..5).map(|i| fitted[i] * (PAIR_SCORES[i] - mean).powi(2)).sum();
        let sigma = variance.sqrt();
        let phi = PAIR_SCORES.map(|score| {
            let standardized = (score - mean) / sigma;
            score - 0.5 - 0.5 * t * sigma * (1.0 + standardized * standardized)
        });
        let theta = lagrange_multiplier(observed, &phi);
        let next: [f64; 5] = std::array::from_fn(|i| observed[i] / (1.0 + theta * phi[i]));
        let change = (0..5).map(|i| (next[i] - fitted[i]).abs()).fold(0.0, f64::max);
        fitted = next;
        if change < 1e-10 {
            break;
        }
    }
    fitted
}

/// Solves Σ observedᵢ·φᵢ / (1 + θ·φᵢ) = 0 for θ by bisection. The sum falls
/// from +∞ to -∞ between the two poles, so the root is unique.
fn lagrange_multiplier(observed: &[f64; 5], phi: &[f64; 5]) -> f64 {
    let largest = phi.iter().copied().fold(f64::MIN, f64::max);
    let smallest = phi.iter().copied().fold(f64::MAX, f64::min);
    let sum =
        |theta: f64| -> f64 { (0..5).map(|i| observed[i] * phi[i] / (1.0 + theta * phi[i])).sum() };
    let (mut low, mut high) = (-1.0 / largest, -1.0 / smallest);
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            break;
        }
        if sum(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

/// The test run on a tournament's games: `tested` against `opponent`, in
/// pairs (one setup, each bot in each seat).
///
/// Pairs are taken in setup order (round 1, 2, ...), and the test is
/// judged after each: its verdict is reached at the first pair where the
/// log-likelihood ratio crosses a bound, and pairs after that pair are not
/// counted. Games finish out of order when several are played at once, so
/// a pair complete beyond one still missing a game waits for the gap to
/// fill. The verdict so depends on the rows alone, not on the order they
/// were written in: a rerun over the same games.csv reaches it at the same
/// pair, and games that finished after the verdict change nothing.
pub struct SprtTest {
    settings: SprtSettings,
    /// The game's payoffs, in a test on them.
    payoffs: Option<Payoffs>,
    tested: String,
    opponent: String,
    state: Mutex<TestState>,
}

#[derive(Default)]
struct TestState {
    /// The tested bot's points and payoff advantage (0 in a test on wins)
    /// in the games of pairs not yet counted, by round: with it in seat
    /// 1, and in seat 2.
    waiting: HashMap<u64, [Option<(f64, f64)>; 2]>,
    /// Games of the two bots shown to the test, counted or not.
    seen: u64,
    /// Those of them of rounds after the deciding pair: played while it
    /// was decided, and set aside when the run's files are finished
    /// (`StopRule::last_counted_round`).
    beyond: u64,
    status: SprtStatus,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SprtStatus {
    /// The pairs counted, by the tested bot's half-points.
    pub pairs: Pentanomial,
    /// The tested bot's wins, draws and losses in the games of those pairs.
    pub wins: u64,
    /// The tested bot's draws in those games.
    pub draws: u64,
    /// The tested bot's losses in those games.
    pub losses: u64,
    /// Games of the two bots that finished and are not counted: in pairs
    /// not complete, or after one that is not (several games at once, a
    /// void game), or after the deciding pair. They are in games.csv and
    /// the standings.
    pub not_counted: u64,
    /// In a test on payoffs, the pairs' payoff advantages.
    pub payoff_pairs: PayoffPairs,
    /// The log-likelihood ratio after the last pair counted.
    pub llr: f64,
    /// `Continue` until a bound is reached.
    pub verdict: Verdict,
}

impl SprtTest {
    /// A test of `tested` against `opponent` (bot names) with `settings`,
    /// before any game, of a game whose scores are `payoffs` if it
    /// declares them; refused when `settings` test payoffs the game has
    /// not.
    pub fn new(
        settings: SprtSettings,
        payoffs: Option<Payoffs>,
        tested: &str,
        opponent: &str,
    ) -> Result<SprtTest, SprtSettingsError> {
        let payoffs = match (settings.payoff_hypotheses(), payoffs) {
            (None, _) => None,
            (Some(_), None) => return Err(SprtSettingsError::NotPayoffs),
            (Some(_), payoffs) => payoffs,
        };
        Ok(SprtTest {
            settings,
            payoffs,
            tested: tested.to_owned(),
            opponent: opponent.to_owned(),
            state: Mutex::new(TestState::default()),
        })
    }

    /// The hypotheses and error rates.
    pub fn settings(&self) -> &SprtSettings {
        &self.settings
    }

    /// In a test on payoffs, the mean payoff advantage a game so far.
    pub fn payoff_estimate(&self) -> Option<PayoffEstimate> {
        self.payoffs.map(|_| self.lock().status.payoff_pairs.estimate())
    }

    /// Where the test stands now.
    pub fn status(&self) -> SprtStatus {
        let state = self.lock();
        let counted = state.status.wins + state.status.draws + state.status.losses;
        SprtStatus { not_counted: state.seen - counted - state.beyond, ..state.status }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TestState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl StopRule for SprtTest {
    /// Once decided, the deciding pair's round: pairs are counted from
    /// round 1 in order.
    fn last_counted_round(&self) -> Option<u64> {
        let state = self.lock();
        (state.status.verdict != Verdict::Continue).then_some(state.status.pairs.pairs())
    }

    /// Counts a game of the two bots (others are ignored); true once the
    /// test has a verdict.
    fn count(&self, game: &GameRow) -> bool {
        let pair = [game.seat1.as_str(), game.seat2.as_str()];
        let tested_seat = if pair == [self.tested.as_str(), self.opponent.as_str()] {
            Seat::One
        } else if pair == [self.opponent.as_str(), self.tested.as_str()] {
            Seat::Two
        } else {
            return self.lock().status.verdict != Verdict::Continue;
        };
        let mut state = self.lock();
        state.seen += 1;
        if state.status.verdict != Verdict::Continue {
            if game.round > state.status.pairs.pairs() {
                state.beyond += 1;
            }
            return true;
        }
        let advantage =
            self.payoffs.map_or(0.0, |payoffs| payoff::advantage(&payoffs, game, tested_seat));
        state.waiting.entry(game.round).or_default()[tested_seat.index()] =
            Some((game.outcome.points(tested_seat), advantage));
        let TestState { waiting, status, beyond, .. } = &mut *state;
        let mut next = status.pairs.pairs() + 1;
        while let Some(&[Some((first, first_advantage)), Some((second, second_advantage))]) =
            waiting.get(&next)
        {
            waiting.remove(&next);
            status.pairs.add_pair(first, second);
            status.payoff_pairs.add_pair(first_advantage, second_advantage);
            for points in [first, second] {
                if points > 0.5 {
                    status.wins += 1;
                } else if points < 0.5 {
                    status.losses += 1;
                } else {
                    status.draws += 1;
                }
            }
            status.llr = match (self.settings.payoff_hypotheses(), &self.payoffs) {
                (Some((payoff0, payoff1)), Some(payoffs)) => {
                    status.payoff_pairs.llr(payoff0, payoff1, payoffs)
                }
                _ => self.settings.llr(&status.pairs),
            };
            status.verdict = self.settings.verdict(status.llr);
            if status.verdict != Verdict::Continue {
                // What finished early, of later pairs, was played in vain.
                *beyond += waiting.values().flatten().flatten().count() as u64;
                waiting.clear();
                return true;
            }
            next += 1;
        }
        false
    }
}

/// The strength difference the pairs show, with 95% intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Logistic Elo from the mean score.
    pub elo: f64,
    /// Its 95% interval; a bound is infinite when the score's interval
    /// reaches 0 or 1.
    pub elo_interval: (f64, f64),
    /// Normalized Elo: the score's distance from ½ in pair standard
    /// deviations, scaled like Elo.
    pub normalized_elo: f64,
    /// Half the width of its 95% interval.
    pub normalized_elo_error: f64,
    /// The likelihood of superiority: the chance the challenger is the
    /// stronger, given the pairs.
    pub los: f64,
}

impl EloEstimate {
    /// `None` before the first pair, or while every pair scored the same
    /// (there is no spread to measure yet).
    pub fn from_pairs(pairs: &Pentanomial) -> Option<EloEstimate> {
        let score = pairs.score()?;
        let frequencies = pairs.frequencies();
        let variance: f64 = (0..5).map(|i| frequencies[i] * (PAIR_SCORES[i] - score).powi(2)).sum();
        if variance <= 0.0 {
            return None;
        }
        let standard_error = (variance / pairs.pairs() as f64).sqrt();
        let (low, high) = (score - Z_95 * standard_error, score + Z_95 * standard_error);
        let normalized = |s: f64| (s - 0.5) / (2.0 * variance).sqrt() * ELO_PER_LOGIT;
        Some(EloEstimate {
            elo: logistic_elo(score),
            elo_interval: (logistic_elo(low), logistic_elo(high)),
            normalized_elo: normalized(score),
            normalized_elo_error: (normalized(high) - normalized(low)) / 2.0,
            los: standard_normal_cdf((score - 0.5) / standard_error),
        })
    }
}

/// The Elo difference that gives this expected score (infinite at 0 and 1).
pub fn logistic_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Φ(x), through the complementary error function.
fn standard_normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests;
