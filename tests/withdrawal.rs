//! A bot that crashes in every game is withdrawn from the run after
//! `withdraw_after` games in a row: its remaining games are recorded as
//! lost (`withdrawn`) without starting it, said once; once it is fixed, a
//! run on the same results folder plays those games.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{Scratch, read_csv, read_games_csv, rust_random_bot};

/// A Python bot that crashes at once unless a file `fixed` lies beside
/// it; fixed, it plays the first legal move. Its fingerprint does not see
/// the fix (its command names only its script), as when the fix is a
/// package installed.
const FLAKY_BOT: &str = r#"import json, os, sys
if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixed")):
    print("ModuleNotFoundError: No module named 'numpy'", file=sys.stderr)
    sys.exit(1)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "id": message["id"]}), flush=True)
    elif message["type"] == "move":
        print(json.dumps({"type": "move", "id": message["id"], "move": message["legal_moves"][0]}), flush=True)
"#;

fn play(scratch: &Scratch, bot: &Path) -> common::Run {
    let random = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let command = format!("python3 {}", bot.to_str().expect("a UTF-8 path"));
    let out = scratch.out();
    let args = ["match", "number-snatch", &command, &random, "--games", "12", "--seed", "4"];
    let run = scratch.arena(args.into_iter().chain([
        "--withdraw-after",
        "3",
        "--out",
        out.to_str().expect("UTF-8"),
    ]));
    run.assert_success();
    run
}

#[test]
fn a_bot_that_always_crashes_is_withdrawn_and_its_games_are_played_once_it_is_fixed() {
    let scratch = Scratch::new();
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bot = folder.path().join("flaky.py");
    std::fs::write(&bot, FLAKY_BOT).expect("the bot's script");

    let run = play(&scratch, &bot);
    let rows = read_games_csv(&scratch.out());
    let reasons: Vec<&str> = rows.iter().map(|row| &row["reason"]).collect();
    assert_eq!(reasons[..3], ["crash"; 3], "{reasons:?}");
    assert_eq!(reasons[3..], ["withdrawn"; 9], "{reasons:?}");
    for row in &rows[3..] {
        assert_eq!(&row["winner"], "random-bot");
        assert_eq!(&row["plies"], "0");
        assert_eq!(&row["transcript"], "", "an unplayed game has no transcript");
        assert!(
            row["forfeit_detail"].contains("withdrawn from the run after it crashed or failed to start in 3 games in a row (the last, game 3: crash)"),
            "{}",
            &row["forfeit_detail"]
        );
    }
    // Said once, with what the bot last wrote; one short line per game.
    assert_eq!(run.stderr.matches("is withdrawn from this run").count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("bot `flaky` crashed or failed to start in 3 games in a row")
            && run.stderr.contains("No module named 'numpy'"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout.matches(": not played, flaky withdrawn").count(), 9, "{}", run.stdout);
    assert!(run.stdout.contains("3 crash, 9 withdrawn"), "{}", run.stdout);

    std::fs::write(folder.path().join("fixed"), "").expect("the fix");
    let run = play(&scratch, &bot);
    assert!(run.stdout.contains("9 to play"), "{}", run.stdout);
    let rows = read_games_csv(&scratch.out());
    assert_eq!(rows.len(), 12);
    let reasons: Vec<&str> = rows.iter().map(|row| &row["reason"]).collect();
    assert_eq!(reasons[..3], ["crash"; 3], "{reasons:?}");
    assert!(reasons[3..].iter().all(|reason| *reason == "normal"), "{reasons:?}");
    let set_aside = read_csv(&scratch.out().join("set-aside.csv"));
    assert_eq!(set_aside.len(), 9);
    assert!(set_aside.iter().all(|row| &row["reason"] == "withdrawn"));
}

/// The same in a tournament that keeps its transcripts in the archive: the
/// rows of unplayed games go to games.csv with the others, and a run after
/// the fix plays them.
#[test]
fn a_withdrawn_bot_in_a_tournament_is_replayed_by_the_next_run() {
    let scratch = Scratch::new();
    let folder = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(folder.path().join("flaky.py"), FLAKY_BOT).expect("the bot's script");
    let random = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let file = folder.path().join("league.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"number-claim\"\ngames_per_pair = 8\nwithdraw_after = 2\nout = \"out\"\n\n[[bot]]\nname = \"flaky\"\ncommand = [\"python3\", \"flaky.py\"]\n\n[[bot]]\nname = \"random\"\ncommand = [{random:?}]\n"
        ),
    )
    .expect("the tournament file");
    let out = folder.path().join("out");
    let run = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    run.assert_success();
    assert_eq!(run.stderr.matches("is withdrawn from this run").count(), 1, "{}", run.stderr);
    let rows = read_games_csv(&out);
    let withdrawn: Vec<&common::Row> =
        rows.iter().filter(|row| &row["reason"] == "withdrawn").collect();
    assert_eq!(rows.len(), 8);
    assert_eq!(withdrawn.len(), 6, "{rows:?}");
    assert!(withdrawn.iter().all(|row| row["transcript"].is_empty()));
    let standings = read_csv(&out.join("standings.csv"));
    let flaky = standings.iter().find(|row| &row["bot"] == "flaky").expect("flaky's standing");
    assert_eq!(&flaky["forfeits_withdrawn"], "6");

    std::fs::write(folder.path().join("fixed"), "").expect("the fix");
    let run = scratch.arena(["run", file.to_str().expect("UTF-8")]);
    run.assert_success();
    assert!(
        run.stderr.contains("6 games of") && run.stderr.contains("played now"),
        "{}",
        run.stderr
    );
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 8);
    assert_eq!(rows.iter().filter(|row| &row["reason"] == "normal").count(), 6, "{rows:?}");
}

/// A league of four where one bot crashes at every start: withdrawn after
/// the same game, with the same rows, one game at a time or several.
#[test]
fn a_league_with_a_crashing_bot_ends_the_same_at_any_concurrency() {
    let random = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let mut results = Vec::new();
    for concurrency in [1, 2, 4] {
        let scratch = Scratch::new().with_seed_key("the same key");
        let out = scratch.out();
        let file = out.with_extension("toml");
        std::fs::write(
            &file,
            format!(
                "game = \"number-snatch\"\nseed = 9\ngames_per_pair = 8\nwithdraw_after = 3\nconcurrency = {concurrency}\nout = {out:?}\n\
                 [[bot]]\nname = \"crashes\"\ncommand = [\"python3\", \"-c\", \"raise SystemExit(3)\"]\n\
                 [[bot]]\nname = \"one\"\ncommand = [{random:?}]\n\
                 [[bot]]\nname = \"two\"\ncommand = [{random:?}]\n\
                 [[bot]]\nname = \"three\"\ncommand = [{random:?}]\n"
            ),
        )
        .unwrap();
        let run = scratch.arena(["run", file.to_str().unwrap()]);
        run.assert_success();
        assert_eq!(
            run.stderr.matches("it is withdrawn from this run").count(),
            1,
            "{}",
            run.stderr
        );
        let report = scratch.arena(["report", out.to_str().unwrap()]);
        report.assert_success();
        results.push((
            concurrency,
            run.stderr,
            common::rows_apart_from_timings(&out, &["transcript"]),
        ));
    }
    let (_, said, first) = &results[0];
    assert!(said.contains("(the last, game 3: crash"), "{said}");
    let withdrawn = first
        .iter()
        .filter(|row| row.iter().any(|(column, value)| column == "reason" && value == "withdrawn"))
        .count();
    // Its 24 games: 3 crashed, 21 withdrawn.
    assert_eq!(withdrawn, 21, "{first:?}");
    for (concurrency, said, rows) in &results[1..] {
        assert!(said.contains("(the last, game 3: crash"), "concurrency {concurrency}: {said}");
        assert_eq!(rows.len(), first.len(), "concurrency {concurrency}");
        if let Some(at) = (0..rows.len()).find(|&at| rows[at] != first[at]) {
            panic!(
                "concurrency {concurrency}, row {}: {:?}\none at a time: {:?}",
                at + 1,
                rows[at],
                first[at]
            );
        }
    }
}
