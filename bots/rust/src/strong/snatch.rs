//! Number Snatch: exact search with memoisation on short lists (up to 16
//! numbers, fewer when the move time is short), a depth- and budget-limited
//! alpha-beta search on longer ones.
//!
//! The score that matters is the margin, mine minus theirs: the outcome only
//! depends on its sign, so the move with the best margin is also the move
//! with the best outcome. A pick `p` gains `p`, and when it is a multiple of
//! the opponent's last pick `L` it also moves `d = min(L, their score)` from
//! them to me, so the margin changes by `p + 2d`.
//!
//! Right after a player picks `L`, their score is at least `L`, so in every
//! position after the one we are given `d` is exactly `L`: the rest of the
//! game depends only on the numbers left and the last pick, not on the
//! scores. The position we are given is handled exactly, with its real
//! scores (it may be a position where `d` is less than `L`).

use serde::Deserialize;

use crate::budget::{Budget, Limits};

/// Longest list solved exactly: 2^16 sets of numbers left, times 16 last
/// picks (about 70 ms here), when the move time allows it.
const EXACT_LIMIT: usize = 16;
/// Steps of the exact solution (about `n^2 * 2^n`) allowed per millisecond
/// of move time: a tenth of what this machine does. 16 numbers take 840 ms.
const EXACT_STEPS_PER_MS: u64 = 20_000;
/// Work units (positions and numbers scanned) per millisecond of move time
/// for the search on longer lists: about 50 ms here for a 1 s move.
const SEARCH_UNITS_PER_MS: u64 = 1_000;
/// Candidate moves at the root and at each inner node of that search.
const ROOT_WIDTH: usize = 24;
const WIDTH: usize = 10;
/// Larger than any margin (at most 10^6 numbers of at most 3 * 10^6 each).
const INFINITY: i64 = 1 << 60;

#[derive(Debug, Deserialize)]
pub struct State {
    pub numbers: Vec<u32>,
    pub scores: [i64; 2],
    pub last_picks: [Option<u32>; 2],
}

/// The pick for seat index `me` (0 or 1), who is to move.
pub fn choose(state: &State, me: usize, limits: Limits) -> u32 {
    let mut numbers = state.numbers.clone();
    numbers.sort_unstable();
    let first = Snatch::new(state, me);
    let values = if exact_fits(numbers.len(), limits.time_ms) {
        Exact::new(&numbers).values(first)
    } else {
        Search::new(&numbers, limits.budget(SEARCH_UNITS_PER_MS)).values(first)
    };
    // The best margin; between equals, the larger number.
    values.into_iter().max_by_key(|&(pick, value)| (value, pick)).expect("a number to pick").0
}

/// Whether the exact solution of `n` numbers fits in the move time.
fn exact_fits(n: usize, time_ms: u64) -> bool {
    n <= EXACT_LIMIT && ((n * n) << n) as u64 <= EXACT_STEPS_PER_MS.saturating_mul(time_ms)
}

/// What a pick snatches: a multiple of `last` is worth `bonus` more.
#[derive(Clone, Copy)]
struct Snatch {
    last: Option<u32>,
    bonus: i64,
}

impl Snatch {
    /// The snatch open to the player to move in the given state.
    fn new(state: &State, me: usize) -> Self {
        let them = 1 - me;
        let last = state.last_picks[them].filter(|&last| last > 0);
        let taken = last.map_or(0, |last| i64::from(last).min(state.scores[them]).max(0));
        Snatch { last, bonus: 2 * taken }
    }

    /// After a pick of `last`: the picker holds at least `last` points.
    fn after(last: u32) -> Self {
        Snatch { last: Some(last), bonus: 2 * i64::from(last) }
    }

    fn gain(self, pick: u32) -> i64 {
        match self.last {
            Some(last) if pick.is_multiple_of(last) => i64::from(pick) + self.bonus,
            _ => i64::from(pick),
        }
    }
}

/// The exact solution: `future(left, last)` is the best margin the player
/// to move can still make when the numbers `left` (a bit set over the list)
/// remain and the opponent's last pick is the list's number `last`.
struct Exact<'a> {
    numbers: &'a [u32],
    memo: Vec<Option<i64>>,
}

impl<'a> Exact<'a> {
    fn new(numbers: &'a [u32]) -> Self {
        let n = numbers.len();
        Exact { numbers, memo: vec![None; (1 << n) * n.max(1)] }
    }

    /// The margin each pick leads to, from the given position.
    fn values(&mut self, first: Snatch) -> Vec<(u32, i64)> {
        let all = (1u32 << self.numbers.len()) - 1;
        (0..self.numbers.len())
            .map(|i| {
                let pick = self.numbers[i];
                (pick, first.gain(pick) - self.future(all & !(1 << i), i))
            })
            .collect()
    }

    fn future(&mut self, left: u32, last: usize) -> i64 {
        if left == 0 {
            return 0;
        }
        let key = left as usize * self.numbers.len() + last;
        if let Some(value) = self.memo[key] {
            return value;
        }
        let snatch = Snatch::after(self.numbers[last]);
        let mut best = -INFINITY;
        let mut bits = left;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let value = snatch.gain(self.numbers[i]) - self.future(left & !(1 << i), i);
            best = best.max(value);
        }
        self.memo[key] = Some(best);
        best
    }
}

/// Iterative deepening alpha-beta over a few candidate moves per position:
/// the largest numbers and the largest multiples of the last pick, which
/// hold the largest immediate gains. Positions past the depth count 0.
struct Search<'a> {
    numbers: &'a [u32],
    /// Indexed by number: still on the list in the line being searched.
    present: Vec<bool>,
    left: usize,
    budget: Budget,
}

impl<'a> Search<'a> {
    fn new(numbers: &'a [u32], budget: Budget) -> Self {
        let top = numbers.last().map_or(0, |&n| n as usize);
        let mut present = vec![false; top + 1];
        for &n in numbers {
            present[n as usize] = true;
        }
        Search { numbers, present, left: numbers.len(), budget }
    }

    /// The margin of each root candidate at the deepest depth completed.
    fn values(&mut self, first: Snatch) -> Vec<(u32, i64)> {
        let mut candidates = self.candidates(first, ROOT_WIDTH);
        let mut values: Vec<(u32, i64)> =
            candidates.iter().map(|&(gain, pick)| (pick, gain)).collect();
        for depth in 2..=self.left {
            let Some(deeper) = self.root(&candidates, depth) else { break };
            values = deeper;
            // Search the best move first next time, so alpha-beta cuts more.
            values.sort_by_key(|&(pick, value)| std::cmp::Reverse((value, pick)));
            let order: Vec<u32> = values.iter().map(|&(pick, _)| pick).collect();
            candidates.sort_by_key(|&(_, pick)| order.iter().position(|&p| p == pick));
        }
        values
    }

    /// One depth at the root; None if the budget ran out. The values of the
    /// moves as good as the best so far are exact; the others are upper
    /// bounds, strictly below it (the window is one wider for that).
    fn root(&mut self, candidates: &[(i64, u32)], depth: usize) -> Option<Vec<(u32, i64)>> {
        let mut alpha = -INFINITY;
        let mut values = Vec::with_capacity(candidates.len());
        for &(gain, pick) in candidates {
            self.take(pick);
            let rest = self.negamax(depth - 1, pick, gain - INFINITY, gain - alpha + 1);
            self.put_back(pick);
            let value = gain - rest?;
            alpha = alpha.max(value);
            values.push((pick, value));
        }
        Some(values)
    }

    /// The best margin for the player to move after the opponent picked
    /// `last`, looking `depth` picks ahead, within the window (alpha, beta).
    fn negamax(&mut self, depth: usize, last: u32, mut alpha: i64, beta: i64) -> Option<i64> {
        if depth == 0 || self.left == 0 {
            return Some(0);
        }
        if !self.budget.spend(1) {
            return None;
        }
        let mut best = -INFINITY;
        for (gain, pick) in self.candidates(Snatch::after(last), WIDTH) {
            self.take(pick);
            let rest = self.negamax(depth - 1, pick, gain - beta, gain - alpha);
            self.put_back(pick);
            best = best.max(gain - rest?);
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        Some(best)
    }

    /// Up to `width` moves with the largest immediate gains, best first.
    fn candidates(&mut self, snatch: Snatch, width: usize) -> Vec<(i64, u32)> {
        let mut found = Vec::with_capacity(2 * width);
        let mut scanned = 0;
        let present = &self.present;
        let on_list = self.numbers.iter().rev().inspect(|_| scanned += 1);
        for &pick in on_list.filter(|&&n| present[n as usize]).take(width) {
            found.push((snatch.gain(pick), pick));
        }
        if let Some(last) = snatch.last {
            // Walk down the multiples of `last` or down the list, whichever
            // is shorter.
            let top = self.numbers.last().copied().unwrap_or(0);
            let multiples: Box<dyn Iterator<Item = u32>> =
                if (top / last) as usize <= self.numbers.len() {
                    Box::new((1..=top / last).rev().map(|k| k * last))
                } else {
                    Box::new(self.numbers.iter().rev().copied().filter(|n| n % last == 0))
                };
            let hits = multiples.inspect(|_| scanned += 1).filter(|&n| present[n as usize]);
            for pick in hits.take(width) {
                found.push((snatch.gain(pick), pick));
            }
        }
        self.budget.spend(scanned);
        found.sort_unstable_by(|a, b| b.cmp(a));
        found.dedup();
        found.truncate(width);
        found
    }

    fn take(&mut self, pick: u32) {
        self.present[pick as usize] = false;
        self.left -= 1;
    }

    fn put_back(&mut self, pick: u32) {
        self.present[pick as usize] = true;
        self.left += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn limits(time_ms: u64) -> Limits {
        Limits::new(time_ms, Instant::now())
    }

    /// The best final margin (mover's score minus the other's) by playing
    /// out every line with the referee's rules, scores and all.
    fn brute(numbers: &[u32], scores: [i64; 2], last: [Option<u32>; 2]) -> i64 {
        if numbers.is_empty() {
            return scores[0] - scores[1];
        }
        let mut best = -INFINITY;
        for (i, &pick) in numbers.iter().enumerate() {
            let mut rest = numbers.to_vec();
            rest.remove(i);
            let (mut mine, mut theirs) = (scores[0] + i64::from(pick), scores[1]);
            if let Some(l) = last[1].filter(|&l| pick % l == 0) {
                let d = i64::from(l).min(theirs);
                mine += d;
                theirs -= d;
            }
            // Seen from the opponent, who moves next.
            best = best.max(-brute(&rest, [theirs, mine], [last[1], Some(pick)]));
        }
        best
    }

    /// Deterministic test positions: short lists, arbitrary scores and last
    /// picks (some not reachable in play, such as a score below `L`).
    fn positions() -> impl Iterator<Item = State> {
        let mut x: u64 = 987654321;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        std::iter::repeat_with(move || {
            let len = 1 + next(7) as usize;
            let mut numbers: Vec<u32> = (1..=20).collect();
            while numbers.len() > len {
                numbers.remove(next(numbers.len() as u64) as usize);
            }
            let last = |v: u64| (v > 0).then_some(v as u32);
            State {
                numbers,
                scores: [next(30) as i64, next(30) as i64],
                last_picks: [last(next(12)), last(next(12))],
            }
        })
    }

    fn best_value(values: &[(u32, i64)]) -> i64 {
        values.iter().map(|&(_, v)| v).max().expect("a value")
    }

    #[test]
    fn exact_search_matches_brute_force() {
        for state in positions().take(400) {
            // Seat 1 to move: the opponent's last pick is last_picks[1].
            let values = Exact::new(&state.numbers).values(Snatch::new(&state, 0));
            let lead = state.scores[0] - state.scores[1];
            let expected = brute(&state.numbers, state.scores, state.last_picks);
            assert_eq!(lead + best_value(&values), expected, "{state:?}");
        }
    }

    #[test]
    fn full_width_search_matches_the_exact_solution() {
        for state in positions().take(200) {
            let first = Snatch::new(&state, 1);
            let exact = best_value(&Exact::new(&state.numbers).values(first));
            let budget = Budget::new(u64::MAX, Instant::now() + Duration::from_secs(60));
            let mut search = Search::new(&state.numbers, budget);
            assert_eq!(best_value(&search.values(first)), exact, "{state:?}");
        }
    }

    #[test]
    fn takes_the_snatch_when_it_wins() {
        // Seat 2 to move; seat 1 took 5. 20 snatches 5 and leaves 3 and 4.
        let state = State { numbers: vec![3, 4, 20], scores: [5, 0], last_picks: [Some(5), None] };
        assert_eq!(choose(&state, 1, limits(1000)), 20);
    }

    #[test]
    fn long_lists_answer_within_the_budget() {
        let numbers: Vec<u32> = (1..=1000).map(|k| k * 997).collect();
        let state = State { numbers, scores: [100, 90], last_picks: [Some(7), Some(10)] };
        let started = Instant::now();
        let pick = choose(&state, 0, limits(1000));
        assert!(state.numbers.contains(&pick));
        assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    }

    #[test]
    fn a_short_move_time_gives_a_search_instead_of_the_exact_solution() {
        let numbers: Vec<u32> = (1..=16).map(|k| k * 3).collect();
        let state = State { numbers, scores: [0, 0], last_picks: [None, None] };
        let started = Instant::now();
        let pick = choose(&state, 0, limits(20));
        assert!(state.numbers.contains(&pick));
        assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    }
}
