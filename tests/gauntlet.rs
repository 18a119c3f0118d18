//! Gauntlets, end to end: `arena gauntlet` (commands, or challengers
//! against a league file's bots) and `challengers` in a tournament file,
//! with real bots. A gauntlet plays every challenger against every bot of
//! the field, each setup in both seat orders, and nothing else.

#[allow(dead_code)]
mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{PYTHON_RANDOM_BOT, Row, Scratch, read_games_csv, rust_random_bot, rust_strong_bot};

/// Games per pairing (as `seat1 vs seat2` in file order) and the seeds of
/// each pairing's setups, from games.csv.
fn games_by_pairing(rows: &[Row]) -> BTreeMap<String, usize> {
    let mut pairings = BTreeMap::new();
    for row in rows {
        *pairings.entry(row["pairing"].to_owned()).or_default() += 1;
        let setup: Vec<&Row> = rows
            .iter()
            .filter(|other| other["pairing"] == row["pairing"] && other["round"] == row["round"])
            .collect();
        assert_eq!(
            setup.len(),
            2,
            "round {} of {} is not played twice",
            &row["round"],
            &row["pairing"]
        );
        assert_eq!(setup[0]["seat1"], setup[1]["seat2"], "the seats are not swapped");
        assert_eq!(setup[0]["seed"], setup[1]["seed"]);
    }
    pairings
}

fn path_text(path: &std::path::Path) -> String {
    path.to_str().expect("a UTF-8 path").to_owned()
}

#[test]
fn a_gauntlet_plays_the_challenger_against_the_field_only() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let (strong, random) = (path_text(rust_strong_bot()), path_text(rust_random_bot()));
    let run = scratch.arena([
        "gauntlet",
        "--game",
        "number-snatch",
        &strong,
        &random,
        PYTHON_RANDOM_BOT,
        "--games",
        "6",
        "--concurrency",
        "2",
        "--out",
        &path_text(&out),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2 * 6, "two pairings of six games");
    let pairings = games_by_pairing(&rows);
    let expected: BTreeMap<String, usize> =
        [("strong-bot vs random-bot".to_owned(), 6), ("strong-bot vs random_bot".to_owned(), 6)]
            .into();
    assert_eq!(pairings, expected, "the field's bots never meet");
    assert!(
        run.stdout
            .contains("Challengers against the field (the field's bots did not play each other):"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1. strong-bot"), "{}", run.stdout);
    // Rerun: resumes to nothing, prints the same standings.
    let again = scratch.arena([
        "gauntlet",
        "--game",
        "number-snatch",
        &strong,
        &random,
        PYTHON_RANDOM_BOT,
        "--games",
        "6",
        "--out",
        &path_text(&out),
    ]);
    again.assert_success();
    assert!(again.stdout.contains("nothing to play: 12 games already"), "{}", again.stdout);
}

#[test]
fn challengers_play_a_league_files_bots() {
    let scratch = Scratch::new();
    let league = scratch.out().with_file_name("league.toml");
    let random = path_text(rust_random_bot());
    std::fs::write(
        &league,
        format!(
            "game = \"numbers-war\"\nseed = 9\ngames_per_pair = 4\nout = \"league-results\"\n\n[[bot]]\nname = \"rs\"\ncommand = [{random:?}]\n\n[[bot]]\nname = \"py\"\ncommand = [\"python3\", {:?}]\n",
            common::repo_dir().join("bots/python/random_bot.py")
        ),
    )
    .expect("a league file");
    let out = scratch.out();
    let strong = path_text(rust_strong_bot());
    let run = scratch.arena([
        "gauntlet",
        "--league",
        &path_text(&league),
        &strong,
        &random,
        "--name",
        "mine",
        "--name",
        "other",
        "--json",
        "--out",
        &path_text(&out),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2 * 2 * 4, "two challengers, two field bots, four games each");
    let pairings: BTreeSet<String> = games_by_pairing(&rows).into_keys().collect();
    let expected: BTreeSet<String> =
        ["rs vs mine", "py vs mine", "rs vs other", "py vs other"].map(String::from).into();
    assert_eq!(pairings, expected, "challengers meet the field and nobody else");
    assert!(rows.iter().all(|row| &row["game"] == "numbers-war"), "the league's game");
    assert!(
        !league.with_file_name("league-results").exists(),
        "the league's own folder is not used"
    );
    let last: serde_json::Value =
        serde_json::from_str(run.stdout.lines().last().expect("output")).expect("JSON");
    assert_eq!(last["type"], "complete");
    let names: Vec<&str> = last["challengers"]
        .as_array()
        .expect("challengers")
        .iter()
        .map(|c| c["bot"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"mine") && names.contains(&"other"), "{names:?}");

    // A challenger named like a bot of the league is refused.
    let clash =
        scratch.arena(["gauntlet", "--league", &path_text(&league), &random, "--name", "rs"]);
    assert_eq!(clash.status.code(), Some(2), "{clash:?}");
    assert!(clash.stderr.contains("`rs`"), "{}", clash.stderr);
}

#[test]
fn challengers_in_a_tournament_file_make_a_gauntlet() {
    let scratch = Scratch::new();
    let file = scratch.out().with_file_name("gauntlet.toml");
    let (strong, random) = (rust_strong_bot(), rust_random_bot());
    let python = common::repo_dir().join("bots/python/random_bot.py");
    let text = format!(
        "game = \"number-snatch\"\nchallengers = [\"new\", \"newer\"]\ngames_per_pair = 2\nout = \"out\"\n\n[[bot]]\nname = \"old\"\ncommand = [{random:?}]\n\n[[bot]]\nname = \"new\"\ncommand = [{strong:?}]\n\n[[bot]]\nname = \"py\"\ncommand = [\"python3\", {python:?}]\n\n[[bot]]\nname = \"newer\"\ncommand = [{random:?}]\n"
    );
    std::fs::write(&file, &text).expect("a file");
    let run = scratch.arena(["run", &path_text(&file)]);
    run.assert_success();
    let rows = read_games_csv(&scratch.out());
    let pairings: BTreeSet<String> = games_by_pairing(&rows).into_keys().collect();
    let expected: BTreeSet<String> =
        ["old vs new", "new vs py", "old vs newer", "py vs newer"].map(String::from).into();
    assert_eq!(pairings, expected);
    assert_eq!(rows.len(), 4 * 2);
    assert!(run.stdout.contains("Challengers against the field"), "{}", run.stdout);

    // A challenger that is no bot of the file is named with its line.
    std::fs::write(&file, text.replace("\"newer\"]", "\"nwer\"]")).expect("a file");
    let refused = scratch.arena(["run", &path_text(&file)]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(
        refused.stderr.contains("gauntlet.toml:2:")
            && refused.stderr.contains("no [[bot]] is named `nwer`"),
        "{}",
        refused.stderr
    );
}

/// `--bot NAME` makes a bot of the league file a challenger, as the file
/// runs it: a pull request's new bot against the rest of the league.
#[test]
fn a_league_bot_named_with_bot_challenges_the_rest() {
    let scratch = Scratch::new();
    let league = scratch.out().with_file_name("league.toml");
    let (strong, random) = (path_text(rust_strong_bot()), path_text(rust_random_bot()));
    std::fs::write(
        &league,
        format!(
            "game = \"number-snatch\"\nseed = 4\ngames_per_pair = 2\n\
             [[bot]]\nname = \"rs\"\ncommand = [{random:?}]\n\
             [[bot]]\nname = \"strong\"\ncommand = [{strong:?}]\n\
             [[bot]]\nname = \"py\"\ncommand = [\"python3\", {:?}]\n",
            common::repo_dir().join("bots/python/random_bot.py")
        ),
    )
    .expect("a league file");
    let out = scratch.out();
    let run = scratch.arena([
        "gauntlet",
        "--league",
        &path_text(&league),
        "--bot",
        "strong",
        "--out",
        &path_text(&out),
    ]);
    run.assert_success();
    assert!(run.stdout.contains("gauntlet: strong against rs, py;"), "{}", run.stdout);
    assert!(run.stdout.contains("Challengers against the field"), "{}", run.stdout);
    let pairings: BTreeSet<String> = games_by_pairing(&read_games_csv(&out)).into_keys().collect();
    assert_eq!(pairings, BTreeSet::from(["rs vs strong".to_owned(), "strong vs py".to_owned()]));

    // With a command as a second challenger; challengers never meet.
    let both = scratch.out().with_file_name("both");
    let run = scratch.arena([
        "gauntlet",
        "--league",
        &path_text(&league),
        "--bot",
        "py",
        &random,
        "--name",
        "mine",
        "--out",
        &path_text(&both),
    ]);
    run.assert_success();
    let pairings: BTreeSet<String> = games_by_pairing(&read_games_csv(&both)).into_keys().collect();
    assert_eq!(pairings.len(), 4, "{pairings:?}");
    assert!(!pairings.iter().any(|pairing| pairing.contains("py") && pairing.contains("mine")));

    let unknown = scratch.arena(["gauntlet", "--league", &path_text(&league), "--bot", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        unknown.stderr.contains("--bot nobody: ")
            && unknown.stderr.contains("(its bots: rs, strong, py)"),
        "{}",
        unknown.stderr
    );
    let all = scratch.arena([
        "gauntlet",
        "--league",
        &path_text(&league),
        "--bot",
        "rs",
        "--bot",
        "strong",
        "--bot",
        "py",
    ]);
    assert_eq!(all.status.code(), Some(2));
    assert!(all.stderr.contains("leave at least one for the field"), "{}", all.stderr);
    let without_league =
        scratch.arena(["gauntlet", "--game", "number-snatch", "--bot", "rs", &random, &random]);
    assert_eq!(without_league.status.code(), Some(2), "{}", without_league.stderr);
    assert!(without_league.stderr.contains("--bot names a bot of a league file"));
}

/// A gauntlet run without `--out` in the second another gauntlet started
/// (as a CI script runs them, one after the other): it gets a results
/// folder of its own, with `-2` added to the name, and never finds the
/// other's results. The other's folder is copied to every name of the
/// next seconds, so the two always meet.
#[test]
fn a_gauntlet_started_in_the_same_second_gets_a_folder_of_its_own() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let (strong, random) = (path_text(rust_strong_bot()), path_text(rust_random_bot()));
    let gauntlet = |games: &str, out: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
            .current_dir(folder.path())
            .env_remove("ARENA_SEED_KEY")
            .args(["gauntlet", "--game", "number-snatch", &strong, &random, "--games", games])
            .args(out)
            .output()
            .expect("arena runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    };
    gauntlet("2", &["--out", "first"]);
    let results = folder.path().join("results");
    std::fs::create_dir(&results).expect("the results folder");
    let now = std::time::SystemTime::now();
    let names: Vec<String> = (0..30)
        .map(|later| {
            let time = now + std::time::Duration::from_secs(later);
            let stamp = humantime::format_rfc3339_seconds(time).to_string();
            format!("gauntlet-{}", stamp.trim_end_matches('Z').replace(':', "").replace('T', "-"))
        })
        .collect();
    for name in &names {
        let copied = std::process::Command::new("cp")
            .args(["-r", "first"])
            .arg(results.join(name))
            .current_dir(folder.path())
            .status()
            .expect("cp runs");
        assert!(copied.success());
    }
    gauntlet("4", &[]);
    let made: Vec<_> = std::fs::read_dir(&results)
        .expect("the results folders")
        .map(|entry| entry.expect("an entry").file_name().into_string().expect("a UTF-8 name"))
        .filter(|name| !names.contains(name))
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(made[0].ends_with("-2"), "{made:?}");
    assert_eq!(read_games_csv(&results.join(&made[0])).len(), 4);
}
