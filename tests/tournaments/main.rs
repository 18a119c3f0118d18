//! `arena run` and `arena merge` driven as a user runs them: tournament files
//! written into a temporary folder, the real binary, real bot processes.
//! Results must be reproducible, resumable after a crash or Ctrl-C, and the
//! same whether a tournament ran in one go, in pieces, or in shards.
//!
//! Here the helpers; `resume`: the same results however a run is cut;
//! `processes`: Ctrl-C and restart policies, seen in the bots' processes;
//! `reports`: what a user reads (mistakes in the file, standings,
//! progress, JSON lines).

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;
mod processes;
mod reports;
mod resume;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Row, Run, read_games_csv, rust_random_bot};

/// Longest any single arena run may take before the test kills it and
/// fails: far above what the runs here need, it only turns a hang into a
/// failure.
const HARD_LIMIT: Duration = Duration::from_secs(120);

/// How long bot processes get to disappear once their arena is gone. A
/// zombie counts as present, and the bots of a killed arena are reaped by
/// init, which may take its time.
const GONE_WITHIN: Duration = Duration::from_secs(20);

/// The columns of games.csv that may differ between two runs of one
/// tournament: wall-clock measurements, and where the transcript is kept
/// (archive numbers follow the order games finished in).
const TIMING_COLUMNS: [&str; 4] = ["duration_ms", "slowest1_ms", "slowest2_ms", "transcript"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// A string as a TOML basic string (JSON's escapes are valid TOML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// One `[[bot]]` of a tournament file.
#[derive(Clone)]
struct Bot {
    name: String,
    argv: Vec<String>,
}

/// A tournament file: the top-level keys as written, then the bots.
fn tournament(top: &str, bots: &[Bot]) -> String {
    let mut text = top.trim_start().to_owned();
    for bot in bots {
        let argv: Vec<String> = bot.argv.iter().map(|arg| quoted(arg)).collect();
        text.push_str(&format!(
            "\n[[bot]]\nname = {}\ncommand = [{}]\n",
            quoted(&bot.name),
            argv.join(", ")
        ));
    }
    text
}

/// A temporary folder holding a test's tournament files, results folders
/// and the arena's captured output. Its path is also passed as a last,
/// ignored argument to every bot, so that the bots' processes can be found
/// in /proc.
struct Scratch {
    dir: tempfile::TempDir,
    runs: std::cell::Cell<u32>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("a temporary folder"), runs: 0.into() }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn marker(&self) -> String {
        // A flag naming no path: a path in the command would be part of the
        // bot (its fingerprint), and this folder changes with every run;
        // and a box refuses a command naming a folder it does not show.
        let name = self.path().file_name().and_then(|name| name.to_str());
        format!("--marker=arena-test-{}", name.expect("a UTF-8 temporary path"))
    }

    fn join(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    fn write(&self, name: &str, content: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, content).expect("writing into the temporary folder");
        path
    }

    /// The Rust random bot.
    fn rust_bot(&self, name: &str) -> Bot {
        let program = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
        Bot { name: name.to_owned(), argv: vec![program, self.marker()] }
    }

    /// The Python random bot.
    fn python_bot(&self, name: &str) -> Bot {
        let script = repo().join("bots/python/random_bot.py");
        Bot {
            name: name.to_owned(),
            argv: vec!["python3".into(), script.to_str().expect("UTF-8").into(), self.marker()],
        }
    }

    /// tests/fixtures/tournament/paced_bot.py with `options`.
    fn paced_bot(&self, name: &str, options: &[&str]) -> Bot {
        let script = repo().join("tests/fixtures/tournament/paced_bot.py");
        let mut argv = vec!["python3".to_owned(), script.to_str().expect("UTF-8").to_owned()];
        argv.extend(options.iter().map(|option| option.to_string()));
        argv.push(self.marker());
        Bot { name: name.to_owned(), argv }
    }

    /// Starts the arena binary with `args` in the temporary folder; its
    /// output goes to files, so nothing the arena leaves behind can hold a
    /// pipe of the test open.
    fn start(&self, args: &[&str]) -> Running {
        let number = self.runs.get() + 1;
        self.runs.set(number);
        let captures = self.join(&format!("captured-{number}"));
        std::fs::create_dir(&captures).expect("a folder for the arena's output");
        let stdout = captures.join("stdout");
        let stderr = captures.join("stderr");
        let child = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            // One seat-seed key for every folder, as a leaderboard's CI
            // secret gives: results compare across folders and shards.
            .env("ARENA_SEED_KEY", "tournament tests")
            .current_dir(self.path())
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).expect("an output file"))
            .stderr(File::create(&stderr).expect("an output file"))
            .spawn()
            .expect("the arena binary starts");
        Running { child, stdout, stderr, started: Instant::now(), args: args.join(" ") }
    }

    /// Runs the arena binary to its end.
    fn run(&self, args: &[&str]) -> Run {
        self.start(args).wait()
    }

    /// Runs the arena and fails unless it succeeded.
    fn run_ok(&self, args: &[&str]) -> Run {
        let finished = self.run(args);
        finished.assert_success();
        finished
    }
}

/// An arena process still running.
struct Running {
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
    started: Instant,
    args: String,
}

impl Running {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn exited(&mut self) -> bool {
        self.child.try_wait().expect("polling the arena").is_some()
    }

    fn wait(mut self) -> Run {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the arena") {
                break status;
            }
            if self.started.elapsed() > HARD_LIMIT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "`arena {}` ran for more than {HARD_LIMIT:?} and was killed; stderr:\n{}",
                    self.args,
                    text(&self.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        Run {
            status,
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
            elapsed: self.started.elapsed(),
        }
    }

    /// Sends `signal` to the arena (and to it alone, as a terminal's Ctrl-C
    /// reaches it: its bots run in process groups of their own).
    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.pid()).expect("a pid fits");
        // SAFETY: sending a signal to our own child, which we have not reaped.
        let result = unsafe { libc::kill(pid, signal) };
        assert_eq!(result, 0, "cannot signal the arena");
    }
}

/// Rows of games.csv written so far (complete lines after the header).
fn rows_written(folder: &Path) -> usize {
    match std::fs::read(folder.join("games.csv")) {
        Ok(bytes) => bytes.iter().filter(|&&byte| byte == b'\n').count().saturating_sub(1),
        Err(_) => 0,
    }
}

/// Waits until games.csv in `folder` holds at least `rows` rows, failing if
/// the arena exits first.
fn wait_for_rows(arena: &mut Running, folder: &Path, rows: usize) {
    loop {
        if rows_written(folder) >= rows {
            return;
        }
        assert!(
            !arena.exited(),
            "the arena exited before games.csv had {rows} rows; stdout:\n{}",
            text(&arena.stdout)
        );
        assert!(arena.started.elapsed() < HARD_LIMIT, "games.csv never reached {rows} rows");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// games.csv, header included, without the timing columns.
fn games_without_timing(folder: &Path) -> Vec<Vec<String>> {
    let path = folder.join("games.csv");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let records: Vec<csv::StringRecord> =
        reader.records().map(|record| record.expect("a well-formed games.csv row")).collect();
    let header = &records[0];
    for column in TIMING_COLUMNS {
        assert!(header.iter().any(|name| name == column), "games.csv has no {column}");
    }
    let kept: Vec<usize> =
        (0..header.len()).filter(|&i| !TIMING_COLUMNS.contains(&&header[i])).collect();
    records.iter().map(|record| kept.iter().map(|&i| record[i].to_owned()).collect()).collect()
}

/// Fails unless two results folders hold the same games (timings aside),
/// standings and crosstable.
fn assert_same_results(expected: &Path, actual: &Path) {
    let (games_expected, games_actual) =
        (games_without_timing(expected), games_without_timing(actual));
    assert_eq!(games_expected.len(), games_actual.len(), "number of games.csv lines differs");
    for (line, (a, b)) in games_expected.iter().zip(&games_actual).enumerate() {
        assert_eq!(
            a,
            b,
            "games.csv line {} differs between {} and {}",
            line + 1,
            expected.display(),
            actual.display()
        );
    }
    for file in ["standings.csv", "crosstable.csv"] {
        assert_eq!(
            text(&expected.join(file)),
            text(&actual.join(file)),
            "{file} differs between {} and {}",
            expected.display(),
            actual.display()
        );
    }
}

/// The identity of a game: (seat 1, seat 2, seed).
fn key(row: &Row) -> (String, String, String) {
    (row["seat1"].to_owned(), row["seat2"].to_owned(), row["seed"].to_owned())
}

/// Fails unless every row's transcript belongs to that row's game.
fn assert_transcripts_match_rows(folder: &Path) {
    for row in read_games_csv(folder) {
        let transcript = common::transcript_of(folder, &row);
        let header = &transcript[0];
        let names: Vec<&str> = header["bots"]
            .as_array()
            .expect("bots in the transcript header")
            .iter()
            .map(|bot| bot["name"].as_str().expect("a bot name"))
            .collect();
        assert_eq!(
            (names[0], names[1], header["seed"].to_string()),
            (&row["seat1"], &row["seat2"], row["seed"].to_owned()),
            "game {} points to {}, the transcript of another game",
            &row["game_index"],
            &row["transcript"]
        );
    }
}

// ---------------------------------------------------------------------------
// Processes in /proc

/// A process: pid and start time (so that a reused pid is not mistaken for it).
type Process = (u32, u64);

/// Fields of /proc/PID/stat after the command name: state and start time.
fn stat_of(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // After the name: state is field 3 of the man page, starttime field 22.
    Some((fields[0].chars().next()?, fields.get(19)?.parse().ok()?))
}

/// Processes whose command line mentions `marker`, in any state.
fn processes_mentioning(marker: &str) -> BTreeSet<Process> {
    let me = std::process::id();
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir("/proc").expect("/proc is readable").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if pid != me
            && cmdline.contains(marker)
            && let Some((_, started)) = stat_of(pid)
        {
            found.insert((pid, started));
        }
    }
    found
}

/// Fails unless, within [`GONE_WITHIN`], every process in `seen` has
/// disappeared from /proc (a zombie still counts) and no process mentions
/// `marker` any more.
fn assert_processes_gone(seen: &BTreeSet<Process>, marker: &str) {
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        let mut present: Vec<(u32, char)> = Vec::new();
        for &(pid, started) in seen.iter().chain(&processes_mentioning(marker)) {
            if let Some((state, at)) = stat_of(pid)
                && at == started
            {
                present.push((pid, state));
            }
        }
        if present.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "bot processes still present {GONE_WITHIN:?} after their arena ended (pid, state): {present:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills the arena with SIGKILL and checks that its bots go away by
/// themselves (they read end-of-file on stdin and exit).
fn kill_and_check_bots_exit(mut arena: Running, marker: &str) {
    let bots = processes_mentioning(marker);
    arena.child.kill().expect("SIGKILL reaches the arena");
    let bots: BTreeSet<Process> = bots.union(&processes_mentioning(marker)).copied().collect();
    arena.child.wait().expect("reaping the killed arena");
    assert!(!bots.is_empty(), "no bot process was running when the arena was killed");
    assert_processes_gone(&bots, marker);
}

/// Plays a small two-bot tournament to the end; returns its file and folder.
fn finished_tournament(scratch: &Scratch) -> (PathBuf, PathBuf) {
    let bots = [scratch.rust_bot("a"), scratch.rust_bot("b")];
    let file = scratch.write(
        "t.toml",
        &tournament(
            "game = \"number-snatch\"\nseed = 3\ngames_per_pair = 6\nmove_timeout = \"1s\"\nout = \"out\"\n",
            &bots,
        ),
    );
    scratch.run_ok(&["run", file.to_str().unwrap()]);
    (file, scratch.join("out"))
}
