//! The referee against real processes: `arena match` driven as a user runs
//! it, with the misbehaving fixture bots of tests/fixtures/ against the
//! random bot. Every forfeit must name the right reason and bot, credit the
//! other bot, stay within the time limits, and leave no process of the bot
//! behind. Bots that play by the rules: tests/referee_games.rs.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::referee::{RANDOM_BOT_NAME, check_transcript, play_two_games};
use common::{PYTHON_RANDOM_BOT, Scratch, fixture, read_games_csv, transcript_of};
use serde_json::Value;

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

/// A bot that writes to stderr before each quick reply: every game's log
/// holds that game's lines, all of them and no other game's. Quick replies
/// are taken on the worker's thread, without the reactor that runs the
/// stderr drain, so what the drain has not read when the next game's log
/// is set still goes to the game it was written in.
#[test]
fn each_games_stderr_goes_to_its_own_log_however_quick_the_replies() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let bot = fixture("tells_each_move.py");
    let args = ["match", "number-snatch", &bot, PYTHON_RANDOM_BOT, "--games", "12", "--seed", "5"];
    let run = scratch.arena(args.into_iter().chain(["--out", out.to_str().expect("UTF-8")]));
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 12, "{}", run.stdout);
    for row in &rows {
        let game = row.number("game_index");
        let seat = if &row["seat1"] == "tells_each_move" { 1 } else { 2 };
        let log = out.join(format!("logs/game-{game:06}-seat{seat}-tells_each_move.log"));
        let text = std::fs::read_to_string(&log)
            .unwrap_or_else(|error| panic!("{}: {error}", log.display()));
        let told: Vec<&str> = text.lines().filter(|line| line.starts_with("tells: ")).collect();
        // Its process plays every game, one after another: its n-th game
        // is game n, where it makes half the plies.
        let moves = row.number("plies") / 2;
        let expected: Vec<String> =
            (1..=moves).map(|number| format!("tells: game {game} move {number}")).collect();
        assert_eq!(told, expected, "{}", log.display());
    }
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

/// A bot that writes more than its game's stderr cap is read no further:
/// its writes wait once the pipe is full, and it forfeits by its own
/// timeout, told why; its log keeps the cap and a note.
#[test]
fn a_bot_that_floods_stderr_waits_on_its_own_time_and_its_log_is_capped() {
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
        assert_eq!(&row["reason"], "timeout", "game {game}: {}", &row["forfeit_detail"]);
        assert_eq!(&row["forfeiter"], "stderr_flood", "game {game}");
        let detail = &row["forfeit_detail"];
        assert!(detail.contains("to stderr in this game, its cap"), "game {game}: {detail}");
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

/// Processes a bot made and that escaped its group while it still plays
/// are killed when it ends, though its opponent ended first (arena sweeps
/// for orphans only when something it did not start was made, and these
/// were made before that sweep, under a bot still alive).
#[test]
fn processes_that_escape_while_their_bot_plays_on_are_killed_when_it_ends() {
    let scratch = Scratch::new();
    let out = scratch.out();
    scratch
        .arena([
            "match",
            "number-snatch",
            &fixture("escape_session.py play"),
            &fixture("silent.py"),
            "--games",
            "1",
            "--move-timeout",
            "300ms",
            "--no-sandbox",
            "--out",
            out.to_str().expect("UTF-8"),
        ])
        .assert_success();
    assert_eq!(&read_games_csv(&out)[0]["forfeiter"], "silent");
    // The bot, its child and its grandchild.
    assert_eq!(common::recorded_pids(&out.join("logs")).len(), 4, "the fixtures' pids");
    scratch.assert_fixture_processes_gone();
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

/// arena's own CPU over a run of `games` between the Python random bot and
/// `bot`, from the run's summary line (microseconds per move).
fn arena_cpu_per_move(scratch: &Scratch, bot: &str, games: u32) -> f64 {
    let file = scratch.out().with_file_name("cpu.toml");
    // Paths from the repository, where the file is not.
    let words = |command: &str| {
        let words: Vec<String> = command
            .split(' ')
            .map(|word| match word.contains('/') {
                true => format!("\"{}\"", common::repo_dir().join(word).display()),
                false => format!("\"{word}\""),
            })
            .collect();
        words.join(", ")
    };
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\ngames_per_pair = {games}\nmove_timeout = \"2s\"\n\n[[bot]]\nname = \"bot\"\ncommand = [{}]\n\n[[bot]]\nname = \"random\"\ncommand = [{}]\n",
            words(bot),
            words(common::PYTHON_RANDOM_BOT)
        ),
    )
    .expect("a tournament file");
    let out = scratch.out().join(bot.len().to_string());
    let run = scratch.arena([
        "run",
        file.to_str().expect("UTF-8"),
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    for row in read_games_csv(&out) {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
    let line = run.stdout.lines().find(|line| line.starts_with("played")).expect("a summary");
    let cpu = line.split("own CPU ").nth(1).and_then(|rest| rest.split(' ').next());
    cpu.and_then(|cpu| cpu.parse().ok()).unwrap_or_else(|| panic!("no CPU in `{line}`"))
}

/// A bot whose thread writes to stderr without end plays its games as a
/// quiet one does, and costs arena no more than twice a quiet bot's CPU a
/// move: past the game's cap nothing more is read (arena used to read it
/// all, on its own CPU).
#[test]
fn a_stderr_stream_costs_arena_nothing() {
    let scratch = Scratch::new();
    let quiet = arena_cpu_per_move(&scratch, &fixture("stderr_stream.py quiet"), 6);
    let streaming = arena_cpu_per_move(&scratch, &fixture("stderr_stream.py"), 6);
    assert!(
        streaming <= 2.0 * quiet + 100.0,
        "arena's CPU a move: {streaming} us against a quiet bot's {quiet} us"
    );
    scratch.assert_fixture_processes_gone();
}
