//! Faults and bad input: a bad value is refused before anything runs, with
//! the file, line and key; a closed output is not a crash.

#[allow(dead_code)]
mod common;

use std::fs::File;
use std::process::{Command, Stdio};

use common::{Scratch, read_games_csv, repo_dir};

/// A tournament file that runs; each case below changes one line of it.
fn good_file(scratch: &Scratch) -> String {
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    format!(
        "game = \"number-snatch\"\ngames_per_pair = 4\nmove_timeout = \"1s\"\nconcurrency = 1\nout = {out:?}\n\n[[bot]]\nname = \"a\"\ncommand = [{bot:?}, \"--quiet\"]\n\n[[bot]]\nname = \"b\"\ncommand = [{bot:?}, \"--quiet\"]\n",
        out = scratch.out().to_str().expect("UTF-8"),
    )
}

#[test]
fn bad_values_are_refused_with_the_file_line_and_key() {
    // (line to replace, its replacement, words the message must hold)
    let cases: [(&str, &str, &str); 15] = [
        (
            "\n\n[[bot]]\nname = \"a\"",
            "\n[params]\ncount = \"x\"\n\n[[bot]]\nname = \"a\"",
            "t.toml:7:9: params: parameter `count` of number-snatch: expected a whole number, got \"x\"",
        ),
        ("name = \"b\"", "name = \"b\"\nenv = { \"X=Y\" = \"1\" }", "env key `X=Y`"),
        ("name = \"b\"", "name = \"b\"\nenv = { \"\" = \"1\" }", "env key ``"),
        ("move_timeout = \"1s\"", "move_timeout = \"500000000000y\"", "move_timeout"),
        ("move_timeout = \"1s\"", "move_timeout = \"25h\"", "longest time limit, 24h"),
        ("concurrency = 1", "concurrency = 10000", "concurrency must be at most 256"),
        ("games_per_pair = 4", "games_per_pair = 200000000", "games_per_pair must be at most"),
        (
            "concurrency = 1",
            "max_line_bytes = 9223372036854775807",
            "max_line_bytes must be from 64",
        ),
        ("concurrency = 1", "cpu_limit = \"forever\"", "cpu_limit"),
        ("concurrency = 1", "memory_limit = \"lots\"", "memory_limit"),
        ("concurrency = 1", "sandbox = \"maybe\"", "sandbox must be true, false or \"required\""),
        ("name = \"a\"", "name = \"a\\nb\"", "control characters"),
        ("name = \"a\"", "name = \"=HYPERLINK(1)\"", "formulas"),
        ("name = \"a\"", "name = \"a/b\"", "file names"),
        ("concurrency = 1", "read_paths = [\"no-such-folder\"]", "read_paths"),
    ];
    for (line, replacement, words) in cases {
        let scratch = Scratch::new();
        let text = good_file(&scratch);
        assert!(text.contains(line), "{line}");
        let file = scratch.out().with_file_name("t.toml");
        std::fs::write(&file, text.replacen(line, replacement, 1)).expect("a tournament file");
        let run = scratch.arena(["run", file.to_str().expect("UTF-8")]);
        assert_eq!(run.status.code(), Some(2), "{replacement}: {run:?}");
        let message = run.stderr.trim();
        assert!(message.contains("t.toml:") && message.contains(words), "{replacement}: {message}");
        assert_eq!(message.lines().count(), 1, "{replacement}: said more than once: {message}");
        assert!(!scratch.out().exists(), "{replacement}: the results folder was made");
    }
}

/// A script without a #! line is refused before any game (it would fail at
/// exec), with a hint, as input to correct.
#[test]
fn a_script_without_a_shebang_is_refused_with_a_hint() {
    let scratch = Scratch::new();
    let script = scratch.out().with_file_name("bot.py");
    std::fs::write(&script, "print('no #! line')\n").expect("a script");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let text = good_file(&scratch);
    let file = scratch.out().with_file_name("t.toml");
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let text = text.replacen(
        &format!("[{bot:?}, \"--quiet\"]"),
        &format!("[{:?}]", script.to_str().expect("UTF-8")),
        1,
    );
    std::fs::write(&file, text).expect("a tournament file");
    let run = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(run.stderr.contains("#!") && run.stderr.contains("python3"), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(!scratch.out().exists());
}

/// `arena run … > /dev/full` (or a closed pipe): no panic; the run stops
/// as on Ctrl-C with status 141, and a rerun finishes it.
#[test]
fn a_closed_output_stops_the_run_quietly_and_it_resumes() {
    let scratch = Scratch::new();
    let file = scratch.out().with_file_name("t.toml");
    std::fs::write(&file, good_file(&scratch)).expect("a tournament file");
    let full = File::options().write(true).open("/dev/full").expect("/dev/full");
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(repo_dir())
        .args(["run", file.to_str().expect("UTF-8")])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .expect("the arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let rerun = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    rerun.assert_success();
    assert_eq!(read_games_csv(&scratch.out()).len(), 4);
}

/// A tournament file for the Python bot that paces itself: `delay_ms` per
/// move, so a run lasts long enough to be caught in the middle.
fn paced_file(scratch: &Scratch, delay_ms: u32, games_per_pair: u32) -> std::path::PathBuf {
    let paced = repo_dir().join("tests/fixtures/tournament/paced_bot.py");
    let paced = paced.to_str().expect("UTF-8");
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let text = format!(
        "game = \"number-snatch\"\ngames_per_pair = {games_per_pair}\nmove_timeout = \"10s\"\nout = {out:?}\n\n[[bot]]\nname = \"slow\"\ncommand = [\"python3\", {paced:?}, \"--delay-ms\", \"{delay_ms}\"]\n\n[[bot]]\nname = \"b\"\ncommand = [{bot:?}, \"--quiet\"]\n",
        out = scratch.out().to_str().expect("UTF-8"),
    );
    let file = scratch.out().with_file_name("t.toml");
    std::fs::write(&file, text).expect("a tournament file");
    file
}

/// Waits until `condition` holds, for at most 30 seconds.
fn wait_until(condition: impl Fn() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !condition() {
        assert!(std::time::Instant::now() < deadline, "waited 30 s for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Starts the arena in the background, its standard output discarded and
/// its standard error sent to `stderr`.
fn start_arena<S: AsRef<std::ffi::OsStr>>(args: &[S], stderr: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(repo_dir())
        .args(args)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("the arena starts")
}

#[test]
fn a_results_folder_has_one_writer_at_a_time() {
    let scratch = Scratch::new();
    let file = paced_file(&scratch, 50, 40);
    let mut first = start_arena(&["run", file.to_str().expect("UTF-8")], Stdio::null());
    let lock = scratch.out().join(".arena.lock");
    let pid = first.id().to_string();
    wait_until(|| std::fs::read_to_string(&lock).is_ok_and(|text| text == pid), "the lock");
    let second = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(second.status.code(), Some(2), "{second:?}");
    assert!(
        second.stderr.contains(&format!("in use by another arena (pid {pid})")),
        "{}",
        second.stderr
    );
}

/// A run stopped before its first game is recorded leaves no tournament.json,
/// so the command may change before the rerun.
#[test]
fn the_settings_are_recorded_with_the_first_game() {
    let scratch = Scratch::new();
    let file = paced_file(&scratch, 3000, 2);
    let mut first = start_arena(&["run", file.to_str().expect("UTF-8")], Stdio::null());
    let lock = scratch.out().join(".arena.lock");
    wait_until(|| lock.exists(), "the run to start");
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: a signal to the child just started.
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    let status = first.wait().expect("the arena ends");
    assert_eq!(status.code(), Some(130));
    assert!(!scratch.out().join("tournament.json").exists());
    // The slow bot's command changes: the folder takes it.
    let faster = paced_file(&scratch, 1, 2);
    let rerun = scratch.arena(["run", faster.to_str().expect("UTF-8")]);
    rerun.assert_success();
    assert_eq!(read_games_csv(&scratch.out()).len(), 2);
    assert!(scratch.out().join("tournament.json").exists());
}

#[test]
fn fresh_removes_only_what_arena_wrote() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let file = out.with_file_name("t.toml");
    std::fs::write(&file, good_file(&scratch)).expect("a tournament file");
    scratch.arena(["run", file.to_str().expect("UTF-8")]).assert_success();
    for mine in ["notes.txt", "transcripts/keep.jsonl", "logs/readme.md"] {
        std::fs::create_dir_all(out.join(mine).parent().unwrap()).expect("a folder");
        std::fs::write(out.join(mine), "mine").expect("a user's file");
    }
    scratch.arena(["run", file.to_str().expect("UTF-8"), "--fresh"]).assert_success();
    for mine in ["notes.txt", "transcripts/keep.jsonl", "logs/readme.md"] {
        assert!(out.join(mine).exists(), "--fresh removed {mine}");
    }
    assert_eq!(read_games_csv(&out).len(), 4);

    // A folder whose games.csv arena did not write is left alone.
    let foreign = Scratch::new();
    std::fs::create_dir_all(foreign.out()).expect("a folder");
    std::fs::copy(out.join("games.csv"), foreign.out().join("games.csv")).expect("a games.csv");
    let file = foreign.out().with_file_name("t.toml");
    std::fs::write(&file, good_file(&foreign)).expect("a tournament file");
    let run = foreign.arena(["run", file.to_str().expect("UTF-8"), "--fresh"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(run.stderr.contains("leaves it alone"), "{}", run.stderr);
    assert_eq!(read_games_csv(&foreign.out()).len(), 4);
}

/// Every signal that ends arena (INT, TERM, HUP, QUIT, USR1), in every
/// command that runs bots: exit status 130 and no bot process left.
#[test]
fn every_ending_signal_ends_the_bots_too() {
    let cases: [(libc::c_int, &str); 5] = [
        (libc::SIGHUP, "run"),
        (libc::SIGUSR1, "match"),
        (libc::SIGQUIT, "check"),
        (libc::SIGTERM, "check"),
        (libc::SIGINT, "match"),
    ];
    for (signal, command) in cases {
        let scratch = Scratch::new();
        let out = scratch.out();
        let out_text = out.to_str().expect("UTF-8");
        let slow = "tests/fixtures/hostile.py slow";
        let file = out.with_file_name("t.toml");
        let args: Vec<String> = match command {
            "run" => {
                let text = good_file(&scratch).replacen(
                    &format!(
                        "[{:?}, \"--quiet\"]",
                        common::rust_random_bot().to_str().expect("UTF-8")
                    ),
                    &format!("[{:?}, \"slow\"]", repo_dir().join("tests/fixtures/hostile.py")),
                    1,
                );
                std::fs::write(&file, text).expect("a file");
                vec!["run".into(), file.to_str().expect("UTF-8").into()]
            }
            "match" => [
                "match",
                "number-snatch",
                slow,
                common::PYTHON_RANDOM_BOT,
                "--games",
                "10",
                "--out",
                out_text,
            ]
            .map(String::from)
            .to_vec(),
            _ => ["check", "--out", out_text, slow].map(String::from).to_vec(),
        };
        let mut arena = start_arena(&args, Stdio::null());
        // Caught in the middle of a game: the slow bot has started.
        wait_until(
            || !common::recorded_pids(&out).is_empty(),
            &format!("the slow bot to start in {} ({args:?})", out.display()),
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
        // SAFETY: a signal to the child just started.
        unsafe { libc::kill(arena.id() as i32, signal) };
        let status = arena.wait().expect("the arena ends");
        assert_eq!(status.code(), Some(130), "signal {signal} to {command}");
        scratch.assert_fixture_processes_gone();
    }
}

/// `arena replay` refuses a transcript of another protocol, and neither it
/// nor `arena run` reads an endless file forever.
#[test]
fn replay_refuses_other_protocols_and_input_is_bounded() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let out_text = out.to_str().expect("UTF-8");
    let run =
        scratch.arena(["match", "number-snatch", &bot, &bot, "--games", "1", "--out", out_text]);
    run.assert_success();
    let transcript =
        std::fs::read_to_string(out.join("transcripts/game-000001.jsonl")).expect("a transcript");
    assert!(transcript.contains("\"protocol\":1,"));
    for (protocol, said) in [
        ("\"protocol\":2,", "protocol 2"),
        ("\"protocol\":\"x\",", "protocol \"x\""),
        ("", "no protocol"),
    ] {
        let changed = out.with_file_name("changed.jsonl");
        std::fs::write(&changed, transcript.replacen("\"protocol\":1,", protocol, 1))
            .expect("a file");
        let run = scratch.arena(["replay", changed.to_str().expect("UTF-8")]);
        assert_eq!(run.status.code(), Some(2), "{protocol}: {run:?}");
        assert!(run.stderr.contains(said) && run.stderr.contains("protocol 1"), "{}", run.stderr);
    }
    for args in [["replay", "/dev/zero"], ["run", "/dev/zero"]] {
        let run = scratch.arena(args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {run:?}");
        assert!(run.stderr.contains("larger than"), "{}", run.stderr);
    }
}

/// An unwritable --markdown path is refused before the first game.
#[test]
fn an_unwritable_markdown_path_is_refused_before_any_game() {
    let scratch = Scratch::new();
    let file = scratch.out().with_file_name("t.toml");
    std::fs::write(&file, good_file(&scratch)).expect("a tournament file");
    for markdown in ["/no/such/folder/standings.md", "/proc/standings.md", "/tmp"] {
        let run = scratch.arena(["run", file.to_str().expect("UTF-8"), "--markdown", markdown]);
        assert_eq!(run.status.code(), Some(2), "{markdown}: {run:?}");
        assert!(run.stderr.contains("--markdown"), "{}", run.stderr);
        assert!(!scratch.out().join("games.csv").exists(), "{markdown}: a game was played");
    }
}

/// A repeated or altered row of games.csv is never counted: it is set aside
/// with a warning, and the standings stay those of the real games.
#[test]
fn repeated_or_altered_rows_are_set_aside_not_counted() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let file = out.with_file_name("t.toml");
    std::fs::write(&file, good_file(&scratch)).expect("a tournament file");
    scratch.arena(["run", file.to_str().expect("UTF-8")]).assert_success();
    let games = out.join("games.csv");
    let text = std::fs::read_to_string(&games).expect("games.csv");
    let first_row = text.lines().nth(1).expect("a row").to_owned();
    let seed = read_games_csv(&out)[0]["seed"].to_owned();
    let altered = first_row.replacen(&seed, "12345", 1);
    std::fs::write(&games, format!("{text}{first_row}\n{altered}\n")).expect("games.csv");
    let rerun = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    rerun.assert_success();
    assert!(
        rerun.stderr.contains("2 rows") && rerun.stderr.contains("set-aside.csv"),
        "{}",
        rerun.stderr
    );
    assert_eq!(read_games_csv(&out).len(), 4);
    let aside = std::fs::read_to_string(out.join("set-aside.csv")).expect("set-aside.csv");
    assert_eq!(aside.lines().count(), 3, "{aside}");
    let standings = std::fs::read_to_string(out.join("standings.csv")).expect("standings.csv");
    for line in standings.lines().skip(1) {
        assert_eq!(line.split(',').nth(2), Some("4"), "games per bot: {line}");
    }
}

/// A result that cannot be written stops the run, naming the path; a game
/// whose transcript was not kept is not recorded (its row follows its
/// transcript to disk), and a rerun plays it.
#[test]
fn a_result_that_cannot_be_written_stops_the_run() {
    for broken in ["the transcript archive", "the results folder"] {
        let scratch = Scratch::new();
        let out = scratch.out();
        let file = paced_file(&scratch, 30, 40);
        if broken == "the transcript archive" {
            // A full disk under the archive: /dev/full refuses every write.
            std::fs::create_dir_all(&out).expect("the results folder");
            std::os::unix::fs::symlink("/dev/full", out.join("transcripts.archive"))
                .expect("a link to /dev/full");
        }
        let arena = start_arena(&["run", file.to_str().expect("UTF-8")], Stdio::piped());
        if broken == "the results folder" {
            let games = out.join("games.csv");
            wait_until(
                || std::fs::read_to_string(&games).is_ok_and(|text| text.lines().count() > 2),
                "two games",
            );
            std::fs::remove_dir_all(&out).expect("removing the results folder");
        }
        let output = arena.wait_with_output().expect("the arena ends");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{broken}: {stderr}");
        assert!(
            stderr.contains(out.to_str().expect("UTF-8")),
            "{broken}: the path is not named: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        if broken == "the transcript archive" {
            let rows = read_games_csv(&out);
            assert!(rows.is_empty(), "{broken}: rows stand without their transcripts: {rows:?}");
            std::fs::remove_file(out.join("transcripts.archive")).expect("the link");
            let rerun = scratch.arena(["run", file.to_str().expect("UTF-8")]);
            rerun.assert_success();
            assert!(!rerun.stderr.contains("set aside"), "{}", rerun.stderr);
            let rows = read_games_csv(&out);
            assert_eq!(rows.len(), 40);
            for row in &rows {
                let transcript = common::transcript_of(&out, row);
                assert_eq!(transcript.last().unwrap()["type"], "result");
            }
        }
    }
}

/// `arena merge` fails on a missing, incomplete, torn, foreign or
/// conflicting shard (the first three pass with --partial), and a failed
/// merge leaves no output folder.
#[test]
fn merge_refuses_what_does_not_make_a_whole_tournament() {
    let scratch = Scratch::new().with_seed_key("merge tests");
    let base = scratch.out().with_file_name("shards");
    let file = base.with_file_name("t.toml");
    std::fs::write(&file, good_file(&scratch)).expect("a tournament file");
    let shard = |number: u32, seed: u32| {
        let out = base.join(format!("seed{seed}-{number}"));
        let text = good_file(&scratch)
            .replace("games_per_pair", &format!("seed = {seed}\ngames_per_pair"));
        let file = base.join(format!("t{seed}.toml"));
        std::fs::create_dir_all(&base).expect("a folder");
        std::fs::write(&file, text).expect("a tournament file");
        let run = scratch.arena([
            "run",
            file.to_str().expect("UTF-8"),
            "--shard",
            &format!("{number}/2"),
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        run.assert_success();
        out.to_str().expect("UTF-8").to_owned()
    };
    let [one, two] = [shard(1, 1), shard(2, 1)];
    let merged = base.join("merged");
    let merged_text = merged.to_str().expect("UTF-8");
    let merge = |shards: &[&str], partial: bool| {
        let _ = std::fs::remove_dir_all(&merged);
        let mut args = vec!["merge", "--out", merged_text];
        args.extend_from_slice(shards);
        if partial {
            args.push("--partial");
        }
        scratch.arena(args)
    };
    merge(&[&one, &two], false).assert_success();
    assert_eq!(read_games_csv(&merged).len(), 4);

    let torn = base.join("torn");
    std::fs::create_dir_all(&torn).expect("a folder");
    for name in ["games.csv", "tournament.json", "transcripts.archive", "transcripts.index"] {
        std::fs::copy(std::path::Path::new(&two).join(name), torn.join(name)).expect("a copy");
    }
    let mut games =
        std::fs::OpenOptions::new().append(true).open(torn.join("games.csv")).expect("games.csv");
    std::io::Write::write_all(&mut games, b"3,1,a vs b").expect("a torn row");
    let conflicting = base.join("conflicting");
    std::fs::create_dir_all(&conflicting).expect("a folder");
    std::fs::copy(
        std::path::Path::new(&one).join("tournament.json"),
        conflicting.join("tournament.json"),
    )
    .expect("a copy");
    let text =
        std::fs::read_to_string(std::path::Path::new(&one).join("games.csv")).expect("games.csv");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let row = &read_games_csv(std::path::Path::new(&one))[0];
    lines[1] = lines[1].replacen(&format!(",{},{},", &row["score1"], &row["score2"]), ",999,0,", 1);
    std::fs::write(conflicting.join("games.csv"), lines.join("\n") + "\n").expect("games.csv");
    let foreign = shard(1, 2);
    let nowhere = base.join("nowhere");

    for (shards, words, partial_passes) in [
        (vec![one.as_str()], "2 games of the schedule are in none", true),
        (
            vec![one.as_str(), two.as_str(), nowhere.to_str().expect("UTF-8")],
            "is not a folder",
            true,
        ),
        (vec![one.as_str(), torn.to_str().expect("UTF-8")], "unfinished row", true),
        (
            vec![one.as_str(), two.as_str(), conflicting.to_str().expect("UTF-8")],
            "one result in",
            false,
        ),
        (vec![one.as_str(), two.as_str(), foreign.as_str()], "different tournament", false),
    ] {
        let run = merge(&shards, false);
        assert_eq!(run.status.code(), Some(2), "{words}: {run:?}");
        assert!(run.stderr.contains(words), "{words}: {}", run.stderr);
        assert!(!merged.exists(), "{words}: a failed merge left {}", merged.display());
        let leftovers: Vec<_> = std::fs::read_dir(&base)
            .expect("the folder")
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(".arena-merge-"))
            .collect();
        assert!(leftovers.is_empty(), "{words}: staging left behind");
        let run = merge(&shards, true);
        assert_eq!(run.status.success(), partial_passes, "{words} with --partial: {run:?}");
        if partial_passes {
            assert!(run.stderr.contains("warning"), "{}", run.stderr);
        }
    }
}

/// A bot's stderr log that cannot be written is said once, with its path;
/// the games go on (a log is not a result).
#[test]
fn a_log_that_cannot_be_written_is_named_and_the_games_go_on() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let out_text = out.to_str().expect("UTF-8").to_owned();
    let arena = start_arena(
        &[
            "match",
            "number-snatch",
            "tests/fixtures/hostile.py slow",
            common::PYTHON_RANDOM_BOT,
            "--games",
            "4",
            "--restart-each-game",
            "--out",
            &out_text,
        ],
        Stdio::piped(),
    );
    let games = out.join("games.csv");
    wait_until(
        || std::fs::read_to_string(&games).is_ok_and(|text| text.lines().count() > 1),
        "a game",
    );
    std::fs::remove_dir_all(out.join("logs")).expect("removing logs/");
    std::fs::write(out.join("logs"), "not a folder").expect("a file in its place");
    let output = arena.wait_with_output().expect("the arena ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("cannot write") && stderr.contains(&format!("{out_text}/logs/game-")),
        "{stderr}"
    );
    assert_eq!(read_games_csv(&out).len(), 4);
}
