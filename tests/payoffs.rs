//! Games whose scores are payoffs, run by the real binary: Kuhn poker's
//! league is ranked by chips won a hand (standings.csv, the terminal, the
//! Markdown report and the page agree with games.csv), a forfeit is
//! charged the least payoff, decimal scores go through games.csv and the
//! game lines, `arena sprt --payoff1` decides on chips both ways and is
//! refused for a game without payoffs, a gauntlet reports its challenger's
//! payoff, and check-game judges the declared range.

#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;

use common::{
    PYTHON_RANDOM_BOT, Row, Scratch, fixture, page_report, read_csv, read_games_csv, repo_dir,
};

const KUHN: &str = "python3 examples/games/kuhn-poker/game.py";
const ALWAYS_BET: &str = "python3 examples/games/kuhn-poker/bots/always_bet.py";

/// Each bot's mean payoff a game, from games.csv alone: its own score in
/// each game, a forfeit counted as `least` (and the other seat's as
/// `most`).
fn mean_payoffs(rows: &[Row], least: f64, most: f64) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    for row in rows {
        let forfeited = [!row["forfeit1"].is_empty(), !row["forfeit2"].is_empty()];
        for (seat, bot) in [&row["seat1"], &row["seat2"]].into_iter().enumerate() {
            let score: f64 = row[["score1", "score2"][seat]].parse().unwrap();
            let payoff = match (forfeited[seat], forfeited[1 - seat]) {
                (true, _) => least,
                (false, true) => most,
                (false, false) => score,
            };
            let entry = sums.entry(bot.to_owned()).or_default();
            *entry = (entry.0 + payoff, entry.1 + 1);
        }
    }
    sums.into_iter().map(|(bot, (sum, games))| (bot, sum / f64::from(games))).collect()
}

#[test]
fn a_poker_league_is_ranked_by_chips_won_a_hand() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let page = out.with_extension("html");
    let markdown = out.with_extension("md");
    let file = repo_dir().join("examples/games/kuhn-poker/tournament.toml");
    let run = scratch.arena([
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--games-per-pair",
        "100",
        "--html",
        page.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    run.assert_success();
    let expected = mean_payoffs(&read_games_csv(&out), -2.0, 2.0);
    assert_eq!(expected.len(), 3);

    let standings = read_csv(&out.join("standings.csv"));
    let mut previous = f64::INFINITY;
    for (place, standing) in standings.iter().enumerate() {
        let payoff: f64 = standing["payoff"].parse().unwrap();
        let bot = &standing["bot"];
        assert!((payoff - expected[bot]).abs() < 1e-6, "{bot}: {payoff} against {expected:?}");
        assert!(payoff <= previous, "ranked by payoff: {standings:?}");
        if payoff < previous {
            assert_eq!(standing["rank"], (place + 1).to_string(), "{standings:?}");
        } else {
            assert_eq!(standing["rank"], standings[place - 1]["rank"], "equals share a rank");
        }
        let (low, high): (f64, f64) =
            (standing["payoff_low"].parse().unwrap(), standing["payoff_high"].parse().unwrap());
        assert!(low < payoff && payoff < high, "a 95% interval around the mean: {standing:?}");
        previous = payoff;
    }
    // The terminal's table, in the same order, with the payoff column.
    let table = run.stdout.split("payoff (95%)").nth(1).expect("a payoff column");
    let mut at = 0;
    for standing in &standings {
        let found = table[at..].find(&standing["bot"]).expect("every bot in the table");
        at += found;
        let shown = match format!("{:+.3}", standing["payoff"].parse::<f64>().unwrap()) {
            zero if zero.ends_with("0.000") => "0.000 ±".to_owned(),
            signed => format!("{signed} ±"),
        };
        assert!(table[at..].lines().next().unwrap().contains(&shown), "{shown} in {table}");
    }
    let report = std::fs::read_to_string(&markdown).unwrap();
    assert!(report.contains("| payoff (95%) |"), "{report}");
    let first = format!("| 1 |  | {} |", &standings[0]["bot"]);
    assert!(report.contains(&first), "{first} in {report}");
    let data = page_report(&page);
    for (bot, standing) in data["bots"].as_array().unwrap().iter().zip(&standings) {
        assert_eq!(bot["name"], standing["bot"].to_string());
        let payoff = bot["payoff"].as_f64().expect("the page has each bot's payoff");
        assert!((payoff - expected[&standing["bot"]]).abs() < 1e-9);
        assert!(bot["payoff_low"].as_f64().unwrap() < payoff);
    }
}

/// A game without payoffs shows none: no column on the terminal, empty
/// columns in standings.csv (the same columns for every game), none on
/// the page.
#[test]
fn a_game_without_payoffs_ranks_by_wins_and_shows_no_payoff() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let page = out.with_extension("html");
    let run = scratch.arena([
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    scratch
        .arena(["report", out.to_str().unwrap(), "--html", page.to_str().unwrap()])
        .assert_success();
    assert!(!run.stdout.contains("payoff"), "{}", run.stdout);
    for standing in read_csv(&out.join("standings.csv")) {
        assert_eq!((&standing["payoff"], &standing["payoff_low"]), ("", ""));
    }
    let data = page_report(&page);
    assert!(data["bots"].as_array().unwrap().iter().all(|bot| bot["payoff"].is_null()));
}

/// A bot that crashes cannot escape a losing hand: it is charged the
/// least payoff, its opponent credited the most.
#[test]
fn a_forfeit_is_charged_the_least_payoff() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        KUHN,
        ALWAYS_BET,
        &format!("python3 {}", fixture("raises.py")),
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert!(rows.iter().all(|row| row["reason"] == *"crash"), "{rows:?}");
    let standings = read_csv(&out.join("standings.csv"));
    let payoff = |bot: &str| {
        let standing = standings.iter().find(|standing| standing["bot"] == *bot).unwrap();
        standing["payoff"].parse::<f64>().unwrap()
    };
    assert_eq!((payoff("always_bet"), payoff("raises")), (2.0, -2.0), "{standings:?}");
}

/// Decimal scores: games.csv keeps them as written, the game lines show
/// them, and standings average them.
#[test]
fn decimal_scores_are_kept_and_shown() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let game = format!("python3 {} --flaw payoffs", fixture("games/tinygame.py"));
    let run = scratch.arena([
        "match",
        &game,
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "6",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    // Three rounds: a game is won by 1 or 3 rounds, half of it a payoff.
    for row in &rows {
        let scores = (&row["score1"], &row["score2"]);
        assert!(
            [("0.5", "-0.5"), ("-0.5", "0.5"), ("1.5", "-1.5"), ("-1.5", "1.5")]
                .contains(&(scores.0, scores.1)),
            "{row:?}"
        );
    }
    let first = &rows[0];
    let line = format!("{} to {}", &first["score1"], &first["score2"]);
    assert!(run.stdout.contains(&line), "`{line}` in {}", run.stdout);
    // What each bot was sent in `over`, and what the replay says: the
    // decimals games.csv has.
    let sent: Vec<serde_json::Value> = common::transcript_of(&out, first)
        .into_iter()
        .filter(|line| line["type"] == "send" && line["msg"]["type"] == "over")
        .map(|line| line["msg"]["scores"].clone())
        .collect();
    let expected: Vec<f64> =
        [&first["score1"], &first["score2"]].map(|s| s.parse().unwrap()).into();
    assert_eq!(sent, [serde_json::json!(expected), serde_json::json!(expected)]);
    let words = scratch.arena(["replay", out.to_str().unwrap(), "--game", "1"]);
    let said =
        format!("Final scores: Player 1 ({}) {}, Player 2", &first["seat1"], &first["score1"]);
    assert!(words.stdout.contains(&said), "`{said}` in {}", words.stdout);
}

#[test]
fn sprt_on_payoffs_decides_on_chips_both_ways() {
    let scratch = Scratch::new();
    let test = |new: &str, old: &str, out: &str| {
        let out = scratch.out().with_file_name(out);
        let run = scratch.arena([
            "sprt",
            new,
            old,
            "--game",
            KUHN,
            "--payoff1",
            "0.15",
            "--max-games",
            "4000",
            "--seed",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        let result = run
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find(|line| line["type"] == "sprt")
            .unwrap_or_else(|| panic!("no sprt result: {}{}", run.stdout, run.stderr));
        (run.status.code(), result)
    };
    // Betting into a random bot wins about half a chip a hand.
    let (status, result) = test(ALWAYS_BET, PYTHON_RANDOM_BOT, "better");
    assert_eq!((status, &result["verdict"]), (Some(0), &"H1".into()), "{result}");
    let payoff = result["payoff"].as_f64().unwrap();
    assert!(payoff > 0.2 && payoff < 1.0, "{result}");
    assert_eq!((result["payoff0"].as_f64(), result["payoff1"].as_f64()), (Some(0.0), Some(0.15)));
    let (status, result) = test(PYTHON_RANDOM_BOT, ALWAYS_BET, "worse");
    assert_eq!((status, &result["verdict"]), (Some(3), &"H0".into()), "{result}");
    assert!(result["payoff"].as_f64().unwrap() < 0.0, "{result}");
}

#[test]
fn a_test_on_payoffs_of_a_game_without_them_is_refused() {
    let scratch = Scratch::new();
    let run = scratch.arena([
        "sprt",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--game",
        "number-snatch",
        "--payoff1",
        "0.1",
    ]);
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("the game's scores are not payoffs"), "{}", run.stderr);
    let alone = scratch.arena(["sprt", "a", "b", "--game", KUHN, "--payoff0", "0.1"]);
    assert_eq!(alone.status.code(), Some(2), "{}", alone.stderr);
    assert!(alone.stderr.contains("--payoff1"), "{}", alone.stderr);
}

#[test]
fn check_game_judges_the_declared_payoffs() {
    let scratch = Scratch::new();
    let check = |flaw: &str| {
        let game = format!("python3 {} --flaw {flaw}", fixture("games/tinygame.py"));
        scratch.arena(["check-game", &game, "--games", "6"])
    };
    let sound = check("payoffs");
    sound.assert_success();
    assert!(
        sound.stdout.contains(
            "PASS  ends with scores within its declared payoffs: 6 games ended with payoffs within the -1.5 to 1.5 declared"
        ),
        "init's declares set the range for its parameters: {}",
        sound.stdout
    );
    let outside = check("payoff-outside");
    assert_eq!(outside.status.code(), Some(1), "{}", outside.stdout);
    let failed = outside
        .stdout
        .lines()
        .find(|line| line.contains("FAIL"))
        .unwrap_or_else(|| panic!("{}", outside.stdout));
    assert!(
        failed.contains("ends with scores within its declared payoffs")
            && failed.contains("outside the payoffs it declares (-1 to 1)"),
        "{failed}"
    );
    assert_eq!(outside.stdout.matches("FAIL").count(), 1, "{}", outside.stdout);
}

/// A gauntlet of a payoff game ranks by payoff too, and says each
/// challenger's payoff first, as text and as JSON.
#[test]
fn a_gauntlet_of_a_payoff_game_reports_the_challengers_payoff() {
    let scratch = Scratch::new();
    let league = repo_dir().join("examples/games/kuhn-poker/tournament.toml");
    let gauntlet = |out: &str, json: bool| {
        let out = scratch.out().with_file_name(out);
        let mut args = vec!["gauntlet", "--league", league.to_str().unwrap(), ALWAYS_BET];
        args.extend(["--games", "20", "--out", out.to_str().unwrap()]);
        if json {
            args.push("--json");
        }
        let run = scratch.arena(&args);
        run.assert_success();
        (run, read_csv(&out.join("standings.csv")))
    };
    let (text, standings) = gauntlet("text", false);
    let payoff: f64 =
        standings.iter().find(|s| s["bot"] == *"always_bet").unwrap()["payoff"].parse().unwrap();
    let line = text.stdout.lines().find(|line| line.contains("1. always_bet")).unwrap();
    // "payoff +0.458 ± 0.276 a game, ...": the mean to three decimals.
    let shown: f64 =
        line.split("payoff ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((shown - payoff).abs() < 0.0006 && line.contains(" ± "), "{payoff}: {line}");
    let (json, standings) = gauntlet("json", true);
    let complete: serde_json::Value =
        serde_json::from_str(json.stdout.lines().last().unwrap()).unwrap();
    let challenger = &complete["challengers"][0];
    let payoff: f64 =
        standings.iter().find(|s| s["bot"] == *"always_bet").unwrap()["payoff"].parse().unwrap();
    assert!((challenger["payoff"].as_f64().unwrap() - payoff).abs() < 1e-5, "{complete}");
    assert!(challenger["payoff_margin"].as_f64().unwrap() > 0.0, "{complete}");
}
