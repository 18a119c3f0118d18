//! A game program's moves as bots send them back: a legal move holding a
//! number no double holds voids the game when a bot echoes it (never when
//! a move is merely illegal), and a move of another JSON kind than every
//! legal move is named by its kind.

#[allow(dead_code)]
mod common;

use common::{PYTHON_RANDOM_BOT, Run, Scratch, read_games_csv, tinygame};

/// `arena match GAME BOT` against the Python random bot (`BOT` in seat 1
/// first), `games` games with seed 3, its results in `scratch`'s folder
/// `out`.
fn match_of(scratch: &Scratch, game: &str, bot: &str, games: u32, out: &str) -> Run {
    let out = scratch.out().with_file_name(out);
    let games = games.to_string();
    scratch.arena([
        "match",
        game,
        bot,
        PYTHON_RANDOM_BOT,
        "--games",
        &games,
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// A legal move a JavaScript bot cannot echo (an integer past 2^53) is the
/// game's mistake: the bot's echo, judged illegal, voids the game instead
/// of charging the bot; a Python bot, which echoes it exactly, plays on.
#[test]
fn a_legal_move_no_double_holds_voids_the_game_instead_of_charging_its_bot() {
    let scratch = Scratch::new();
    let run = match_of(
        &scratch,
        &tinygame("inexact-move"),
        "node bots/javascript/random_bot.js",
        2,
        "js",
    );
    let out = scratch.out().with_file_name("js");
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("seat 1's legal move {\"card\":")
            && run.stderr.contains("holds 12345678901234567891, which a double")
            && run.stderr.contains("no bot is charged"),
        "{}",
        run.stderr
    );
    for row in read_games_csv(&out) {
        assert_eq!(&row["reason"], "normal", "no bot is charged: {row:?}");
    }
    // The game where the JavaScript bot sits in seat 1 is void; the other
    // (the Python bot in seat 1, echoing exactly) is played.
    assert_eq!(read_games_csv(&out).len(), 1, "{}", run.stdout);

    // A move that is no echo of such a move stays its bot's illegal move.
    let fixture = common::fixture("string_move.py");
    let run = match_of(&scratch, &tinygame("inexact-move"), &fixture, 1, "garbage");
    let out = scratch.out().with_file_name("garbage");
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(&rows[0]["reason"], "illegal_move", "{}", run.stderr);
    assert!(!run.stderr.contains("is void"), "{}", run.stderr);
}

/// A move of another JSON kind than every legal move is named so, by kind
/// only (the legal moves themselves may be the seat's secret).
#[test]
fn a_move_in_the_wrong_form_is_named_by_its_kind() {
    let scratch = Scratch::new();
    let fixture = common::fixture("string_move.py");
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py", &fixture, 1, "string");
    let out = scratch.out().with_file_name("string");
    run.assert_success();
    let rows = read_games_csv(&out);
    let detail = &rows[0]["forfeit_detail"];
    assert!(
        detail.contains(
            "(a string, where the legal moves are numbers) is not one of the legal moves"
        ),
        "{detail}"
    );
}
