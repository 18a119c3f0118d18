//! What a bot's process starts with, boxed or not: every signal at its
//! default and none blocked (a box's first process, a copy of arena, holds
//! arena's handlers and blocks every signal), and the CPUs its game's
//! worker may use: all of arena's where bots start every game (a box's bot
//! is born on its first process's CPU, and where every CPU has a worker any
//! bot on its worker's, and each takes the worker's CPUs before exec), its
//! worker's own CPU where workers are pinned (bots kept alive).

#![cfg(target_os = "linux")]

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use common::Scratch;

/// The CPUs this test may run on, as /proc/self/status lists them.
fn own_cpus() -> String {
    let status = std::fs::read_to_string("/proc/self/status").expect("own status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .expect("a Cpus_allowed_list line")
        .trim()
        .to_owned()
}

/// Every line of the logs in `out` that starts with `prefix`, without it.
fn reported(out: &Path, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("logs") {
        let text = std::fs::read_to_string(entry.expect("a log").path()).expect("a log's text");
        found.extend(text.lines().filter_map(|line| line.strip_prefix(prefix)).map(str::to_owned));
    }
    found
}

/// Six games of the fixture against itself, a process per game; the
/// results folder.
fn restarted_match(scratch: &Scratch, extra: &[&str]) -> PathBuf {
    let bot = common::fixture("reports_start.sh");
    let out = scratch.out();
    let mut args =
        vec!["match", "number-snatch", &bot, &bot, "--games", "6", "--restart-each-game"];
    args.extend(["--out", out.to_str().expect("UTF-8")]);
    args.extend(extra);
    scratch.arena(&args).assert_success();
    out
}

const WAYS: [(&str, &[&str]); 2] = [("boxed", &[]), ("without a sandbox", &["--no-sandbox"])];

#[test]
fn a_bot_starts_with_every_signal_at_its_default_and_none_blocked() {
    for (how, extra) in WAYS {
        let signals = reported(&restarted_match(&Scratch::new(), extra), "signals: ");
        assert_eq!(signals.len(), 12, "{how}: a line from each process: {signals:?}");
        for signals in &signals {
            assert_eq!(
                signals.split_whitespace().collect::<Vec<_>>(),
                ["SigBlk:", "0000000000000000", "SigIgn:", "0000000000000000"],
                "{how}"
            );
        }
    }
}

/// One game at a time, and one per CPU (where programs are born on their
/// worker's CPU, which they leave before exec).
#[test]
fn a_bot_started_every_game_may_run_on_every_cpu_of_the_arena() {
    let own = own_cpus();
    let every_cpu = std::thread::available_parallelism().map_or(1, usize::from).to_string();
    for (how, extra) in WAYS {
        for at_once in ["1", every_cpu.as_str()] {
            let extra = [extra, &["--concurrency", at_once]].concat();
            let cpus = reported(&restarted_match(&Scratch::new(), &extra), "cpus: ");
            let how = format!("{how}, {at_once} at a time");
            assert_eq!(cpus.len(), 12, "{how}: a line from each process: {cpus:?}");
            assert!(cpus.iter().all(|cpus| *cpus == own), "{how}: {cpus:?}, arena's {own}");
        }
    }
}

#[test]
fn a_kept_bot_runs_on_its_pinned_workers_cpu() {
    let scratch = Scratch::new();
    let bot = common::repo_dir().join("tests/fixtures/reports_cpus.py");
    let bot = bot.to_str().expect("UTF-8");
    let file = scratch.out().with_file_name("pinned.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\nseed = 1\ngames_per_pair = 8\nconcurrency = 2\npin = true\n\n\
             [[bot]]\nname = \"a\"\ncommand = [\"{bot}\"]\n\n[[bot]]\nname = \"b\"\ncommand = [\"{bot}\"]\n"
        ),
    )
    .expect("a tournament file");
    let out = scratch.out();
    scratch
        .arena([
            "run",
            file.to_str().expect("UTF-8"),
            "--quiet",
            "--out",
            out.to_str().expect("UTF-8"),
        ])
        .assert_success();
    let cpus = reported(&out, "cpus: ");
    assert!(!cpus.is_empty(), "no process reported its CPUs");
    for cpus in &cpus {
        assert!(
            cpus.parse::<usize>().is_ok(),
            "a kept bot of a pinned worker on {cpus}, not one CPU"
        );
    }
}
