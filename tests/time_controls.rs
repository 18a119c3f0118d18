//! Time controls against real processes: a game clock with its bank and
//! increment, a handicap for one bot of a tournament, the margin for loaded
//! machines, and no limit at all. The slow bot is
//! tests/fixtures/spends_time.py, which sleeps a fixed time before every
//! move and writes what each request told it to stderr.
//!
//! Every outcome here rests on margins of several times, never on a
//! measured duration: a bot that must lose needs more than its time even
//! with no load at all (its sleeps alone add up past it), and a bot that
//! must survive needs a small part of what it has.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{PYTHON_RANDOM_BOT, Row, Scratch, fixture, read_games_csv, transcript_of};
use serde_json::Value;

/// The slow bot, sleeping `think_ms` before each move.
fn slow_bot(think_ms: u32) -> String {
    format!("python3 {} --think-ms {think_ms}", fixture("spends_time.py"))
}

/// Two games of Number Snatch (5 moves per seat each) between the slow bot
/// (named `slow`) and the Python random bot, with `time_args`.
fn match_against_random(scratch: &Scratch, think_ms: u32, time_args: &[&str]) -> Vec<Row> {
    let out = scratch.out();
    let slow = slow_bot(think_ms);
    let mut args = vec![
        "match",
        "number-snatch",
        slow.as_str(),
        PYTHON_RANDOM_BOT,
        "--games",
        "2",
        "--seed",
        "5",
        "--name1",
        "slow",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ];
    args.extend_from_slice(time_args);
    let run = scratch.arena(&args);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    rows
}

/// Fails unless every game of `rows` ended on the board.
fn assert_played_out(rows: &[Row]) {
    for row in rows {
        assert_eq!(
            &row["reason"], "normal",
            "game {}: {}",
            &row["game_index"], &row["forfeit_detail"]
        );
    }
}

/// The `move` requests sent to the seat of `bot` in the game of `row`.
fn move_requests(out: &Path, row: &Row, bot: &str) -> Vec<Value> {
    let seat: u64 = if &row["seat1"] == bot { 1 } else { 2 };
    transcript_of(out, row)
        .into_iter()
        .filter(|line| line["type"] == "send" && line["seat"] == seat)
        .map(|line| line["msg"].clone())
        .filter(|msg| msg["type"] == "move")
        .collect()
}

/// The lines the slow bot wrote to its stderr in game `game` (`move
/// time_ms=... bank_ms=...`), from its logs.
fn told_to_slow_bot(out: &Path, game: u64) -> Vec<String> {
    let logs = std::fs::read_dir(out.join("logs")).expect("a logs folder");
    let prefix = format!("game-{game:06}-");
    let log = logs
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            name.starts_with(&prefix) && name.ends_with("-slow.log")
        })
        .unwrap_or_else(|| panic!("no log of the slow bot for game {game}"));
    let text = std::fs::read_to_string(log).expect("a readable log");
    text.lines().filter(|line| !line.starts_with("arena-test-pid")).map(str::to_owned).collect()
}

#[test]
fn a_bot_that_spends_its_bank_loses_on_time_under_a_clock_but_not_per_move() {
    // Five moves of 100 ms each are 500 ms: more than a 400 ms bank, and a
    // twentieth of a 2 s limit per move.
    let scratch = Scratch::new();
    let rows = match_against_random(&scratch, 100, &["--bank", "400ms"]);
    for row in &rows {
        let game = &row["game_index"];
        assert_eq!(&row["reason"], "timeout", "game {game}: {}", &row["forfeit_detail"]);
        assert_eq!(&row["forfeiter"], "slow", "game {game}");
        assert_eq!(&row["winner"], "random_bot", "game {game}");
        let detail = &row["forfeit_detail"];
        assert!(detail.contains("the bank of 400ms used up on move "), "game {game}: {detail}");
        // The bank ran down by what each move took, and the bot was told.
        let banks: Vec<u64> = move_requests(&scratch.out(), row, "slow")
            .iter()
            .map(|request| request["bank_ms"].as_u64().expect("a bank under a clock"))
            .collect();
        assert_eq!(banks[0], 400, "game {game}");
        assert!(banks.windows(2).all(|pair| pair[1] < pair[0]), "game {game}: {banks:?}");
    }
    let told = told_to_slow_bot(&scratch.out(), 1);
    assert_eq!(told[0], "start move_ms=400 bank_ms=400 increment_ms=0");
    assert_eq!(told[1], "move time_ms=400 bank_ms=400");

    let per_move = Scratch::new();
    let rows = match_against_random(&per_move, 100, &["--move-timeout", "2s"]);
    assert_played_out(&rows);
    let told = told_to_slow_bot(&per_move.out(), 1);
    assert_eq!(told[0], "start move_ms=2000 bank_ms=- increment_ms=-");
    assert!(told[1..].iter().all(|line| line == "move time_ms=2000 bank_ms=-"), "{told:?}");
}

#[test]
fn an_increment_keeps_a_slow_bot_alive_and_the_replay_shows_its_bank() {
    // 100 ms a move against 1 s added after each: the bank grows.
    let scratch = Scratch::new();
    let rows = match_against_random(&scratch, 100, &["--bank", "400ms", "--increment", "1s"]);
    assert_played_out(&rows);
    let banks: Vec<u64> = move_requests(&scratch.out(), &rows[0], "slow")
        .iter()
        .map(|request| request["bank_ms"].as_u64().expect("a bank under a clock"))
        .collect();
    assert_eq!(banks.len(), 5);
    assert!(banks.windows(2).all(|pair| pair[1] > pair[0]), "{banks:?}");

    let transcript = scratch.out().join(&rows[0]["transcript"]);
    let replay = scratch.arena(["replay", transcript.to_str().expect("UTF-8")]);
    replay.assert_success();
    let lines: Vec<&str> = replay.stdout.lines().collect();
    assert!(lines.contains(&"Time: clock 400ms + 1s per move"), "{}", replay.stdout);
    let clock_lines: Vec<&&str> =
        lines.iter().filter(|line| line.starts_with("Player 1's clock: ")).collect();
    assert_eq!(clock_lines.len(), 5, "one per move of the slow bot:\n{}", replay.stdout);
    assert!(clock_lines.iter().all(|line| line.contains(" left (thought ")), "{clock_lines:?}");
}

#[test]
fn the_margin_lets_a_bot_overshoot_but_it_is_told_its_own_time() {
    // 300 ms a move: always over a 200 ms limit, well within 200 ms and a
    // 2 s margin.
    let without = Scratch::new();
    let rows = match_against_random(&without, 300, &["--move-timeout", "200ms"]);
    assert!(rows.iter().all(|row| &row["reason"] == "timeout" && &row["forfeiter"] == "slow"));

    let with = Scratch::new();
    let rows = match_against_random(&with, 300, &["--move-timeout", "200ms", "--margin", "2s"]);
    assert_played_out(&rows);
    for game in [1, 2] {
        let told = told_to_slow_bot(&with.out(), game);
        assert_eq!(told[0], "start move_ms=200 bank_ms=- increment_ms=-", "game {game}");
        assert_eq!(told.len(), 6, "a start and five moves: {told:?}");
        assert!(told[1..].iter().all(|line| line == "move time_ms=200 bank_ms=-"), "{told:?}");
    }
    let header = &transcript_of(&with.out(), &rows[0])[0];
    assert_eq!(header["time_margin_ms"], 2000);
}

#[test]
fn no_time_limit_lets_a_slow_bot_finish_and_check_skip_the_time_item() {
    let limited = Scratch::new();
    let rows = match_against_random(&limited, 300, &["--move-timeout", "100ms"]);
    assert!(rows.iter().all(|row| &row["reason"] == "timeout"));

    let unlimited = Scratch::new();
    let rows =
        match_against_random(&unlimited, 300, &["--move-timeout", "100ms", "--no-time-limit"]);
    assert_played_out(&rows);
    let told = told_to_slow_bot(&unlimited.out(), 1);
    assert!(told[1..].iter().all(|line| line == "move time_ms=100 bank_ms=-"), "{told:?}");

    let check = Scratch::new().arena([
        "check",
        "--game",
        "number-snatch",
        "--games",
        "2",
        "--move-timeout",
        "100ms",
        "--no-time-limit",
        &slow_bot(300),
    ]);
    check.assert_success();
    assert!(
        check.stdout.contains("SKIP  takes its time: slowest move")
            && check.stdout.contains("--no-time-limit"),
        "{}",
        check.stdout
    );
}

/// A tournament file in `scratch` of two slow bots thinking 100 ms a move,
/// under a 10 s clock, the second one with `handicap` in its table.
fn handicap_file(scratch: &Scratch, handicap: &str) -> std::path::PathBuf {
    let file = scratch.out().with_file_name("clock.toml");
    let script = common::repo_dir().join("tests/fixtures/spends_time.py");
    let script = script.to_str().expect("UTF-8");
    let text = format!(
        "game = \"number-snatch\"\ngames_per_pair = 2\nbank = \"10s\"\nincrement = \"100ms\"\nout = \"out\"\n\n\
         [[bot]]\nname = \"fair\"\ncommand = [\"python3\", {script:?}, \"--think-ms\", \"100\"]\n\n\
         [[bot]]\nname = \"handicapped\"\ncommand = [\"python3\", {script:?}, \"--think-ms\", \"100\"]\n{handicap}\n"
    );
    std::fs::write(&file, text).expect("a tournament file");
    file
}

#[test]
fn a_handicap_makes_only_that_bot_lose_on_time_and_a_resume_keeps_the_time_settings() {
    let scratch = Scratch::new();
    // 500 ms of sleeps a game against a 300 ms bank and no increment; the
    // other bot has 10 s and 100 ms a move.
    let file = handicap_file(&scratch, "bank = \"300ms\"\nincrement = \"0s\"");
    let file = file.to_str().expect("UTF-8");
    let run = scratch.arena(["run", file, "--quiet"]);
    run.assert_success();
    let rows = read_games_csv(&scratch.out());
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(&row["reason"], "timeout", "{}", &row["forfeit_detail"]);
        assert_eq!(&row["forfeiter"], "handicapped");
        assert_eq!(&row["winner"], "fair");
        assert!(
            row["forfeit_detail"].contains("the bank of 300ms used up"),
            "{}",
            &row["forfeit_detail"]
        );
        let header = &transcript_of(&scratch.out(), row)[0];
        let handicapped_seat = if &row["seat1"] == "handicapped" { 0 } else { 1 };
        let controls = &header["time_controls"];
        assert_eq!(controls[handicapped_seat]["bank_ms"], 300, "{header}");
        assert_eq!(controls[1 - handicapped_seat]["bank_ms"], 10_000, "{header}");
    }
    let recorded: Value = serde_json::from_str(
        &std::fs::read_to_string(scratch.out().join("tournament.json")).expect("tournament.json"),
    )
    .expect("JSON");
    assert_eq!(recorded["clock"]["bank_ms"], 10_000, "{recorded}");
    assert_eq!(recorded["bots"][1]["time_control"]["bank_ms"], 300, "{recorded}");

    // Other time settings make another tournament: refused, named.
    for (flags, said) in [
        (
            &["--bank", "20s"][..],
            "time control was clock 10s + 100ms per move, now clock 20s + 100ms per move",
        ),
        (&["--margin", "50ms"][..], "time_margin was 0ms, now 50ms"),
        (&["--no-time-limit"][..], "time limit was on, now off (--no-time-limit)"),
    ] {
        let mut args = vec!["run", file];
        args.extend_from_slice(flags);
        let refused = scratch.arena(&args);
        assert_eq!(refused.status.code(), Some(2), "{flags:?}: {}", refused.stderr);
        assert!(refused.stderr.contains(said), "{flags:?}: {}", refused.stderr);
    }

    // Without limits (a fresh start), the handicapped bot plays its games out.
    let unlimited = scratch.arena(["run", file, "--fresh", "--no-time-limit"]);
    unlimited.assert_success();
    assert!(
        unlimited.stdout.contains(
            "time: clock 10s + 100ms per move; bot `handicapped`: clock 300ms; no time limit"
        ),
        "{}",
        unlimited.stdout
    );
    assert_played_out(&read_games_csv(&scratch.out()));
}
