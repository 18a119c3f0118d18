//! What the two seats of a game could pass each other through what the
//! machine shares whatever their boxes: record locks and flock on a file
//! both see, its page cache (a page evicted by one seat, found missing by
//! the other), and seat seeds (a seed the opponent held in the setup's
//! other game). Each channel carries a choice without the sandbox (or, for
//! seeds, under the derivation arena used before) and none with it.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{Scratch, read_games_csv, transcript_of};

/// Runs `attack` (with `argument`) in both seats of one game of Number
/// Snatch, the hostile bot at `bot` (its folder the bots' own); returns
/// each seat's report.
fn talk(bot: &Path, attack: &str, argument: &str, sandbox: bool) -> Vec<String> {
    let scratch = Scratch::new();
    let out = scratch.out();
    let hostile = format!("{} {attack} {argument}", bot.display());
    let out_text = out.to_str().expect("UTF-8").to_owned();
    let mut args = vec![
        "match",
        "number-snatch",
        hostile.as_str(),
        hostile.as_str(),
        "--games",
        "1",
        "--seed",
        "4",
        "--name1",
        "hostile",
        "--name2",
        "other",
        "--out",
        out_text.as_str(),
    ];
    if !sandbox {
        args.push("--no-sandbox");
    }
    scratch.arena(&args).assert_success();
    let mut outcomes = Vec::new();
    for seat in ["seat1-hostile", "seat2-other"] {
        let log = out.join(format!("logs/game-000001-{seat}.log"));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let prefix = format!("attack {attack}: ");
        outcomes
            .extend(text.lines().filter_map(|line| line.strip_prefix(&prefix)).map(str::to_owned));
    }
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    scratch.assert_fixture_processes_gone();
    outcomes
}

fn fixture_bot() -> std::path::PathBuf {
    common::repo_dir().join("tests/fixtures/hostile.py")
}

/// Both ways: a choice passes without the sandbox, nothing with it.
fn assert_channel_closed(bot: &Path, attack: &str, argument: &str, before: impl Fn()) {
    before();
    let open = talk(bot, attack, argument, false);
    assert!(open.iter().any(|outcome| outcome.starts_with("succeeded")), "{attack}: {open:?}");
    before();
    let closed = talk(bot, attack, argument, true);
    assert!(closed.iter().all(|outcome| outcome.starts_with("failed")), "{attack}: {closed:?}");
}

#[test]
fn the_two_seats_cannot_talk_through_record_locks() {
    assert_channel_closed(&fixture_bot(), "talk-lock", "/usr/bin/env", || {});
}

#[test]
fn the_two_seats_cannot_talk_through_flock() {
    assert_channel_closed(&fixture_bot(), "talk-flock", "/usr/bin/env", || {});
}

/// The page cache of a file in the folder both seats' bot runs from: the
/// first seat evicts a region of it, the second looks for what is missing.
#[test]
fn the_two_seats_cannot_talk_through_the_page_cache() {
    let folder = tempfile::tempdir().expect("a folder");
    common::hostile::copy_bot_to(folder.path());
    let data = folder.path().join("data.bin");
    const SIZE: usize = 16 << 20;
    let bytes: Vec<u8> =
        (0..SIZE as u32).map(|at| (at.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&data, bytes).expect("a data file");
    // Written back: only a clean page can be evicted.
    std::fs::File::open(&data).and_then(|file| file.sync_all()).expect("the data on disk");
    // Every page cached before each run: only the first seat's eviction
    // leaves one out.
    let cache = || {
        let read = std::fs::read(&data).expect("the data file");
        assert_eq!(read.len(), SIZE);
    };
    let bot = folder.path().join("hostile.py");
    assert_channel_closed(&bot, "talk-cache", data.to_str().expect("UTF-8"), cache);
}

/// The seed each seat was given in a game's `start`, from its transcript's
/// header.
fn seat_seeds(out: &Path, row: &common::Row) -> [u64; 2] {
    let header = &transcript_of(out, row)[0];
    let seeds = header["seat_seeds"].as_array().expect("seat_seeds");
    [0, 1].map(|seat| seeds[seat].as_u64().expect("a seed"))
}

/// The seed arena gave a seat before seat seeds were keyed by the game as
/// well: SipHash-2-4 of the setup seed and the seat under the key (two
/// digests of the secret), so both games of a setup gave seat 1 one seed.
fn old_seat_seed(secret: &str, setup: u64, seat: u8) -> u64 {
    use std::hash::Hasher;
    let digest = |k0: u64| {
        let mut hasher = siphasher::sip::SipHasher24::new_with_keys(k0, 0);
        hasher.write(secret.as_bytes());
        hasher.finish()
    };
    let mut hasher = siphasher::sip::SipHasher24::new_with_keys(digest(1), digest(2));
    hasher.write_u64(setup);
    hasher.write_u8(seat);
    hasher.finish() & ((1 << 53) - 1)
}

/// The moves the Python kit's random bot makes from `seed`, given the
/// legal moves of each of its move requests: what a bot that knows the
/// seed predicts.
fn kit_moves(seed: u64, legal: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let script = "import json, random, sys\nseed, legal = json.load(sys.stdin)\nrng = random.Random()\nrng.seed(seed)\nprint(json.dumps([rng.choice(moves) for moves in legal]))\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = serde_json::to_vec(&(seed, legal)).expect("JSON");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("written");
    let output = child.wait_with_output().expect("python3 ends");
    serde_json::from_slice(&output.stdout).expect("the moves as JSON")
}

/// No bot ever holds a seed another bot held: the two games of a setup
/// swap the seats, and under the old derivation each bot of the second
/// game held its opponent's seed of the first, from which the Python kit's
/// moves follow one by one.
#[test]
fn no_seat_seed_is_held_twice_in_a_run() {
    const SECRET: &str = "a CI secret for seeds";
    let scratch = Scratch::new().with_seed_key(SECRET);
    let out = scratch.out();
    scratch
        .arena([
            "match",
            "number-snatch",
            common::PYTHON_RANDOM_BOT,
            common::PYTHON_RANDOM_BOT,
            "--games",
            "4",
            "--seed",
            "9",
            "--name1",
            "a",
            "--name2",
            "b",
            "--out",
            out.to_str().expect("UTF-8"),
        ])
        .assert_success();
    let rows = read_games_csv(&out);
    let mut held = std::collections::BTreeMap::new();
    for row in &rows {
        let seeds = seat_seeds(&out, row);
        for (seat, seed) in seeds.into_iter().enumerate() {
            let bot = row[&format!("seat{}", seat + 1)].to_owned();
            let game = row["game_index"].to_owned();
            if let Some(earlier) = held.insert(seed, (bot.clone(), game.clone())) {
                panic!("seed {seed} held by {earlier:?} and again by {bot} in game {game}");
            }
        }
    }
    assert_eq!(held.len(), 8);
    // The attack the old derivation allowed: in games 1 and 2 (one setup,
    // the seats swapped) each seat got one seed, so the bot of seat 1 in
    // game 2 held the seed the other bot held as seat 1 in game 1.
    let setup: u64 = rows[0]["seed"].parse().expect("a seed");
    assert_eq!(rows[1]["seed"], rows[0]["seed"], "games 1 and 2 share a setup");
    assert_ne!(rows[0]["seat1"], rows[1]["seat1"], "the seats swap");
    let old: Vec<[u64; 2]> = rows[..2]
        .iter()
        .map(|row| {
            let setup: u64 = row["seed"].parse().expect("a seed");
            [old_seat_seed(SECRET, setup, 1), old_seat_seed(SECRET, setup, 2)]
        })
        .collect();
    assert_eq!(old[0][0], old[1][0], "one seed for two bots under the old derivation");
    assert_eq!(old[0][0], old_seat_seed(SECRET, setup, 1));
    // And a bot that knows a seat's seed knows its moves.
    let transcript = transcript_of(&out, &rows[1]);
    let requests: Vec<&serde_json::Value> = transcript
        .iter()
        .filter(|line| line["type"] == "send" && line["seat"] == 1 && line["msg"]["type"] == "move")
        .collect();
    let legal: Vec<serde_json::Value> =
        requests.iter().map(|line| line["msg"]["legal_moves"].clone()).collect();
    let played: Vec<serde_json::Value> = transcript
        .iter()
        .filter(|line| line["type"] == "move" && line["seat"] == 1)
        .map(|line| line["move"].clone())
        .collect();
    assert!(played.len() >= 3, "{played:?}");
    let game_two_seat_one = seat_seeds(&out, &rows[1])[0];
    assert_eq!(kit_moves(game_two_seat_one, &legal), played, "the seed gives the moves");
}
