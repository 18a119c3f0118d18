//! What a bot author is told when something goes wrong, checked against
//! real processes that misbehave on purpose: a timeout names the request,
//! the limit and the bytes that arrived; a crash quotes the bot's stderr
//! and its exit status or signal; `arena check` passes nothing it could not
//! judge and reports each problem once, with the limit that applied; moves
//! and parameters of the wrong shape are named as such; bots are named
//! after their scripts.

#[allow(dead_code)]
mod common;

use std::process::Command;

use common::{PYTHON_RANDOM_BOT, Row, Run, Scratch, fixture, read_games_csv, transcript_of};

/// Plays two games of `game` between `bot` (seat 1 in game 1, seat 2 in
/// game 2) and the Python random bot; the arena itself must succeed.
fn match_rows(scratch: &Scratch, game: &str, bot: &str, extra: &[&str]) -> Vec<Row> {
    let out = scratch.out();
    let mut args = vec![
        "match",
        game,
        bot,
        PYTHON_RANDOM_BOT,
        "--games",
        "2",
        "--seed",
        "5",
        "--out",
        out.to_str().expect("a UTF-8 path"),
    ];
    args.extend_from_slice(extra);
    let run = scratch.arena(&args);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    rows
}

/// The forfeit detail of a row, without the forfeiter's name before it.
fn detail<'a>(row: &'a Row, name: &str) -> &'a str {
    let detail = &row["forfeit_detail"];
    detail
        .strip_prefix(&format!("{name}: "))
        .unwrap_or_else(|| panic!("`{detail}` does not start with the name {name}"))
}

#[test]
fn a_timeout_names_the_request_the_limit_and_the_bytes_that_arrived() {
    let scratch = Scratch::new();
    let rows = match_rows(
        &scratch,
        "number-snatch",
        &fixture("no_newline.py"),
        &["--move-timeout", "500ms"],
    );
    // Seat 1 is asked in turn 1, seat 2 in turn 2; each process's first
    // move request is its request 2 (`start` was 1).
    for (row, turn) in rows.iter().zip([1, 2]) {
        assert_eq!(&row["reason"], "timeout");
        let detail = detail(row, "no_newline");
        let said = format!("no reply to move request 2 (turn {turn}) within 500 ms; ");
        assert!(detail.starts_with(&said), "{detail}");
        let (bytes, rest) = detail[said.len()..].split_once(' ').expect("a byte count");
        assert!(
            rest.starts_with(
                "bytes arrived without a newline: is your output buffered? (protocol.md §8) (line: "
            ),
            "{detail}"
        );
        // The count is that of the line that arrived, quoted after it.
        let line = rest.split_once("(line: ").expect("the line").1.strip_suffix(')').unwrap();
        assert_eq!(bytes.parse::<usize>().expect("a number"), line.len(), "{detail}");
        assert!(line.starts_with(r#"{"type": "move", "id": 2"#), "{detail}");
    }
}

#[test]
fn a_buffered_bot_times_out_at_start_with_the_start_up_limit() {
    let scratch = Scratch::new();
    let rows = match_rows(
        &scratch,
        "number-claim",
        &fixture("buffered.py"),
        &["--startup-timeout", "2s", "--move-timeout", "500ms"],
    );
    for row in &rows {
        assert_eq!(
            detail(row, "buffered"),
            "no reply to start request 1 within 2000 ms; nothing arrived, and the bot was waiting to read its input: its reply is stuck in its output buffer (flush after every line, protocol.md §8), or it skipped the request (each `start` and `move` needs one reply, protocol.md §2)"
        );
    }
    scratch.assert_fixture_processes_gone();
}

/// A bot still thinking when its time runs out is told apart from one whose
/// reply is stuck in its buffer: it was not waiting for input.
#[test]
fn a_slow_bot_is_told_from_a_buffered_one() {
    let scratch = Scratch::new();
    let rows = match_rows(
        &scratch,
        "number-claim",
        &format!("{} --think-ms 1500", fixture("spends_time.py")),
        &["--move-timeout", "300ms"],
    );
    for row in &rows {
        let detail = detail(row, "spends_time");
        assert!(
            detail.ends_with(
                "nothing arrived, and the bot was still at work (not waiting for input): a slow bot"
            ),
            "{detail}"
        );
    }
    scratch.assert_fixture_processes_gone();
}

/// A bot that answers only the first game's `start` is told so in the next
/// game, where the reply to the move request sent with the `start` comes in
/// place of its `ready`; `arena check` files it under the handshake.
#[test]
fn a_bot_that_skips_a_later_start_is_told_so() {
    let scratch = Scratch::new();
    let rows = match_rows(&scratch, "number-claim", &fixture("first_start_only.py"), &[]);
    assert_eq!(&rows[0]["reason"], "normal", "the first game's start is answered");
    let detail = detail(&rows[1], "first_start_only");
    assert!(
        detail.starts_with("expected a `ready` reply to start request ")
            && detail.contains("got the reply to move request ")
            && detail.contains("the bot skipped the `start`"),
        "{detail}"
    );
    let check = scratch.arena(["check", "--game", "number-claim", &fixture("first_start_only.py")]);
    assert!(
        check.stdout.lines().any(|line| line.contains("FAIL  starts and answers the handshake")
            && line.contains("the bot skipped the `start`")),
        "{}",
        check.stdout
    );
    scratch.assert_fixture_processes_gone();
}

/// A bot computing on a CPU of its own when its time runs out (the system
/// says "running" rather than naming a call) is still at work too.
#[test]
fn a_bot_busy_on_a_cpu_is_told_from_a_buffered_one() {
    let scratch = Scratch::new();
    let rows = match_rows(
        &scratch,
        "number-claim",
        &format!("{} 2000", fixture("cpu_hungry.py")),
        &["--move-timeout", "300ms"],
    );
    for row in &rows {
        let detail = detail(row, "cpu_hungry");
        assert!(
            detail.ends_with(
                "nothing arrived, and the bot was still at work (not waiting for input): a slow bot"
            ),
            "{detail}"
        );
    }
    scratch.assert_fixture_processes_gone();
}

#[test]
fn a_crash_quotes_the_last_lines_of_stderr_and_the_exit_status() {
    let scratch = Scratch::new();
    let rows = match_rows(&scratch, "number-claim", &fixture("dies_with_words.py"), &[]);
    for (row, turn) in rows.iter().zip([1, 2]) {
        assert_eq!(&row["reason"], "crash");
        let detail = detail(row, "dies_with_words");
        assert!(
            detail.contains(&format!(
                "exited with status 2 instead of answering move request 2 (turn {turn})"
            )),
            "{detail}"
        );
        // Printable: the lines are joined by an escaped newline.
        assert!(
            detail.contains("lines it wrote to stderr: arena-test-pid ")
                && detail
                    .ends_with(r"\nloading weights from model.bin\nerror: model.bin: no such file"),
            "{detail}"
        );
        // The opponent is told how the bot ended, never what it wrote to
        // stderr; the transcript keeps all of it.
        let transcript = transcript_of(&scratch.out(), row);
        let forfeit = transcript.iter().find(|line| line["type"] == "forfeit").expect("a forfeit");
        assert!(forfeit["detail"].as_str().unwrap().contains("model.bin"), "{forfeit}");
        let over = transcript
            .iter()
            .find(|line| line["type"] == "send" && line["msg"]["type"] == "over")
            .expect("the opponent's `over`");
        let told = over["msg"]["forfeits"][0]["detail"].as_str().expect("a detail");
        assert!(told.contains("exited with status 2"), "{told}");
        assert!(!told.contains("model.bin") && !told.contains("stderr"), "{told}");
    }
}

#[test]
fn a_bot_killed_by_a_signal_is_told_which() {
    let scratch = Scratch::new();
    let rows = match_rows(&scratch, "numbers-war", &fixture("kill_self.py TERM"), &[]);
    for row in &rows {
        assert_eq!(&row["reason"], "crash");
        let detail = detail(row, "kill_self");
        assert!(
            detail.starts_with(
                "was killed by signal 15 (SIGTERM) instead of answering move request 2"
            ),
            "{detail}"
        );
    }
}

/// `python3 tests/fixtures/no_such_bot.py`: refused before any game, exit
/// status 2, naming the bot and the script; no results folder is made. A
/// script given inline (`-c`) is no file to look for.
#[test]
fn a_missing_script_is_refused_before_any_game() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let missing = "python3 tests/fixtures/no_such_bot.py";
    for args in [
        vec!["match", "number-snatch", PYTHON_RANDOM_BOT, missing, "--out", out.to_str().unwrap()],
        vec!["check", missing],
        vec!["play", "number-snatch", "--vs", missing],
    ] {
        let run = scratch.arena(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("script `tests/fixtures/no_such_bot.py` does not exist"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    let run = scratch.arena(["match", "number-snatch", PYTHON_RANDOM_BOT, missing]);
    assert!(run.stderr.contains("arena: bot 2: script `"), "{}", run.stderr);
    assert!(!out.exists(), "a refused match made its results folder");
    let inline = "python3 -c 'import sys; sys.exit(3)'";
    let rows = match_rows(&scratch, "number-snatch", inline, &[]);
    assert!(rows.iter().all(|row| &row["reason"] == "crash"), "{rows:?}");
}

/// A command typed without quotes where each command is one argument: the
/// words left over get a tip to quote the command (not clap's tip to pass
/// `-u` after `--`), and an interpreter left alone (`python3`, `python3
/// -u`), which would read a program from the input arena writes to, is
/// refused at once, as a bot, a game program or a tournament file's bot,
/// instead of timing out. A mistyped option keeps clap's "similar argument".
#[test]
fn a_command_typed_without_quotes_is_told_to_quote_it() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let out = out.to_str().unwrap();
    let quote_it = "tip: each command is one argument: put a command of several words in quotes";
    for args in [
        vec!["match", "number-snatch", "python3", "-u", "bots/python/random_bot.py"],
        vec!["match", "number-snatch", PYTHON_RANDOM_BOT, "python3", "bots/python/random_bot.py"],
        vec![
            "sprt",
            "python3",
            "bots/python/random_bot.py",
            PYTHON_RANDOM_BOT,
            "--game",
            "number-snatch",
        ],
        vec!["play", "node", "examples/games/goofspiel/game.js"],
    ] {
        let run = scratch.arena(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {run:?}");
        assert!(run.stderr.contains(quote_it), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("use '--"), "{args:?}: {}", run.stderr);
    }
    let run = scratch.arena(["match", "number-snatch", "a", "b", "--gmes", "3"]);
    assert!(run.stderr.contains("a similar argument exists: '--games'"), "{}", run.stderr);
    assert!(!run.stderr.contains(quote_it), "{}", run.stderr);
    // `gauntlet --league` has no `sprt` twin: a test from a file is an
    // `[sprt]` table, which the tip names.
    for league in [&["--league", "tournament.toml"][..], &["--league=tournament.toml"]] {
        let run = scratch.arena(["sprt"].iter().chain(league));
        assert_eq!(run.status.code(), Some(2), "{run:?}");
        assert!(
            run.stderr.contains("give it an `[sprt]` table and exactly two bots"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains(quote_it), "{}", run.stderr);
    }

    let alone = |args: &[&str], said: &str| {
        let run = scratch.arena(args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {run:?}");
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("is given no file to run"), "{args:?}: {}", run.stderr);
        // Refused before anything starts, not when the game program does
        // not describe itself in time.
        assert!(!run.stderr.contains("did not answer"), "{args:?}: {}", run.stderr);
    };
    let game = "examples/games/connect-four/game.py";
    alone(&["match", "python3", game, PYTHON_RANDOM_BOT, "--out", out], "`python3` is given");
    alone(
        &["match", "number-snatch", "python3 -u", PYTHON_RANDOM_BOT, "--out", out],
        "bot 1: `python3 -u` is given no file to run",
    );
    alone(&["check", "--game", "number-snatch", "node"], "as in `node main.js`");
    assert!(!std::path::Path::new(out).exists(), "a refused match made its results folder");
    let file = scratch.out().with_extension("toml");
    std::fs::write(
        &file,
        "game = \"number-snatch\"\n[[bot]]\nname = \"alone\"\ncommand = [\"python3\"]\n[[bot]]\nname = \"other\"\ncommand = [\"python3\", \"bots/python/random_bot.py\"]\n",
    )
    .unwrap();
    alone(&["run", file.to_str().unwrap(), "--out", out], "`alone`");
}

/// Default names come from the script an interpreter runs, whatever the
/// interpreter and its options.
#[test]
fn default_names_come_from_scripts() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        "number-snatch",
        "python3 -u bots/python/random_bot.py",
        "node bots/javascript/random_bot.js",
        "--games",
        "2",
        "--out",
        out.to_str().expect("a UTF-8 path"),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    // Both scripts are called random_bot: the names are made distinct.
    assert_eq!(&rows[0]["pairing"], "random_bot-1 vs random_bot-2", "{}", run.stdout);
    // And the run says which command each number stands for.
    assert!(
        run.stdout.contains("bots named alike, numbered in the order given: random_bot-1 is `python3 -u bots/python/random_bot.py`; random_bot-2 is `node bots/javascript/random_bot.js`\n"),
        "{}",
        run.stdout
    );
    // Names given that merely end in a number were numbered by no one.
    let named = scratch.arena([
        "match",
        "number-snatch",
        "python3 -u bots/python/random_bot.py",
        "node bots/javascript/random_bot.js",
        "--name1",
        "v-1",
        "--name2",
        "v-2",
        "--games",
        "2",
        "--out",
        out.to_str().expect("a UTF-8 path"),
        "--fresh",
    ]);
    named.assert_success();
    assert!(!named.stdout.contains("numbered"), "{}", named.stdout);
}

#[test]
fn a_number_duel_move_sent_as_an_array_is_an_illegal_move() {
    let scratch = Scratch::new();
    let rows = match_rows(&scratch, "number-duel", &fixture("array_move.py"), &[]);
    for row in &rows {
        assert_eq!(&row["reason"], "illegal_move");
        let detail = detail(row, "array_move");
        assert!(detail.contains(r#""add"] is not a move of this game"#), "{detail}");
        assert!(detail.contains(r#"expected an object {"number": N"#), "{detail}");
    }
}

#[test]
fn a_parameter_of_the_wrong_type_is_named() {
    let scratch = Scratch::new();
    let bot = fixture("silent.py");
    let said = r#"parameter `count` of numbers-war: expected a whole number, got "x""#;
    let run = scratch.arena(["match", "numbers-war", &bot, &bot, "--param", "count=x"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert_eq!(run.stderr.trim(), format!("arena: {said}"));
    let run = scratch.arena(["check", "--game", "numbers-war", "--param", "count=x", &bot]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert_eq!(run.stderr.trim(), format!("arena: {said}"));
}

/// Runs `arena check` with its temporary folder inside `scratch`, so the
/// test can see that it leaves nothing behind.
fn check_in(scratch: &Scratch, args: &[&str]) -> (Run, std::path::PathBuf) {
    let temporary = scratch.out().with_file_name("tmp");
    std::fs::create_dir_all(&temporary).expect("a temporary folder");
    let started = std::time::Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("check")
        .args(args)
        .current_dir(common::repo_dir())
        .env("TMPDIR", &temporary)
        .output()
        .expect("arena runs");
    let run = Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: started.elapsed(),
    };
    (run, temporary)
}

/// The checklist of a bot whose output never leaves its buffer (the most
/// common first bug): it is judged as soon as the bot sits waiting for its
/// input without having answered `start`, in about the time a good bot's
/// whole check takes, with one failure that names flushing and Python's
/// way to do it, the items it leaves unjudged in one line, and the other
/// games not played; nothing passes without evidence, and the scratch
/// folder is gone.
#[test]
fn check_diagnoses_a_buffered_bot_at_once_and_says_it_once() {
    let scratch = Scratch::new();
    let bot = fixture("buffered.py");
    let (run, temporary) =
        check_in(&scratch, &["--startup-timeout", "4s", "--move-timeout", "700ms", &bot]);
    let (good, _) = check_in(&Scratch::new(), &[common::PYTHON_RANDOM_BOT]);
    good.assert_success();
    println!(
        "arena check took {:.2?} on a bot that never flushes, {:.2?} on the Python starter kit",
        run.elapsed, good.elapsed
    );
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let items: Vec<&str> = run
        .stdout
        .lines()
        .map(str::trim_start)
        .filter(|line| ["PASS", "FAIL", "SKIP"].iter().any(|status| line.starts_with(status)))
        .collect();
    assert_eq!(items.len(), 3, "{}", run.stdout);
    let failure = items[0];
    assert!(failure.starts_with("FAIL  starts and answers the handshake in time"), "{failure}");
    assert!(
        failure.contains("no reply to start request 1 (judged after")
            && failure.contains("of the 4000 ms allowed")
            && failure.contains("its reply is stuck in its output buffer"),
        "{failure}"
    );
    assert!(!run.stdout.contains("700 ms"), "the move limit did not apply: {}", run.stdout);
    // Only the sandbox item has evidence of its own (the bot's stderr).
    assert!(items[1].starts_with("PASS  stays inside its sandbox"), "{}", run.stdout);
    assert!(items[2].starts_with("SKIP  not judged, for want of evidence: echoes ids;"));
    for title in ["answers only legal moves", "takes its time", "keeps running during games"] {
        assert!(items[2].contains(title), "{title} is not in {}", items[2]);
    }
    let hints: Vec<&str> =
        run.stdout.lines().filter(|line| line.trim_start().starts_with("hint:")).collect();
    assert_eq!(hints.len(), 1, "{}", run.stdout);
    assert!(
        hints[0].contains("flush stdout after every line")
            && hints[0].contains("in Python: print(json.dumps(reply), flush=True)"),
        "{}",
        hints[0]
    );
    assert!(
        run.stdout.contains(
            "Not checked: Numbers War, Number Warriors, Number Claim, Number Duel. A bot that does not answer `start`"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("1 check failed; 9 could not be judged; 4 games not checked."),
        "{}",
        run.stdout
    );
    let left: Vec<_> = std::fs::read_dir(&temporary).expect("the folder").collect();
    assert!(left.is_empty(), "check left {left:?} behind");
}

/// A bot that takes its time to answer `start` (asleep, not waiting for
/// input) is not taken for a buffered one: its handshake passes.
#[test]
fn check_waits_for_a_bot_that_is_slow_to_start() {
    let scratch = Scratch::new();
    let (run, _) = check_in(&scratch, &["--game", "number-snatch", &fixture("slow_start.py")]);
    run.assert_success();
    assert!(
        run.stdout.contains("PASS  starts and answers the handshake in time"),
        "{}",
        run.stdout
    );
}

/// A reply that arrives without its newline: the hint names the bytes, and
/// what did come back (the `ready`s) is judged.
#[test]
fn check_tells_a_reply_without_newline_by_its_bytes() {
    let scratch = Scratch::new();
    let bot = fixture("no_newline.py");
    let (run, temporary) =
        check_in(&scratch, &["--game", "number-claim", "--move-timeout", "500ms", &bot]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let item = |title: &str| {
        run.stdout
            .lines()
            .map(str::trim_start)
            .find(|line| line.contains(title))
            .unwrap_or_else(|| panic!("no {title}: {}", run.stdout))
    };
    assert!(item("takes its time").starts_with("FAIL"), "{}", run.stdout);
    assert!(item("takes its time").contains("within 500 ms; "), "{}", run.stdout);
    assert!(item("starts and answers the handshake").starts_with("PASS"), "{}", run.stdout);
    assert!(item("echoes ids").starts_with("PASS  echoes ids: all 4 replies"), "{}", run.stdout);
    assert!(item("answers only legal moves").starts_with("SKIP"), "{}", run.stdout);
    assert!(item("hint:").contains("bytes came without a newline"), "{}", run.stdout);
    assert_eq!(run.stdout.matches("timeout:").count(), 1, "{}", run.stdout);
    assert!(std::fs::read_dir(&temporary).expect("the folder").next().is_none());
}

/// A crash at check: the hint does not send the author to a log that the
/// check removes; the quoted stderr is under the item, a line each.
#[test]
fn check_quotes_a_crashed_bots_stderr() {
    let scratch = Scratch::new();
    let (run, _) = check_in(&scratch, &["--game", "number-claim", &fixture("dies_with_words.py")]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let failed = run.stdout.lines().find(|line| line.contains("FAIL")).expect("a failure");
    assert!(failed.contains("keeps running during games"), "{}", run.stdout);
    assert!(failed.contains("exited with status 2"), "{}", run.stdout);
    // Those lines a line each, under the item, not run together.
    assert!(
        run.stdout.contains(
            "\n          loading weights from model.bin\n          error: model.bin: no such file\n        hint: your bot stopped"
        ) && run.stdout.contains(" (turn 1)\n        stderr, its last "),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("logs/"), "{}", run.stdout);
}

/// A Java bot whose replies sit in a buffer it never flushes: the JVM reads
/// its input on a thread of its own, and the timeout still says the bot was
/// waiting for its input, its reply stuck in its output buffer.
#[test]
fn an_unflushed_java_bot_is_told_its_reply_is_stuck() {
    common::require("javac", "default-jdk-headless");
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("java");
    std::fs::create_dir_all(&folder).expect("a folder");
    std::fs::write(
        folder.join("Unflushed.java"),
        r#"import java.io.*;
public class Unflushed {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        String line;
        while ((line = in.readLine()) != null) {
            int at = line.indexOf("\"id\":");
            String id = line.substring(at + 5, line.indexOf(',', at)).trim();
            out.println("{\"type\":\"ready\",\"id\":" + id + "}");
        }
    }
}
"#,
    )
    .expect("the source");
    let compiled = std::process::Command::new("javac")
        .arg("Unflushed.java")
        .current_dir(&folder)
        .status()
        .expect("javac runs");
    assert!(compiled.success(), "javac failed");
    let out = scratch.out();
    let command = format!("java -cp {} Unflushed", folder.display());
    let run = scratch.arena([
        "match",
        "number-snatch",
        command.as_str(),
        common::PYTHON_RANDOM_BOT,
        "--games",
        "1",
        "--startup-timeout",
        "3s",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(&rows[0]["reason"], "timeout", "{}", &rows[0]["forfeit_detail"]);
    assert!(
        rows[0]["forfeit_detail"].contains("stuck in its output buffer"),
        "{}",
        &rows[0]["forfeit_detail"]
    );
}
