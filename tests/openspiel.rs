//! OpenSpiel's games through examples/games/openspiel/adapter.py: each of
//! eight two-player games passes `arena check-game` and plays a short
//! match between two random bots, in the sandbox; the example's searching
//! bot beats a random one at tic-tac-toe. OpenSpiel's returns are payoffs:
//! standings rank by them. OpenSpiel comes from
//! PyPI (`open_spiel`), installed once into a venv under target/; where
//! PyPI cannot be reached the test says so loudly and checks nothing.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use common::{PYTHON_RANDOM_BOT, Scratch, read_games_csv};

/// The games the adapter is checked with: poker, dice, simultaneous bids,
/// board games, a simultaneous push.
const GAMES: [&str; 8] = [
    "kuhn_poker",
    "leduc_poker",
    "liars_dice",
    "goofspiel",
    "tic_tac_toe",
    "connect_four",
    "breakthrough",
    "oshi_zumo",
];

/// OpenSpiel's version the adapter is tested with.
const OPEN_SPIEL: &str = "open_spiel==2.0.2";

/// A venv with OpenSpiel, made once for the tests of this file (which run
/// at once: one makes it, the others wait); `None` where PyPI cannot be
/// reached (said on stderr).
fn venv() -> Option<PathBuf> {
    static VENV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    VENV.get_or_init(make_venv).clone()
}

fn make_venv() -> Option<PathBuf> {
    common::pypi::venv_with("openspiel-venv", OPEN_SPIEL, "import pyspiel", "tests/openspiel.rs")
}

fn command(venv: &Path, game: &str) -> String {
    format!("{} examples/games/openspiel/adapter.py {game}", venv.join("bin/python").display())
}

#[test]
fn openspiels_games_pass_check_game_and_play_through_the_adapter() {
    let Some(venv) = venv() else { return };
    let venv_text = venv.to_str().unwrap();
    for game in GAMES {
        let scratch = Scratch::new();
        let check = scratch.arena(["check-game", &command(&venv, game), "--allow-read", venv_text]);
        assert_eq!(check.status.code(), Some(0), "{game}:\n{}{}", check.stdout, check.stderr);
        assert!(check.stdout.contains("All checks passed"), "{game}:\n{}", check.stdout);
        // OpenSpiel's returns are the scores, declared as payoffs from the
        // game's least to its most utility, and checked against them.
        assert!(
            check.stdout.contains("PASS  ends with scores within its declared payoffs"),
            "{game}:\n{}",
            check.stdout
        );

        let out = scratch.out();
        let run = scratch.arena([
            "match",
            &command(&venv, game),
            PYTHON_RANDOM_BOT,
            PYTHON_RANDOM_BOT,
            "--games",
            "2",
            "--allow-read",
            venv_text,
            "--out",
            out.to_str().unwrap(),
        ]);
        run.assert_success();
        let rows = read_games_csv(&out);
        assert_eq!(rows.len(), 2, "{game}: {}", run.stdout);
        for row in &rows {
            assert_eq!(&row["reason"], "normal", "{game}: {}", &row["forfeit_detail"]);
            assert_eq!(&row["game"], &game.replace('_', "-"));
        }
        // Standings by mean return: both seats' returns, averaged per bot.
        let standings = common::read_csv(&out.join("standings.csv"));
        for standing in &standings {
            let bot = &standing["bot"];
            let own: f64 = rows
                .iter()
                .map(|row| {
                    let seat = if row["seat1"] == *bot { "score1" } else { "score2" };
                    row[seat].parse::<f64>().unwrap()
                })
                .sum();
            let payoff: f64 = standing["payoff"].parse().unwrap_or_else(|_| panic!("{game}"));
            assert!((payoff - own / 2.0).abs() < 1e-6, "{game}: {standings:?} {rows:?}");
        }
    }
}

/// search_bot.py rebuilds the position from the history and searches it:
/// against the random bot at tic-tac-toe it wins most games and loses none
/// (from a fixed seed and seat-seed key, so the same games every run: with
/// a folder's own random key the random bot won one game in twenty runs).
#[test]
fn the_search_bot_beats_a_random_one() {
    let Some(venv) = venv() else { return };
    let scratch = Scratch::new().with_seed_key("openspiel-search-bot");
    let out = scratch.out();
    let search =
        format!("{} examples/games/openspiel/search_bot.py", venv.join("bin/python").display());
    let run = scratch.arena([
        "match",
        &command(&venv, "tic_tac_toe"),
        &search,
        PYTHON_RANDOM_BOT,
        "--games",
        "10",
        "--seed",
        "3",
        "--allow-read",
        venv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    let won = |name: &str| rows.iter().filter(|row| row["winner"] == *name).count();
    assert!(won("search_bot") >= 6 && won("random_bot") == 0, "{}", run.stdout);
}

/// On request (`--param view_tensor=true`), a seat's view carries
/// OpenSpiel's information-state tensor too: Kuhn poker's 11 numbers (the
/// player, its card, the betting), which check-game still finds kept from
/// the other seat, and which each bot is sent as its own.
#[test]
fn views_carry_openspiels_tensor_on_request() {
    let Some(venv) = venv() else { return };
    let venv_text = venv.to_str().unwrap();
    let scratch = Scratch::new();
    let game = command(&venv, "kuhn_poker");
    let tensor = ["--param", "view_tensor=true", "--allow-read", venv_text];
    let check = scratch.arena([&["check-game", game.as_str()][..], &tensor].concat());
    assert_eq!(check.status.code(), Some(0), "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("PASS  keeps a seat's private values from the other seat"),
        "{}",
        check.stdout
    );
    let out = scratch.out();
    let out_text = out.to_str().unwrap();
    let run = scratch.arena(
        [
            &["match", game.as_str(), PYTHON_RANDOM_BOT, PYTHON_RANDOM_BOT, "--games", "2"][..],
            &tensor,
            &["--out", out_text],
        ]
        .concat(),
    );
    run.assert_success();
    for row in read_games_csv(&out) {
        let transcript = common::transcript_of(&out, &row);
        let requests: Vec<&serde_json::Value> = transcript
            .iter()
            .filter(|line| line["type"] == "send" && line["msg"]["type"] == "move")
            .collect();
        assert!(!requests.is_empty());
        for request in requests {
            let tensor = request["msg"]["state"]["tensor"].as_array().expect("a tensor");
            assert_eq!(tensor.len(), 11, "{request}");
            // Its first two numbers say which player it is: the seat sent it.
            let seat = request["seat"].as_u64().unwrap() as usize;
            assert_eq!(tensor[seat - 1], 1, "seat {seat} is sent its own tensor: {request}");
        }
    }
}

/// examples/games/openspiel/leduc_poker.toml, a tournament of OpenSpiel's
/// Leduc poker: ranked by chips won a hand (the bot that always raises wins
/// most hands, and by chips it may not lead: the tests of 180 games saw it
/// first and last), and the page showing each bot's payoff, in the
/// standings' order, and every game's turns.
#[test]
fn a_leduc_poker_league_ranks_by_chips_and_makes_its_page() {
    let Some(_venv) = venv() else { return };
    let scratch = Scratch::new();
    let out = scratch.out();
    let page = out.with_extension("html");
    let file = common::repo_dir().join("examples/games/openspiel/leduc_poker.toml");
    let run = scratch.arena([
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--games-per-pair",
        "60",
        "--html",
        page.to_str().unwrap(),
    ]);
    run.assert_success();
    let standings = common::read_csv(&out.join("standings.csv"));
    let payoffs: Vec<f64> =
        standings.iter().map(|standing| standing["payoff"].parse().unwrap()).collect();
    assert!(payoffs.windows(2).all(|pair| pair[0] >= pair[1]), "{}", run.stdout);
    let data = common::page_report(&page);
    for (bot, (standing, payoff)) in
        data["bots"].as_array().unwrap().iter().zip(standings.iter().zip(&payoffs))
    {
        assert_eq!(bot["name"], standing["bot"].to_string());
        assert!((bot["payoff"].as_f64().unwrap() - payoff).abs() < 1e-5, "{bot}");
    }
    let games = data["games"].as_array().unwrap();
    assert_eq!(games.len(), 180);
    let replayed: Vec<&serde_json::Value> =
        games.iter().filter(|game| !game["turns"].as_array().unwrap().is_empty()).collect();
    assert!(!replayed.is_empty(), "the page replays games");
    for game in replayed {
        let turns = game["turns"].as_array().unwrap();
        let last = turns.last().unwrap().as_str().unwrap();
        assert!(last.contains("Final scores:"), "{last}");
    }
}
