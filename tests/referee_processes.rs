//! The referee against real processes: `arena match` driven as a user runs
//! it, with the misbehaving fixture bots of tests/fixtures/ and the random
//! bots. Every forfeit must name the right reason and bot, credit the other
//! bot, stay within the time limits, and leave no process of the bot behind.

#[allow(dead_code)]
mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::{
    GAMES, PYTHON_RANDOM_BOT, Row, Scratch, fixture, read_games_csv, rust_random_bot, transcript_of,
};
use serde_json::{Value, json};

/// A generous bound for a two-game match against a misbehaving bot: each
/// forfeit costs at most a 500 ms move timeout or one start-up, so a
/// correct referee needs a few seconds even on a loaded machine.
const TWO_GAMES_LIMIT: Duration = Duration::from_secs(20);

/// The name the arena gives the Python random bot (its script's stem).
const RANDOM_BOT_NAME: &str = "random_bot";

/// A fixture's misbehaviour and how the referee must judge it.
struct Misbehaviour<'a> {
    /// The fixture and its arguments, relative to tests/fixtures/.
    fixture: &'a str,
    game: &'a str,
    seed: u64,
    /// Arguments added to the `arena match` command line.
    extra_args: &'a [&'a str],
    /// The forfeit reason in games.csv.
    reason: &'a str,
    /// Words the forfeit detail must contain (its wording is free, so only
    /// what matters: an exit status, a signal, the offending line...).
    detail: &'a str,
}

impl Misbehaviour<'_> {
    /// The bot name the arena derives from the fixture's file name.
    fn bot_name(&self) -> &str {
        let file = self.fixture.split_whitespace().next().expect("a fixture file");
        Path::new(file).file_stem().and_then(|stem| stem.to_str()).expect("a file stem")
    }
}

/// Plays two games of `game` between `bot` (CMD1) and the Python random bot
/// (CMD2), with short limits, and checks the arena succeeded in time.
fn play_two_games(
    scratch: &Scratch,
    game: &str,
    bot: &str,
    seed: u64,
    extra_args: &[&str],
) -> Vec<Row> {
    let out = scratch.out();
    let seed = seed.to_string();
    let mut args = vec![
        "match",
        game,
        bot,
        PYTHON_RANDOM_BOT,
        "--games",
        "2",
        "--seed",
        &seed,
        "--move-timeout",
        "500ms",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ];
    // A case may set a start-up limit of its own.
    if !extra_args.contains(&"--startup-timeout") {
        args.extend(["--startup-timeout", "5s"]);
    }
    args.extend_from_slice(extra_args);
    let run = scratch.arena(&args);
    run.assert_success();
    run.assert_faster_than(TWO_GAMES_LIMIT);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    rows
}

/// Runs the misbehaving fixture against the random bot for two games (it
/// sits in seat 1, then seat 2) and checks both forfeits, the credited wins,
/// the transcripts and that none of the fixture's processes is left.
fn assert_forfeits(case: &Misbehaviour<'_>) -> Scratch {
    let scratch = Scratch::new();
    let rows =
        play_two_games(&scratch, case.game, &fixture(case.fixture), case.seed, case.extra_args);
    let name = case.bot_name();
    for (row, fixture_seat) in rows.iter().zip([1, 2]) {
        let winner_seat = 3 - fixture_seat;
        let game = &row["game_index"];
        assert_eq!(&row["game"], case.game);
        assert_eq!(&row[&format!("seat{fixture_seat}")], name, "game {game}");
        assert_eq!(&row["reason"], case.reason, "game {game}: {}", &row["forfeit_detail"]);
        assert_eq!(&row["forfeiter"], name, "game {game}");
        assert_eq!(&row[&format!("forfeit{fixture_seat}")], case.reason, "game {game}");
        assert_eq!(&row[&format!("forfeit{winner_seat}")], "", "game {game}");
        assert_eq!(&row["winner"], RANDOM_BOT_NAME, "game {game}");
        assert_eq!(row["outcome"], format!("seat{winner_seat}"), "game {game}");
        let detail = &row["forfeit_detail"];
        assert!(detail.starts_with(&format!("{name}: ")), "game {game}: {detail}");
        assert!(detail.contains(case.detail), "game {game}: `{detail}` lacks `{}`", case.detail);

        let transcript = transcript_of(&scratch.out(), row);
        check_transcript(&transcript, row);
        let forfeits: Vec<&Value> =
            transcript.iter().filter(|line| line["type"] == "forfeit").collect();
        assert_eq!(forfeits.len(), 1, "game {game}: {forfeits:?}");
        assert_eq!(forfeits[0]["seat"], fixture_seat);
        assert_eq!(forfeits[0]["reason"], case.reason);
    }
    scratch.assert_fixture_processes_gone();
    scratch
}

/// Checks what every transcript holds: a header first (game, seed,
/// parameters, both bots, the initial state), a `result` last and only
/// there, each seat's `send`/`recv` lines in time order, and before every
/// `move` line the request and the reply it accepts, its think time being
/// the time between them (or between a `ready` that came after the request,
/// when the `start` went out with it, and the reply). In a game without
/// forfeit, one `move` per ply.
fn check_transcript(transcript: &[Value], row: &Row) {
    let game = &row["game_index"];
    let (header, result) = match transcript {
        [header, .., result] => (header, result),
        _ => panic!("game {game}: a transcript of {} lines", transcript.len()),
    };
    assert_eq!(header["type"], "header", "game {game}");
    assert_eq!(header["game"], row["game"], "game {game}");
    assert_eq!(header["seed"].as_u64(), Some(row.number("seed")), "game {game}");
    assert!(header["params"].is_object(), "game {game}: {header}");
    assert!(header["state"].is_object(), "game {game}: {header}");
    let bots = header["bots"].as_array().expect("the header lists the bots");
    assert_eq!(bots.len(), 2, "game {game}");
    for (bot, seat) in bots.iter().zip([1, 2]) {
        assert_eq!(bot["seat"], seat, "game {game}");
        assert_eq!(bot["name"], row[&format!("seat{seat}")], "game {game}");
        assert!(bot["command"].as_array().is_some_and(|words| !words.is_empty()));
    }

    assert_eq!(result["type"], "result", "game {game}");
    assert_eq!(result["reason"], row["reason"], "game {game}");
    assert_eq!(result["outcome"], row["outcome"], "game {game}");
    assert_eq!(result["plies"].as_u64(), Some(row.number("plies")), "game {game}");
    assert_eq!(result["scores"], json!([row.number("score1"), row.number("score2")]));
    for line in &transcript[1..transcript.len() - 1] {
        let kind = line["type"].as_str().unwrap_or_default();
        assert!(["send", "recv", "move", "forfeit"].contains(&kind), "game {game}: {line}");
    }

    let mut last_time = [0; 2];
    // Per seat: the last move request (id, time), and the last reply to one.
    let mut request: [Option<(u64, u64)>; 2] = [None, None];
    let mut reply: [Option<(Value, u64, u64)>; 2] = [None, None];
    let mut moves = 0;
    for line in transcript {
        let kind = line["type"].as_str().unwrap_or_default();
        if !["send", "recv", "move"].contains(&kind) {
            continue;
        }
        let seat = line["seat"].as_u64().expect("a seat");
        let index = usize::try_from(seat - 1).expect("seat 1 or 2");
        let message = &line["msg"];
        match kind {
            "send" | "recv" => {
                let time = line["t_us"].as_u64().expect("a time");
                assert!(time >= last_time[index], "game {game}: out of order: {line}");
                last_time[index] = time;
                match (kind, message["type"].as_str()) {
                    ("send", Some("move")) => {
                        request[index] = Some((message["id"].as_u64().expect("an id"), time));
                    }
                    // The clock of a request sent with its game's `start`
                    // starts at the `ready`.
                    ("recv", Some("ready")) => {
                        if let Some((_, clock_from)) = &mut request[index] {
                            *clock_from = time;
                        }
                    }
                    ("recv", Some("move")) => {
                        let id = message["id"].as_u64().unwrap_or_default();
                        reply[index] = Some((message["move"].clone(), id, time));
                    }
                    _ => {}
                }
            }
            _ => {
                let (sent_id, sent_at) = request[index].expect("a move follows its request");
                let (mv, id, received_at) =
                    reply[index].take().expect("a move follows the reply it accepts");
                assert_eq!(line["move"], mv, "game {game}: {line}");
                assert_eq!(
                    id, sent_id,
                    "game {game}: a move accepted from a reply with another id"
                );
                let think = line["think_us"].as_u64().expect("a think time");
                let between = received_at.checked_sub(sent_at).expect("a reply after its request");
                // Each time is rounded down to a microsecond on its own.
                assert!(
                    think.abs_diff(between) <= 1,
                    "game {game}: think_us {think} against {sent_at}..{received_at}"
                );
                moves += 1;
            }
        }
    }
    if &row["reason"] == "normal" {
        assert_eq!(moves, row.number("plies"), "game {game}: move lines");
    }
}

#[test]
fn a_bot_that_never_answers_a_move_forfeits_by_timeout() {
    assert_forfeits(&Misbehaviour {
        fixture: "silent.py",
        game: "number-snatch",
        seed: 11,
        extra_args: &[],
        reason: "timeout",
        detail: "within 500 ms; nothing arrived, and the bot was still at work (not waiting for input): a slow bot",
    });
}

/// A reply without its newline is a timeout whose detail names the
/// request, the limit and the bytes that did arrive.
#[test]
fn a_reply_without_a_newline_is_a_timeout_that_says_so() {
    assert_forfeits(&Misbehaviour {
        fixture: "no_newline.py",
        game: "number-snatch",
        seed: 27,
        extra_args: &[],
        reason: "timeout",
        detail: "bytes arrived without a newline: is your output buffered? (protocol.md §8)",
    });
}

/// A crash quotes the last lines the bot wrote to stderr: the error itself.
#[test]
fn a_crash_quotes_the_bots_last_words_on_stderr() {
    assert_forfeits(&Misbehaviour {
        fixture: "raises.py",
        game: "number-claim",
        seed: 28,
        extra_args: &[],
        reason: "crash",
        detail: r"\nRuntimeError: a bug in the bot at move ",
    });
}

#[test]
fn a_bot_that_answers_garbage_forfeits_as_malformed() {
    let scratch = assert_forfeits(&Misbehaviour {
        fixture: "garbage.py",
        game: "number-warriors",
        seed: 12,
        extra_args: &[],
        reason: "malformed",
        detail: "this is not JSON {",
    });
    // Game 1, a simultaneous turn: the garbage is kept as a raw string, and
    // the random bot (seat 2) alone learns the turn's choices, with none for
    // the forfeiting seat.
    let rows = read_games_csv(&scratch.out());
    let transcript = transcript_of(&scratch.out(), &rows[0]);
    let raw: Vec<&Value> = transcript.iter().filter(|line| line.get("raw").is_some()).collect();
    assert_eq!(raw.len(), 1, "{raw:?}");
    assert_eq!(raw[0]["raw"], "this is not JSON {");
    let reveals: Vec<&Value> =
        transcript.iter().filter(|line| line["msg"]["type"] == "reveal").collect();
    assert_eq!(reveals.len(), 1, "{reveals:?}");
    assert_eq!(reveals[0]["seat"], 2);
    let moves = reveals[0]["msg"]["moves"].as_array().expect("the revealed moves");
    assert!(moves[0].is_null() && moves[1].is_u64(), "{moves:?}");
}

/// A reply is kept in the transcript as it came: one that only a reader
/// skipping its unknown fields takes (a lone surrogate in a note) is
/// refused, and the game's transcript still reads back (assert_forfeits
/// reads it; `arena replay` replays it).
#[test]
fn a_reply_that_reads_as_no_json_value_forfeits_as_malformed() {
    let scratch = assert_forfeits(&Misbehaviour {
        fixture: "unreadable_note.py",
        game: "number-snatch",
        seed: 14,
        extra_args: &[],
        reason: "malformed",
        detail: "hex escape",
    });
    let transcript = scratch.out().join("transcripts/game-000001.jsonl");
    let run = scratch.arena(["replay", transcript.to_str().expect("UTF-8")]);
    assert!(run.status.success(), "{}", run.stderr);
}

#[test]
fn a_bot_that_answers_an_illegal_move_forfeits() {
    assert_forfeits(&Misbehaviour {
        fixture: "illegal_move.py",
        game: "number-snatch",
        seed: 13,
        extra_args: &[],
        reason: "illegal_move",
        detail: "424242",
    });
}

#[test]
fn a_bot_that_answers_with_a_wrong_id_forfeits_as_malformed() {
    assert_forfeits(&Misbehaviour {
        fixture: "wrong_id.py",
        game: "numbers-war",
        seed: 14,
        extra_args: &[],
        reason: "malformed",
        detail: "1002",
    });
}

/// A reply to `reveal` is named as such, with the hint to keep reading,
/// where before it was only a wrong id.
#[test]
fn a_reply_to_reveal_forfeits_and_is_named_so() {
    assert_forfeits(&Misbehaviour {
        fixture: "answers_notices.py reveal",
        game: "number-warriors",
        seed: 16,
        extra_args: &[],
        reason: "malformed",
        detail: "the reply's id is 0, the request's is 3: it answers the `reveal` sent before move request 3 (turn 2), which needs no answer: keep reading, the next line is the next request (protocol.md §2)",
    });
}

/// A reply to `over` is read as the answer to the next game's `start`: that
/// game is forfeited, and its detail says the line answers the `over`.
/// The restarted process plays the game after it.
#[test]
fn a_reply_to_over_forfeits_the_next_game_and_is_named_so() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let bot = fixture("answers_notices.py over");
    let args = ["match", "number-claim", &bot, PYTHON_RANDOM_BOT, "--games", "3", "--seed", "17"];
    let run = scratch.arena(args.into_iter().chain(["--out", out.to_str().expect("UTF-8")]));
    run.assert_success();
    let rows = read_games_csv(&out);
    let reasons: Vec<&str> = rows.iter().map(|row| &row["reason"]).collect();
    assert_eq!(reasons, ["normal", "malformed", "normal"], "{rows:?}");
    let detail = &rows[1]["forfeit_detail"];
    assert!(
        detail.contains(
            "expected a `ready` reply, got type `ok`: it answers the `over` sent before start request"
        ) && detail.contains("which needs no answer: keep reading, the next line is the next game's `start`, or the end of input"),
        "{detail}"
    );
    assert!(run.stdout.contains("it answers the `over`"), "{}", run.stdout);
    // The game line says the win is by forfeit, not by the score.
    assert!(run.stdout.contains("random_bot wins by forfeit at "), "{}", run.stdout);
    scratch.assert_fixture_processes_gone();
}

#[test]
fn a_bot_that_exits_mid_game_forfeits_as_crashed() {
    assert_forfeits(&Misbehaviour {
        fixture: "exit_mid_game.py",
        game: "number-claim",
        seed: 15,
        extra_args: &[],
        reason: "crash",
        detail: "exited with status 3 instead of answering move request 3",
    });
}

#[test]
fn a_bot_killed_by_sigsegv_forfeits_as_crashed() {
    assert_forfeits(&Misbehaviour {
        fixture: "kill_self.py SEGV",
        game: "number-duel",
        seed: 16,
        extra_args: &[],
        reason: "crash",
        detail: "was killed by signal 11 (SIGSEGV) instead of answering move request 2",
    });
}

#[test]
fn a_bot_killed_by_sigkill_forfeits_as_crashed() {
    assert_forfeits(&Misbehaviour {
        fixture: "kill_self.py KILL",
        game: "numbers-war",
        seed: 17,
        extra_args: &[],
        reason: "crash",
        detail: "was killed by signal 9 (SIGKILL) instead of answering move request 2",
    });
}

#[test]
fn a_bot_that_writes_megabytes_without_a_newline_forfeits() {
    let scratch = assert_forfeits(&Misbehaviour {
        fixture: "long_line.py",
        game: "number-snatch",
        seed: 18,
        extra_args: &[],
        reason: "line_too_long",
        detail: "65536",
    });
    // The report keeps a cut of the line, not the megabytes.
    for row in read_games_csv(&scratch.out()) {
        assert!(row["forfeit_detail"].len() < 2000, "{}", &row["forfeit_detail"]);
        let transcript = scratch.out().join(&row["transcript"]);
        let size = std::fs::metadata(&transcript).expect("a transcript").len();
        assert!(size < 64 * 1024, "{} is {size} bytes", transcript.display());
    }
}

#[test]
fn a_bot_that_floods_stderr_plays_on_and_its_log_is_capped() {
    const CAP: u64 = 100_000;
    let scratch = Scratch::new();
    let cap = CAP.to_string();
    let rows = play_two_games(
        &scratch,
        "number-claim",
        &fixture("stderr_flood.py"),
        19,
        &["--stderr-cap", &cap],
    );
    for (row, fixture_seat) in rows.iter().zip([1, 2]) {
        let game = &row["game_index"];
        assert_eq!(&row["reason"], "normal", "game {game}: {}", &row["forfeit_detail"]);
        for column in ["forfeiter", "forfeit1", "forfeit2", "forfeit_detail"] {
            assert_eq!(&row[column], "", "game {game}: {column}");
        }
        check_transcript(&transcript_of(&scratch.out(), row), row);
        // The fixture wrote 4 MB to stderr in this game; the log keeps the
        // cap and a note saying so.
        let log = scratch.out().join(format!(
            "logs/game-{:06}-seat{fixture_seat}-stderr_flood.log",
            row.number("game_index")
        ));
        let text = std::fs::read_to_string(&log)
            .unwrap_or_else(|error| panic!("{}: {error}", log.display()));
        let size = text.len() as u64;
        assert!((CAP..CAP + 200).contains(&size), "{} is {size} bytes", log.display());
        let (kept, note) = text.split_at(CAP as usize);
        let flood = kept.lines().filter(|line| !line.starts_with("arena-test-pid "));
        assert!(
            flood.flat_map(str::bytes).all(|byte| b"stderr flood .".contains(&byte)),
            "{log:?}"
        );
        let note = note.trim();
        assert!(note.starts_with("[arena:") && note.contains(&cap), "the note: {note}");
    }
    scratch.assert_fixture_processes_gone();
}

#[test]
fn a_child_holding_stdout_open_does_not_hang_the_referee() {
    assert_forfeits(&Misbehaviour {
        fixture: "orphan_stdout.py",
        game: "numbers-war",
        seed: 20,
        extra_args: &[],
        reason: "crash",
        detail: "status 0",
    });
}

#[test]
fn processes_that_escape_the_group_of_a_hung_bot_are_killed() {
    assert_forfeits(&Misbehaviour {
        fixture: "escape_session.py hang",
        game: "number-duel",
        seed: 21,
        extra_args: &[],
        reason: "timeout",
        detail: "",
    });
}

#[test]
fn processes_that_escape_the_group_of_an_exited_bot_are_killed() {
    assert_forfeits(&Misbehaviour {
        fixture: "escape_session.py exit",
        game: "number-warriors",
        seed: 22,
        extra_args: &[],
        reason: "crash",
        detail: "status 0",
    });
}

#[test]
fn a_bot_that_never_reads_forfeits_at_startup() {
    assert_forfeits(&Misbehaviour {
        fixture: "never_reads.sh",
        game: "number-claim",
        seed: 23,
        // Only the start-up limit applies: keep it short.
        extra_args: &["--startup-timeout", "1s"],
        reason: "timeout",
        detail: "",
    });
}

#[test]
fn a_bot_that_stops_reading_does_not_block_the_referee() {
    // With 1,000 numbers each move request is several KB and the history
    // grows: the unread requests soon fill the pipe, and writing the next
    // one blocks until the deadline.
    assert_forfeits(&Misbehaviour {
        fixture: "stops_reading.py",
        game: "numbers-war",
        seed: 24,
        extra_args: &["--param", "count=1000", "--param", "max=1000"],
        reason: "timeout",
        detail: "could not be written within 500 ms: the bot does not read its input",
    });
}

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
