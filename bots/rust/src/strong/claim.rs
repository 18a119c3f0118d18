//! Number Claim: take the largest number left.
//!
//! Every number ends up with one of the two players and only the sums count,
//! so a turn is worth the number taken now plus what it denies the opponent.
//! Taking the largest is optimal: in any line of play, swapping a smaller
//! pick for the largest one left can only raise your sum and lower theirs.
//! With perfect play on both sides the first player gets the 1st, 3rd, 5th,
//! ... largest numbers; for n = 3 that is 25 to 20, so seat 1 always wins.

/// The largest of the legal moves (the unclaimed numbers).
pub fn choose(legal: &[u32]) -> u32 {
    legal.iter().copied().max().expect("legal moves are never empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_largest_number() {
        assert_eq!(choose(&[1, 2, 3, 5, 9, 4]), 9);
        assert_eq!(choose(&[7]), 7);
    }
}
