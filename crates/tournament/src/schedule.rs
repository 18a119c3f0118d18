//! The round-robin schedule: which bots play which games, in which seats,
//! from which setup.

use std::sync::Arc;

use arena_referee::seeds::derive_seed;

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
    /// The setup's seed.
    pub seed: u64,
}

/// The schedule, computed on demand rather than stored, so a run of any
/// length needs no memory per game.
///
/// Every pairing plays `games_per_pair` games: setup `k` (its seed from
/// [`SetupSeeds`]: derived from the run's seed and `k` alone, or listed by an
/// openings file, so all pairings play the same setups and adding a bot
/// changes no existing game) once with each bot in seat 1. An odd
/// `games_per_pair` (which tournament files refuse, but `arena match
/// --games 3` asks for) plays its last setup in the first seat order only. In a round robin every two bots are a pairing; in a gauntlet
/// only a challenger and a bot of the field are (challengers do not meet
/// each other, nor the field's bots each other). Pairings follow file order,
/// grouped by their later bot: (0,1), (0,2), (1,2), (0,3)... so a bot added
/// at the end only adds games at the end, and every existing game keeps its
/// number. Other changes (a bot removed or put first, more games per pair)
/// number games anew; games.csv is renumbered, and a log whose name an
/// earlier game took goes beside it (`NAME.2.log`).
///
/// Nothing is kept per game or setup (a setup's seed is derived when asked
/// for; an openings file's seeds are kept once per entry), so its size does
/// not depend on `games_per_pair`.
#[derive(Clone, Debug)]
pub struct Schedule {
    bot_count: usize,
    games_per_pair: u64,
    /// Where each setup's seed comes from.
    seeds: SetupSeeds,
    /// Whether each bot is a challenger; empty in a round robin.
    challenger: Vec<bool>,
    /// Pairings whose later bot comes before bot `i`, for `i` up to
    /// `bot_count` (so the last entry counts them all).
    pairings_before: Vec<u64>,
    /// Whether the seats-swapped game of a setup is dealt a setup of its
    /// own (a game that deals privately: see [`Schedule::fresh_every_game`]).
    fresh_swapped: bool,
}

impl Schedule {
    /// The round robin of `bot_count` bots playing `games_per_pair` games per
    /// pairing, with setups derived from `seed`.
    pub fn new(bot_count: usize, games_per_pair: u32, seed: u64) -> Schedule {
        Schedule::with_challengers(bot_count, games_per_pair, seed, Vec::new())
    }

    /// The gauntlet of the bots at `challengers` (indexes) against the
    /// others. With no challenger it is the round robin.
    pub fn gauntlet(
        bot_count: usize,
        games_per_pair: u32,
        seed: u64,
        challengers: &[usize],
    ) -> Schedule {
        let mut challenger = Vec::new();
        if !challengers.is_empty() {
            challenger = vec![false; bot_count];
            for &bot in challengers {
                challenger[bot] = true;
            }
        }
        Schedule::with_challengers(bot_count, games_per_pair, seed, challenger)
    }

    fn with_challengers(
        bot_count: usize,
        games_per_pair: u32,
        seed: u64,
        challenger: Vec<bool>,
    ) -> Schedule {
        let mut schedule = Schedule {
            bot_count,
            games_per_pair: u64::from(games_per_pair),
            seeds: SetupSeeds::derived(seed),
            challenger,
            pairings_before: Vec::with_capacity(bot_count + 1),
            fresh_swapped: false,
        };
        let mut count = 0;
        for second in 0..=bot_count {
            schedule.pairings_before.push(count);
            if second < bot_count {
                count += schedule.partners_before(second, second);
            }
        }
        schedule
    }

    /// This schedule with its setups' seeds from `seeds` (an openings
    /// file's) instead of derived from the run's seed alone.
    pub fn with_seeds(mut self, seeds: SetupSeeds) -> Schedule {
        self.seeds = seeds;
        self
    }

    /// With `fresh`, the second game of every setup (the seats swapped)
    /// gets a seed of its own, derived from the setup's: in a game that
    /// deals privately, the same deal with the seats swapped would give
    /// each bot the hand the other held in the first game, shown to it at
    /// the end. The two games still make a pair (an SPRT counts them so),
    /// and every pairing still plays the same setups.
    pub fn fresh_every_game(mut self, fresh: bool) -> Schedule {
        self.fresh_swapped = fresh;
        self
    }

    #[cfg(test)]
    /// Whether bot `bot` is a challenger of a gauntlet.
    pub fn is_challenger(&self, bot: usize) -> bool {
        self.challenger.get(bot).copied().unwrap_or(false)
    }

    /// Whether `first` and `second` are a pairing of this schedule.
    fn pairs(&self, first: usize, second: usize) -> bool {
        first != second
            && (self.challenger.is_empty() || self.challenger[first] != self.challenger[second])
    }

    /// The bots before `limit` that `second` plays.
    fn partners_before(&self, second: usize, limit: usize) -> u64 {
        if self.challenger.is_empty() {
            // Everyone before `limit` but `second` itself.
            return (limit - usize::from(second < limit)) as u64;
        }
        (0..limit).filter(|&first| self.pairs(first, second)).count() as u64
    }

    /// Games in the whole schedule.
    pub fn len(&self) -> u64 {
        self.pairings_before[self.bot_count] * self.games_per_pair
    }

    /// Whether the schedule has no game (fewer than two bots, or a gauntlet
    /// without a field).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Setups each pairing plays (each in both seat orders, but for the
    /// last of an odd `games_per_pair`).
    pub fn setups(&self) -> u64 {
        self.games_per_pair.div_ceil(2)
    }

    /// Whether setup `setup` is played with the seats swapped too: all are
    /// but the last of an odd `games_per_pair`.
    fn has_swapped(&self, setup: u64) -> bool {
        setup * 2 + 1 < self.games_per_pair
    }

    /// The pairings, in schedule order.
    pub fn pairings(&self) -> impl Iterator<Item = [usize; 2]> + '_ {
        (1..self.bot_count).flat_map(move |second| {
            (0..second)
                .filter(move |&first| self.pairs(first, second))
                .map(move |first| [first, second])
        })
    }

    /// Setup `setup` of `pairing`, with the later bot in seat 1 if `swapped`.
    pub fn game(&self, pairing: [usize; 2], setup: u64, swapped: bool) -> ScheduledGame {
        let [first, second] = pairing;
        let pairing_number = self.pairings_before[second] + self.partners_before(second, first);
        ScheduledGame {
            index: pairing_number * self.games_per_pair + setup * 2 + u64::from(swapped) + 1,
            round: setup + 1,
            pairing,
            seats: if swapped { [second, first] } else { [first, second] },
            seed: match swapped && self.fresh_swapped {
                true => derive_seed(self.seeds.seed(setup), SWAPPED_SEED_TAG),
                false => self.seeds.seed(setup),
            },
        }
    }

    /// The pairings of bot `bot`, in schedule order, each with the number
    /// of its first game: a pairing's games are numbered one after the
    /// other, `games_per_pair` of them.
    pub fn pairings_of(&self, bot: usize) -> Vec<([usize; 2], u64)> {
        self.pairings()
            .filter(|pairing| pairing.contains(&bot))
            .map(|pairing| (pairing, self.game(pairing, 0, false).index))
            .collect()
    }

    /// The game numbered `index` of `pairing`, whose first game is
    /// numbered `first` (as [`Schedule::pairings_of`] gives it).
    pub fn game_of_pairing(&self, pairing: [usize; 2], first: u64, index: u64) -> ScheduledGame {
        let offset = index - first;
        self.game(pairing, offset / 2, offset % 2 == 1)
    }

    /// Games each pairing plays.
    pub fn games_per_pair(&self) -> u64 {
        self.games_per_pair
    }

    /// The games of `pairing` for the setups in `setups`, in order.
    pub fn games_of(
        &self,
        pairing: [usize; 2],
        setups: std::ops::Range<u64>,
    ) -> impl Iterator<Item = ScheduledGame> + '_ {
        setups.flat_map(move |setup| {
            [false, true]
                .into_iter()
                .filter(move |&swapped| !swapped || self.has_swapped(setup))
                .map(move |swapped| self.game(pairing, setup, swapped))
        })
    }

    /// Every game, in order.
    pub fn iter(&self) -> impl Iterator<Item = ScheduledGame> + '_ {
        self.pairings().flat_map(move |pairing| self.games_of(pairing, 0..self.setups()))
    }

    /// The game with bots `seats` (indexes) in round `round` (its setup,
    /// from 1), if the schedule has it and its setup seed is `seed`: a row
    /// whose round and seed disagree is no game of this schedule.
    pub fn find(&self, seats: [usize; 2], round: u64, seed: u64) -> Option<ScheduledGame> {
        let [one, two] = seats;
        let setup = round.checked_sub(1)?;
        if one.max(two) >= self.bot_count
            || !self.pairs(one, two)
            || setup >= self.setups()
            || (one > two && !self.has_swapped(setup))
        {
            return None;
        }
        let game = self.game([one.min(two), one.max(two)], setup, one > two);
        (game.seed == seed).then_some(game)
    }
}

/// What the seats-swapped game's own seed is derived with, from its
/// setup's seed (in a game that deals privately).
const SWAPPED_SEED_TAG: u64 = 0x5357_4150; // "SWAP"

/// Where the seed of each setup comes from: derived from the run's seed and
/// the setup's number, or listed by an openings file. Listed seeds are
/// cycled when a pairing plays more setups than the file has; an entry that
/// gives no seed takes the derived one, so a pass through the file that
/// repeats it gets new positions there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupSeeds {
    /// The run's seed.
    master: u64,
    /// The openings file's seeds, entry by entry; empty without openings.
    listed: Arc<[Option<u64>]>,
}

impl SetupSeeds {
    /// Every setup's seed derived from `master`.
    pub fn derived(master: u64) -> SetupSeeds {
        SetupSeeds { master, listed: Arc::new([]) }
    }

    /// Setup `k` takes entry `k` modulo the number of entries of `listed`,
    /// or the seed derived from `master` where that entry has none.
    pub fn listed(master: u64, listed: impl IntoIterator<Item = Option<u64>>) -> SetupSeeds {
        SetupSeeds { master, listed: listed.into_iter().collect() }
    }

    /// The seed of setup `setup` (from 0).
    pub fn seed(&self, setup: u64) -> u64 {
        let listed = match self.listed.len() {
            0 => None,
            entries => self.listed[(setup % entries as u64) as usize],
        };
        listed.unwrap_or_else(|| derive_seed(self.master, setup))
    }
}

/// The whole schedule as a list.
#[cfg(test)]
pub fn round_robin(bot_count: usize, games_per_pair: u32, seed: u64) -> Vec<ScheduledGame> {
    Schedule::new(bot_count, games_per_pair, seed).iter().collect()
}

/// A share `K/N` of a schedule: the games whose index is `K` modulo `N`
/// (1-based `K`), so N machines split the work with nothing played twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// `K`, from 1.
    pub number: u64,
    /// `N`.
    pub count: u64,
}

impl Shard {
    /// Whether `game` belongs to this share.
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
    fn games_are_numbered_in_order_and_found_again() {
        let schedule = Schedule::new(4, 6, 3);
        let games: Vec<_> = schedule.iter().collect();
        assert_eq!(games.len() as u64, schedule.len());
        assert!(games.iter().enumerate().all(|(position, game)| game.index == position as u64 + 1));
        for game in &games {
            assert_eq!(schedule.find(game.seats, game.round, game.seed).as_ref(), Some(game));
            assert_eq!(schedule.find(game.seats, game.round, game.seed ^ 1), None);
        }
        assert_eq!(schedule.find([0, 0], 1, games[0].seed), None);
        assert_eq!(schedule.find([0, 4], 1, games[0].seed), None);
        assert_eq!(schedule.find([0, 1], 0, games[0].seed), None);
        assert_eq!(schedule.find([0, 1], schedule.setups() + 1, games[0].seed), None);
        assert_eq!(schedule.find([0, 1], 1, 12345), None);
    }

    #[test]
    fn a_gauntlet_plays_only_challengers_against_the_field() {
        // Bots 1 and 3 challenge the field of 0, 2 and 4.
        let schedule = Schedule::gauntlet(5, 4, 8, &[1, 3]);
        let games: Vec<_> = schedule.iter().collect();
        assert_eq!(games.len() as u64, schedule.len());
        assert_eq!(schedule.len(), 2 * 3 * 4);
        assert!(games.iter().enumerate().all(|(position, game)| game.index == position as u64 + 1));
        for game in &games {
            let [first, second] = game.pairing;
            assert_ne!(schedule.is_challenger(first), schedule.is_challenger(second), "{game:?}");
            assert_eq!(schedule.find(game.seats, game.round, game.seed).as_ref(), Some(game));
        }
        let seed = games[0].seed;
        assert_eq!(schedule.find([1, 3], 1, seed), None, "challengers do not meet");
        assert_eq!(schedule.find([0, 2], 1, seed), None, "nor does the field");
        // The same setups as the round robin, so results compare.
        let round_robin = Schedule::new(5, 4, 8);
        assert!(
            games.iter().all(|game| round_robin.find(game.seats, game.round, game.seed).is_some())
        );
        // A bot added to the field at the end adds games at the end.
        let grown: Vec<_> = Schedule::gauntlet(6, 4, 8, &[1, 3]).iter().collect();
        assert_eq!(games[..], grown[..games.len()]);
        assert!(Schedule::gauntlet(2, 4, 8, &[0, 1]).is_empty());
    }

    #[test]
    fn listed_seeds_cycle_and_fill_gaps_with_derived_ones() {
        let seeds = SetupSeeds::listed(5, [Some(42), None, Some(7)]);
        let derived = SetupSeeds::derived(5);
        let first: Vec<u64> = (0..6).map(|setup| seeds.seed(setup)).collect();
        assert_eq!(first, [42, derived.seed(1), 7, 42, derived.seed(4), 7]);
        assert_ne!(derived.seed(1), derived.seed(4), "a second pass gets new positions");
        // Without a list, the seeds of a run without openings.
        assert_eq!(SetupSeeds::listed(5, []), derived);
        let schedule = Schedule::new(3, 8, 5).with_seeds(seeds.clone());
        for game in schedule.iter() {
            assert_eq!(game.seed, seeds.seed(game.round - 1));
            assert_eq!(schedule.find(game.seats, game.round, game.seed), Some(game));
        }
        // Raising games_per_pair keeps every game and adds setups at the end.
        let grown = Schedule::new(3, 12, 5).with_seeds(seeds);
        for game in schedule.iter() {
            assert!(grown.find(game.seats, game.round, game.seed).is_some(), "{game:?}");
        }
    }

    #[test]
    fn an_odd_number_of_games_plays_the_last_setup_once() {
        let schedule = Schedule::new(2, 3, 6);
        let games: Vec<_> = schedule.iter().collect();
        assert_eq!(games.len() as u64, schedule.len());
        assert_eq!(schedule.setups(), 2);
        assert_eq!(
            games.iter().map(|game| game.seats).collect::<Vec<_>>(),
            [[0, 1], [1, 0], [0, 1]]
        );
        assert!(games.iter().enumerate().all(|(position, game)| game.index == position as u64 + 1));
        assert_eq!(games[0].seed, games[1].seed);
        assert_ne!(games[1].seed, games[2].seed);
        assert_eq!(schedule.find([0, 1], 2, games[2].seed).as_ref(), Some(&games[2]));
        assert_eq!(schedule.find([1, 0], 2, games[2].seed), None, "the last setup is played once");
        // Three bots: numbers stay dense across pairings.
        let three = Schedule::new(3, 1, 6);
        let games: Vec<_> = three.iter().collect();
        assert_eq!(games.len(), 3);
        assert!(games.iter().enumerate().all(|(position, game)| game.index == position as u64 + 1));
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
