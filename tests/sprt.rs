//! `arena sprt` and `[sprt]` files, end to end: the strong bot against the
//! random one, real processes; the printed LLR and bounds checked against
//! tests/sprt_reference.py, an independent calculation; the verdict against
//! the games in games.csv.

#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Row, Scratch, read_games_csv, repo_dir, rust_random_bot, rust_strong_bot};

fn strong() -> String {
    rust_strong_bot().to_str().expect("a UTF-8 path").to_owned()
}

fn random() -> String {
    rust_random_bot().to_str().expect("a UTF-8 path").to_owned()
}

/// What `arena sprt` printed of its result.
#[derive(Debug, PartialEq)]
struct Printed {
    ptnml: [u64; 5],
    games: u64,
    llr: f64,
    bounds: (f64, f64),
    verdict: String,
}

/// The numbers after `label` in the line that starts with it.
fn numbers_after(stdout: &str, label: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{stdout}"));
    line.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|word| !word.is_empty() && *word != "-")
        .map(|word| word.parse().unwrap_or_else(|_| panic!("`{word}` in `{line}`")))
        .collect()
}

fn parse(stdout: &str) -> Printed {
    let ptnml = numbers_after(stdout, "Ptnml(0-2): ");
    let llr = numbers_after(stdout, "LLR: ");
    let verdict = stdout
        .lines()
        .find(|line| line.starts_with("LLR: "))
        .and_then(|line| line.split(" - ").nth(1))
        .expect("a verdict after the LLR")
        .to_owned();
    Printed {
        ptnml: std::array::from_fn(|cell| ptnml[cell] as u64),
        games: numbers_after(stdout, "Games: ")[0] as u64,
        llr: llr[0],
        bounds: (llr[1], llr[2]),
        verdict,
    }
}

/// tests/sprt_reference.py's LLR and bounds for these counts.
fn reference(elo0: f64, elo1: f64, counts: [u64; 5], alpha: f64, beta: f64) -> (f64, f64, f64) {
    let output = Command::new("python3")
        .current_dir(repo_dir())
        .arg("tests/sprt_reference.py")
        .args([elo0, elo1].map(|elo| elo.to_string()))
        .args(counts.map(|count| count.to_string()))
        .args([alpha, beta].map(|rate| rate.to_string()))
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let values: Vec<f64> =
        text.split_whitespace().map(|word| word.parse().expect("a number")).collect();
    (values[0], values[1], values[2])
}

/// The half-points of `tested` in each round (pair) of `rows`, for the
/// complete rounds from round 1 on, up to the first incomplete one.
fn pairs_in_order(rows: &[Row], tested: &str) -> Vec<u64> {
    let mut rounds: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for row in rows {
        let points = if row["winner"] == *tested {
            2
        } else if row["outcome"] == *"draw" {
            1
        } else {
            0
        };
        rounds.entry(row.number("round")).or_default().push(points);
    }
    (1..)
        .map_while(|round| rounds.get(&round).filter(|games| games.len() == 2))
        .map(|games| games.iter().sum())
        .collect()
}

fn pentanomial(pairs: &[u64]) -> [u64; 5] {
    let mut counts = [0; 5];
    for &half_points in pairs {
        counts[half_points as usize] += 1;
    }
    counts
}

/// The printed result agrees with the independent calculation, and with
/// the games: its pairs are the first complete rounds of games.csv, and
/// the LLR crossed the bound at the last of them and not before.
fn assert_result_matches_games(printed: &Printed, out: &Path, tested: &str, elo1: f64) {
    let (llr, lower, upper) = reference(0.0, elo1, printed.ptnml, 0.05, 0.05);
    assert!((printed.llr - llr).abs() <= 0.005, "printed {printed:?}, reference LLR {llr}");
    assert!((printed.bounds.0 - lower).abs() <= 0.005, "{printed:?} against {lower}");
    assert!((printed.bounds.1 - upper).abs() <= 0.005, "{printed:?} against {upper}");
    let pairs = pairs_in_order(&read_games_csv(out), tested);
    let counted = printed.ptnml.iter().sum::<u64>() as usize;
    assert!(
        pairs.len() >= counted,
        "{counted} pairs printed, {} complete in games.csv",
        pairs.len()
    );
    assert_eq!(pentanomial(&pairs[..counted]), printed.ptnml, "the first {counted} rounds");
    assert_eq!(printed.games, 2 * counted as u64);
    let (before, _, _) = reference(0.0, elo1, pentanomial(&pairs[..counted - 1]), 0.05, 0.05);
    assert!(lower < before && before < upper, "the test had decided a pair earlier: {before}");
}

#[test]
fn a_strong_bot_is_accepted_early_and_a_rerun_plays_nothing() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let (strong, random) = (strong(), random());
    let args = [
        "sprt",
        &strong,
        &random,
        "--game",
        "number-snatch",
        "--max-games",
        "1000",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--out",
        out.to_str().expect("UTF-8"),
    ];
    let run = scratch.arena(args);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let printed = parse(&run.stdout);
    assert_eq!(printed.verdict, "H1 accepted", "{}", run.stdout);
    assert!(printed.llr >= printed.bounds.1);
    assert!(printed.games < 1000, "the test did not stop early: {}", run.stdout);
    assert!(
        run.stdout.contains("Results of strong-bot vs random-bot (number-snatch, 1s per move):")
    );
    for label in ["Elo: ", "LOS: ", "DrawRatio: ", "PairsRatio: ", "nElo: "] {
        assert!(run.stdout.contains(label), "no {label} in {}", run.stdout);
    }
    assert_result_matches_games(&printed, &out, "strong-bot", 10.0);
    // Two at a time, games of later pairs may finish after the verdict:
    // kept in games.csv, and said not to be counted.
    let not_counted: u64 =
        run.stdout.lines().find_map(|line| line.strip_prefix("Not counted: ")).map_or(0, |rest| {
            rest.split(' ').next().and_then(|n| n.parse().ok()).expect("a count")
        });
    assert_eq!(read_games_csv(&out).len() as u64, printed.games + not_counted, "{}", run.stdout);

    let games_csv = std::fs::read_to_string(out.join("games.csv")).expect("games.csv");
    let rerun = scratch.arena(args);
    assert_eq!(rerun.status.code(), Some(0), "{rerun:?}");
    assert!(rerun.stdout.contains("nothing to play"), "{}", rerun.stdout);
    assert_eq!(parse(&rerun.stdout), printed);
    let result = |stdout: &str| stdout[stdout.find("Results of").expect("a result")..].to_owned();
    assert_eq!(result(&rerun.stdout), result(&run.stdout));
    assert_eq!(std::fs::read_to_string(out.join("games.csv")).expect("games.csv"), games_csv);
}

#[test]
fn a_weaker_bot_is_rejected_with_exit_status_3_and_json_says_so() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let (strong, random) = (strong(), random());
    let run = scratch.arena([
        "sprt",
        &random,
        &strong,
        "--game",
        "number-snatch",
        "--elo1",
        "20",
        "--max-games",
        "1000",
        "--json",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(run.status.code(), Some(3), "{run:?}");
    let last = run.stdout.lines().last().expect("output");
    let result: serde_json::Value = serde_json::from_str(last).expect("a JSON line");
    assert_eq!(result["type"], "sprt");
    assert_eq!(result["verdict"], "H0");
    assert_eq!(result["new"], "random-bot");
    let counts: [u64; 5] = serde_json::from_value(result["pentanomial"].clone()).expect("counts");
    let (llr, lower, _) = reference(0.0, 20.0, counts, 0.05, 0.05);
    let printed = result["llr"].as_f64().expect("an LLR");
    assert!((printed - llr).abs() < 1e-6 && printed <= lower, "{printed} against {llr}");
    // Every line is JSON.
    for line in run.stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("a JSON line");
    }
}

#[test]
fn the_most_games_end_an_undecided_test_with_exit_status_4() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let random = random();
    let run = scratch.arena([
        "sprt",
        common::PYTHON_RANDOM_BOT,
        &random,
        "--game",
        "numbers-war",
        "--max-games",
        "8",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(run.status.code(), Some(4), "{run:?}");
    let printed = parse(&run.stdout);
    assert_eq!(printed.games, 8);
    assert!(printed.verdict.starts_with("inconclusive"), "{}", run.stdout);
    assert_eq!(read_games_csv(&out).len(), 8);
}

#[test]
fn an_sprt_file_runs_with_arena_run() {
    let scratch = Scratch::new();
    let file = scratch.out().with_file_name("test.toml");
    let text = format!(
        "game = \"number-snatch\"\nseed = 4\nconcurrency = 2\nout = \"out\"\n\n[sprt]\nelo0 = 0\nelo1 = 10\nmax_games = 600\n\n[[bot]]\nname = \"new\"\ncommand = [{:?}]\n\n[[bot]]\nname = \"old\"\ncommand = [{:?}]\n",
        strong(),
        random()
    );
    std::fs::write(&file, text).expect("a tournament file");
    let run = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let printed = parse(&run.stdout);
    assert_eq!(printed.verdict, "H1 accepted");
    assert!(printed.games < 600);
    assert!(run.stdout.contains("Results of new vs old"), "{}", run.stdout);
    assert!(
        run.stdout.contains("2 bots, at most 600 games until the SPRT decides"),
        "{}",
        run.stdout
    );
    assert_result_matches_games(&printed, &scratch.out(), "new", 10.0);
    // The page's settings say what the games count means in a test.
    let markdown = scratch.out().with_file_name("report.md");
    let (out, page) = (scratch.out(), markdown.to_str().expect("UTF-8"));
    scratch.arena(["report", out.to_str().expect("UTF-8"), "--markdown", page]).assert_success();
    let report = std::fs::read_to_string(&markdown).expect("the report");
    assert!(report.contains("- most games: 600"), "{report}");
    // --json tells the test as `arena sprt` does.
    let json = scratch.arena(["run", file.to_str().expect("UTF-8"), "--json"]);
    let first = json.stdout.lines().next().expect("a run event");
    let run: serde_json::Value = serde_json::from_str(first).expect("JSON");
    assert_eq!(run["type"], "run", "{first}");
    assert_eq!(run["max_games"], 600, "{first}");
    assert_eq!(run["sprt"]["elo1"], 10.0, "{first}");
    assert!(run.get("games_per_pair").is_none(), "{first}");
    let sharded = scratch.arena(["run", file.to_str().expect("UTF-8"), "--shard", "1/2"]);
    assert_eq!(sharded.status.code(), Some(2), "{sharded:?}");
}

#[test]
fn an_interrupted_test_resumes_from_its_games() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let strong = strong();
    // A random bot slow enough for the test to be interrupted midway.
    let paced = "python3 tests/fixtures/tournament/paced_bot.py --delay-ms 10";
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(repo_dir())
        .args(["sprt", &strong, paced, "--game", "number-snatch", "--name2", "paced"])
        .args(["--max-games", "2000", "--out", out.to_str().expect("UTF-8")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the arena starts");
    let started = Instant::now();
    while read_rows(&out) < 10 {
        assert!(started.elapsed() < Duration::from_secs(60), "no 10 games in 60 s");
        assert!(arena.try_wait().expect("polling").is_none(), "the test ended early");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: a signal to our own child, not yet reaped.
    unsafe { libc::kill(arena.id() as libc::pid_t, libc::SIGINT) };
    let interrupted = arena.wait_with_output().expect("the arena ends");
    let stdout = String::from_utf8_lossy(&interrupted.stdout).into_owned();
    assert_eq!(interrupted.status.code(), Some(130), "{stdout}");
    assert!(parse(&stdout).verdict == "undecided", "{stdout}");
    let hint = stdout
        .lines()
        .skip_while(|line| !line.contains("resume with:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no resume command: {stdout}"));
    let resume = shell_words::split(hint).expect("a command a shell can split");
    let already = read_games_csv(&out).len();

    let resumed = scratch.arena(&resume[1..]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(
        resumed.stdout.contains(&format!("resuming: {already} games already")),
        "{}",
        resumed.stdout
    );
    let printed = parse(&resumed.stdout);
    assert_eq!(printed.verdict, "H1 accepted");
    assert_result_matches_games(&printed, &out, "strong-bot", 10.0);
}

fn read_rows(out: &Path) -> usize {
    std::fs::read_to_string(out.join("games.csv"))
        .map(|text| text.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// An SPRT decides on the same pair at any concurrency, and what finished
/// past it is set aside: games.csv is the same one at a time or two.
#[test]
fn an_sprt_gives_the_same_games_at_any_concurrency() {
    let (strong, random) = (strong(), random());
    let mut folders = Vec::new();
    for concurrency in ["1", "2"] {
        let scratch = Scratch::new().with_seed_key("one key");
        let out = scratch.out();
        let run = scratch.arena([
            "sprt",
            &strong,
            &random,
            "--game",
            "number-snatch",
            "--max-games",
            "1000",
            "--concurrency",
            concurrency,
            "--seed",
            "3",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        assert!(!run.stdout.contains("Not counted"), "{}", run.stdout);
        let rows = common::rows_apart_from_timings(&out, &["transcript"]);
        let result = run.stdout[run.stdout.find("Results of").expect("a result")..].to_owned();
        folders.push((rows, result, scratch));
    }
    assert_eq!(folders[0].0.len(), folders[1].0.len());
    assert!(folders[0].0 == folders[1].0, "games.csv differs between concurrency 1 and 2");
    assert_eq!(folders[0].1, folders[1].1);
}
