//! Golden setups: for every game, many parameter sets and seeds, the setup
//! the game starts from, as recorded in tests/golden/setups.jsonl. A seed
//! names the same setup on every version of arena, so that results folders
//! and published seeds keep their meaning: a change to the setup generator
//! (or to a dependency under it) that moves any setup fails here.
//!
//! The file was recorded by the build whose setups came from rand's own
//! shuffle and sampling, before arena drew them itself. Recording again
//! (`ARENA_RECORD_GOLDEN=1 cargo test --test golden_setups`) is for a new
//! game or new parameter sets only, never to make a moved setup pass.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use arena::games::{Game, GameId, GameSetup};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const GOLDEN: &str = "tests/golden/setups.jsonl";

/// Setups longer than this are kept as their SHA-256 (the largest hold a
/// thousand numbers); shorter ones are kept whole, to be read.
const KEPT_WHOLE: usize = 240;

/// The seeds each parameter set is tried with: the edges of the range,
/// small ones, and seeds as schedules derive them.
fn seeds(many: bool) -> Vec<u64> {
    let mut seeds = vec![0, 1, 2, 3, 42, (1 << 53) - 1, u64::MAX];
    let derived = if many { 5 } else { 1 };
    // SplitMix64's steps: seeds spread over the whole range.
    let mut state: u64 = 0x5EED;
    for _ in 0..derived {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        seeds.push(z ^ (z >> 31));
    }
    seeds
}

/// Parameter sets for each game: for the games that draw numbers, counts
/// and ranges on both sides of every boundary where a sampling method
/// changes (small and large counts, dense and sparse ranges, ranges from
/// 500,000 up), so every path of the generator is pinned.
fn parameter_sets(game: GameId) -> Vec<Value> {
    let counts =
        [1u32, 2, 3, 4, 5, 10, 11, 12, 13, 20, 50, 100, 161, 162, 163, 164, 200, 500, 1000];
    let drawn = |even_only: bool| {
        let mut sets = BTreeSet::new();
        for &count in &counts {
            if even_only && count % 2 == 1 {
                continue;
            }
            let maxes = [
                count,
                count + 1,
                2 * count,
                10 * count,
                29 * count,
                30 * count,
                269 * count,
                271 * count,
                500_000,
                1_000_000,
            ];
            for max in maxes {
                if (count..=1_000_000).contains(&max) {
                    sets.insert((count, max));
                }
            }
        }
        sets.into_iter().map(|(count, max)| json!({"count": count, "max": max})).collect()
    };
    match game {
        GameId::NumberSnatch => drawn(false),
        GameId::NumbersWar => drawn(true),
        GameId::NumberClaim => (1..=16).map(|n| json!({ "n": n })).collect(),
        GameId::NumberWarriors => vec![
            json!({}),
            json!({"life": 1, "max": 1}),
            json!({"life": 100, "max": 30}),
            json!({"life": 1_000_000_000, "max": 1000}),
        ],
        GameId::NumberDuel => vec![
            json!({}),
            json!({"max": 1, "copies": 1, "target": 1}),
            json!({"max": 20, "copies": 5, "target": 500}),
            json!({"max": 1000, "copies": 1, "target": 1_000_000_000}),
        ],
    }
}

/// The setup of `game` with `params` and `seed`, as JSON (the state the
/// game starts from).
fn setup(game: GameId, params: &Value, seed: u64) -> String {
    let Value::Object(params) = params.clone() else { unreachable!("parameters are objects") };
    let setup = GameSetup::new(game, params).expect("the parameter sets are valid");
    arena::with_game!(game, G => {
        serde_json::to_string(&<G as Game>::new(setup.params::<G>(), seed)).unwrap()
    })
}

/// One golden line: the setup whole when it is short, else its SHA-256.
fn golden_line(game: GameId, params: &Value, seed: u64) -> Value {
    let setup = setup(game, params, seed);
    let mut line = Map::new();
    line.insert("game".into(), json!(game.as_str()));
    line.insert("params".into(), params.clone());
    line.insert("seed".into(), json!(seed));
    if setup.len() <= KEPT_WHOLE {
        line.insert("setup".into(), serde_json::from_str(&setup).unwrap());
    } else {
        let digest = Sha256::digest(setup.as_bytes());
        let hex = digest.iter().fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
        line.insert("setup_sha256".into(), json!(hex));
    }
    Value::Object(line)
}

/// Every golden line, in a fixed order.
fn all_lines() -> Vec<Value> {
    let mut lines = Vec::new();
    for &game in GameId::ALL {
        for params in parameter_sets(game) {
            let many = setup(game, &params, 0).len() <= KEPT_WHOLE;
            for seed in seeds(many) {
                lines.push(golden_line(game, &params, seed));
            }
        }
    }
    lines
}

#[test]
fn every_game_gives_its_recorded_setup_for_every_seed() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("ARENA_RECORD_GOLDEN").is_some() {
        let mut text = String::new();
        for line in all_lines() {
            text.push_str(&serde_json::to_string(&line).unwrap());
            text.push('\n');
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let mut checked = std::collections::HashMap::<GameId, usize>::new();
    for (number, line) in text.lines().enumerate() {
        let recorded: Value = serde_json::from_str(line).unwrap();
        let game: GameId = recorded["game"].as_str().unwrap().parse().unwrap();
        let seed = recorded["seed"].as_u64().unwrap();
        let now = golden_line(game, &recorded["params"], seed);
        assert_eq!(
            now,
            recorded,
            "{GOLDEN}:{}: {game} with {} and seed {seed} sets up otherwise than recorded",
            number + 1,
            recorded["params"]
        );
        *checked.entry(game).or_default() += 1;
    }
    for &game in GameId::ALL {
        let count = checked.get(&game).copied().unwrap_or(0);
        assert!(count >= 16, "{game} has {count} golden setups; every game needs many");
    }
    // The file covers what this test would record: no set was dropped.
    assert_eq!(text.lines().count(), all_lines().len(), "{GOLDEN} is not complete");
}
