//! A game program's faults, refereed by the real binary: a game program
//! that misbehaves on purpose (tests/fixtures/games/tinygame.py with a
//! flaw) is caught as the game's fault, voids the game, names the program
//! and the request, is never charged to a bot, is restarted, and stops the
//! run after a few faults.

#[allow(dead_code)]
mod common;

use common::{
    Run, Scratch, game_log, match_of_random_bots as match_of, read_games_csv, rust_random_bot,
    tinygame as tiny,
};

/// Runs `flaw`'s game and checks the fault was the game's: the game is
/// void, named with the program and the request, nobody forfeited, and the
/// run says so and fails. Returns the run.
fn void_by(flaw: &str, games: u32, request: &str, cause: &str) -> (Scratch, Run) {
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny(flaw), games, &["--game-timeout", "1s"]);
    assert_eq!(run.status.code(), Some(1), "{flaw}: {}", run.stderr);
    let named = format!("is void: the game program `{}`", tiny(flaw));
    assert!(run.stderr.contains(&named), "{flaw}: {}", run.stderr);
    assert!(run.stderr.contains(request), "{flaw} names the request {request}: {}", run.stderr);
    assert!(run.stderr.contains(cause), "{flaw}: {cause}: {}", run.stderr);
    assert!(run.stderr.contains("no bot is charged"), "{}", run.stderr);
    for row in read_games_csv(&scratch.out()) {
        assert_eq!(
            &row["reason"], "normal",
            "{flaw}: a fault of the game is never a bot's: {row:?}"
        );
    }
    (scratch, run)
}

#[test]
fn a_crash_a_hang_a_bad_answer_and_a_mover_without_moves_are_the_games_fault() {
    let (scratch, run) = void_by(
        "crash",
        2,
        "apply request",
        "exited with status 3 instead of answering apply request",
    );
    assert!(read_games_csv(&scratch.out()).is_empty());
    let none_kept = format!("no game in {} was played to its end", scratch.out().display());
    assert!(run.stderr.contains(&none_kept), "{}", run.stderr);
    // Nothing to report: told so, not that the folder is no results folder.
    let report = scratch.arena(["report".as_ref(), scratch.out().as_os_str()]);
    assert_eq!(report.status.code(), Some(2), "{}", report.stderr);
    assert!(
        report.stderr.contains("has nothing to report: no game in it was played to its end"),
        "{}",
        report.stderr
    );
    assert!(!report.stderr.contains("is not a results folder"), "{}", report.stderr);
    // The warning points at what the game wrote to stderr before it crashed,
    // and quotes its last two lines on the warning's one line.
    assert!(
        run.stderr
            .lines()
            .any(|line| line.contains("the last 2 lines it wrote to stderr: tinygame: process ")
                && line.contains("\\ntinygame: crashing on purpose; request:")
                && line.contains("; the game's stderr logs/game-000001-game.log)")),
        "{}",
        run.stderr
    );
    let said = game_log(&scratch.out(), 1);
    assert!(said.contains("tinygame: crashing on purpose"), "{said}");
    // A void game has no row, and is still replayed by its number.
    let replay = scratch.arena(["replay", scratch.out().to_str().unwrap(), "--game", "1"]);
    replay.assert_success();
    assert!(replay.stdout.contains("The game is void: the game program"), "{}", replay.stdout);
    // Played again, the void game's log keeps the first one beside it, and
    // the warning names the one this run made.
    let again = match_of(&scratch, &tiny("crash"), 2, &["--game-timeout", "1s"]);
    assert!(
        again.stderr.contains("; the game's stderr logs/game-000001-game.2.log)"),
        "{}",
        again.stderr
    );
    let (_, hung) = void_by("hang", 2, "(turn 3)", "did not answer within 1000 ms");
    assert!(!hung.stderr.contains("output buffer"), "a busy program is not stuck: {}", hung.stderr);
    // A line that is not JSON is most often a log printed to stdout.
    void_by(
        "malformed",
        2,
        "(turn 2)",
        "answered wrongly: not a JSON answer object: the line is not JSON (an answer is one object, `{...}`, a line; write anything else to stderr)",
    );
    // Valid JSON text that no JSON value holds (a replay would not read it).
    void_by("unreadable", 2, "(turn 2)", "JSON text that no JSON value holds");
    void_by("no-legal-moves", 2, "(turn 2)", "seat 1 is to move but has no legal moves");
}

#[test]
fn a_game_that_does_not_flush_is_told_so_not_to_wait_longer() {
    // Its `hello` waits in its output buffer while it reads on: more time
    // would not help, and the message says what would.
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("unflushed"), 2, &["--game-timeout", "1s"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    let said = "did not answer within 1000 ms; nothing arrived, and the program was waiting to read its input: its answer is stuck in its output buffer (flush after every line, game-protocol.md section 1)";
    assert!(run.stderr.contains(said), "{}", run.stderr);
    // (A program busy past its time is told to raise it: game_programs.rs.)
    assert!(!run.stderr.contains("raise --game-timeout"), "{}", run.stderr);
}

#[test]
fn a_game_whose_answers_pass_what_arena_keeps_of_a_game_is_at_fault() {
    // arena holds a game's transcript until the game ends: `bloats` pads
    // every step with 48 MiB, past 256 MiB at its sixth answer.
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("bloats"), 1, &["--game-timeout", "60s"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    let cause = "answered with more than 256 MiB in one game, the most arena keeps of a game until it ends (apply request 6 (turn 5))";
    assert!(run.stderr.contains(cause), "{}", run.stderr);
    assert!(read_games_csv(&scratch.out()).is_empty());
}

#[test]
fn a_game_program_that_writes_more_to_stderr_than_a_pipe_holds_plays_on() {
    // arena waits for a game program's answer on the worker's thread, where
    // nothing drains stderr: output there must send the wait back to the
    // reactor, or this game would hang on its full stderr pipe and be void.
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("chatty"), 2, &["--game-timeout", "2s"]);
    run.assert_success();
    let rows = read_games_csv(&scratch.out());
    assert_eq!(rows.len(), 2, "{}", run.stderr);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{row:?}");
    }
    let log = game_log(&scratch.out(), 1);
    assert!(log.contains("tinygame: thinking about turn 1 ..."), "{}", &log[..log.len().min(300)]);
}

#[test]
fn a_game_program_that_dies_leaving_its_output_open_is_seen_to_crash() {
    // Unsandboxed, a process the game started keeps its output open after
    // it exits: the wait for its answer must see the exit itself, not wait
    // for the output to close or the time to run out.
    let scratch = Scratch::new();
    let run =
        match_of(&scratch, &tiny("orphan-crash"), 1, &["--game-timeout", "20s", "--no-sandbox"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("exited with status 3 instead of answering apply request"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_game_that_answers_the_same_moves_differently_is_caught() {
    // The second game of a setup is set up from the same seed (seats
    // swapped) where the game deals nothing in secret: one that deals
    // from a generator its seed does not seed deals anew. (A game that
    // deals privately gets a seed per game, so only check-game's replays
    // can catch it there.)
    let (scratch, run) = void_by(
        "unseeded",
        2,
        "init request",
        "answered the same moves from the same setup differently",
    );
    let rows = read_games_csv(&scratch.out());
    assert_eq!(rows.len(), 1, "the first game stands: {}", run.stderr);
}

#[test]
fn the_game_program_is_restarted_after_a_fault_and_the_run_stops_at_the_third() {
    // crash-some crashes in the second game each process sets up.
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("crash-some"), 4, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("2 games are void"), "{}", run.stderr);
    // A match keeps its transcripts as files: the warnings name them there.
    assert!(
        run.stderr.contains("(in the results folder: its transcript transcripts/game-000002.jsonl"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("void/"), "no void/ folder is made: {}", run.stderr);
    let out = scratch.out();
    let rows = read_games_csv(&out);
    let played: Vec<u64> = rows.iter().map(|row| row.number("game_index")).collect();
    assert_eq!(played, [1, 3], "games 2 and 4 are void");
    // Game 3 was the first game of a new process.
    assert!(game_log(&out, 2).contains("game 2"), "{}", game_log(&out, 2));
    assert!(game_log(&out, 3).contains("game 1"), "{}", game_log(&out, 3));
    // A rerun plays the void games again (and the game fails them again).
    let rerun = match_of(&scratch, &tiny("crash-some"), 4, &[]);
    assert!(
        rerun.stdout.contains("resuming: 2 games already in games.csv, 2 to play"),
        "{}",
        rerun.stdout
    );

    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("crash"), 6, &[]);
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stderr.contains("the game program failed 3 times"), "{}", run.stderr);
    assert_eq!(run.stderr.matches("is void").count(), 3, "{}", run.stderr);
    // As after Ctrl-C, the command that resumes the run once the game is
    // fixed: the one typed, with the seed and the results folder.
    let resume = run.stderr.lines().skip_while(|line| !line.contains("resume with:")).nth(1);
    let resume = resume.unwrap_or_else(|| panic!("no resume command: {}", run.stderr));
    assert!(resume.trim_start().starts_with("arena match "), "{resume}");
    assert!(resume.contains("--seed ") && resume.contains("--out "), "{resume}");
}

#[test]
fn a_run_keeps_a_void_games_transcript_apart_and_replays_it_by_number() {
    // A run keeps its transcripts in the archive, which holds the games of
    // games.csv only: a void game's goes to void/. crash-some crashes in
    // the second game each process sets up.
    let scratch = Scratch::new();
    let repo = common::repo_dir().display();
    let file = scratch.out().with_file_name("void.toml");
    let toml = format!(
        r#"game_command = ["{repo}/tests/fixtures/games/tinygame.py", "--flaw", "crash-some"]
seed = 3
games_per_pair = 2
[[bot]]
name = "python"
command = ["python3", "{repo}/bots/python/random_bot.py"]
[[bot]]
name = "rust"
command = ["{}"]
"#,
        rust_random_bot().display()
    );
    std::fs::write(&file, toml).unwrap();
    let out = scratch.out();
    let run = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("(in the results folder: its transcript void/game-000002.jsonl"),
        "{}",
        run.stderr
    );
    let rows = read_games_csv(&out);
    assert_eq!(rows.iter().map(|row| row.number("game_index")).collect::<Vec<_>>(), [1]);
    let replay = scratch.arena(["replay", out.to_str().unwrap(), "--game", "2"]);
    replay.assert_success();
    assert!(replay.stdout.contains("The game is void: the game program"), "{}", replay.stdout);
    // A number no game had is still refused, and so is a transcript file
    // without a row that does not end as void (a game whose row was lost
    // or set aside): it is not game 3.
    let void = std::fs::read_to_string(out.join("void/game-000002.jsonl")).unwrap();
    let (unfinished, _) = void.trim_end().rsplit_once('\n').unwrap();
    std::fs::create_dir_all(out.join("transcripts")).unwrap();
    std::fs::write(out.join("transcripts/game-000003.jsonl"), unfinished).unwrap();
    let replay = scratch.arena(["replay", out.to_str().unwrap(), "--game", "3"]);
    assert_eq!(replay.status.code(), Some(2), "{}", replay.stdout);
    assert!(replay.stderr.contains("has no game 3 (it holds 1 game)"), "{}", replay.stderr);
}

/// ARCHITECTURE.md: no bot's clock runs while a game program answers. The
/// `slow` game sleeps 1.2 s on its first turn in each process: longer than
/// a move's limit and than a whole bank, and no bot loses on time for it.
#[test]
fn a_slow_game_program_costs_no_bot_its_time() {
    for limits in [["--move-timeout", "500ms"], ["--bank", "1s"]] {
        let scratch = Scratch::new();
        let mut extra = vec!["--game-timeout", "5s"];
        extra.extend(limits);
        let run = match_of(&scratch, &tiny("slow"), 2, &extra);
        run.assert_success();
        let rows = read_games_csv(&scratch.out());
        assert_eq!(rows.len(), 2, "{}", run.stderr);
        let number = |row: &common::Row, column: &str| row[column].parse::<f64>().unwrap();
        for row in &rows {
            assert_eq!(&row["reason"], "normal", "{limits:?}: {}", &row["forfeit_detail"]);
            // No seat's move took the time the game slept.
            let slowest = number(row, "slowest1_ms").max(number(row, "slowest2_ms"));
            assert!(slowest < 500.0, "{limits:?}: {row:?}");
        }
        // The game slept in its process's first game.
        assert!(number(&rows[0], "duration_ms") >= 1200.0, "{limits:?}: {:?}", rows[0]);
    }
}

/// ARCHITECTURE.md: a game program is never told which bot sits where: of
/// everything it reads, nothing names a bot or its command.
#[test]
fn a_game_program_is_never_told_who_plays() {
    let scratch = Scratch::new();
    let run = match_of(&scratch, &tiny("tells-requests"), 2, &[]);
    run.assert_success();
    let log = game_log(&scratch.out(), 1);
    let read: Vec<&str> =
        log.lines().filter_map(|line| line.strip_prefix("tinygame: read ")).collect();
    // (`hello` is asked of a process of its own, before the run.)
    for kind in ["init", "apply"] {
        let request = format!("\"type\":\"{kind}\"");
        assert!(
            read.iter().any(|line| line.replace(' ', "").contains(&request)),
            "no {kind}: {log}"
        );
    }
    for name in ["random_bot", "random-bot", "python3", "bots/"] {
        assert!(!read.iter().any(|line| line.contains(name)), "the game read `{name}`: {log}");
    }
}
