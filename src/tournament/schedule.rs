//! The round-robin schedule: which bots play which games, in which seats,
//! from which setup.

use crate::seeds::derive_seed;

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 1-based position in the whole schedule.
    pub index: u64,
    /// 1-based setup number within the pairing; every setup is played in
    /// both seat orders.
    pub round: u64,
    /// The pairing's bots, as indexes into the tournament's bot list, in file order.
    pub pairing: [usize; 2],
    /// The bot in seat 1 and the bot in seat 2.
    pub seats: [usize; 2],
    pub seed: u64,
}

/// Every unordered pair of `bot_count` bots plays `games_per_pair` games
/// (an even number): setup `k` (seed derived from `seed` and `k` alone, so
/// all pairings play the same setups and adding a bot changes no existing
/// game) once with each bot in seat 1. Pairings follow file order, grouped
/// by their later bot: (0,1), (0,2), (1,2), (0,3)... so a bot added at the
/// end only adds games at the end, and every existing game keeps its number
/// (and with it its transcript and log file names).
pub fn round_robin(bot_count: usize, games_per_pair: u32, seed: u64) -> Vec<ScheduledGame> {
    let setups = u64::from(games_per_pair / 2);
    let mut games = Vec::new();
    for second in 1..bot_count {
        for first in 0..second {
            for setup in 0..setups {
                let setup_seed = derive_seed(seed, setup);
                for seats in [[first, second], [second, first]] {
                    games.push(ScheduledGame {
                        index: games.len() as u64 + 1,
                        round: setup + 1,
                        pairing: [first, second],
                        seats,
                        seed: setup_seed,
                    });
                }
            }
        }
    }
    games
}

/// A share `K/N` of a schedule: the games whose index is `K` modulo `N`
/// (1-based `K`), so N machines split the work with nothing played twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub number: u64,
    pub count: u64,
}

impl Shard {
    pub fn contains(&self, game: &ScheduledGame) -> bool {
        (game.index - 1) % self.count == self.number - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let parsed = text.split_once('/').and_then(|(number, count)| {
            Some(Shard { number: number.trim().parse().ok()?, count: count.trim().parse().ok()? })
        });
        match parsed {
            Some(shard) if shard.count >= 1 && (1..=shard.count).contains(&shard.number) => {
                Ok(shard)
            }
            _ => Err(format!("`{text}` is not a shard like 2/4 (share 2 of 4, numbered from 1)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_plays_every_setup_in_both_seat_orders() {
        let games = round_robin(3, 4, 9);
        assert_eq!(games.len(), 3 * 4);
        for pair in [[0, 1], [0, 2], [1, 2]] {
            let of_pair: Vec<_> = games.iter().filter(|game| game.pairing == pair).collect();
            assert_eq!(of_pair.len(), 4);
            for setup in of_pair.chunks(2) {
                assert_eq!(setup[0].seed, setup[1].seed);
                assert_eq!(setup[0].seats, [setup[1].seats[1], setup[1].seats[0]]);
            }
            assert_ne!(of_pair[0].seed, of_pair[2].seed);
        }
        assert_eq!(games, round_robin(3, 4, 9));
    }

    #[test]
    fn adding_a_bot_keeps_the_existing_games() {
        let before = round_robin(2, 2, 5);
        let after = round_robin(3, 2, 5);
        let same = |game: &ScheduledGame| (game.seats, game.seed);
        assert!(before.iter().all(|old| after.iter().any(|new| same(new) == same(old))));
        // Numbers too: the new bot's games come last.
        let before = round_robin(3, 4, 5);
        assert_eq!(before[..], round_robin(4, 4, 5)[..before.len()]);
    }

    #[test]
    fn shards_split_the_schedule_without_overlap() {
        let games = round_robin(4, 6, 1);
        let shards: Vec<Shard> =
            (1..=3).map(|number| format!("{number}/3").parse().unwrap()).collect();
        for game in &games {
            assert_eq!(shards.iter().filter(|shard| shard.contains(game)).count(), 1);
        }
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }
}
