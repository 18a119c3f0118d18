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
    let cases: [(&str, &str, &str); 12] = [
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
