//! Seeds for whole runs, for each game within them, and for each seat.
//!
//! A game's setup seed decides its setup and is public (games.csv has it).
//! Each seat gets a seed of its own in `start`, derived from the setup seed
//! with a key bots never see, so that a bot seeding its randomness from its
//! seed cannot be predicted by the other seat. A game program's seed is
//! derived with the same key: what it deals may be secret (dice, a hand),
//! and a public seed would let a bot deal it too.

use std::hash::Hasher;

use siphasher::sip::SipHasher24;

use arena_games::Seat;

pub use arena_protocol::MAX_SEED;

/// The seed of game number `index` of a run seeded with `master`, at most
/// [`MAX_SEED`].
///
/// Random access (no generator to step through) so that any game, shard or
/// resumed run derives the same seed for the same index. SplitMix64's
/// finalizer spreads neighbouring inputs over the whole range.
pub fn derive_seed(master: u64, index: u64) -> u64 {
    mix(master ^ mix(index.wrapping_add(0x9E37_79B9_7F4A_7C15))) & MAX_SEED
}

fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    value ^ (value >> 31)
}

/// A seed for a run whose user gave none: different each run, and printed
/// so the run can be repeated.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos() as u64)
        .unwrap_or(0);
    // Small and readable, since users type it back in.
    mix(nanos ^ u64::from(std::process::id())) % 1_000_000_000
}

/// The environment variable that holds the key seat seeds derive with. The
/// shards of one tournament share it (or a key file); without either, a
/// tournament's results folder keys its seat seeds with a random key of its
/// own (see `tournament::store::seed_key`). Only `arena check` and `play`
/// fall back to a public default, under which a bot that knows the setup
/// seed could work out the other seat's seed.
pub const SEED_KEY_VARIABLE: &str = "ARENA_SEED_KEY";

/// The longest key file read: a key is a line of text.
const MAX_KEY_FILE_BYTES: u64 = 4096;

/// The fingerprint of the public default key.
pub const PUBLIC_KEY_FINGERPRINT: &str = "public";

/// The key seat seeds derive with (128 bits).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct SeedKey {
    halves: [u64; 2],
    /// Whether it came from [`SEED_KEY_VARIABLE`], not the public default.
    secret: bool,
}

impl std::fmt::Debug for SeedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself: it may end up in logs.
        f.debug_struct("SeedKey").field("secret", &self.secret).finish_non_exhaustive()
    }
}

impl SeedKey {
    /// The key from [`SEED_KEY_VARIABLE`], or the public default.
    pub fn from_environment() -> SeedKey {
        match std::env::var(SEED_KEY_VARIABLE) {
            Ok(text) if !text.is_empty() => SeedKey::from_secret(&text),
            _ => SeedKey::default(),
        }
    }

    /// A key from a secret of any length: two SipHash digests of it.
    pub fn from_secret(secret: &str) -> SeedKey {
        let digest = |k0: u64| {
            let mut hasher = SipHasher24::new_with_keys(k0, 0);
            hasher.write(secret.as_bytes());
            hasher.finish()
        };
        SeedKey { halves: [digest(1), digest(2)], secret: true }
    }

    /// The key that `ARENA_SEED_KEY` gives, if it is set.
    pub fn given_by_environment() -> Option<SeedKey> {
        std::env::var(SEED_KEY_VARIABLE)
            .ok()
            .filter(|text| !text.is_empty())
            .map(|text| SeedKey::from_secret(&text))
    }

    /// The key a key file holds: its text, less the line break at its end
    /// (the same secret in `ARENA_SEED_KEY` gives the same key).
    pub fn from_file(path: &std::path::Path) -> Result<SeedKey, String> {
        let text =
            arena_base::text_file::read_bounded(path, MAX_KEY_FILE_BYTES).map_err(|error| {
                format!("cannot read the seat-seed key file {}: {error}", path.display())
            })?;
        let secret = text.trim_end_matches(['\n', '\r']);
        if secret.trim().is_empty() {
            return Err(format!("the seat-seed key file {} is empty", path.display()));
        }
        Ok(SeedKey::from_secret(secret))
    }

    /// A new random secret (256 bits from the system, as hex): what a
    /// results folder of its own key keeps.
    pub fn new_secret() -> std::io::Result<String> {
        use std::io::Read;
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// Whether the key came from a secret (not the public default).
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// What names the key in files and messages without giving it away:
    /// `public` for the public default, else 16 hex digits of a SHA-256 of
    /// the key (two runs under one key show one fingerprint).
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        if !self.secret {
            return PUBLIC_KEY_FINGERPRINT.to_owned();
        }
        let mut hasher = Sha256::new();
        hasher.update(b"arena seat-seed key\0");
        hasher.update(self.halves[0].to_le_bytes());
        hasher.update(self.halves[1].to_le_bytes());
        hasher.finalize()[..8].iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The seed `seat` gets in `start` in a game: the one of `round`
    /// (its setup's number in the pairing) set up with `setup_seed`, the
    /// bots named `names` in seat order; at most [`MAX_SEED`]. SipHash is a
    /// keyed pseudo-random function: the other seat's seed cannot be
    /// computed without the key. Keyed by the game (its round and who sits
    /// where) as well as its setup: the two games of a setup swap the
    /// seats, and a seed of the setup and the seat alone would hand each
    /// bot in the second game the seed its opponent held in the first (a
    /// bot seeding its generator from it is then played back move for
    /// move). A game is the same game whatever else the schedule holds, so
    /// it gets the same seeds in a run of more games per pair.
    pub fn seat_seed(&self, setup_seed: u64, round: u64, names: [&str; 2], seat: Seat) -> u64 {
        let mut hasher = SipHasher24::new_with_keys(self.halves[0], self.halves[1]);
        hasher.write_u64(setup_seed);
        hasher.write_u64(round);
        for name in names {
            hasher.write_u64(name.len() as u64);
            hasher.write(name.as_bytes());
        }
        hasher.write_u8(seat.number());
        hasher.finish() & MAX_SEED
    }

    /// The seed a game program gets in `init` for a game set up with
    /// `setup_seed`, at most [`MAX_SEED`]: as a seat's seed, keyed (a seat
    /// is numbered 1 or 2; the game is 0), so that no bot can work out a
    /// secret deal from the public setup seed. The two games of a setup
    /// still get the same one.
    pub fn game_seed(&self, setup_seed: u64) -> u64 {
        let mut hasher = SipHasher24::new_with_keys(self.halves[0], self.halves[1]);
        hasher.write_u64(setup_seed);
        hasher.write_u8(0);
        hasher.finish() & MAX_SEED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_seeds_differ_by_seat_and_key_and_repeat() {
        let public = SeedKey::default();
        let secret = SeedKey::from_secret("a CI secret");
        assert_ne!(
            public.seat_seed(7, 1, ["a", "b"], Seat::One),
            public.seat_seed(7, 1, ["a", "b"], Seat::Two)
        );
        assert_eq!(
            secret.seat_seed(7, 1, ["a", "b"], Seat::One),
            SeedKey::from_secret("a CI secret").seat_seed(7, 1, ["a", "b"], Seat::One)
        );
        assert_ne!(
            secret.seat_seed(7, 1, ["a", "b"], Seat::One),
            public.seat_seed(7, 1, ["a", "b"], Seat::One)
        );
        assert_ne!(
            secret.seat_seed(7, 1, ["a", "b"], Seat::One),
            secret.seat_seed(8, 1, ["a", "b"], Seat::One)
        );
        assert!(secret.seat_seed(u64::MAX, 1, ["a", "b"], Seat::Two) <= MAX_SEED);
        // The two games of a setup: no seed of the first is one of the
        // second's (the seats swap; each bot would hold its opponent's).
        let first = Seat::BOTH.map(|seat| secret.seat_seed(7, 1, ["a", "b"], seat));
        let second = Seat::BOTH.map(|seat| secret.seat_seed(7, 1, ["b", "a"], seat));
        assert!(first.iter().all(|seed| !second.contains(seed)), "{first:?} {second:?}");
        assert_ne!(first, Seat::BOTH.map(|seat| secret.seat_seed(7, 2, ["a", "b"], seat)));
        // Names are told apart by their lengths too.
        assert_ne!(
            secret.seat_seed(7, 1, ["ab", "c"], Seat::One),
            secret.seat_seed(7, 1, ["a", "bc"], Seat::One)
        );
        // A game program's seed is keyed too, and neither seat's.
        assert_eq!(secret.game_seed(7), SeedKey::from_secret("a CI secret").game_seed(7));
        assert_ne!(secret.game_seed(7), public.game_seed(7));
        assert_ne!(secret.game_seed(7), secret.game_seed(8));
        assert_ne!(secret.game_seed(7), 7);
        for seat in Seat::BOTH {
            assert_ne!(secret.game_seed(7), secret.seat_seed(7, 1, ["a", "b"], seat));
        }
        assert!(secret.game_seed(u64::MAX) <= MAX_SEED);
        assert!(secret.is_secret() && !public.is_secret());
        assert!(!format!("{secret:?}").contains(&secret.halves[0].to_string()));
    }

    #[test]
    fn fingerprints_name_a_key_without_giving_it_away() {
        let secret = SeedKey::from_secret("a CI secret");
        assert_eq!(secret.fingerprint(), SeedKey::from_secret("a CI secret").fingerprint());
        assert_ne!(secret.fingerprint(), SeedKey::from_secret("another").fingerprint());
        assert_eq!(secret.fingerprint().len(), 16);
        assert_eq!(SeedKey::default().fingerprint(), "public");

        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("key");
        std::fs::write(&file, "a CI secret\n").unwrap();
        assert_eq!(SeedKey::from_file(&file).unwrap(), secret, "as ARENA_SEED_KEY gives it");
        std::fs::write(&file, "\n").unwrap();
        assert!(SeedKey::from_file(&file).unwrap_err().contains("is empty"));
        let new = SeedKey::new_secret().unwrap();
        assert_eq!(new.len(), 64);
        assert_ne!(new, SeedKey::new_secret().unwrap());
    }

    #[test]
    fn derived_seeds_are_stable_and_distinct() {
        assert_eq!(derive_seed(7, 0), derive_seed(7, 0));
        let seeds: std::collections::HashSet<u64> =
            (0..1000).map(|index| derive_seed(7, index)).collect();
        assert_eq!(seeds.len(), 1000);
        assert_ne!(derive_seed(7, 1), derive_seed(8, 1));
    }
}
