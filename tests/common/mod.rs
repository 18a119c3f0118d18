//! Helpers shared by the process-level tests: running the arena binary,
//! reading what a match leaves on disk, building the Rust random bot, and
//! checking that no bot process outlived its match.

pub mod hostile;
pub mod pypi;
pub mod referee;
pub mod unprivileged;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::File;
use std::ops::Index;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The Python random bot, as a command line run from the repository root.
pub const PYTHON_RANDOM_BOT: &str = "python3 bots/python/random_bot.py";

/// The five games, by id.
pub const GAMES: [&str; 5] =
    ["number-snatch", "numbers-war", "number-warriors", "number-claim", "number-duel"];

/// Longest a run of the arena may take before the test kills it and fails;
/// far above what any test needs, it only keeps a hung arena from hanging
/// the test run.
const HARD_LIMIT: Duration = Duration::from_secs(120);

/// How long processes get to disappear after the arena exits.
const GONE_WITHIN: Duration = Duration::from_secs(5);

/// Fails the calling test, naming the Debian package to install, unless
/// `program` is on PATH: a toolchain the README's test command does not
/// bring (`.ci/install` installs them all).
pub fn require(program: &str, package: &str) {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|found| found.status.success());
    assert!(
        found,
        "{program} is missing: install Debian's {package} (apt-get install {package}, or bash .ci/install)"
    );
}

/// The repository root; the arena and its bots run from there.
pub fn repo_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The command line of the fixture bot `name_and_args` (tests/fixtures/).
pub fn fixture(name_and_args: &str) -> String {
    format!("tests/fixtures/{name_and_args}")
}

/// A temporary folder for one arena run: its results folder, the file the
/// fixtures record their pids in, and the arena's own output.
pub struct Scratch {
    dir: tempfile::TempDir,
    /// `ARENA_SEED_KEY` for the runs, if set; else the variable is unset.
    seed_key: Option<String>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("a temporary folder"), seed_key: None }
    }

    /// Runs with `ARENA_SEED_KEY` set to `key`: one key for every results
    /// folder, as a leaderboard's CI secret gives, so that results compare
    /// across folders (without it each folder keys seat seeds its own way).
    pub fn with_seed_key(mut self, key: &str) -> Scratch {
        self.seed_key = Some(key.to_owned());
        self
    }

    /// The `--out` folder.
    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// Runs the arena binary with `args` from the repository root. Its output goes to files rather than pipes, so a
    /// leaked process holding a pipe could not keep the test waiting.
    pub fn arena<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.arena_with_input(args, "")
    }

    /// Like [`Scratch::arena`], with `input` as the arena's standard input
    /// (what a person at the terminal would type).
    pub fn arena_with_input<I, S>(&self, args: I, input: &str) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let stdin_path = self.dir.path().join("arena.stdin");
        std::fs::write(&stdin_path, input).expect("an input file");
        let stdout_path = self.dir.path().join("arena.stdout");
        let stderr_path = self.dir.path().join("arena.stderr");
        let create = |path: &Path| File::create(path).expect("an output file");
        let started = Instant::now();
        let mut command = Command::new(env!("CARGO_BIN_EXE_arena"));
        match &self.seed_key {
            Some(key) => command.env("ARENA_SEED_KEY", key),
            None => command.env_remove("ARENA_SEED_KEY"),
        };
        let mut child = command
            .args(args)
            .current_dir(repo_dir())
            .stdin(File::open(&stdin_path).expect("the input file"))
            .stdout(create(&stdout_path))
            .stderr(create(&stderr_path))
            .spawn()
            .expect("the arena binary starts");
        let status = loop {
            if let Some(status) = child.try_wait().expect("waiting for the arena") {
                break status;
            }
            if started.elapsed() > HARD_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the arena ran for more than {HARD_LIMIT:?} and was killed; stderr:\n{}",
                    std::fs::read_to_string(&stderr_path).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let elapsed = started.elapsed();
        let read = |path: &Path| std::fs::read_to_string(path).expect("the arena's output");
        Run { status, stdout: read(&stdout_path), stderr: read(&stderr_path), elapsed }
    }

    /// Fails unless every process the fixtures recorded is gone.
    pub fn assert_fixture_processes_gone(&self) {
        let pids = recorded_pids(self.dir.path());
        assert!(
            !pids.is_empty(),
            "no fixture wrote its pid to a log in {}",
            self.dir.path().display()
        );
        assert_processes_gone(&pids);
    }
}

/// One finished run of the arena binary.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// Fails, showing the arena's output, unless it exited with status 0.
    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "arena failed with {}\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }

    /// Fails unless the run took less than `limit`.
    pub fn assert_faster_than(&self, limit: Duration) {
        assert!(
            self.elapsed < limit,
            "the arena took {:?}, more than {limit:?}\nstdout:\n{}",
            self.elapsed,
            self.stdout
        );
    }
}

/// One row of games.csv; indexing by a column name that the file lacks fails.
#[derive(Debug)]
pub struct Row(HashMap<String, String>);

impl Index<&str> for Row {
    type Output = str;

    fn index(&self, column: &str) -> &str {
        self.0.get(column).unwrap_or_else(|| panic!("games.csv has no column `{column}`"))
    }
}

/// The rows of `out`'s games.csv without what timing decides: every `_ms`
/// column and those named in `also` (a transcript's number in the archive
/// follows the order games finish in), each row's columns sorted by name.
pub fn rows_apart_from_timings(out: &Path, also: &[&str]) -> Vec<Vec<(String, String)>> {
    read_games_csv(out)
        .iter()
        .map(|row| {
            let mut fields: Vec<(String, String)> = row
                .columns()
                .filter(|(column, _)| !column.ends_with("_ms") && !also.contains(column))
                .map(|(column, value)| (column.to_owned(), value.to_owned()))
                .collect();
            fields.sort();
            fields
        })
        .collect()
}

impl Row {
    /// Every column and its value, in no order.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(column, value)| (column.as_str(), value.as_str()))
    }

    /// A numeric column.
    pub fn number(&self, column: &str) -> u64 {
        self[column].parse().unwrap_or_else(|_| panic!("`{column}` is `{}`", &self[column]))
    }
}

/// The rows of `out`/games.csv.
pub fn read_games_csv(out: &Path) -> Vec<Row> {
    read_csv(&out.join("games.csv"))
}

/// The rows of a CSV file with a header, such as games.csv.
pub fn read_csv(path: &Path) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let header = reader.headers().expect("games.csv has a header").clone();
    reader
        .records()
        .map(|record| {
            let record = record.expect("a well-formed games.csv row");
            Row(header.iter().zip(record.iter()).map(|(k, v)| (k.into(), v.into())).collect())
        })
        .collect()
}

/// The lines of a transcript (a JSONL file), parsed.
/// What the game program wrote to stderr in game `game` of the results
/// folder `out` (empty when it wrote nothing).
pub fn game_log(out: &Path, game: u32) -> String {
    std::fs::read_to_string(out.join(format!("logs/game-{game:06}-game.log"))).unwrap_or_default()
}

pub fn read_transcript(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    text.lines()
        .enumerate()
        .map(|(number, line)| {
            serde_json::from_str(line).unwrap_or_else(|error| {
                panic!("{} line {} is not JSON ({error}): {line}", path.display(), number + 1)
            })
        })
        .collect()
}

/// The transcript of a games.csv row.
/// A tournament's come from its archive, through `arena replay --jsonl`;
/// a match's from their files.
pub fn transcript_of(out: &Path, row: &Row) -> Vec<Value> {
    assert!(!row["transcript"].is_empty(), "game {} has no transcript", &row["game_index"]);
    if !row["transcript"].starts_with("transcripts.archive#") {
        return read_transcript(&out.join(&row["transcript"]));
    }
    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["replay", "--jsonl", "--game", &row["game_index"]])
        .arg(out)
        .output()
        .expect("arena replay runs");
    let text = String::from_utf8(replay.stdout).expect("UTF-8");
    assert!(
        replay.status.success(),
        "arena replay failed: {}",
        String::from_utf8_lossy(&replay.stderr)
    );
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

/// The pids the fixtures wrote to their stderr (`arena-test-pid N`), as
/// found in the logs anywhere under `folder`.
pub fn recorded_pids(folder: &Path) -> Vec<RecordedPid> {
    let mut pids = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else { return pids };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            pids.extend(recorded_pids(&path));
        } else if path.extension().is_some_and(|extension| extension == "log") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            pids.extend(text.lines().filter_map(|line| {
                let mut words = line.strip_prefix("arena-test-pid ")?.split_ascii_whitespace();
                let mut next = || words.next().unwrap_or_else(|| panic!("a short line: `{line}`"));
                let pid = next().parse::<u32>().unwrap_or_else(|_| panic!("a pid, not `{line}`"));
                let namespace = next().to_owned();
                let started =
                    next().parse::<u64>().unwrap_or_else(|_| panic!("ticks, not `{line}`"));
                Some(RecordedPid { pid, namespace, started })
            }));
        }
    }
    pids
}

/// The state letter and command name of `pid` from /proc/PID/stat, or
/// `None` once it has been reaped.
fn proc_state(pid: u32) -> Option<(char, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold anything: the state is the
    // first field after the last `)`.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let state = stat[close + 1..].trim_start().chars().next()?;
    Some((state, stat[open + 1..close].to_owned()))
}

/// The state and name of `pid` while it is a live process. A zombie (`Z`)
/// or dead (`X`) process has ended and only waits to be reaped, by its
/// parent or by an init that may never do it.
fn live_state(pid: u32) -> Option<(char, String)> {
    proc_state(pid).filter(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// A process a fixture recorded: its pid in its PID namespace
/// (`pid:[INODE]`; a box has one of its own) and its start time in clock
/// ticks since boot, which together name it on the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedPid {
    pub pid: u32,
    pub namespace: String,
    pub started: u64,
}

/// The start time of `pid` in clock ticks since boot.
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_ascii_whitespace().nth(19)?.parse().ok()
}

/// The live host process that `recorded` names, if any: same namespace and
/// start time (a namespace's number may be reused by a later box).
fn live_recorded(recorded: &RecordedPid) -> Option<(u32, char, String)> {
    let entries = std::fs::read_dir("/proc").ok()?;
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| start_ticks(pid) == Some(recorded.started))
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/ns/pid"))
                .is_ok_and(|link| link.to_str() == Some(recorded.namespace.as_str()))
        })
        .find_map(|pid| live_state(pid).map(|(state, name)| (pid, state, name)))
}

/// The host pids of the recorded processes still alive.
pub fn surviving(pids: &[RecordedPid]) -> Vec<u32> {
    let own = std::fs::read_link("/proc/self/ns/pid").expect("this process's PID namespace");
    pids.iter()
        .filter_map(|recorded| {
            if Path::new(&recorded.namespace) == own {
                live_state(recorded.pid)
                    .filter(|_| start_ticks(recorded.pid) == Some(recorded.started))
                    .map(|_| recorded.pid)
            } else {
                live_recorded(recorded).map(|(pid, _, _)| pid)
            }
        })
        .collect()
}

/// SIGKILL to each of `pids` (processes a test saw alive just now).
pub fn kill_all(pids: &[u32]) {
    for &pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: plain signal delivery.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Fails unless every process in `pids` has ended (in a box of its own,
/// every process of its box), giving them a few seconds: signals and
/// reaping take effect asynchronously.
pub fn assert_processes_gone(pids: &[RecordedPid]) {
    let deadline = Instant::now() + GONE_WITHIN;
    let own = std::fs::read_link("/proc/self/ns/pid").expect("this process's PID namespace");
    loop {
        let alive: Vec<(u32, char, String)> = pids
            .iter()
            .filter_map(|recorded| {
                if Path::new(&recorded.namespace) == own {
                    live_state(recorded.pid)
                        .filter(|_| start_ticks(recorded.pid) == Some(recorded.started))
                        .map(|(state, name)| (recorded.pid, state, name))
                } else {
                    live_recorded(recorded)
                }
            })
            .collect();
        if alive.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            // Fail, but leave nothing running behind the failure.
            for pid in alive.iter().filter_map(|&(pid, _, _)| libc::pid_t::try_from(pid).ok()) {
                // SAFETY: plain signal delivery to a process seen alive just now.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            panic!(
                "processes still alive {GONE_WITHIN:?} after the arena exited (pid, state, name): {alive:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The game program fixture Hidden Cards with `flaw` turned on (the list
/// is in tests/fixtures/games/tinygame.py; `none` turns none on), as a GAME
/// argument.
pub fn tinygame(flaw: &str) -> String {
    format!("tests/fixtures/games/tinygame.py --flaw {flaw}")
}

/// `arena match GAME` between the Python and the Rust random bots: `games`
/// games from seed 3, results in `scratch`'s folder, then `extra`.
pub fn match_of_random_bots(scratch: &Scratch, game: &str, games: u32, extra: &[&str]) -> Run {
    let (out, games) = (scratch.out(), games.to_string());
    let bot = rust_random_bot().to_str().expect("a UTF-8 path");
    let out = out.to_str().expect("a UTF-8 path");
    let mut args =
        vec!["match", game, PYTHON_RANDOM_BOT, bot, "--games", &games, "--seed", "3", "--out", out];
    args.extend_from_slice(extra);
    scratch.arena(&args)
}

/// The Rust random bot (`random-bot` of the workspace package
/// `arena-bots`), built once per test run by the cargo running the tests,
/// in the same profile, next to the arena binary.
pub fn rust_random_bot() -> &'static Path {
    static BOT: OnceLock<PathBuf> = OnceLock::new();
    BOT.get_or_init(|| build_rust_bot("random-bot"))
}

/// `strong-bot`, built like [`rust_random_bot`].
pub fn rust_strong_bot() -> &'static Path {
    static BOT: OnceLock<PathBuf> = OnceLock::new();
    BOT.get_or_init(|| build_rust_bot("strong-bot"))
}

fn build_rust_bot(name: &str) -> PathBuf {
    let arena = Path::new(env!("CARGO_BIN_EXE_arena"));
    let profile_dir = arena.parent().expect("the arena binary is in a folder");
    let release = std::env::current_exe()
        .expect("the test binary's path")
        .components()
        .any(|part| part.as_os_str() == "release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(repo_dir()).args(["build", "--quiet", "-p", "arena-bots"]);
    command.args(["--bin", name]);
    if release {
        command.arg("--release");
    }
    // Build into the target folder that holds the arena binary, even when
    // the tests were started with another --target-dir.
    if let Some(target_dir) = profile_dir.parent() {
        command.arg("--target-dir").arg(target_dir);
    }
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "building {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bot = profile_dir.join(name);
    assert!(bot.is_file(), "no {name} at {}", bot.display());
    bot
}

/// The data a leaderboard page embeds (standings, games, their turns), as
/// its script reads it.
pub fn page_report(page: &Path) -> Value {
    let html = std::fs::read_to_string(page)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", page.display()));
    let start = html.find(r#"id="report-data">"#).expect("the page embeds its data")
        + r#"id="report-data">"#.len();
    let end = start + html[start..].find("</script>").expect("its data ends");
    serde_json::from_str(&html[start..end]).expect("the page's data is JSON")
}
