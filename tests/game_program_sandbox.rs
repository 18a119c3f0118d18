//! What a bot can reach of a game program: its process, and what it deals.
//!
//! A game program runs in a box of its own, as a bot does; a bot that
//! reached it could void a game it is losing (a game program that dies or
//! answers wrongly voids the game, and no bot is charged), or read both
//! seats' views in its output.
//! tests/fixtures/hostile.py attacks the game program
//! (tests/fixtures/games/tinygame.py, whose hands are secret) at its first
//! move: with the sandbox off the attack works, with it on it fails and
//! the game is played to its end. The other way round, a game program
//! that reached the bots could have one charged with a crash.
//!
//! A random game's deal is kept from the bots too: the seed its program
//! gets is keyed (the setup seeds are public), and its bots start afresh
//! every game (the two games of a setup deal alike, the seats swapped).

#[allow(dead_code)]
mod common;

use common::hostile::{Attack, VICTIM, both_ways_in, reported_outcome};
use common::unprivileged::Unprivileged;
use common::{PYTHON_RANDOM_BOT, Run, Scratch, game_log, read_games_csv};

const GAME: &str = "tests/fixtures/games/tinygame.py";

/// Without the sandbox: the game is void and `cause` says why.
fn assert_void(open: &Attack, cause: &str) {
    assert!(open.rows.is_empty(), "{:?}", open.rows);
    assert!(open.run.stderr.contains("game 1 (hostile vs random_bot"), "{}", open.run.stderr);
    assert!(open.run.stderr.contains(cause), "{}", open.run.stderr);
}

/// With the sandbox: the game was played to its end.
fn assert_played(closed: &Attack) {
    assert_eq!(closed.rows.len(), 1, "{}", closed.run.stderr);
    assert_eq!(&closed.rows[0]["reason"], "normal", "{:?}", closed.rows[0]);
    assert!(closed.outcome.contains("no game program found"), "{}", closed.outcome);
}

#[test]
fn a_bot_cannot_void_a_game_by_killing_the_game_program() {
    let (open, closed) = both_ways_in(GAME, "kill-game", None);
    assert_void(&open, "was killed by signal 9 (SIGKILL) instead of answering apply request");
    assert_played(&closed);
}

#[test]
fn a_bot_cannot_answer_in_the_game_programs_name() {
    let (open, closed) = both_ways_in(GAME, "answer-for-game", None);
    assert_void(&open, r#"answer: {"type":"step","forged":"by a bot"}"#);
    assert_played(&closed);
}

#[test]
fn a_bot_cannot_read_the_game_programs_output() {
    let (_, closed) = both_ways_in(GAME, "read-game-output", None);
    assert_played(&closed);
}

#[test]
fn a_bot_cannot_trace_the_game_program() {
    let (_, closed) = both_ways_in(GAME, "ptrace-game", None);
    assert_played(&closed);
}

/// A game of tinygame with the flaw `kill-bots` (at turn 1 it kills the
/// processes beside it), the sandbox on or off: the run, the rows of
/// games.csv and what the game said it killed.
fn game_kills_bots(sandbox: bool) -> (Run, Vec<common::Row>, String) {
    let scratch = Scratch::new();
    let out = scratch.out();
    let mut args = vec![
        "match",
        "tests/fixtures/games/tinygame.py --flaw kill-bots",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "1",
        "--seed",
        "8",
        "--out",
        out.to_str().expect("UTF-8"),
    ];
    if !sandbox {
        args.push("--no-sandbox");
    }
    let run = scratch.arena(&args);
    run.assert_success();
    let said = game_log(&out, 1);
    (run, read_games_csv(&out), said)
}

#[test]
fn a_game_program_cannot_kill_the_bots() {
    let (_, open, said) = game_kills_bots(false);
    assert!(said.contains("kill-bots: killed 2 processes"), "{said}");
    // Without the box, arena cannot tell: the bot to move is charged.
    assert_eq!(&open[0]["reason"], "crash", "{:?}", open[0]);
    assert!(open[0]["forfeit_detail"].contains("killed by signal 9"), "{:?}", open[0]);
    let (run, closed, said) = game_kills_bots(true);
    assert!(said.contains("kill-bots: killed 0 processes"), "{said}");
    assert_eq!(&closed[0]["reason"], "normal", "{:?} {}", closed[0], run.stderr);
}

/// The same attacks, the bots' and the game's, fail when the arena is run
/// by an unprivileged user (uid 65534 through setpriv when the tests run
/// as root).
#[test]
fn the_game_programs_box_holds_when_the_arena_runs_as_an_unprivileged_user() {
    let place = Unprivileged::new();
    for name in ["kill-game", "answer-for-game", "read-game-output", "ptrace-game"] {
        let out = place.out(name);
        let hostile = format!("fixtures/hostile.py {name}");
        let run = place.arena(&[
            "match",
            "python3 fixtures/tinygame.py",
            &hostile,
            "python3 random_bot.py",
            "--name1",
            "hostile",
            "--name2",
            VICTIM,
            "--games",
            "1",
            "--seed",
            "8",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        run.assert_success();
        let outcome = reported_outcome(&out, name).unwrap_or_default();
        assert!(outcome.starts_with("failed"), "{name} as an unprivileged user: {outcome}");
        let rows = read_games_csv(&out);
        assert_eq!(rows.len(), 1, "{name}: {}", run.stderr);
        assert_eq!(&rows[0]["reason"], "normal", "{name}: {:?}", rows[0]);
    }
    let out = place.out("kill-bots");
    let run = place.arena(&[
        "match",
        "python3 fixtures/tinygame.py --flaw kill-bots",
        "python3 random_bot.py",
        "python3 random_bot.py",
        "--games",
        "1",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    let said = game_log(&out, 1);
    assert!(said.contains("kill-bots: killed 0 processes"), "{said}");
    assert_eq!(&read_games_csv(&out)[0]["reason"], "normal", "{}", run.stderr);
}

/// Two bots that remember (tests/fixtures/remembers.py) play a setup of
/// tinygame run with `flaw`: what each said at the start of the second game,
/// as (its hand, the other seat's hand it remembers, if it does), and the
/// two games' seeds in games.csv.
fn remembered(flaw: &str) -> (Vec<(String, Option<String>)>, [String; 2]) {
    // A fixed key: a deal of its own may give the other seat, by chance,
    // the hand a bot held before (a swapped deal gives it for any key).
    let scratch = Scratch::new().with_seed_key("a fresh deal for the second game");
    let out = scratch.out();
    let game = format!("tests/fixtures/games/tinygame.py {flaw}");
    let run = scratch.arena([
        "match",
        &game,
        "tests/fixtures/remembers.py",
        "tests/fixtures/remembers.py",
        "--games",
        "2",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    let said = ["seat1", "seat2"]
        .map(|seat| {
            let log = std::fs::read_dir(out.join("logs"))
                .expect("logs")
                .flatten()
                .map(|entry| entry.path())
                .find(|path| {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with("game-000002") && name.contains(seat)
                })
                .expect("a log of the second game");
            let text = std::fs::read_to_string(&log).expect("the log");
            let said = text
                .lines()
                .find_map(|line| line.strip_prefix("remembers: hand "))
                .unwrap_or_else(|| panic!("{}: {text}", log.display()));
            let (hand, memory) = said.split_once("; ").expect("hand; memory");
            let other = memory.strip_prefix("the other seat holds ").map(str::to_owned);
            (hand.to_owned(), other)
        })
        .into();
    let rows = read_games_csv(&out);
    (said, [rows[0]["seed"].to_owned(), rows[1]["seed"].to_owned()])
}

#[test]
fn a_game_that_deals_privately_never_deals_a_pairing_the_same_twice() {
    // Declared not random (though it deals from the seed), the game plays
    // both games of the setup from one deal: in the second each bot knows
    // the other seat's hand, its own of the first game.
    let (open, seeds) = remembered("--flaw hides-random");
    assert_eq!(seeds[0], seeds[1]);
    assert_eq!(open[0].1.as_deref(), Some(open[1].0.as_str()), "{open:?}");
    assert_eq!(open[1].1.as_deref(), Some(open[0].0.as_str()), "{open:?}");
    // Declared random: the second game has a setup of its own. The bots
    // are the same processes (each remembers its first hand), and what
    // they remember is not what the other seat holds.
    // Random, with its chance declared public: the pairs of one deal stay.
    let (_, seeds) = remembered("--flaw public-chance");
    assert_eq!(seeds[0], seeds[1]);
    let (closed, seeds) = remembered("");
    assert_ne!(seeds[0], seeds[1], "the two games of the setup share a deal");
    for (seat, (_, memory)) in closed.iter().enumerate() {
        let memory = memory.as_deref().unwrap_or_else(|| panic!("seat {seat} was restarted"));
        assert_ne!(memory, closed[1 - seat].0, "{closed:?}");
    }
}

/// A match of tinygame under seat-seed key `key`: the setup seed of its
/// game (games.csv) and the seed its program was given.
fn seeds_under(key: &str) -> (u64, u64) {
    let scratch = Scratch::new().with_seed_key(key);
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        GAME,
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "1",
        "--seed",
        "5",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    let setup = read_games_csv(&out)[0].number("seed");
    let log = game_log(&out, 1);
    let given = log
        .split_once(", seed ")
        .and_then(|(_, rest)| rest.lines().next())
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| panic!("no seed in the game's log: {log}"));
    // The transcript keeps it, to deal the game again with the program.
    let transcript = common::read_transcript(&out.join("transcripts/game-000001.jsonl"));
    assert_eq!(transcript[0]["game_program"]["seed"], given, "{}", transcript[0]);
    (setup, given)
}

#[test]
fn a_game_program_is_given_a_keyed_seed_not_the_public_one() {
    let (setup, given) = seeds_under("one key");
    // games.csv and the terminal show the setup seed: a program dealing
    // from it would deal what any bot can.
    assert_ne!(given, setup);
    let (other_setup, other_given) = seeds_under("another key");
    assert_eq!(other_setup, setup, "the setup seed is the run's, not the key's");
    assert_ne!(other_given, given, "the game's seed is the key's");
    // The same key deals the same again (a resume, a shard).
    assert_eq!(seeds_under("one key"), (setup, given));
}
