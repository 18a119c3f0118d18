//! `arena run` and `arena merge` driven as a user runs them: tournament files
//! written into a temporary folder, the real binary, real bot processes.
//! Results must be reproducible, resumable after a crash or Ctrl-C, and the
//! same whether a tournament ran in one go, in pieces, or in shards.

#[allow(dead_code)]
mod common;

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
        // A flag, not a path: a path in the command would be part of the
        // bot (its fingerprint), and this folder changes with every run.
        format!("--marker={}", self.path().to_str().expect("a UTF-8 temporary path"))
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

// ---------------------------------------------------------------------------
// The tests

#[test]
fn the_same_file_gives_the_same_results_at_any_concurrency() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("rs-a"), scratch.python_bot("py"), scratch.rust_bot("rs-b")];
    let top = "game = \"number-snatch\"\nseed = 11\ngames_per_pair = 6\nmove_timeout = \"1s\"\n";
    let one = scratch.write("one.toml", &tournament(top, &bots));
    let two = scratch.write("two.toml", &tournament(&format!("{top}concurrency = 2\n"), &bots));
    let mut folders = Vec::new();
    for (file, run) in [(&one, 1), (&one, 2), (&two, 1), (&two, 2)] {
        let out =
            scratch.join(&format!("out-{}-{run}", file.file_stem().unwrap().to_str().unwrap()));
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(read_games_csv(&out).len(), 3 * 6);
        folders.push(out);
    }
    // The games are not all alike (the comparison would prove little).
    let outcomes: BTreeSet<String> =
        read_games_csv(&folders[0]).iter().map(|row| row["winner"].to_owned()).collect();
    assert!(outcomes.len() > 1, "every game had the same winner: {outcomes:?}");
    for folder in &folders[1..] {
        assert_same_results(&folders[0], folder);
    }
}

#[test]
fn a_run_killed_twice_resumes_to_the_results_of_an_uninterrupted_run() {
    let scratch = Scratch::new();
    let marker = scratch.marker();
    let bots = [
        scratch.rust_bot("rs-a"),
        scratch.rust_bot("rs-b"),
        // 10 ms per move: its 40 games last long enough to be interrupted.
        scratch.paced_bot("py", &["--delay-ms", "10"]),
    ];
    let total = 3 * 20;
    let file = scratch.write(
        "league.toml",
        &tournament(
            "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 20\nmove_timeout = \"1s\"\nconcurrency = 2\nout = \"resumed\"\n",
            &bots,
        ),
    );
    let file = file.to_str().unwrap();
    let resumed = scratch.join("resumed");

    let mut arena = scratch.start(&["run", file]);
    wait_for_rows(&mut arena, &resumed, 3);
    kill_and_check_bots_exit(arena, &marker);
    let after_first = rows_written(&resumed);
    assert!(after_first < total, "the run finished before it could be killed");

    let mut arena = scratch.start(&["run", file]);
    wait_for_rows(&mut arena, &resumed, after_first + 3);
    kill_and_check_bots_exit(arena, &marker);
    let after_second = rows_written(&resumed);
    assert!(after_second < total, "the run finished before it could be killed");
    assert!(!resumed.join("standings.csv").exists(), "standings of an unfinished run");

    let last = scratch.run_ok(&["run", file]);
    // Rows whose transcripts a kill caught in hand are set aside and their
    // games played again; the others are kept.
    assert!(
        last.stdout.contains("resuming") || last.stderr.contains("lost their transcripts"),
        "{}{}",
        last.stdout,
        last.stderr
    );
    assert_eq!(read_games_csv(&resumed).len(), total);

    let uninterrupted = scratch.join("uninterrupted");
    scratch.run_ok(&["run", file, "--out", uninterrupted.to_str().unwrap()]);
    assert_same_results(&uninterrupted, &resumed);
    assert_transcripts_match_rows(&resumed);
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

#[test]
fn a_torn_last_line_is_dropped_and_the_game_played_again() {
    let scratch = Scratch::new();
    let (file, out) = finished_tournament(&scratch);
    let games_csv = out.join("games.csv");
    let complete = text(&games_csv);
    let lines: Vec<&str> = complete.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 1 + 6);

    // A finished folder with a torn row after its last one.
    let torn_row = &lines[3][..lines[3].len() / 2];
    std::fs::write(&games_csv, format!("{complete}{torn_row}")).unwrap();
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stderr.contains("unfinished last line"), "{}", run.stderr);
    assert_eq!(text(&games_csv), complete, "the torn line is not dropped cleanly");

    // A folder with three rows and half of the fourth.
    let partial: String = lines[..4].concat() + &lines[4][..lines[4].len() / 2];
    std::fs::write(&games_csv, partial).unwrap();
    std::fs::remove_file(out.join("standings.csv")).unwrap();
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("3 games already"), "{}", run.stdout);
    assert_eq!(read_games_csv(&out).len(), 6);
    let reference = scratch.join("reference");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", reference.to_str().unwrap()]);
    assert_same_results(&reference, &out);
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let scratch = Scratch::new();
    let marker = scratch.marker();
    let trace = scratch.join("starts.txt");
    let trace_arg = trace.to_str().unwrap();
    let bots = [
        scratch.rust_bot("rs"),
        // 20 ms per move: a game lasts about 100 ms, far longer than the
        // arena takes to act on the signal.
        // The trace as one word: a file named alone in the command is
        // part of the bot, and this one changes as the bot writes it.
        scratch.paced_bot(
            "py",
            &["--delay-ms", "20", &format!("--trace={trace_arg}"), "--name", "py"],
        ),
    ];
    let concurrency = 2;
    let total = 40;
    // A space in the name: the resume command must quote it.
    let file = scratch.write(
        "ctrl c.toml",
        &tournament(
            &format!(
                // The trace file is written by the bots: no sandbox.
                "game = \"number-snatch\"\ngames_per_pair = {total}\nmove_timeout = \"1s\"\nconcurrency = {concurrency}\nout = \"out\"\nsandbox = false\n"
            ),
            &bots,
        ),
    );
    let out = scratch.join("out");
    let mut arena = scratch.start(&["run", file.to_str().unwrap(), "--markdown", "standings.md"]);
    wait_for_rows(&mut arena, &out, 4);
    let bot_processes = processes_mentioning(&marker);
    let rows_at_signal = rows_written(&out);
    let starts_at_signal = text(&trace).lines().count();
    arena.signal(libc::SIGINT);
    let interrupted = arena.wait();
    assert_eq!(interrupted.status.code(), Some(130), "{interrupted:?}");
    assert!(interrupted.stdout.contains("interrupted"), "{}", interrupted.stdout);
    let hint = interrupted
        .stdout
        .lines()
        .find(|line| line.contains("arena run"))
        .unwrap_or_else(|| panic!("no resume command: {}", interrupted.stdout));
    let resume = shell_words::split(hint).expect("a command a shell can split");
    assert_eq!(resume[0], "arena", "{hint}");
    assert!(!scratch.join("standings.md").exists());

    // Every row is whole.
    let written = text(&out.join("games.csv"));
    assert!(written.ends_with('\n'), "games.csv ends in a partial row");
    let rows = read_games_csv(&out);
    assert!(rows.len() < total, "the run finished before it was interrupted");
    // Those running at the signal may end, and so may one per worker that
    // started in the moment before the arena acted on it (on a loaded
    // 2-core machine that moment can outlast a game).
    assert!(
        rows.len() <= rows_at_signal + 2 * concurrency,
        "{} rows after the signal, {rows_at_signal} before it: games went on",
        rows.len()
    );
    // No game started after the interruption (but for one per worker in
    // the moment the arena takes to act on it), and the games abandoned are
    // at most those that were running.
    let trace = text(&trace);
    let started_after = trace.lines().count() - starts_at_signal;
    assert!(started_after <= concurrency, "{started_after} games started after the signal");
    let starts: BTreeSet<(String, String)> = trace
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            (fields[1].to_owned(), fields[2].to_owned())
        })
        .collect();
    // The bot traces the seed its seat got, which the transcript's header
    // keeps beside the game's setup seed.
    let finished: BTreeSet<(String, String)> = rows
        .iter()
        .map(|row| {
            let seat = if row["seat1"] == *"py" { 1 } else { 2 };
            let header = common::transcript_of(&out, row).swap_remove(0);
            (header["seat_seeds"][seat - 1].to_string(), seat.to_string())
        })
        .collect();
    assert!(finished.is_subset(&starts));
    let abandoned = starts.difference(&finished).count();
    assert!(abandoned <= concurrency, "{abandoned} games started but not finished");
    assert_processes_gone(&bot_processes, &marker);

    // The command printed resumes the run.
    let resume: Vec<&str> = resume[1..].iter().map(String::as_str).collect();
    let resumed = scratch.run_ok(&resume);
    assert!(resumed.stdout.contains("resuming"), "{}", resumed.stdout);
    assert!(text(&scratch.join("standings.md")).contains("| py |"));
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), total);
    let keys: BTreeSet<_> = rows.iter().map(key).collect();
    assert_eq!(keys.len(), total, "a game is in games.csv twice");
}

#[test]
fn changed_settings_are_refused_unless_fresh() {
    let scratch = Scratch::new();
    let (file, out) = finished_tournament(&scratch);
    let original = text(&file);
    let before = text(&out.join("games.csv"));
    for (from, to, named) in [
        ("seed = 3", "seed = 4", "seed was 3"),
        ("games_per_pair = 6", "games_per_pair = 4", "games_per_pair was 6, now 4"),
    ] {
        std::fs::write(&file, original.replace(from, to)).unwrap();
        let refused = scratch.run(&["run", file.to_str().unwrap()]);
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        assert!(refused.stderr.contains(named), "no `{named}`: {}", refused.stderr);
        assert!(refused.stderr.contains("--fresh"), "{}", refused.stderr);
        assert_eq!(text(&out.join("games.csv")), before, "the refused run touched games.csv");
    }
    // More games per pair only adds games.
    std::fs::write(&file, original.replace("games_per_pair = 6", "games_per_pair = 8")).unwrap();
    let more = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(more.stdout.contains("6 games already in games.csv, 2 to play"), "{}", more.stdout);
    assert!(text(&out.join("tournament.json")).contains("\"games_per_pair\": 8"));
    std::fs::write(&file, original.replace("games_per_pair = 6", "games_per_pair = 4")).unwrap();
    let fresh = scratch.run_ok(&["run", file.to_str().unwrap(), "--fresh"]);
    assert!(!fresh.stdout.contains("resuming"), "{}", fresh.stdout);
    assert_eq!(read_games_csv(&out).len(), 4);
    assert!(text(&out.join("tournament.json")).contains("\"games_per_pair\": 4"));
}

#[test]
fn adding_a_bot_plays_only_its_games() {
    let scratch = Scratch::new();
    let mut bots = vec![scratch.rust_bot("a"), scratch.rust_bot("b"), scratch.rust_bot("c")];
    let top = "game = \"number-snatch\"\nseed = 9\ngames_per_pair = 4\nmove_timeout = \"1s\"\nout = \"out\"\n";
    let file = scratch.write("t.toml", &tournament(top, &bots));
    let out = scratch.join("out");
    scratch.run_ok(&["run", file.to_str().unwrap()]);
    let old = read_games_csv(&out);
    assert_eq!(old.len(), 3 * 4);
    let before = text(&out.join("games.csv"));

    bots.push(scratch.rust_bot("d"));
    scratch.write("t.toml", &tournament(top, &bots));
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("12 games already"), "{}", run.stdout);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 6 * 4);
    let new: Vec<&Row> =
        rows.iter().filter(|row| !old.iter().any(|o| key(o) == key(row))).collect();
    assert_eq!(new.len(), 3 * 4);
    assert!(new.iter().all(|row| row["seat1"] == *"d" || row["seat2"] == *"d"));
    // The old rows are untouched, to the byte (timings included).
    let after = text(&out.join("games.csv"));
    let lines: BTreeSet<&str> = after.lines().collect();
    for line in before.lines() {
        assert!(lines.contains(line), "an old row changed or is gone: {line}\nnow:\n{after}");
    }
    assert_transcripts_match_rows(&out);

    let reference = scratch.join("reference");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", reference.to_str().unwrap()]);
    assert_same_results(&reference, &out);

    // A bot may come anywhere in the file: games are numbered anew, and the
    // results already played stay as they were.
    let results = |rows: &[Row]| -> BTreeMap<(String, String, String), String> {
        rows.iter()
            .map(|row| {
                (key(row), format!("{} {} {}", &row["winner"], &row["score1"], &row["score2"]))
            })
            .collect()
    };
    let before = results(&read_games_csv(&out));
    let mut front = vec![scratch.rust_bot("e")];
    front.extend(bots.iter().cloned());
    scratch.write("t.toml", &tournament(top, &front));
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("24 games already in games.csv, 16 to play"), "{}", run.stdout);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 10 * 4);
    let after = results(&rows);
    for (game, result) in &before {
        assert_eq!(after.get(game), Some(result), "game {game:?} changed");
    }
    let numbers: Vec<u64> = rows.iter().map(|row| row["game_index"].parse().unwrap()).collect();
    assert_eq!(numbers, (1..=40).collect::<Vec<_>>());
}

#[test]
fn shards_merge_into_the_results_of_a_single_run() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("a"), scratch.rust_bot("b"), scratch.python_bot("py")];
    let file = scratch.write(
        "t.toml",
        &tournament(
            "game = \"numbers-war\"\nseed = 21\ngames_per_pair = 4\nmove_timeout = \"1s\"\nconcurrency = 2\n",
            &bots,
        ),
    );
    let file = file.to_str().unwrap();
    let mut shards = Vec::new();
    let mut seen = BTreeSet::new();
    for shard in 1..=3 {
        let out = scratch.join(&format!("shard{shard}"));
        scratch.run_ok(&[
            "run",
            file,
            "--shard",
            &format!("{shard}/3"),
            "--out",
            out.to_str().unwrap(),
        ]);
        let rows = read_games_csv(&out);
        assert_eq!(rows.len(), 4, "shard {shard}");
        for row in &rows {
            assert!(seen.insert(key(row)), "{:?} is in two shards", key(row));
        }
        shards.push(out.to_str().unwrap().to_owned());
    }
    let merged = scratch.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(shards.iter().map(String::as_str));
    scratch.run_ok(&args);

    let single = scratch.join("single");
    scratch.run_ok(&["run", file, "--out", single.to_str().unwrap()]);
    assert_same_results(&single, &merged);
    assert_transcripts_match_rows(&merged);
}

#[test]
fn mistakes_in_the_file_are_refused_before_anything_is_written() {
    let scratch = Scratch::new();
    let bot = |name: &str| scratch.rust_bot(name);
    // Each case: the file's lines, the line the error must point to, and a
    // word the message must contain.
    let good_top = "game = \"number-snatch\"\nseed = 1\ngames_per_pair = 2\nout = \"out\"\n";
    let two_bots = [bot("a"), bot("b")];
    let missing = Bot { name: "b".into(), argv: vec!["./no-such-bot-program".into()] };
    let missing_script =
        Bot { name: "b".into(), argv: vec!["python3".into(), "bots/no_such_bot.py".into()] };
    let cases: Vec<(&str, String, usize, &str)> = vec![
        ("unknown key", tournament(&format!("{good_top}colour = 3\n"), &two_bots), 5, "colour"),
        (
            "wrong type",
            tournament(&good_top.replace("seed = 1", "seed = \"one\""), &two_bots),
            2,
            "seed: expected a whole number, such as 20, got the string \"one\"",
        ),
        ("duplicate name", tournament(good_top, &[bot("a"), bot("a")]), 11, "used twice"),
        ("empty name", tournament(good_top, &[bot("a"), bot("")]), 11, "empty"),
        ("one bot", tournament(good_top, &[bot("a")]), 6, "at least two"),
        (
            "odd games_per_pair",
            tournament(&good_top.replace("games_per_pair = 2", "games_per_pair = 3"), &two_bots),
            3,
            "games_per_pair",
        ),
        (
            "unknown game",
            tournament(&good_top.replace("number-snatch", "chess"), &two_bots),
            1,
            "chess",
        ),
        (
            "unknown parameter",
            tournament(&format!("{good_top}\n[params]\ncolour = 1\n"), &two_bots),
            // The parameter's own line, not the table's.
            7,
            "parameter `colour` of number-snatch: no such parameter",
        ),
        ("missing program", tournament(good_top, &[bot("a"), missing]), 12, "no-such-bot-program"),
        (
            "missing script",
            tournament(good_top, &[bot("a"), missing_script]),
            12,
            "bot `b`: command: script `",
        ),
    ];
    for (case, content, line, word) in cases {
        let file = scratch.write("bad.toml", &content);
        let run = scratch.run(&["run", file.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(2), "{case}: {run:?}");
        let located = format!("{}:{line}:", file.display());
        assert!(
            run.stderr.contains(&located),
            "{case}: the message does not point to {located}:\n{}\nthe file:\n{content}",
            run.stderr
        );
        assert!(run.stderr.contains(word), "{case}: `{word}` is not named: {}", run.stderr);
        assert!(!scratch.join("out").exists(), "{case}: the results folder was created");
    }
}

/// The processes each bot wrote to its stderr logs (`pid NAMESPACE/PID`
/// lines), by game.
fn pids_in_logs(out: &Path) -> BTreeMap<String, BTreeMap<u64, BTreeSet<String>>> {
    let mut pids: BTreeMap<String, BTreeMap<u64, BTreeSet<String>>> = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("a logs folder").flatten() {
        let name = entry.file_name().into_string().expect("a UTF-8 file name");
        // game-000003-seat2-NAME.log
        let rest = name.strip_prefix("game-").expect("a game log");
        let (game, rest) = rest.split_once("-seat").expect("a seat");
        let bot = rest[2..].strip_suffix(".log").expect("a .log file");
        for line in text(&entry.path()).lines() {
            if let Some(pid) = line.strip_prefix("pid ") {
                pids.entry(bot.to_owned())
                    .or_default()
                    .entry(game.parse().expect("a game number"))
                    .or_default()
                    .insert(pid.to_owned());
            }
        }
    }
    pids
}

fn restart_tournament(scratch: &Scratch, restart: Option<&str>) -> BTreeMap<String, Vec<String>> {
    let bots = [
        scratch.paced_bot("one", &["--pid-to-stderr"]),
        scratch.paced_bot("two", &["--pid-to-stderr"]),
    ];
    let mut top =
        "game = \"number-snatch\"\ngames_per_pair = 4\nmove_timeout = \"1s\"\n".to_owned();
    if let Some(restart) = restart {
        top.push_str(&format!("restart = \"{restart}\"\n"));
    }
    let name = format!("{}.toml", restart.unwrap_or("default"));
    let file = scratch.write(&name, &tournament(&top, &bots));
    let out = scratch.join(&format!("out-{}", restart.unwrap_or("default")));
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let pids = pids_in_logs(&out);
    pids.into_iter()
        .map(|(bot, games)| {
            assert_eq!(games.len(), 4, "{bot} has no pid line for some games: {games:?}");
            let all = games.into_values().flat_map(|pids| {
                assert_eq!(pids.len(), 1, "one process per game");
                pids
            });
            (bot, all.collect())
        })
        .collect()
}

#[test]
fn every_game_restart_uses_fresh_processes_and_the_default_keeps_them() {
    let scratch = Scratch::new();
    let fresh = restart_tournament(&scratch, Some("every-game"));
    assert_eq!(fresh.len(), 2);
    for (bot, pids) in &fresh {
        let distinct: BTreeSet<_> = pids.iter().collect();
        assert_eq!(distinct.len(), 4, "{bot} reused a process: {pids:?}");
    }
    let kept = restart_tournament(&scratch, None);
    assert_eq!(kept.len(), 2);
    for (bot, pids) in &kept {
        let distinct: BTreeSet<_> = pids.iter().collect();
        assert_eq!(distinct.len(), 1, "{bot} was restarted: {pids:?}");
    }
}

#[test]
fn a_bot_is_restarted_after_a_timeout_and_plays_on() {
    let scratch = Scratch::new();
    let stalled = scratch.join("stalled");
    let bots = [
        scratch.rust_bot("rs"),
        // Sleeps 2.5 s on its first move, once in the whole tournament.
        scratch.paced_bot(
            "staller",
            &["--pid-to-stderr", "--stall-once", stalled.to_str().unwrap(), "2.5"],
        ),
    ];
    let file = scratch.write(
        "t.toml",
        &tournament(
            // The stall file is shared by the bot's processes: no sandbox.
            "game = \"number-snatch\"\ngames_per_pair = 6\nmove_timeout = \"1s\"\nout = \"out\"\nsandbox = false\n",
            &bots,
        ),
    );
    let out = scratch.join("out");
    scratch.run_ok(&["run", file.to_str().unwrap()]);
    let rows = read_games_csv(&out);
    let reasons: Vec<&str> = rows.iter().map(|row| &row["reason"]).collect();
    assert_eq!(reasons, ["timeout", "normal", "normal", "normal", "normal", "normal"]);
    assert_eq!(&rows[0]["forfeiter"], "staller");
    assert_eq!(&rows[0]["winner"], "rs");

    let games = pids_in_logs(&out).remove("staller").expect("the staller's logs");
    let pid_of = |game: u64| -> String {
        let pids = &games[&game];
        assert_eq!(pids.len(), 1, "game {game}: {pids:?}");
        pids.first().unwrap().clone()
    };
    assert_ne!(pid_of(1), pid_of(2), "the bot that timed out was not restarted");
    for game in 3..=6 {
        assert_eq!(pid_of(game), pid_of(2), "the bot was restarted without cause");
    }
}

#[test]
fn markdown_standings_name_every_bot() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("alpha"), scratch.rust_bot("beta"), scratch.rust_bot("gamma")];
    let file = scratch.write(
        "t.toml",
        &tournament("game = \"number-claim\"\ngames_per_pair = 2\nout = \"out\"\n", &bots),
    );
    let markdown = scratch.join("standings.md");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--markdown", markdown.to_str().unwrap()]);
    let table = text(&markdown);
    let lines: Vec<&str> = table.lines().filter(|line| line.starts_with('|')).collect();
    assert!(lines.len() >= 2 + 3, "not a table with a row per bot:\n{table}");
    assert!(lines[1].contains("---"), "no header separator:\n{table}");
    for bot in &bots {
        assert!(
            lines[2..].iter().any(|line| line.contains(&format!("| {} |", bot.name))),
            "{} has no row:\n{table}",
            bot.name
        );
    }
}

#[test]
fn progress_without_a_terminal_is_plain_lines() {
    let scratch = Scratch::new();
    let (file, _) = finished_tournament(&scratch);
    let fresh = scratch.run_ok(&["run", file.to_str().unwrap(), "--fresh"]);
    assert!(
        fresh.stdout.lines().any(|line| line.starts_with("progress: 6/6 games")),
        "no final progress line:\n{}",
        fresh.stdout
    );
    for (stream, output) in [("stdout", &fresh.stdout), ("stderr", &fresh.stderr)] {
        assert!(!output.contains('\x1b'), "escape characters on {stream}: {output:?}");
        assert!(!output.contains('\r'), "carriage returns on {stream}: {output:?}");
    }
}

/// `--json`: stdout is JSON lines only, one finished-game event per game,
/// each carrying its games.csv row; `--quiet`: nothing on stdout at all.
#[test]
fn a_run_reports_as_json_lines_or_not_at_all() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("a"), scratch.python_bot("b")];
    let top = "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 4\nmove_timeout = \"1s\"\n";
    let file = scratch.write("t.toml", &tournament(top, &bots));
    let out = scratch.join("json");
    let run =
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--json"]);
    let events: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let kinds: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"run"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"complete"), "{kinds:?}");
    assert!(kinds.contains(&"started") && kinds.contains(&"finished"), "{kinds:?}");
    let finished: Vec<&serde_json::Value> =
        events.iter().filter(|event| event["type"] == "game_finished").collect();
    assert_eq!(finished.len(), 4);
    let rows = read_games_csv(&out);
    for event in &finished {
        let index = event["game"]["game_index"].as_u64().unwrap();
        let row = rows.iter().find(|row| row.number("game_index") == index).expect("a row");
        assert_eq!(event["game"]["winner"], row["winner"]);
        assert_eq!(event["game"]["outcome"], row["outcome"]);
        // No forfeit: the forfeit columns are null, as the README says.
        for column in ["forfeiter", "forfeit1", "forfeit2", "forfeit_detail"] {
            assert!(event["game"][column].is_null(), "{column}: {}", event["game"]);
        }
    }
    assert_eq!(events.last().unwrap()["out"], out.to_str().unwrap());

    let quiet = scratch.join("quiet");
    let run =
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", quiet.to_str().unwrap(), "-q"]);
    assert_eq!(run.stdout, "", "-q (--quiet) printed");
    assert_eq!(read_games_csv(&quiet).len(), 4);
    assert_same_results(&out, &quiet);
}

/// A league as a leaderboard repository holds one: the tournament file at
/// `root`, each bot a script of its own under `root/bots/`, named relative
/// to the file, and the results in `root/results`.
fn script_league(root: &Path, names: &[&str]) -> PathBuf {
    std::fs::create_dir_all(root.join("bots")).unwrap();
    let mut file = "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 2\nmove_timeout = \"2s\"\nconcurrency = 2\nout = \"results\"\n".to_owned();
    for name in names {
        std::fs::copy(
            repo().join("bots/python/random_bot.py"),
            root.join(format!("bots/{name}.py")),
        )
        .unwrap();
        file.push_str(&format!(
            "\n[[bot]]\nname = \"{name}\"\ncommand = [\"python3\", \"bots/{name}.py\"]\n"
        ));
    }
    let path = root.join("league.toml");
    std::fs::write(&path, file).unwrap();
    path
}

/// Copies a folder and everything in it.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn editing_one_bot_replays_exactly_its_pairings() {
    let scratch = Scratch::new();
    let root = scratch.join("league");
    let file = script_league(&root, &["a", "b", "c", "d"]);
    let file = file.to_str().unwrap();
    let out = root.join("results");
    scratch.run_ok(&["run", file]);
    let before = text(&out.join("games.csv"));
    assert_eq!(read_games_csv(&out).len(), 6 * 2);

    let again = scratch.run_ok(&["run", file]);
    assert!(again.stdout.contains("nothing to play: 12 games already in"), "{}", again.stdout);
    assert_eq!(text(&out.join("games.csv")), before, "an unchanged rerun touched games.csv");

    // An edit anywhere in the bot's script is a new version.
    let script = root.join("bots/c.py");
    std::fs::write(&script, text(&script) + "# tuned\n").unwrap();
    let edited = scratch.run_ok(&["run", file]);
    assert!(edited.stdout.contains("bot `c` is a new version"), "{}", edited.stdout);
    assert!(edited.stdout.contains("its 6 games are set aside"), "{}", edited.stdout);
    assert!(
        edited.stdout.contains("resuming: 6 games already in games.csv, 6 to play"),
        "{}",
        edited.stdout
    );
    let aside: Vec<Row> = common::read_csv(&out.join("set-aside.csv"));
    assert_eq!(aside.len(), 6);
    assert!(aside.iter().all(|row| row["seat1"] == *"c" || row["seat2"] == *"c"));
    assert_eq!(read_games_csv(&out).len(), 12);
    let after = text(&out.join("games.csv"));
    for line in before.lines().filter(|line| !line.contains(",c,") && !line.contains(" vs c")) {
        assert!(after.contains(line), "a game without c changed: {line}");
    }

    // Its environment is part of it too.
    let with_env = text(&root.join("league.toml")).replace(
        "command = [\"python3\", \"bots/a.py\"]",
        "command = [\"python3\", \"bots/a.py\"]\nenv = { DEPTH = \"3\" }",
    );
    std::fs::write(root.join("league.toml"), with_env).unwrap();
    let env_changed = scratch.run_ok(&["run", file]);
    assert!(env_changed.stdout.contains("bot `a` is a new version"), "{}", env_changed.stdout);
    assert!(env_changed.stdout.contains("6 to play"), "{}", env_changed.stdout);
}

#[test]
fn a_results_folder_resumes_and_merges_wherever_the_checkout_lives() {
    let scratch = Scratch::new();
    let first = scratch.join("checkout-1");
    let file = script_league(&first, &["a", "b", "c"]);
    let shard1 = first.join("shard1");
    scratch.run_ok(&[
        "run",
        file.to_str().unwrap(),
        "--shard",
        "1/2",
        "--out",
        shard1.to_str().unwrap(),
    ]);
    assert!(
        !text(&shard1.join("tournament.json")).contains(first.to_str().unwrap()),
        "tournament.json depends on where the checkout lives"
    );

    // Another clone somewhere else plays the other shard; a results folder
    // moved there (as a CI cache restores one) resumes.
    let second = scratch.join("elsewhere/checkout-2");
    copy_tree(&first, &second);
    // Share `shard` of 2 of the second checkout's league, into `out`.
    let play_shard = |shard: &str, out: &Path| {
        let league = second.join("league.toml");
        scratch.run_ok(&[
            "run",
            league.to_str().unwrap(),
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let resumed = play_shard("1/2", &second.join("shard1"));
    assert!(resumed.stdout.contains("nothing to play: 3 games already"), "{}", resumed.stdout);
    let shard2 = second.join("shard2");
    play_shard("2/2", &shard2);
    let merged = scratch.join("merged");
    scratch.run_ok(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        shard1.to_str().unwrap(),
        shard2.to_str().unwrap(),
    ]);
    assert_eq!(read_games_csv(&merged).len(), 6);

    // A shard played by another version of a bot is refused, and the
    // message says which bot and what differs.
    let script = second.join("bots/b.py");
    std::fs::write(&script, text(&script) + "# tuned\n").unwrap();
    let other = second.join("shard2-edited");
    play_shard("2/2", &other);
    let refused = scratch.run(&[
        "merge",
        "--out",
        scratch.join("merged-2").to_str().unwrap(),
        shard1.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(refused.stderr.contains("bot `b`: files (fingerprint)"), "{}", refused.stderr);
}
