//! `arena match` as a tournament of one pairing: each setup in both seat
//! orders, resumable after Ctrl-C, `--fresh` to start over. The real
//! binary with real bot processes.

#[allow(dead_code)]
mod common;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    PYTHON_RANDOM_BOT, Row, Scratch, read_games_csv, repo_dir, rows_apart_from_timings,
    rust_random_bot,
};

/// The paced test bot: a random bot that waits `delay_ms` before each move,
/// so that a match lasts long enough to be interrupted.
fn paced_bot(delay_ms: u32) -> String {
    format!("python3 tests/fixtures/tournament/paced_bot.py --delay-ms {delay_ms}")
}

fn rust_bot() -> String {
    rust_random_bot().to_str().expect("a UTF-8 path").to_owned()
}

/// Rows of games.csv written so far.
fn rows_written(out: &Path) -> usize {
    std::fs::read_to_string(out.join("games.csv"))
        .map(|text| text.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// The games of `rows` as (seat 1, seat 2, round, seed).
fn keys(rows: &[Row]) -> BTreeSet<(String, String, u64, u64)> {
    rows.iter()
        .map(|row| {
            (
                row["seat1"].to_owned(),
                row["seat2"].to_owned(),
                row.number("round"),
                row.number("seed"),
            )
        })
        .collect()
}

/// Each setup (round) is played twice, on one seed, with the seats swapped;
/// game 2k-1 has `first` in seat 1. An odd count plays its last setup once.
fn assert_both_seat_orders(rows: &[Row], first: &str, second: &str, games: u64) {
    assert_eq!(rows.len() as u64, games);
    let mut rows: Vec<&Row> = rows.iter().collect();
    rows.sort_by_key(|row| row.number("game_index"));
    for (row, index) in rows.iter().zip(1u64..) {
        assert_eq!(row.number("game_index"), index);
        assert_eq!(row.number("round"), index.div_ceil(2), "game {index}");
        let seats = if index % 2 == 1 { [first, second] } else { [second, first] };
        assert_eq!([&row["seat1"], &row["seat2"]], seats, "game {index}");
    }
    for pair in rows.chunks(2) {
        if let [one, two] = pair {
            assert_eq!(one["seed"], two["seed"], "a setup's two games share a seed");
        }
    }
    let seeds: BTreeSet<&str> = rows.iter().map(|row| &row["seed"]).collect();
    assert_eq!(seeds.len() as u64, games.div_ceil(2), "each setup has a seed of its own");
}

#[test]
fn a_match_plays_each_setup_in_both_seat_orders() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let out_text = out.to_str().expect("UTF-8");
    let rust = rust_bot();
    let args =
        ["match", "number-snatch", PYTHON_RANDOM_BOT, &rust, "--games", "7", "--out", out_text];
    let run = scratch.arena(args);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_both_seat_orders(&rows, "random_bot", "random-bot", 7);
    // A line per game, as before.
    assert!(run.stdout.contains("game 7/7  seed "), "{}", run.stdout);
    assert!(run.stdout.contains("Summary of 7 games"), "{}", run.stdout);
    // The run's own measures, as run, sprt and gauntlet print them.
    let played = run.stdout.lines().find(|line| line.starts_with("played 7 games ("));
    assert!(
        played
            .is_some_and(|line| line.contains("arena's own CPU ") && line.contains(" us per move")),
        "{}",
        run.stdout
    );
    // The seed drawn is printed and recorded; the final files of a
    // tournament are written.
    let seed = rows[0]["seed"].to_owned();
    assert!(run.stdout.contains("(repeat with --seed "), "{}", run.stdout);
    for file in ["tournament.json", "standings.csv", "transcripts/game-000007.jsonl"] {
        assert!(out.join(file).exists(), "no {file}");
    }
    // Run again: nothing to play, the folder's seed is taken.
    let again = scratch.arena(args);
    again.assert_success();
    assert!(again.stdout.contains("nothing to play: 7 games already"), "{}", again.stdout);
    assert!(again.stdout.contains("add --fresh to play them again"), "{}", again.stdout);
    assert!(
        again.stdout.contains("(the results folder's; repeat elsewhere with --seed "),
        "{}",
        again.stdout
    );
    assert!(again.stdout.contains("Summary of 7 games"), "{}", again.stdout);
    assert_eq!(read_games_csv(&out)[0]["seed"], seed);
}

#[test]
fn an_interrupted_match_resumes_with_the_command_it_prints() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let games = 16;
    let bot = paced_bot(15);
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(repo_dir())
        .args(["match", "number-snatch", &bot, &rust_bot(), "--games", &games.to_string()])
        .args(["--out", out.to_str().expect("UTF-8"), "--name1", "paced", "--name2", "rs"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the arena starts");
    let started = Instant::now();
    while rows_written(&out) < 3 {
        assert!(started.elapsed() < Duration::from_secs(60), "no 3 games in 60 s");
        assert!(arena.try_wait().expect("polling").is_none(), "the match ended early");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: a signal to our own child, not yet reaped.
    unsafe { libc::kill(arena.id() as libc::pid_t, libc::SIGINT) };
    let interrupted = arena.wait_with_output().expect("the arena ends");
    let stdout = String::from_utf8_lossy(&interrupted.stdout);
    assert_eq!(interrupted.status.code(), Some(130), "{stdout}");
    let before = read_games_csv(&out);
    assert!(before.len() < games, "the match finished before the signal");
    assert!(
        stdout.contains(&format!("interrupted: {} of {games} games", before.len())),
        "{stdout}"
    );
    let hint = stdout
        .lines()
        .skip_while(|line| !line.contains("resume with:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no resume command: {stdout}"));
    let resume = shell_words::split(hint).expect("a command a shell can split");
    assert_eq!(resume[0], "arena");
    assert!(resume.contains(&"--seed".to_owned()), "the drawn seed is in {hint}");

    let resumed = scratch.arena(&resume[1..]);
    resumed.assert_success();
    assert!(
        resumed.stdout.contains(&format!("resuming: {} games already in games.csv", before.len())),
        "{}",
        resumed.stdout
    );
    let after = read_games_csv(&out);
    assert_both_seat_orders(&after, "paced", "rs", games as u64);
    assert!(keys(&before).is_subset(&keys(&after)), "a game of the first run was lost");
    // Rows of the first run are kept as they were, not played again.
    let first_rows: BTreeSet<String> =
        before.iter().map(|row| format!("{}{}", &row["game_index"], &row["duration_ms"])).collect();
    let kept = after
        .iter()
        .filter(|row| {
            first_rows.contains(&format!("{}{}", &row["game_index"], &row["duration_ms"]))
        })
        .count();
    assert_eq!(kept, before.len());
}

#[test]
fn fresh_starts_a_match_over_and_other_settings_are_refused_without_it() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let out_text = out.to_str().expect("UTF-8");
    let rust = rust_bot();
    let with_games = |games: &'static str| {
        vec!["match", "number-snatch", PYTHON_RANDOM_BOT, rust.as_str(), "--games", games]
            .into_iter()
            .chain(["--out", out_text, "--seed", "5"])
            .collect::<Vec<_>>()
    };
    scratch.arena(with_games("4")).assert_success();
    std::fs::write(out.join("notes.txt"), "mine").expect("a user's file");

    // Fewer games would leave some out: refused.
    let refused = scratch.arena(with_games("2"));
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(refused.stderr.contains("--fresh"), "{}", refused.stderr);
    assert_eq!(read_games_csv(&out).len(), 4, "a refused run changed games.csv");
    // More games only add to them.
    let more = scratch.arena(with_games("6"));
    more.assert_success();
    assert!(more.stdout.contains("resuming: 4 games already in games.csv, 2 to play"), "{more:?}");
    assert_eq!(read_games_csv(&out).len(), 6);

    let mut fresh = with_games("6");
    fresh.push("--fresh");
    let run = scratch.arena(&fresh);
    run.assert_success();
    assert!(run.stderr.contains("--fresh: discarding the 6 games"), "{}", run.stderr);
    assert!(!run.stdout.contains("resuming"), "{}", run.stdout);
    assert_both_seat_orders(&read_games_csv(&out), "random_bot", "random-bot", 6);
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).expect("kept"), "mine");
}

/// A folder whose games.csv has no tournament.json beside it (as the
/// matches of earlier arenas left them) is refused, with and without
/// --fresh: arena cannot tell what it holds, so it changes nothing.
#[test]
fn a_folder_arena_cannot_place_is_left_alone() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let rust = rust_bot();
    let args = ["match", "number-snatch", &rust, &rust, "--out", out.to_str().expect("UTF-8")];
    scratch.arena(args).assert_success();
    std::fs::remove_file(out.join("tournament.json")).expect("removing tournament.json");
    let games = std::fs::read_to_string(out.join("games.csv")).expect("a games.csv");
    for fresh in [None, Some("--fresh")] {
        let run = scratch.arena(args.iter().copied().chain(fresh));
        assert_eq!(run.status.code(), Some(2), "{run:?}");
        assert!(run.stderr.contains("no tournament.json"), "{}", run.stderr);
        assert_eq!(std::fs::read_to_string(out.join("games.csv")).expect("kept"), games);
    }
}

/// A kit's `bot` launcher runs what its `build.sh` made: after a rebuild
/// the launcher is the same file, but the bot is not, so the match plays
/// again. A launcher without `build.sh` beside it is known by its own file
/// only, and the same folder change leaves nothing to play.
#[test]
fn a_rebuilt_kit_bot_is_a_new_version() {
    for kit in [true, false] {
        let scratch = Scratch::new();
        let folder = scratch.out().with_file_name("mykit");
        std::fs::create_dir_all(folder.join("build")).expect("a kit folder");
        let launcher = folder.join("bot");
        std::fs::write(&launcher, "#!/bin/sh\nexec python3 \"$(dirname \"$0\")/build/bot.py\"\n")
            .expect("the launcher");
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        if kit {
            std::fs::write(folder.join("build.sh"), "#!/bin/sh\n").expect("build.sh");
        }
        let build = |number: &str| {
            let bot = std::fs::read_to_string(repo_dir().join("bots/python/random_bot.py"))
                .expect("the Python kit's bot");
            // A rebuild: the same bot, with a comment that differs.
            std::fs::write(folder.join("build/bot.py"), format!("{bot}\n# build {number}\n"))
                .expect("the built bot");
        };
        let out = scratch.out();
        let args = [
            "match",
            "number-snatch",
            launcher.to_str().expect("UTF-8"),
            &rust_bot(),
            "--games",
            "2",
            "--out",
            out.to_str().expect("UTF-8"),
        ];
        build("1");
        scratch.arena(args).assert_success();
        build("2");
        let again = scratch.arena(args);
        again.assert_success();
        assert_eq!(again.stdout.contains("nothing to play"), !kit, "kit {kit}: {}", again.stdout);
    }
}

#[test]
fn the_repeat_hint_a_match_prints_repeats_it_in_another_folder() {
    let scratch = Scratch::new();
    let [first, second, third] = ["r1", "r2", "r3"].map(|name| scratch.out().join(name));
    let base = ["match", "number-snatch", PYTHON_RANDOM_BOT, PYTHON_RANDOM_BOT, "--games", "4"];
    let run = scratch.arena(base.into_iter().chain(["--out", first.to_str().unwrap()]));
    run.assert_success();
    let hint = run
        .stdout
        .split("(repeat with ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("a repeat hint: {}", run.stdout))
        .to_owned();
    assert!(hint.contains("--seed-key-file "), "the hint names the key: {hint}");
    let words = shell_words::split(&hint).expect("flags");
    let again = scratch.arena(
        base.iter()
            .map(|word| word.to_string())
            .chain(words.iter().cloned())
            .chain(["--out".to_owned(), second.to_str().unwrap().to_owned()]),
    );
    again.assert_success();
    assert_eq!(rows_apart_from_timings(&second, &[]), rows_apart_from_timings(&first, &[]));
    // The seed alone, as the hint once said, gives the seat seeds another
    // key: the bots, which seed their generators from them, play others.
    let seed_only: Vec<String> = words.iter().take(2).cloned().collect();
    assert_eq!(seed_only[0], "--seed");
    let other = scratch.arena(
        base.iter()
            .map(|word| word.to_string())
            .chain(seed_only)
            .chain(["--out".to_owned(), third.to_str().unwrap().to_owned()]),
    );
    other.assert_success();
    assert_ne!(rows_apart_from_timings(&third, &[]), rows_apart_from_timings(&first, &[]));
}

/// `--quiet` and `--json` work on a match as on every tournament command:
/// quiet prints nothing on stdout; JSON is a `run` object (with the seat
/// seeds' key), an event per game and a `complete` object, nothing else.
/// A gauntlet and an SPRT print nothing when quiet either.
#[test]
fn a_match_is_quiet_or_json_as_a_run_is() {
    let scratch = Scratch::new();
    let rust = rust_bot();
    let out = scratch.out();
    let out_text = out.to_str().expect("UTF-8");
    let quiet = scratch.arena([
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        &rust,
        "--games",
        "4",
        "--out",
        out_text,
        "--quiet",
    ]);
    quiet.assert_success();
    assert_eq!(quiet.stdout, "", "--quiet printed");
    assert_eq!(read_games_csv(&out).len(), 4);

    let json_out = scratch.out().with_file_name("json");
    let json = scratch.arena([
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        &rust,
        "--games",
        "4",
        "--out",
        json_out.to_str().expect("UTF-8"),
        "--json",
    ]);
    json.assert_success();
    let events: Vec<serde_json::Value> = json
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let types: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"run"), "{types:?}");
    assert_eq!(types.last(), Some(&"complete"), "{types:?}");
    assert_eq!(types.iter().filter(|kind| **kind == "game_finished").count(), 4, "{types:?}");
    let run = &events[0];
    assert_eq!(run["games"], 4);
    assert_eq!(run["bots"], serde_json::json!(["random_bot", "random-bot"]));
    assert!(run["seed_key"].as_str().is_some_and(|key| key.len() >= 16), "{run}");
    assert_eq!(run["game"], "number-snatch");

    let gauntlet = scratch.arena([
        "gauntlet",
        "--game",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        &rust,
        "--games",
        "2",
        "--out",
        scratch.out().with_file_name("gauntlet").to_str().expect("UTF-8"),
        "--quiet",
    ]);
    gauntlet.assert_success();
    assert_eq!(gauntlet.stdout, "", "a quiet gauntlet printed");
    let sprt = scratch.arena([
        "sprt",
        PYTHON_RANDOM_BOT,
        &rust,
        "--game",
        "number-snatch",
        "--max-games",
        "4",
        "--out",
        scratch.out().with_file_name("sprt").to_str().expect("UTF-8"),
        "--quiet",
    ]);
    assert_eq!(sprt.stdout, "", "a quiet SPRT printed");
    assert_eq!(sprt.status.code(), Some(4), "no decision in 4 games: {}", sprt.stderr);
}
