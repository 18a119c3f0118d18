//! Openings files and the overrides of `arena run`, driven as a user runs
//! them: tournament and openings files in a temporary folder, the real
//! binary, the Rust random bot.

#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Row, Run, Scratch, read_games_csv, rust_random_bot, transcript_of};
use serde_json::{Value, json};

/// A folder holding a test's files and results, and the arena to run.
struct Folder {
    dir: tempfile::TempDir,
    arena: Scratch,
}

impl Folder {
    fn new() -> Folder {
        // One seat-seed key for every folder: results compare across them.
        let arena = Scratch::new().with_seed_key("openings tests");
        Folder { dir: tempfile::tempdir().expect("a temporary folder"), arena }
    }

    fn join(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, content).expect("writing into the temporary folder");
        path
    }

    /// A tournament file of Number Snatch between Rust random bots named
    /// `bots`, with `top` as its first lines and results in `out` unless
    /// `top` says otherwise.
    fn tournament(&self, name: &str, top: &str, bots: &[&str]) -> PathBuf {
        let program = rust_random_bot().to_str().expect("a UTF-8 path");
        let out = if top.contains("out = ") { "" } else { "out = \"out\"\n" };
        let mut text = format!("game = \"number-snatch\"\nmove_timeout = \"5s\"\n{out}{top}\n");
        for bot in bots {
            text.push_str(&format!("\n[[bot]]\nname = \"{bot}\"\ncommand = [{program:?}]\n"));
        }
        self.write(name, &text)
    }

    fn run(&self, args: &[&str]) -> Run {
        self.arena.arena(args)
    }

    fn run_ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        run.assert_success();
        run
    }

    /// Runs and expects input to correct (exit status 2) before any game.
    fn refused(&self, args: &[&str], words: &[&str]) -> Run {
        let run = self.run(args);
        assert_eq!(run.status.code(), Some(2), "{run:?}");
        for word in words {
            assert!(run.stderr.contains(word), "`{word}` is not named:\n{}", run.stderr);
        }
        run
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

fn tournament_json(out: &Path) -> Value {
    serde_json::from_str(&text(&out.join("tournament.json"))).expect("tournament.json is JSON")
}

/// A game's result, keyed by its identity: (seat 1, seat 2, round, seed).
fn results(rows: &[Row]) -> BTreeMap<[String; 4], String> {
    rows.iter()
        .map(|row| {
            let key = ["seat1", "seat2", "round", "seed"].map(|column| row[column].to_owned());
            (
                key,
                format!(
                    "{} {} {} {}",
                    &row["winner"], &row["score1"], &row["score2"], &row["plies"]
                ),
            )
        })
        .collect()
}

const OPENINGS: &str = "# three setups\n\
{\"seed\": 42}\n\
{\"seed\": 7, \"params\": {\"count\": 12}}\n\
\n\
{\"params\": {\"count\": 4, \"max\": 9}}\n";

/// The parameters each entry of [`OPENINGS`] plays, under `[params] max = 30`.
fn expected_params(round: u64) -> Value {
    match (round - 1) % 3 {
        0 => json!({"count": 10, "max": 30}),
        1 => json!({"count": 12, "max": 30}),
        _ => json!({"count": 4, "max": 9}),
    }
}

/// Checks that every pairing played each round in both seat orders with
/// the round's entry: its seed, and (in the transcript) its parameters.
fn assert_rounds_follow_the_openings(out: &Path, rounds: u64) {
    let rows = read_games_csv(out);
    let mut seed_of_round: BTreeMap<u64, String> = BTreeMap::new();
    let mut seatings: BTreeMap<(String, u64), Vec<(String, String)>> = BTreeMap::new();
    for row in &rows {
        let round = row.number("round");
        assert!((1..=rounds).contains(&round), "round {round}");
        // Every pairing meets the same setup in a round.
        let seed = seed_of_round.entry(round).or_insert_with(|| row["seed"].to_owned());
        assert_eq!(seed, &row["seed"], "round {round} has two seeds");
        match (round - 1) % 3 {
            0 => assert_eq!(&row["seed"], "42"),
            1 => assert_eq!(&row["seed"], "7"),
            _ => assert!(!["42", "7"].contains(&&row["seed"]), "a derived seed"),
        }
        seatings
            .entry((row["pairing"].to_owned(), round))
            .or_default()
            .push((row["seat1"].to_owned(), row["seat2"].to_owned()));
        let header = transcript_of(out, row).swap_remove(0);
        assert_eq!(header["params"], expected_params(round), "game {}", &row["game_index"]);
        assert_eq!(header["seed"].to_string(), row["seed"]);
        let numbers = header["state"]["numbers"].as_array().expect("the list of numbers");
        assert_eq!(json!(numbers.len()), expected_params(round)["count"]);
    }
    for ((pairing, round), seats) in &seatings {
        assert_eq!(seats.len(), 2, "{pairing} round {round}: {seats:?}");
        assert_eq!(seats[0], (seats[1].1.clone(), seats[1].0.clone()), "{pairing} round {round}");
    }
    // A setup without a seed derives one per round: a second pass through
    // the file gets new positions there.
    if rounds >= 6 {
        assert_ne!(seed_of_round[&3], seed_of_round[&6]);
        assert_eq!(seed_of_round[&1], seed_of_round[&4]);
    }
}

#[test]
fn each_opening_is_played_in_both_seat_orders_with_its_parameters() {
    let folder = Folder::new();
    let openings = folder.write("openings.jsonl", OPENINGS);
    let file = folder.tournament(
        "t.toml",
        "seed = 3\nopenings = \"openings.jsonl\"\n\n[params]\nmax = 30",
        &["a", "b", "c"],
    );
    let markdown = folder.join("standings.md");
    let run = folder.run_ok(&["run", path(&file), "--markdown", path(&markdown)]);
    assert!(run.stdout.contains("3 bots, 6 games per pair"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("openings: {}: its 3 setups", openings.display())),
        "{}",
        run.stdout
    );
    let out = folder.join("out");
    assert_eq!(read_games_csv(&out).len(), 3 * 6);
    assert_rounds_follow_the_openings(&out, 3);

    // The results record the file: its path, content and entries.
    let recorded = &tournament_json(&out)["openings"];
    assert_eq!(recorded["file"], "openings.jsonl");
    assert_eq!(recorded["sha256"].as_str().expect("a digest").len(), 64);
    assert_eq!(
        recorded["setups"],
        json!([{"seed": 42}, {"seed": 7, "params": {"count": 12}}, {"params": {"count": 4, "max": 9}}])
    );
    assert!(text(&markdown).contains("openings.jsonl (3 setups, sha256 "), "{}", text(&markdown));
    // Replay tells a game with its own parameters.
    let round_two = read_games_csv(&out).into_iter().find(|row| row.number("round") == 2).unwrap();
    let replay = folder.run_ok(&["replay", path(&out), "--game", &round_two["game_index"]]);
    assert!(replay.stdout.contains("Parameters: {\"count\":12,\"max\":30}"), "{}", replay.stdout);

    // More games than the file has setups cycle through it.
    let cycled = folder.join("cycled");
    let run = folder.run_ok(&[
        "run",
        path(&file),
        "--out",
        path(&cycled),
        "--games-per-pair",
        "12",
        "--json",
    ]);
    let first: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["openings"], json!(path(&openings)), "{first}");
    assert_eq!(read_games_csv(&cycled).len(), 3 * 12);
    assert_rounds_follow_the_openings(&cycled, 6);
    // The first pass is the same games as the run of one pass.
    let one_pass = results(&read_games_csv(&out));
    let two_passes = results(&read_games_csv(&cycled));
    for (game, result) in &one_pass {
        assert_eq!(two_passes.get(game), Some(result), "{game:?}");
    }
}

#[test]
fn shards_of_a_tournament_with_openings_merge_into_one_run() {
    let folder = Folder::new();
    folder.write("openings.jsonl", OPENINGS);
    let file = folder.tournament(
        "t.toml",
        "seed = 3\nopenings = \"openings.jsonl\"\n\n[params]\nmax = 30",
        &["a", "b", "c"],
    );
    let mut shards = Vec::new();
    for shard in ["1/2", "2/2"] {
        let out = folder.join(&format!("shard{}", &shard[..1]));
        folder.run_ok(&["run", path(&file), "--shard", shard, "--out", path(&out)]);
        shards.push(out);
    }
    let merged = folder.join("merged");
    folder.run_ok(&["merge", "--out", path(&merged), path(&shards[0]), path(&shards[1])]);
    let single = folder.join("single");
    folder.run_ok(&["run", path(&file), "--out", path(&single)]);
    assert_eq!(read_games_csv(&merged).len(), 3 * 6);
    assert_eq!(results(&read_games_csv(&merged)), results(&read_games_csv(&single)));
    assert_eq!(text(&merged.join("standings.csv")), text(&single.join("standings.csv")));
    assert_rounds_follow_the_openings(&merged, 3);
}

#[test]
fn a_bad_openings_file_is_refused_naming_file_line_and_field() {
    let folder = Folder::new();
    let file = folder.tournament("t.toml", "openings = \"openings.jsonl\"\n", &["a", "b"]);
    let openings = folder.join("openings.jsonl");
    let cases = [
        (
            "unknown parameter",
            "{\"seed\": 1}\n{\"seed\": 2, \"params\": {\"colour\": 3}}\n",
            2,
            "parameter `colour` of number-snatch: no such parameter",
        ),
        (
            "wrong type",
            "{\"seed\": 1, \"params\": {\"count\": \"many\"}}\n",
            1,
            "parameter `count` of number-snatch: expected a whole number",
        ),
        ("refused value", "{\"seed\": 1}\n{\"params\": {\"count\": 0}}\n", 2, "parameter `count`"),
        ("seed of a wrong type", "{\"seed\": \"one\"}\n", 1, "seed: invalid type"),
        ("unknown key", "{\"sed\": 1}\n", 1, "unknown field `sed`"),
        (
            "bad JSON on line 3",
            "{\"seed\": 1}\n{\"seed\": 2}\n{\"seed\": 3,\n",
            3,
            "not a JSON object",
        ),
    ];
    for (case, content, line, word) in cases {
        std::fs::write(&openings, content).unwrap();
        let run = folder.refused(&["run", path(&file)], &[word]);
        let located = format!("{}:{line}:", openings.display());
        assert!(run.stderr.contains(&located), "{case}: not at {located}:\n{}", run.stderr);
        assert!(!folder.join("out").exists(), "{case}: the results folder was created");
    }
    std::fs::remove_file(&openings).unwrap();
    let run = folder.refused(&["run", path(&file)], &["openings: cannot read", "openings.jsonl"]);
    assert!(run.stderr.contains(&format!("{}:4:", file.display())), "{}", run.stderr);
    assert!(!folder.join("out").exists());
}

#[test]
fn a_changed_openings_file_is_refused_on_resume() {
    let folder = Folder::new();
    let openings = folder.write("openings.jsonl", OPENINGS);
    let top = "seed = 3\nopenings = \"openings.jsonl\"\n\n[params]\nmax = 30";
    let file = folder.tournament("t.toml", top, &["a", "b"]);
    folder.run_ok(&["run", path(&file)]);
    let out = folder.join("out");
    let before = text(&out.join("games.csv"));

    std::fs::write(&openings, OPENINGS.replace("\"seed\": 7", "\"seed\": 8")).unwrap();
    folder.refused(&["run", path(&file)], &["openings was openings.jsonl (3 setups", "--fresh"]);
    std::fs::write(&openings, OPENINGS.replace("\"count\": 12", "\"count\": 11")).unwrap();
    folder.refused(&["run", path(&file)], &["openings was", "--fresh"]);
    let plain = folder.tournament("plain.toml", "seed = 3\n\n[params]\nmax = 30", &["a", "b"]);
    folder.refused(&["run", path(&plain)], &["openings was openings.jsonl", "now none"]);
    assert_eq!(text(&out.join("games.csv")), before, "a refused run touched games.csv");

    // The same content elsewhere is the same tournament.
    folder.write("moved.jsonl", OPENINGS);
    let moved =
        folder.tournament("moved.toml", &top.replace("openings.jsonl", "moved.jsonl"), &["a", "b"]);
    let run = folder.run_ok(&["run", path(&moved)]);
    assert!(run.stdout.contains("nothing to play: 6 games already"), "{}", run.stdout);
    assert_eq!(tournament_json(&out)["openings"]["file"], "moved.jsonl");

    // --fresh plays the changed file.
    std::fs::write(&openings, OPENINGS.replace("\"seed\": 7", "\"seed\": 8")).unwrap();
    folder.run_ok(&["run", path(&file), "--fresh"]);
    let rows = read_games_csv(&out);
    assert!(rows.iter().any(|row| &row["seed"] == "8"), "the new seed was not played");
}

#[test]
fn overrides_are_recorded_as_the_files_own_values() {
    let folder = Folder::new();
    let file = folder.tournament("t.toml", "seed = 5\ngames_per_pair = 2\n", &["a", "b"]);
    let out = folder.join("out");
    folder.run_ok(&["run", path(&file)]);
    let before = text(&out.join("games.csv"));

    // More games per pair: only the new ones are played.
    let run = folder.run_ok(&["run", path(&file), "--games-per-pair", "6"]);
    assert!(run.stdout.contains("2 games already in games.csv, 4 to play"), "{}", run.stdout);
    let after = text(&out.join("games.csv"));
    for line in before.lines() {
        assert!(after.lines().any(|kept| kept == line), "an old row changed: {line}\n{after}");
    }
    assert_eq!(tournament_json(&out)["games_per_pair"], 6);
    // The same games as a file that says 6.
    let edited =
        folder.tournament("six.toml", "seed = 5\ngames_per_pair = 6\nout = \"six\"\n", &["a", "b"]);
    folder.run_ok(&["run", path(&edited)]);
    assert_eq!(results(&read_games_csv(&out)), results(&read_games_csv(&folder.join("six"))));

    // Another seed is refused as an edited file's would be; so are fewer
    // games (the file's 2, now that 6 are recorded).
    let games = text(&out.join("games.csv"));
    folder.refused(
        &["run", path(&file), "--games-per-pair", "6", "--seed", "9"],
        &["seed was 5, now 9", "--fresh"],
    );
    folder.refused(&["run", path(&file)], &["games_per_pair was 6, now 2"]);
    let edited_seed = folder.tournament("nine.toml", "seed = 9\ngames_per_pair = 2\n", &["a", "b"]);
    folder.refused(&["run", path(&edited_seed), "--games-per-pair", "6"], &["seed was 5, now 9"]);
    assert_eq!(text(&out.join("games.csv")), games, "a refused run touched games.csv");

    // The seed given on the command line is what the file's would be.
    let nine = folder.join("nine");
    folder.run_ok(&[
        "run",
        path(&edited_seed),
        "--seed",
        "5",
        "--games-per-pair",
        "6",
        "--out",
        path(&nine),
    ]);
    assert_eq!(results(&read_games_csv(&nine)), results(&read_games_csv(&out)));
    assert_eq!(tournament_json(&nine)["seed"], 5);

    // Concurrency is no part of the results: any resumes.
    let run = folder.run_ok(&[
        "run",
        path(&file),
        "--seed",
        "5",
        "--games-per-pair",
        "6",
        "--concurrency",
        "3",
    ]);
    assert!(run.stdout.contains("6 games per pair, seed 5, 3 at once"), "{}", run.stdout);
    assert!(run.stdout.contains("nothing to play: 6 games already"), "{}", run.stdout);

    // Values the file could not hold are refused as it would be.
    folder
        .refused(&["run", path(&file), "--games-per-pair", "3"], &["not an even number of games"]);
    folder.refused(&["run", path(&file), "--concurrency", "0"], &["at least 1"]);
}

#[test]
fn run_help_explains_the_overrides() {
    let folder = Folder::new();
    // Words as one line: clap wraps the help to the terminal's width.
    let help =
        folder.run_ok(&["run", "--help"]).stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for needed in [
        "--seed <N>",
        "--games-per-pair <N>",
        "--concurrency <N>",
        "instead of the file's `seed`",
        "raising it on a results folder plays only the new games",
        "Results do not depend on it",
    ] {
        assert!(help.contains(needed), "`arena run --help` lacks `{needed}`:\n{help}");
    }
}

#[test]
fn a_bot_cannot_read_the_openings_file() {
    // The bot's folder holds the tournament and its openings: the bot may
    // read its folder, but not what the run's setups are made from.
    for sandbox in [false, true] {
        let folder = Folder::new();
        common::hostile::copy_bot_to(folder.dir.path());
        let openings = folder.write("openings.jsonl", "{\"seed\": 31337}\n");
        let secret = format!("path:{}", openings.display());
        let program = rust_random_bot().to_str().expect("a UTF-8 path");
        let file = folder.write(
            "t.toml",
            &format!(
                "game = \"number-snatch\"\nopenings = \"openings.jsonl\"\nmove_timeout = \"5s\"\nout = \"out\"\nsandbox = {sandbox}\n\n\
                 [[bot]]\nname = \"hostile\"\ncommand = [\"python3\", \"hostile.py\", \"read-file\", {secret:?}]\n\n\
                 [[bot]]\nname = \"random\"\ncommand = [{program:?}]\n"
            ),
        );
        folder.run_ok(&["run", path(&file)]);
        let mut logs = vec![folder.join("out/logs/game-000001-seat1-hostile.log")];
        // A challenger of a gauntlet against the file's bots may not either.
        let spy = format!("python3 {} read-file {secret}", path(&folder.join("hostile.py")));
        let gauntlet_out = folder.join("gauntlet");
        let league = ["gauntlet", "--league", path(&file), &spy, "--name", "spy", "--games", "2"];
        folder.run_ok(&[&league[..], &["--out", path(&gauntlet_out)]].concat());
        let spy_log = std::fs::read_dir(gauntlet_out.join("logs"))
            .expect("a logs folder")
            .flatten()
            .map(|entry| entry.path())
            .find(|log| log.to_string_lossy().ends_with("-spy.log"))
            .expect("a log of the spy");
        logs.push(spy_log);
        for log in logs {
            let log = text(&log);
            let outcome = log
                .lines()
                .find_map(|line| line.strip_prefix("attack read-file: "))
                .unwrap_or_else(|| panic!("no report of the attack in the log:\n{log}"));
            if sandbox {
                // Not in the bot's box at all, or an empty file laid over
                // it where its folder is shown.
                assert!(
                    outcome.contains("No such file") || outcome.contains("reads as empty"),
                    "{outcome}"
                );
            } else {
                assert!(outcome.starts_with("succeeded") && outcome.contains("31337"), "{outcome}");
            }
        }
    }
}

/// `arena match --openings`: without --games, each setup once in both seat
/// orders, with the setup's seed and parameters; `arena sprt --openings`
/// plays them in order too; a bad file is refused before any game, naming
/// the flag, the file, the line and the field.
#[test]
fn match_and_sprt_play_an_openings_file() {
    let folder = Folder::new();
    let openings = folder.write("openings.jsonl", OPENINGS);
    let bot = path(rust_random_bot()).to_owned();
    let out = folder.join("match");
    let params = ["--param", "max=30"];
    let args = ["match", "number-snatch", &bot, &bot, "--openings", path(&openings)];
    let run = folder.run_ok(&[&args[..], &params, &["--out", path(&out)]].concat());
    assert!(run.stdout.contains("match, 6 games"), "{}", run.stdout);
    assert_rounds_follow_the_openings(&out, 3);

    let out = folder.join("sprt");
    let run = folder.run(&[
        "sprt",
        &bot,
        &bot,
        "--game",
        "number-snatch",
        "--max-games",
        "8",
        "--openings",
        path(&openings),
        "--param",
        "max=30",
        "--out",
        path(&out),
        "-q",
    ]);
    assert_eq!(run.status.code(), Some(4), "no decision in 8 games: {run:?}");
    assert_eq!(read_games_csv(&out).len(), 8);
    assert_rounds_follow_the_openings(&out, 4);

    let bad = folder.write("bad.jsonl", "{\"seed\": 42}\n{\"sed\": 7}\n");
    let args = ["match", "number-snatch", &bot, &bot, "--openings", path(&bad)];
    let out = folder.join("refused");
    folder.refused(
        &[&args[..], &["--out", path(&out)]].concat(),
        &["--openings: ", &format!("{}:2:", path(&bad)), "unknown field `sed`"],
    );
    assert!(!out.exists(), "a refused match made its results folder");
}
