//! The referee with bots that play by the rules: a hundred games of each
//! game without a forfeit and with complete transcripts, a slow start-up
//! within its own limit, request ids, simultaneous choices collected before
//! any is revealed, and what is refused before any game. Misbehaving bots:
//! tests/referee_processes.rs.

#[allow(dead_code)]
mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::referee::{RANDOM_BOT_NAME, check_transcript, play_two_games};
use common::{
    GAMES, PYTHON_RANDOM_BOT, Scratch, fixture, read_games_csv, rust_random_bot, transcript_of,
};
use serde_json::{Value, json};

/// 100 games of `game` between the Python and the Rust random bots: no
/// forfeit, seats alternating, and every transcript complete.
fn random_bots_play_100_games(game: &str, seed: u64) {
    let scratch = Scratch::new();
    let out = scratch.out();
    let rust_bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let seed = seed.to_string();
    let run = scratch.arena([
        "match",
        game,
        PYTHON_RANDOM_BOT,
        &rust_bot,
        "--games",
        "100",
        "--seed",
        &seed,
        // Generous: this test is about the protocol, not speed.
        "--move-timeout",
        "5s",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ]);
    run.assert_success();
    run.assert_faster_than(Duration::from_secs(60));
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 100);
    for (row, index) in rows.iter().zip(1..) {
        assert_eq!(row.number("game_index"), index);
        assert_eq!(&row["game"], game);
        assert_eq!(&row["reason"], "normal", "game {index}: {}", &row["forfeit_detail"]);
        for column in ["forfeiter", "forfeit1", "forfeit2", "forfeit_detail"] {
            assert_eq!(&row[column], "", "game {index}: {column}");
        }
        let python_seat = if index % 2 == 1 { "seat1" } else { "seat2" };
        assert_eq!(&row[python_seat], RANDOM_BOT_NAME, "game {index}");
        assert!(row.number("plies") > 0, "game {index}");
        check_transcript(&transcript_of(&out, row), row);
    }
}

/// From a process's second game on, `start` goes out with the game's first
/// request and the move clock starts at the `ready`: a bot that takes longer
/// than the move limit to get ready, but less than the start-up limit, loses
/// nothing.
#[test]
fn a_slow_ready_counts_against_the_start_up_limit_not_the_move_limit() {
    let scratch = Scratch::new();
    let rows = play_two_games(
        &scratch,
        "number-snatch",
        &fixture("slow_start.py"),
        25,
        // The move limit is play_two_games' 500 ms.
        &["--startup-timeout", "5s"],
    );
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
        let transcript = transcript_of(&scratch.out(), row);
        check_transcript(&transcript, row);
    }
    // In the second game the fixture (seat 2) gets `start` with its first
    // request, and answers `ready` 0.8 s later.
    let second = transcript_of(&scratch.out(), &rows[1]);
    let sent_to_fixture: Vec<&Value> = second
        .iter()
        .filter(|line| line["type"] == "send" && line["seat"] == 2)
        .map(|line| &line["msg"])
        .collect();
    assert_eq!(sent_to_fixture[0]["type"], "start");
    assert_eq!(sent_to_fixture[1]["type"], "move");
    let time_of = |kind: &str, message: &str| {
        second
            .iter()
            .find(|line| {
                line["type"] == kind && line["seat"] == 2 && line["msg"]["type"] == message
            })
            .and_then(|line| line["t_us"].as_u64())
            .expect("the line is in the transcript")
    };
    assert!(time_of("recv", "ready") - time_of("send", "start") >= 800_000);
    // The slowest column times moves, not the `ready`: 0.15 s, not 0.8 s.
    let slowest: f64 = rows[1]["slowest2_ms"].parse().unwrap();
    assert!((150.0..800.0).contains(&slowest), "slowest2_ms is {slowest}");
    scratch.assert_fixture_processes_gone();
}

/// A seat whose game ends before its first request never gets that game's
/// `start` (nor its `over`), and the ids it sees still count up by one.
#[test]
fn ids_count_up_by_one_when_a_game_ends_before_a_seat_is_asked() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        "number-snatch",
        &fixture("counts_ids.py"),
        &fixture("illegal_move.py"),
        "--games",
        "4",
        "--seed",
        "26",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 4);
    for row in &rows {
        // illegal_move.py forfeits each game at its first move; counts_ids.py
        // would exit (and forfeit as crashed) on an id out of sequence.
        assert_eq!(&row["reason"], "illegal_move", "{}", &row["forfeit_detail"]);
        assert_eq!(&row["forfeiter"], "illegal_move", "game {}", &row["game_index"]);
    }
    // Game 2: illegal_move.py moves first and forfeits, so counts_ids.py in
    // seat 2 is sent nothing at all.
    let second = transcript_of(&out, &rows[1]);
    assert!(!second.iter().any(|line| line["type"] == "send" && line["seat"] == 2));
    scratch.assert_fixture_processes_gone();
}

#[test]
fn random_bots_play_100_games_of_number_snatch_without_forfeit() {
    random_bots_play_100_games(GAMES[0], 101);
}

#[test]
fn random_bots_play_100_games_of_numbers_war_without_forfeit() {
    random_bots_play_100_games(GAMES[1], 102);
}

#[test]
fn random_bots_play_100_games_of_number_warriors_without_forfeit() {
    random_bots_play_100_games(GAMES[2], 103);
}

#[test]
fn random_bots_play_100_games_of_number_claim_without_forfeit() {
    random_bots_play_100_games(GAMES[3], 104);
}

#[test]
fn random_bots_play_100_games_of_number_duel_without_forfeit() {
    random_bots_play_100_games(GAMES[4], 105);
}

/// One simultaneous turn of Number Warriors as the transcript shows it.
#[derive(Default, Debug)]
struct Turn {
    /// Per seat: when the move request went out, and the request.
    requests: [Option<(u64, Value)>; 2],
    /// Per seat: when the reply came in, and the move in it.
    replies: [Option<(u64, Value)>; 2],
    /// Per seat: when the reveal went out, and its `moves`.
    reveals: [Option<(u64, Value)>; 2],
}

/// Splits a Number Warriors transcript into its turns.
fn warriors_turns(transcript: &[Value]) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for line in transcript {
        let (Some(seat), Some(time)) = (line["seat"].as_u64(), line["t_us"].as_u64()) else {
            continue;
        };
        let index = usize::try_from(seat - 1).expect("seat 1 or 2");
        let message = &line["msg"];
        match (line["type"].as_str(), message["type"].as_str()) {
            (Some("send"), Some("move")) => {
                if turns.last().is_none_or(|turn| turn.reveals.iter().all(Option::is_some)) {
                    turns.push(Turn::default());
                }
                let turn = turns.last_mut().expect("a turn");
                assert!(turn.requests[index].is_none(), "two requests in a turn: {line}");
                turn.requests[index] = Some((time, message.clone()));
            }
            (Some("recv"), Some("move")) => {
                let turn = turns.last_mut().expect("a reply follows a request");
                assert!(turn.replies[index].is_none(), "two replies in a turn: {line}");
                turn.replies[index] = Some((time, message["move"].clone()));
            }
            (Some("send"), Some("reveal")) => {
                let turn = turns.last_mut().expect("a reveal follows a turn");
                assert!(turn.reveals[index].is_none(), "two reveals in a turn: {line}");
                turn.reveals[index] = Some((time, message["moves"].clone()));
            }
            _ => {}
        }
    }
    turns
}

#[test]
fn simultaneous_choices_are_collected_before_any_is_revealed() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let rust_bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let run = scratch.arena([
        "match",
        "number-warriors",
        PYTHON_RANDOM_BOT,
        &rust_bot,
        "--games",
        "6",
        "--seed",
        "31",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let game = &row["game_index"];
        assert_eq!(&row["reason"], "normal", "game {game}");
        let transcript = transcript_of(&out, row);
        let initial = &transcript[0]["state"];
        let mut pool: Vec<u64> = serde_json::from_value(initial["pool"].clone()).expect("a pool");
        let mut life: [u64; 2] = serde_json::from_value(initial["life"].clone()).expect("life");
        let mut history: Vec<Value> = Vec::new();
        let turns = warriors_turns(&transcript);
        assert_eq!(turns.len() as u64 * 2, row.number("plies"), "game {game}: turns");
        for (turn, number) in turns.iter().zip(1u64..) {
            let at = format!("game {game} turn {number}");
            let [Some(request1), Some(request2)] = &turn.requests else {
                panic!("{at}: a request is missing: {turn:?}");
            };
            let [Some(reply1), Some(reply2)] = &turn.replies else {
                panic!("{at}: a reply is missing: {turn:?}");
            };
            // Both requests go out before either reply comes in.
            let last_request = request1.0.max(request2.0);
            let first_reply = reply1.0.min(reply2.0);
            assert!(last_request <= first_reply, "{at}: {turn:?}");

            // Each request shows the finished turns only, and the same to both.
            assert_eq!(request1.1["state"], request2.1["state"], "{at}");
            assert_eq!(request1.1["history"], request2.1["history"], "{at}");
            for (_, request) in [request1, request2] {
                let state = request["state"].as_object().expect("a state");
                let keys: BTreeSet<&str> = state.keys().map(String::as_str).collect();
                assert_eq!(keys, BTreeSet::from(["life", "pool", "turn"]), "{at}");
                assert_eq!(state["turn"], number, "{at}");
                assert_eq!(state["pool"], json!(pool), "{at}");
                assert_eq!(state["life"], json!(life), "{at}");
                assert_eq!(request["legal_moves"], json!(pool), "{at}");
                assert_eq!(request["history"], json!(history), "{at}");
            }

            // Then both seats learn both choices.
            let choices = json!([reply1.1, reply2.1]);
            for (reveal, seat) in turn.reveals.iter().zip(1..) {
                let (time, moves) = reveal.as_ref().unwrap_or_else(|| {
                    panic!("{at}: no reveal to seat {seat}: {turn:?}");
                });
                assert!(*time >= reply1.0.max(reply2.0), "{at}: reveal before a reply");
                assert_eq!(moves, &choices, "{at}: reveal to seat {seat}");
            }

            // The turn by the rules: the higher choice deals the difference.
            let [one, two] = [&reply1.1, &reply2.1].map(|mv| mv.as_u64().expect("a number"));
            let loser = usize::from(one > two);
            life[loser] = life[loser].saturating_sub(one.abs_diff(two));
            pool.retain(|&n| n != one && n != two);
            history.push(json!({"seat": 1, "move": one}));
            history.push(json!({"seat": 2, "move": two}));
        }
        assert_eq!(
            transcript.last().expect("a result")["scores"],
            json!(life),
            "game {game}: the final life points"
        );
    }
}

#[test]
fn an_unknown_game_is_refused_with_the_list_of_games() {
    let scratch = Scratch::new();
    let run = scratch.arena(["match", "chess", PYTHON_RANDOM_BOT, PYTHON_RANDOM_BOT]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(run.stderr.contains("chess"), "{}", run.stderr);
    for game in GAMES {
        assert!(run.stderr.contains(game), "{game} is not listed: {}", run.stderr);
    }
}

#[test]
fn a_bot_command_that_does_not_exist_is_named_before_any_game() {
    for (cmd1, cmd2, missing) in [
        ("tests/fixtures/no_such_bot.py", PYTHON_RANDOM_BOT, "tests/fixtures/no_such_bot.py"),
        (PYTHON_RANDOM_BOT, "no-such-arena-bot --fast", "no-such-arena-bot"),
    ] {
        let scratch = Scratch::new();
        let out = scratch.out();
        let run = scratch.arena([
            "match",
            "number-snatch",
            cmd1,
            cmd2,
            "--out",
            out.to_str().expect("a UTF-8 temporary path"),
        ]);
        assert!(!run.status.success(), "{run:?}");
        assert!(run.stderr.contains(missing), "the message does not name {missing}: {run:?}");
        assert!(!out.join("games.csv").exists(), "a game was played: {run:?}");
    }
}

#[test]
fn zero_games_are_refused() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "0",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(run.stderr.contains("--games"), "{}", run.stderr);
    assert!(!out.exists(), "the results folder was created: {run:?}");
}

/// A bot may ask for the new moves only (`"history": "new"` in its
/// `ready`): each request then lists the moves since its previous one,
/// from `history_from`, so what it is sent grows with the game, not with
/// its square. The fixture rebuilds the history from them and ends itself
/// at a gap or an overlap; the other bot is sent the whole history.
#[test]
fn a_bot_that_asks_for_the_new_moves_is_sent_each_move_once() {
    // A built-in game, and a game program with hidden moves (each seat's
    // own history).
    for game in ["number-snatch", "python3 tests/fixtures/games/tinygame.py"] {
        new_moves_sent_once(game);
    }
}

fn new_moves_sent_once(game: &str) {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        game,
        &fixture("new_history.py"),
        PYTHON_RANDOM_BOT,
        "--games",
        "4",
        "--seed",
        "6",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
        let fixture_seat = if &row["seat1"] == "new_history" { 1 } else { 2 };
        let transcript = transcript_of(&out, row);
        let moves = transcript.iter().filter(|line| line["type"] == "move").count();
        let sent = |seat: u64| history_sent(&transcript, seat);
        let (new_entries, marked, _) = sent(fixture_seat);
        let (full_entries, unmarked, _) = sent(3 - fixture_seat);
        assert_eq!(new_entries, moves, "game {}: each move sent once", &row["game_index"]);
        assert!(full_entries >= 2 * moves, "game {}: {full_entries} entries", &row["game_index"]);
        assert!(
            marked >= moves / 2,
            "game {}: {marked} messages say history_from",
            &row["game_index"]
        );
        assert_eq!(unmarked, 0, "the bot that asked nothing is sent no history_from");
    }
}

/// A game program may declare that its bots are sent the new moves only
/// (`"history": "new"` in `hello`): both random bots, which ask nothing,
/// are then sent each move once, from `history_from`.
#[test]
fn a_game_may_declare_that_its_bots_get_the_new_moves_only() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let game = "python3 tests/fixtures/games/tinygame.py --flaw new-history";
    let run = common::match_of_random_bots(&scratch, game, 4, &[]);
    run.assert_success();
    for row in read_games_csv(&out) {
        let transcript = transcript_of(&out, &row);
        let moves = transcript.iter().filter(|line| line["type"] == "move").count();
        for seat in [1, 2] {
            let (entries, marked, messages) = history_sent(&transcript, seat);
            assert_eq!(entries, moves, "game {}, seat {seat}: each move once", &row["game_index"]);
            assert_eq!(marked, messages, "game {}, seat {seat}: history_from", &row["game_index"]);
        }
    }
}

/// The transcript of a long game grows with its length when its bots are
/// sent the new moves only, and with its square when each request resends
/// the whole history: Long Count (small views, `turns` turns) at 200 and
/// 400 turns, its hello declaring `"history": "new"` or not. Measured: the
/// full history 0.50 MB and 1.79 MB (3.6 times), the new moves 0.10 and
/// 0.21 MB (2.0 times).
#[test]
fn a_long_games_transcript_grows_linearly_with_the_new_moves_only() {
    let size = |mode: &str, turns: u32| {
        let scratch = Scratch::new();
        let out = scratch.out();
        let game = format!("python3 tests/fixtures/games/long_game.py{mode}");
        let param = format!("turns={turns}");
        common::match_of_random_bots(&scratch, &game, 2, &["--param", &param]).assert_success();
        let row = &read_games_csv(&out)[0];
        let transcript = transcript_of(&out, row);
        assert_eq!(transcript.iter().filter(|line| line["type"] == "move").count(), turns as usize);
        transcript.iter().map(|line| line.to_string().len() + 1).sum::<usize>() as f64
    };
    let full = size("", 400) / size("", 200);
    let new = size(" --new-history", 400) / size(" --new-history", 200);
    assert!(full > 3.0, "the whole history each move: {full:.2} times as long at twice the turns");
    assert!(new < 2.3, "the new moves only: {new:.2} times as long at twice the turns");
    let saved = size("", 400) / size(" --new-history", 400);
    assert!(saved > 5.0, "at 400 turns the new moves only are {saved:.1} times smaller");
}

/// What `seat` was sent of the history in a game's `move` requests and its
/// `over`: the entries, the messages that say `history_from`, and the
/// messages.
fn history_sent(transcript: &[Value], seat: u64) -> (usize, usize, usize) {
    let messages: Vec<&Value> = transcript
        .iter()
        .filter(|line| line["type"] == "send" && line["seat"] == seat)
        .map(|line| &line["msg"])
        .filter(|msg| msg["type"] == "move" || msg["type"] == "over")
        .collect();
    let entries = messages.iter().map(|msg| msg["history"].as_array().unwrap().len()).sum();
    let marked = messages.iter().filter(|msg| msg.get("history_from").is_some()).count();
    (entries, marked, messages.len())
}
