//! Ratings a person can trust: a league where bots lose every game (they
//! crash at every start) rates every bot with finite, bounded numbers, the
//! ones that lost everything shown as a bound; nothing written says `inf`
//! or `nan`; and `arena report --drop-run` leaves a run out of the history.

#[allow(dead_code)]
mod common;

use common::{Scratch, read_csv, rust_random_bot, rust_strong_bot};

/// A league of the strong bot, the random bot and `crashers` bots that
/// exit at once, into the scratch's results folder.
fn league(scratch: &Scratch, crashers: usize) -> common::Run {
    let mut bots = format!(
        "[[bot]]\nname = \"strong\"\ncommand = [{:?}]\n[[bot]]\nname = \"random\"\ncommand = [{:?}]\n",
        rust_strong_bot().to_str().unwrap(),
        rust_random_bot().to_str().unwrap()
    );
    for number in 1..=crashers {
        bots.push_str(&format!(
            "[[bot]]\nname = \"crash{number}\"\ncommand = [\"python3\", \"-c\", \"raise SystemExit({number})\"]\n"
        ));
    }
    let file = scratch.out().with_extension("toml");
    let out = scratch.out();
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\nseed = 2\ngames_per_pair = 6\nwithdraw_after = 0\nout = {:?}\n{bots}",
            out.to_str().unwrap()
        ),
    )
    .unwrap();
    let run = scratch.arena(["run", file.to_str().unwrap()]);
    run.assert_success();
    run
}

#[test]
fn bots_that_lose_every_game_get_bounded_ratings_and_nothing_says_inf_or_nan() {
    for crashers in [1, 2] {
        let scratch = Scratch::new().with_seed_key("ratings");
        let run = league(&scratch, crashers);
        let out = scratch.out();
        let mut written = run.stdout.clone();
        for file in ["standings.csv", "history.jsonl", "standings.md"] {
            if let Ok(text) = std::fs::read_to_string(out.join(file)) {
                written.push_str(&text);
            }
        }
        for word in ["inf", "nan", "NaN", "± ?"] {
            assert!(!written.contains(word), "{crashers} crashing: `{word}` in:\n{written}");
        }
        for row in read_csv(&out.join("standings.csv")) {
            let elo: f64 = row["elo"].parse().expect("a number");
            assert!(elo.abs() < 1500.0, "{row:?}");
            // A bot that lost everything has an upper end only.
            let crashed = row["bot"].starts_with("crash");
            assert_eq!(row["elo_low"].is_empty(), crashed, "{row:?}");
            for end in ["elo_low", "elo_high"].into_iter().filter(|end| !row[*end].is_empty()) {
                let end: f64 = row[end].parse().expect("a number");
                assert!(end.abs() < 1500.0, "{row:?}");
            }
        }
        for number in 1..=crashers {
            let line = run
                .stdout
                .lines()
                .find(|line| line.contains(&format!(" crash{number} ")) && line.contains('%'))
                .expect("the crasher's standings line");
            assert!(line.contains("%  < "), "a bound: {line}");
        }
        assert!(run.stdout.contains("< or >: the bot lost (won) every game it played"));
        let history = std::fs::read_to_string(out.join("history.jsonl")).unwrap();
        let run_line: serde_json::Value =
            serde_json::from_str(history.lines().next().unwrap()).unwrap();
        for (bot, entry) in run_line["bots"].as_object().unwrap() {
            let elo = entry["elo"].as_f64().unwrap();
            assert!(elo.abs() < 1500.0, "{bot}: {elo}");
        }
    }
}

#[test]
fn a_run_left_out_of_the_history_is_gone_from_it() {
    let scratch = Scratch::new().with_seed_key("ratings");
    league(&scratch, 1);
    let out = scratch.out();
    let folder = out.to_str().unwrap();
    let listed = scratch.arena(["report", folder, "--runs"]);
    listed.assert_success();
    let id = listed.stdout.split_whitespace().next().expect("a run's id").to_owned();
    assert!(listed.stdout.contains("18 games  leader: strong"), "{}", listed.stdout);
    let unknown = scratch.arena(["report", folder, "--drop-run", "12"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains(&format!("has no run 12: its runs are {id}")),
        "{}",
        unknown.stderr
    );
    let dropped = scratch.arena(["report", folder, "--drop-run", &id]);
    dropped.assert_success();
    assert!(
        dropped.stdout.contains(&format!("left out of the history: {id}  ")),
        "{}",
        dropped.stdout
    );
    let history = std::fs::read_to_string(out.join("history.jsonl")).unwrap();
    assert!(history.is_empty(), "{history}");
    assert!(scratch.arena(["report", folder, "--runs"]).stdout.is_empty());
}
