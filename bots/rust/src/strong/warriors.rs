//! Number Warriors: always choose the highest number still in the pool.
//!
//! Damage only ever goes to the player who chose the lower number. Both
//! players choose from the same pool, so the holder of its highest number
//! can never be below the other choice: playing it every turn means never
//! taking damage, hence never losing. It is also the best choice for the
//! turn against any opponent choice `x`: damage dealt, `max(0, mine - x)`,
//! rises with my number, and damage taken, `max(0, x - mine)`, falls.
//! Since the opponent can secure the same (by the same strategy), a draw is
//! the value of the game: no strategy can promise more than not losing.
//! Against weaker play it wins whenever the damage dealt reaches the
//! opponent's Life Points before the pool runs out.

/// The highest of the legal moves (the pool).
pub fn choose(legal: &[u32]) -> u32 {
    legal.iter().copied().max().expect("legal moves are never empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chooses_the_highest_number_in_the_pool() {
        assert_eq!(choose(&[2, 3, 5, 6, 7, 8, 9]), 9);
        assert_eq!(choose(&[1]), 1);
    }
}
