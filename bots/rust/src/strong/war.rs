//! Numbers War: an exact interval game, solved by dynamic programming.
//!
//! Let `best(i, j)` be the most the player to move can finish ahead by
//! (their future sum minus the opponent's) on the row `a[i..=j]`:
//! `best(i, j) = max(a[i] - best(i+1, j), a[j] - best(i, j-1))`.
//! The outcome only depends on the final margin (ahead wins, behind loses,
//! level goes to whoever took the last number, fixed by the row's parity),
//! so maximising the margin also gives the best outcome; among moves with
//! the same outcome the bigger margin is kept.
//!
//! The table is filled by interval length, one length at a time, in O(n^2)
//! time and O(n) memory. When that does not fit in the move time (1,000
//! numbers need 25 ms; 6,000 would need 1 s) the bot falls back on the
//! classic parity strategy: with an even row the mover can take every number
//! on even positions, or every number on odd positions, whichever sum is
//! larger.

use serde::Deserialize;

/// Steps of the table (`n^2 / 2`) allowed per millisecond of move time: a
/// tenth of what this machine does.
const EXACT_STEPS_PER_MS: u64 = 20_000;

#[derive(Deserialize)]
pub struct State {
    pub numbers: Vec<i64>,
    pub sums: [i64; 2],
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum Side {
    L,
    R,
}

/// The move for seat index `me` (0 or 1), with `time_ms` to answer.
pub fn choose(state: &State, me: usize, time_ms: u64) -> Side {
    let row = &state.numbers;
    if row.len() <= 1 {
        return Side::L;
    }
    let steps = (row.len() as u64).pow(2) / 2;
    let exact_fits = steps <= EXACT_STEPS_PER_MS.saturating_mul(time_ms);
    let (left, right) = if exact_fits { exact(row) } else { parity(row) };
    let lead = state.sums[me] - state.sums[1 - me];
    // With an odd number left, the mover also takes the last one.
    let takes_last = row.len() % 2 == 1;
    let rank = |margin: i64| {
        let total = lead + margin;
        (total > 0 || (total == 0 && takes_last), margin)
    };
    if rank(right) > rank(left) { Side::R } else { Side::L }
}

/// The mover's best final margin (from now on) after taking the left end
/// and after taking the right end.
fn exact(row: &[i64]) -> (i64, i64) {
    let n = row.len();
    let rest = margins(row, n - 1);
    (row[0] - rest[1], row[n - 1] - rest[0])
}

/// `best(i, i + len - 1)` for every start `i`, by increasing length.
fn margins(row: &[i64], len: usize) -> Vec<i64> {
    let mut best = vec![0; row.len() + 1]; // length 0: nothing to gain
    for width in 1..=len {
        for i in 0..=row.len() - width {
            let j = i + width - 1;
            // best[i] and best[i + 1] still hold width - 1 when read here.
            best[i] = (row[i] - best[i + 1]).max(row[j] - best[i]);
        }
    }
    best.truncate(row.len() + 1 - len);
    best
}

/// Estimates for long rows from the parity strategy: what the mover takes
/// minus what the opponent can secure on the even row that remains.
fn parity(row: &[i64]) -> (i64, i64) {
    let n = row.len();
    let even: i64 = row.iter().step_by(2).sum();
    let odd: i64 = row.iter().skip(1).step_by(2).sum();
    if n.is_multiple_of(2) {
        // Position 0 is even and position n - 1 odd: take the end that keeps
        // the larger class for us.
        let lead = even - odd;
        return (lead, -lead);
    }
    // Odd row: the opponent then faces an even row and keeps its larger class.
    let after_left = (odd - (even - row[0])).abs();
    let after_right = ((even - row[n - 1]) - odd).abs();
    (row[0] - after_left, row[n - 1] - after_right)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The best margin by plain recursion over every line of play.
    fn brute(row: &[i64]) -> i64 {
        match row {
            [] => 0,
            [only] => *only,
            [first, .., last] => {
                (first - brute(&row[1..])).max(last - brute(&row[..row.len() - 1]))
            }
        }
    }

    /// A small deterministic generator for test rows.
    fn rows() -> impl Iterator<Item = Vec<i64>> {
        let mut x: u64 = 12345;
        std::iter::repeat_with(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 12) as usize;
            (0..len).map(|k| ((x >> (k * 5)) % 20) as i64 + 1).collect()
        })
    }

    #[test]
    fn the_table_matches_brute_force() {
        for row in rows().take(300) {
            let n = row.len();
            for len in 0..=n {
                let table = margins(&row, len);
                for (i, &value) in table.iter().enumerate() {
                    assert_eq!(value, brute(&row[i..i + len]), "{row:?} at {i}, length {len}");
                }
            }
        }
    }

    #[test]
    fn the_chosen_end_secures_the_best_margin() {
        for row in rows().take(300).filter(|row| row.len() >= 2) {
            let state = State { numbers: row.clone(), sums: [0, 0] };
            let n = row.len();
            let margin = match choose(&state, 0, 1000) {
                Side::L => row[0] - brute(&row[1..]),
                Side::R => row[n - 1] - brute(&row[..n - 1]),
            };
            assert_eq!(margin, brute(&row), "{row:?}");
        }
    }

    /// Whether the player to move wins, `lead` ahead, by plain recursion.
    /// With the row empty the opponent took the last number, so a level
    /// score is a loss for the player to move.
    fn wins(row: &[i64], lead: i64) -> bool {
        match row {
            [] => lead > 0,
            [only] => !wins(&[], -(lead + only)),
            [first, .., last] => {
                !wins(&row[1..], -(lead + first)) || !wins(&row[..row.len() - 1], -(lead + last))
            }
        }
    }

    #[test]
    fn wins_whenever_a_win_exists_with_the_tie_rule() {
        for (k, row) in rows().take(400).filter(|row| row.len() >= 2).enumerate() {
            let lead = (k % 9) as i64 - 4;
            let state = State { numbers: row.clone(), sums: [10 + lead, 10] };
            let n = row.len();
            let after = match choose(&state, 0, 1000) {
                Side::L => !wins(&row[1..], -(lead + row[0])),
                Side::R => !wins(&row[..n - 1], -(lead + row[n - 1])),
            };
            assert_eq!(after, wins(&row, lead), "{row:?}, lead {lead}");
        }
        // Level sums go to the taker of the last number: level on [1, 2, 1],
        // the player to move ends level and takes the last one, a win; on
        // [1, 1] the opponent takes the last one.
        assert!(wins(&[1, 2, 1], 0));
        assert!(!wins(&[1, 1], 0));
    }

    #[test]
    fn long_rows_use_the_parity_strategy() {
        // Even positions hold the big numbers: take the left end.
        let row: Vec<i64> = (0..8000).map(|i| if i % 2 == 0 { 9 } else { 1 }).collect();
        let state = State { numbers: row.clone(), sums: [0, 0] };
        assert_eq!(choose(&state, 0, 1000), Side::L);
        let reversed: Vec<i64> = row.into_iter().rev().collect();
        let state = State { numbers: reversed, sums: [0, 0] };
        assert_eq!(choose(&state, 0, 1000), Side::R);
    }
}
