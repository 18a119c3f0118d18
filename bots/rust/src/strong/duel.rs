//! Number Duel: iterative deepening alpha-beta (negamax) with a
//! transposition table, within a work budget.
//!
//! Proven results are exact: reaching the target wins at once, the last
//! copy of the pool ends the game (higher score wins, the last mover loses
//! a tie), and a player who can reach the target on their turn will. Wins
//! count more the sooner they come and losses the later, so the bot takes
//! the quickest win and, when lost against perfect play, resists longest.
//!
//! The evaluation where the search stops, with the player to move unable to
//! win at once:
//! - the opponent holds two or more winning copies: one move can take only
//!   one, so they win next turn (exact);
//! - the opponent holds one: it must be taken now (a penalty);
//! - the player to move can make a *double threat*, a score that two or
//!   more copies would complete, that the opponent cannot answer with a win
//!   of their own (a large bonus);
//! - otherwise the score difference, which decides when the pool runs out,
//!   on a log scale: with a large target, progress is by multiplying.
//!
//! With too little time for even one ply (a huge pool), it plays the highest
//! score that leaves the opponent no immediate win.

use std::collections::HashMap;

use serde::Deserialize;

use crate::budget::{Budget, Limits};

/// Work units (moves generated or scanned) per millisecond of move time:
/// for a 1 s move, at most about 100 ms here with the largest parameters,
/// a few milliseconds with the defaults.
const SEARCH_UNITS_PER_MS: u64 = 1_000;
/// A win at ply `p` is worth `WIN - p`; beyond `WON` a value is a proof.
const WIN: i64 = 1_000_000;
const WON: i64 = WIN - 100_000;
const DOUBLE_THREAT: i64 = 2_000;
const MUST_BLOCK: i64 = 300;
/// The score difference counts at most this much.
const LEAD: i64 = 100;
/// Positions kept in the transposition table.
const TABLE_LIMIT: usize = 1 << 19;

#[derive(Debug, Deserialize)]
pub struct State {
    pub pool: Vec<u32>,
    pub scores: [i64; 2],
    pub target: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Add,
    Multiply,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Move {
    pub number: u32,
    pub op: Op,
}

impl Move {
    /// The score reached from `score`, before a score above the target drops.
    fn reach(self, score: i64) -> i64 {
        match self.op {
            Op::Add => score + i64::from(self.number),
            Op::Multiply => score * i64::from(self.number),
        }
    }
}

/// The move for seat index `me` (0 or 1), who is to move.
pub fn choose(state: &State, me: usize, limits: Limits) -> Move {
    let mut duel = Duel::new(state, limits.budget(SEARCH_UNITS_PER_MS));
    let (mine, theirs) = (state.scores[me], state.scores[1 - me]);
    if let Some(win) = duel.winning_move(mine) {
        return win;
    }
    let mut best = duel.quick_move(mine, theirs);
    for depth in 1..=duel.left {
        let Some((found, value)) = duel.root(mine, theirs, depth, best) else { break };
        best = found;
        if value.abs() > WON {
            break; // proven: deeper search cannot change it
        }
    }
    best
}

/// What a move leads to, for the player who makes it.
enum After {
    Won,
    /// The pool is empty: the game is over, won or lost.
    Over(bool),
    Score(i64),
}

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: u32,
    value: i64,
    bound: Bound,
    best: Move,
}

/// The pool and the search. Scores are passed along, from the point of view
/// of the player to move: `me` is theirs, `them` the other player's.
struct Duel {
    /// `counts[k]`: copies of `k` left (`counts[0]` is unused).
    counts: Vec<u32>,
    left: u32,
    target: i64,
    /// A random key per number: the pool's hash is the sum over its copies.
    keys: Vec<u64>,
    pool_hash: u64,
    table: HashMap<u64, Entry>,
    budget: Budget,
}

impl Duel {
    fn new(state: &State, budget: Budget) -> Self {
        let max = state.pool.iter().copied().max().unwrap_or(0) as usize;
        let mut counts = vec![0; max + 1];
        for &n in &state.pool {
            counts[n as usize] += 1;
        }
        let keys: Vec<u64> = (0..=max as u64).map(mix).collect();
        let pool_hash = state.pool.iter().fold(0u64, |h, &n| h.wrapping_add(keys[n as usize]));
        Duel {
            counts,
            left: state.pool.len() as u32,
            target: state.target,
            keys,
            pool_hash,
            table: HashMap::new(),
            budget,
        }
    }

    /// Every move, `first` (if legal) ahead of the others, then the larger
    /// numbers first, multiply before add.
    fn moves(&self, first: Option<Move>) -> Vec<Move> {
        let mut moves = Vec::with_capacity(2 * self.counts.len());
        moves.extend(first.filter(|m| self.has(m.number)));
        for number in (1..self.counts.len() as u32).rev().filter(|&n| self.has(n)) {
            for op in [Op::Multiply, Op::Add] {
                let m = Move { number, op };
                if Some(m) != first {
                    moves.push(m);
                }
            }
        }
        moves
    }

    fn has(&self, number: u32) -> bool {
        self.counts.get(number as usize).is_some_and(|&c| c > 0)
    }

    fn copies(&self, number: i64) -> u32 {
        usize::try_from(number).ok().and_then(|n| self.counts.get(n)).copied().unwrap_or(0)
    }

    /// The numbers that take `score` exactly to the target: by adding, by
    /// multiplying (either may be absent, or both the same number).
    fn winners(&self, score: i64) -> (i64, Option<i64>) {
        let add = self.target - score;
        let multiply = (score > 0 && self.target % score == 0)
            .then(|| self.target / score)
            .filter(|&k| k != add);
        (add, multiply)
    }

    /// How many copies in the pool would win at once from `score`.
    fn winning_copies(&self, score: i64) -> u32 {
        let (add, multiply) = self.winners(score);
        self.copies(add) + multiply.map_or(0, |k| self.copies(k))
    }

    fn winning_move(&self, score: i64) -> Option<Move> {
        let (add, multiply) = self.winners(score);
        let number = |k: i64| u32::try_from(k).ok().filter(|&n| self.has(n));
        number(add)
            .map(|number| Move { number, op: Op::Add })
            .or_else(|| multiply.and_then(number).map(|number| Move { number, op: Op::Multiply }))
    }

    /// What `m` does for the player to move, at `me` against `them`.
    fn after(&self, me: i64, them: i64, m: Move) -> After {
        let reached = m.reach(me);
        if reached == self.target {
            return After::Won;
        }
        let score = if reached > self.target { 0 } else { reached };
        if self.left == 1 {
            // The last copy: the higher score wins, and the last mover (us)
            // loses a tie.
            return After::Over(score > them);
        }
        After::Score(score)
    }

    fn take(&mut self, number: u32) {
        self.counts[number as usize] -= 1;
        self.left -= 1;
        self.pool_hash = self.pool_hash.wrapping_sub(self.keys[number as usize]);
    }

    fn put_back(&mut self, number: u32) {
        self.counts[number as usize] += 1;
        self.left += 1;
        self.pool_hash = self.pool_hash.wrapping_add(self.keys[number as usize]);
    }

    fn key(&self, me: i64, them: i64) -> u64 {
        self.pool_hash ^ mix(me as u64) ^ mix(them as u64).rotate_left(17)
    }

    /// A quick choice for when not even one ply can be searched (a huge
    /// pool and little time): a move that leaves the opponent no immediate
    /// win if there is one, and among those the highest score.
    fn quick_move(&mut self, me: i64, them: i64) -> Move {
        let mut best = None;
        for m in self.moves(None) {
            let rank = match self.after(me, them, m) {
                After::Score(score) => {
                    self.take(m.number);
                    let safe = self.winning_copies(them) == 0;
                    self.put_back(m.number);
                    (safe, score)
                }
                over => (final_value(&over, 0) > 0, me),
            };
            if best.is_none_or(|(_, best_rank)| rank > best_rank) {
                best = Some((m, rank));
            }
        }
        best.expect("a position in play has moves").0
    }

    /// The value of `m` at `ply`, searching `depth - 1` further plies for
    /// the opponent in the window (alpha, beta); None when out of budget.
    fn value_of(
        &mut self,
        (me, them): (i64, i64),
        m: Move,
        depth: u32,
        (alpha, beta): (i64, i64),
        ply: i64,
    ) -> Option<i64> {
        match self.after(me, them, m) {
            After::Score(score) => {
                self.take(m.number);
                let reply = self.negamax(them, score, depth - 1, (-beta, -alpha), ply + 1);
                self.put_back(m.number);
                reply.map(|value| -value)
            }
            over => Some(final_value(&over, ply)),
        }
    }

    /// The best move at the root and its value, `depth` plies deep, trying
    /// `first` first; None when out of budget.
    fn root(&mut self, me: i64, them: i64, depth: u32, first: Move) -> Option<(Move, i64)> {
        let mut best = (first, -WIN - 1);
        for m in self.moves(Some(first)) {
            let value = self.value_of((me, them), m, depth, (best.1, WIN + 1), 0)?;
            if value > best.1 {
                best = (m, value);
            }
        }
        Some(best)
    }

    /// The value of the position for the player to move (at `me`, against
    /// `them`), `depth` plies deep, within the window (alpha, beta).
    fn negamax(
        &mut self,
        me: i64,
        them: i64,
        depth: u32,
        (mut alpha, beta): (i64, i64),
        ply: i64,
    ) -> Option<i64> {
        if self.winning_copies(me) > 0 {
            return Some(WIN - ply);
        }
        if depth == 0 {
            return self.evaluate(me, them, ply);
        }
        let key = self.key(me, them);
        let mut first = None;
        if let Some(entry) = self.table.get(&key) {
            first = Some(entry.best);
            let value = from_table(entry.value, ply);
            if entry.depth >= depth {
                match entry.bound {
                    Bound::Exact => return Some(value),
                    Bound::Lower if value >= beta => return Some(value),
                    Bound::Upper if value <= alpha => return Some(value),
                    _ => {}
                }
            }
        }
        let moves = self.moves(first);
        if !self.budget.spend(moves.len() as u64) {
            return None;
        }
        let start_alpha = alpha;
        let mut best: Option<(Move, i64)> = None;
        for m in moves {
            let value = self.value_of((me, them), m, depth, (alpha, beta), ply)?;
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((m, value));
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        let (best, value) = best.expect("a position in play has moves");
        if self.table.len() < TABLE_LIMIT || self.table.contains_key(&key) {
            let bound = match value {
                _ if value <= start_alpha => Bound::Upper,
                _ if value >= beta => Bound::Lower,
                _ => Bound::Exact,
            };
            let entry = Entry { depth, value: to_table(value, ply), bound, best };
            self.table.insert(key, entry);
        }
        Some(value)
    }

    /// A static value for the player to move, who cannot win at once; None
    /// when out of budget.
    fn evaluate(&mut self, me: i64, them: i64, ply: i64) -> Option<i64> {
        if self.left == 1 {
            // One copy left: both ways of taking it end the game.
            let moves = self.moves(None);
            let values = moves.into_iter().map(|m| final_value(&self.after(me, them, m), ply));
            return values.max();
        }
        let threats = self.winning_copies(them);
        if threats >= 2 {
            return Some(-(WIN - ply - 1)); // one move cannot take both copies
        }
        let mut value = self.lead(me, them);
        if threats == 1 {
            value -= MUST_BLOCK;
        }
        if self.double_threat(me, them)? {
            value += DOUBLE_THREAT;
        }
        Some(value)
    }

    /// The score difference on a log scale (reaching a big target takes
    /// multiplications), at most `LEAD` either way.
    fn lead(&self, me: i64, them: i64) -> i64 {
        let progress = |score: i64| (score as f64).ln_1p() / (self.target as f64).ln_1p();
        (LEAD as f64 * (progress(me) - progress(them))).round() as i64
    }

    /// Whether a move leaves the opponent no winning copy and us two or
    /// more; None when out of budget.
    fn double_threat(&mut self, me: i64, them: i64) -> Option<bool> {
        if !self.budget.spend(self.counts.len() as u64) {
            return None;
        }
        let numbers: Vec<u32> = (1..self.counts.len() as u32).filter(|&n| self.has(n)).collect();
        let found = numbers.into_iter().any(|number| {
            self.take(number);
            let safe = self.winning_copies(them) == 0;
            let threat = [Op::Add, Op::Multiply].into_iter().any(|op| {
                let reached = Move { number, op }.reach(me);
                let score = if reached > self.target { 0 } else { reached };
                self.winning_copies(score) >= 2
            });
            self.put_back(number);
            safe && threat
        });
        Some(found)
    }
}

/// The value of a move that ends the game, for the player who made it.
fn final_value(after: &After, ply: i64) -> i64 {
    match after {
        After::Won | After::Over(true) => WIN - ply,
        After::Over(false) => -(WIN - ply),
        After::Score(_) => unreachable!("the game goes on"),
    }
}

/// Proven values are stored relative to the position, not the root.
fn to_table(value: i64, ply: i64) -> i64 {
    match value {
        _ if value > WON => value + ply,
        _ if value < -WON => value - ply,
        _ => value,
    }
}

fn from_table(value: i64, ply: i64) -> i64 {
    match value {
        _ if value > WON => value - ply,
        _ if value < -WON => value + ply,
        _ => value,
    }
}

/// A fixed 64-bit mix (SplitMix64's finaliser) for hash keys.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn pool(max: u32, copies: usize) -> Vec<u32> {
        (1..=max).flat_map(|n| std::iter::repeat_n(n, copies)).collect()
    }

    fn play(state: &State, me: usize) -> Move {
        choose(state, me, Limits::new(1000, Instant::now()))
    }

    /// The state after `m` by the player at index `me`, and whether it won.
    fn apply(state: &State, me: usize, m: Move) -> (State, bool) {
        let mut next = State { pool: state.pool.clone(), ..*state };
        let at = next.pool.iter().position(|&n| n == m.number).expect("a legal move");
        next.pool.remove(at);
        let reached = m.reach(state.scores[me]);
        next.scores[me] = if reached > state.target { 0 } else { reached };
        (next, reached == state.target)
    }

    fn all_moves(state: &State) -> Vec<Move> {
        let mut numbers = state.pool.clone();
        numbers.dedup();
        let ops = [Op::Add, Op::Multiply];
        numbers.into_iter().flat_map(|number| ops.map(|op| Move { number, op })).collect()
    }

    /// Whether the player at index `me`, to move, can reach the target at once.
    fn can_win_now(state: &State, me: usize) -> bool {
        all_moves(state).into_iter().any(|m| apply(state, me, m).1)
    }

    #[test]
    fn takes_an_immediate_win() {
        let state = State { pool: vec![1, 2, 5, 7], scores: [45, 10], target: 50 };
        assert_eq!(play(&state, 0), Move { number: 5, op: Op::Add });
        let state = State { pool: vec![1, 2, 5, 7], scores: [3, 10], target: 50 };
        assert_eq!(play(&state, 1), Move { number: 5, op: Op::Multiply });
    }

    #[test]
    fn blocks_the_only_winning_copy() {
        // The opponent (seat 1) wins with 5 next turn unless we take it.
        let state = State { pool: vec![1, 2, 3, 5, 8, 9], scores: [45, 11], target: 50 };
        assert_eq!(play(&state, 1).number, 5);
    }

    #[test]
    fn never_leaves_an_immediate_win_when_it_can_avoid_it() {
        let mut checked = 0;
        for (k, (mine, theirs)) in
            [(0, 0), (5, 40), (40, 25), (9, 45), (24, 10), (48, 5)].into_iter().enumerate()
        {
            for copies in 1..=2 {
                let mut pool = pool(10, copies);
                pool.retain(|&n| !(n as usize + k).is_multiple_of(4));
                let state = State { pool, scores: [mine, theirs], target: 50 };
                if can_win_now(&state, 0) {
                    continue;
                }
                let safe = |m: Move| !can_win_now(&apply(&state, 0, m).0, 1);
                if all_moves(&state).into_iter().any(safe) {
                    let m = play(&state, 0);
                    assert!(safe(m), "{m:?} leaves a win in {state:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 6);
    }

    #[test]
    fn the_first_player_forces_a_win_from_the_default_start() {
        // 5 (or 10) leaves two copies of the number that doubles it to 50,
        // and the opponent can take only one.
        let state = State { pool: pool(10, 2), scores: [0, 0], target: 50 };
        let (after, _) = apply(&state, 0, play(&state, 0));
        for reply in all_moves(&after) {
            let (next, won) = apply(&after, 1, reply);
            assert!(!won && can_win_now(&next, 0), "no win after {reply:?}");
        }
    }

    #[test]
    fn the_last_copy_is_taken_to_win_on_score() {
        // 9 + 1 = 10 beats 9; 9 * 1 = 9 ties, and the last mover loses a tie.
        let state = State { pool: vec![1], scores: [9, 9], target: 50 };
        assert_eq!(play(&state, 0), Move { number: 1, op: Op::Add });
    }

    #[test]
    fn blocks_even_without_time_to_search() {
        // 1 ms buys too few work units for one ply over 1,000 numbers: the
        // fallback still takes the opponent's only winning copy.
        let state = State { pool: pool(1000, 1), scores: [5, 999_999_993], target: 1_000_000_000 };
        assert_eq!(choose(&state, 0, Limits::new(1, Instant::now())).number, 7);
    }

    #[test]
    fn large_parameters_answer_within_the_budget() {
        let state = State { pool: pool(1000, 100), scores: [123_456, 99], target: 1_000_000_000 };
        let started = Instant::now();
        let m = play(&state, 0);
        assert!(state.pool.contains(&m.number));
        assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    }
}
