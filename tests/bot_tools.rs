//! `arena check` against well-behaved and misbehaving bots, and `arena play`
//! driven through its standard input as a person would type.

#[allow(dead_code)]
mod common;

use common::{PYTHON_RANDOM_BOT, Run, Scratch, fixture, rust_random_bot};

fn check(scratch: &Scratch, args: &[&str]) -> Run {
    let out = scratch.out();
    let mut all = vec!["check", "--out", out.to_str().expect("a UTF-8 path")];
    all.extend_from_slice(args);
    scratch.arena(all)
}

/// The checklist line of `title`, e.g. "FAIL  echoes ids: ...".
fn item<'a>(run: &'a Run, title: &str) -> &'a str {
    run.stdout
        .lines()
        .map(str::trim_start)
        .find(|line| line.get(6..).is_some_and(|rest| rest.starts_with(title)))
        .unwrap_or_else(|| panic!("no `{title}` in:\n{}", run.stdout))
}

/// The items of the (first) game's checklist not judged for want of
/// evidence, shown together in one line when there are several.
fn not_judged(run: &Run) -> Vec<&str> {
    let line = run
        .stdout
        .lines()
        .map(str::trim_start)
        .find(|line| line.starts_with("SKIP  "))
        .unwrap_or_else(|| panic!("nothing was left unjudged:\n{}", run.stdout));
    match line.strip_prefix("SKIP  not judged, for want of evidence: ") {
        Some(titles) => titles.split("; ").collect(),
        None => vec![line[6..].split(':').next().expect("a title")],
    }
}

/// The lines after the checklist line of `title`, up to the next item.
fn details<'a>(run: &'a Run, title: &str) -> Vec<&'a str> {
    let line = item(run, title);
    run.stdout
        .lines()
        .skip_while(|candidate| candidate.trim_start() != line)
        .skip(1)
        .take_while(|candidate| candidate.starts_with("        "))
        .map(str::trim)
        .collect()
}

#[test]
fn a_good_bot_passes_every_check_of_every_game() {
    let scratch = Scratch::new();
    let bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let run = check(&scratch, &[&bot]);
    run.assert_success();
    for game in ["Number Snatch", "Numbers War", "Number Warriors", "Number Claim", "Number Duel"] {
        assert!(run.stdout.contains(&format!("{game}:")), "{}", run.stdout);
    }
    let passes = run.stdout.lines().filter(|line| line.trim_start().starts_with("PASS")).count();
    assert_eq!(passes, 5 * 11, "{}", run.stdout);
    assert!(run.stdout.contains("All checks passed."));
}

#[test]
fn the_python_starter_bot_passes() {
    let scratch = Scratch::new();
    let run = check(&scratch, &["--game", "number-warriors", PYTHON_RANDOM_BOT]);
    run.assert_success();
    assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
}

/// Runs the checklist on one fixture; it must fail (exit status 1).
fn check_fixture(fixture_bot: &str) -> Run {
    let scratch = Scratch::new();
    let run = check(
        &scratch,
        &["--game", "number-claim", "--move-timeout", "500ms", &fixture(fixture_bot)],
    );
    assert_eq!(run.status.code(), Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(" failed"), "{}", run.stdout);
    run
}

/// A bot refused something by the sandbox is told what and why.
#[test]
fn a_bot_refused_by_the_sandbox_is_told_why() {
    let scratch = Scratch::new();
    let run = check(
        &scratch,
        &["--game", "number-claim", &fixture("hostile.py read-file path:/etc/shadow")],
    );
    assert_eq!(run.status.code(), Some(1), "{}", run.stdout);
    assert!(item(&run, "stays inside its sandbox").starts_with("FAIL"), "{}", run.stdout);
    assert!(item(&run, "stays inside its sandbox").contains("/etc/shadow"), "{}", run.stdout);
    let hint = details(&run, "stays inside its sandbox");
    assert!(hint.iter().any(|line| line.contains("--allow-read")), "{hint:?}");
    assert!(run.stdout.contains("outside its folders"), "{}", run.stdout);
    // Without the sandbox the file is there to be read: nothing refused.
    let open = check(
        &Scratch::new(),
        &[
            "--no-sandbox",
            "--game",
            "number-claim",
            &fixture("hostile.py read-file path:/etc/shadow"),
        ],
    );
    assert!(!item(&open, "stays inside its sandbox").starts_with("FAIL"), "{}", open.stdout);
    // A log written to this machine's /tmp: the box's /tmp is its own.
    let log = scratch.out().with_file_name("bot.log");
    std::fs::write(&log, "").unwrap();
    let attack = format!("hostile.py tamper-file path:{}", log.display());
    let tmp = check(&Scratch::new(), &["--game", "number-claim", &fixture(&attack)]);
    assert!(
        item(&tmp, "stays inside its sandbox").contains("the /tmp it sees is the box's own"),
        "{}",
        tmp.stdout
    );
    let hint = details(&tmp, "stays inside its sandbox");
    assert!(hint.iter().any(|line| line.contains("write it to stderr")), "{hint:?}");
}

#[test]
fn a_wrong_id_fails_the_id_check_with_the_line_and_a_hint() {
    let run = check_fixture("wrong_id.py");
    assert!(item(&run, "echoes ids").starts_with("FAIL"));
    let details = details(&run, "echoes ids");
    assert!(details[0].starts_with("it sent: {") && details[0].contains("1002"), "{details:?}");
    assert!(details[1].contains("copy the `id`"), "{details:?}");
    // Every game's first move had the wrong id: no move to judge.
    assert!(not_judged(&run).contains(&"answers only legal moves"), "{}", run.stdout);
}

/// A string id is an id problem, not stray output: classified by the
/// reply's kind, not by the wording of its detail.
#[test]
fn a_string_id_fails_the_id_check_not_the_stdout_check() {
    let run = check_fixture("string_id.py");
    assert!(item(&run, "echoes ids").starts_with("FAIL"), "{}", run.stdout);
    let details = details(&run, "echoes ids");
    assert!(details[0].contains(r#""id": "2""#), "{details:?}");
    assert!(details[1].contains(r#"not "id": "2""#), "{details:?}");
    let stdout_check = item(&run, "writes nothing but protocol lines to stdout");
    assert!(!stdout_check.starts_with("FAIL"), "{stdout_check}\n{}", run.stdout);
}

/// A reply without its `move` is no legal move, not stray output: the
/// detail names the key that was meant to be `move`.
#[test]
fn a_misspelt_move_key_fails_the_legal_moves_check_and_is_named() {
    let run = check_fixture("misspelt_move.py");
    let failed = item(&run, "answers only legal moves");
    assert!(
        failed.starts_with("FAIL") && failed.contains("its key `mvoe` should be spelt `move`"),
        "{failed}\n{}",
        run.stdout
    );
    let stdout_check = item(&run, "writes nothing but protocol lines to stdout");
    assert!(!stdout_check.starts_with("FAIL"), "{stdout_check}\n{}", run.stdout);
}

#[test]
fn debug_prints_on_stdout_fail_with_a_hint_about_stderr() {
    let run = check_fixture("garbage.py");
    let title = "writes nothing but protocol lines to stdout";
    assert!(item(&run, title).starts_with("FAIL"));
    let details = details(&run, title);
    assert_eq!(details[0], "it sent: this is not JSON {");
    assert!(details[1].contains("stderr"), "{details:?}");
}

/// A pretty-printed reply is not taken for a debug print: the detail and
/// the hint say a reply is one line of compact JSON.
#[test]
fn a_pretty_printed_reply_is_told_to_be_one_line() {
    let run = check_fixture("pretty_printed.py");
    let title = "writes nothing but protocol lines to stdout";
    let failed = item(&run, title);
    assert!(failed.starts_with("FAIL") && failed.contains("not pretty-printed"), "{failed}");
    let details = details(&run, title);
    assert_eq!(details[0], "it sent: {");
    assert!(details[1].contains("one line of compact JSON"), "{details:?}");
    assert!(!details[1].contains("debug"), "{details:?}");
}

#[test]
fn a_silent_bot_fails_the_time_check() {
    let run = check_fixture("silent.py");
    assert!(item(&run, "takes its time").starts_with("FAIL"));
    // It sleeps rather than waiting for input: slow, not buffered.
    let details = details(&run, "takes its time");
    assert!(details.iter().any(|line| line.contains("still at work")), "{details:?}");
}

/// A reply to `over` or `reveal` fails the item about them, named as such,
/// with the hint to keep reading; nothing else fails for it.
#[test]
fn a_reply_to_over_or_reveal_is_named_with_the_hint_to_keep_reading() {
    for (answered, request) in [("over", "start request"), ("reveal", "move request")] {
        let scratch = Scratch::new();
        let bot = fixture(&format!("answers_notices.py {answered}"));
        let run = check(&scratch, &["--game", "number-warriors", &bot]);
        assert_eq!(run.status.code(), Some(1), "{run:?}");
        let title = "does not answer `over` or `reveal`";
        let failed = item(&run, title);
        assert!(
            failed.starts_with("FAIL")
                && failed.contains(&format!("it answers the `{answered}` sent before {request}"))
                && failed.contains("which needs no answer: keep reading"),
            "{}",
            run.stdout
        );
        assert!(details(&run, title)[1].contains("keep reading"), "{}", run.stdout);
        assert_eq!(run.stdout.matches("FAIL").count(), 1, "{}", run.stdout);
    }
}

#[test]
fn an_illegal_move_fails_the_legality_check() {
    let run = check_fixture("illegal_move.py");
    assert!(item(&run, "answers only legal moves").starts_with("FAIL"));
    assert!(details(&run, "answers only legal moves")[0].contains("424242"));
}

#[test]
fn a_bot_that_quits_after_one_game_fails_the_several_games_check() {
    let run = check_fixture("one_game.py");
    assert!(item(&run, "plays several games in one process").starts_with("FAIL"));
    assert!(
        details(&run, "plays several games in one process")
            .iter()
            .any(|line| line.contains("after `over`"))
    );
    assert!(item(&run, "starts and answers the handshake in time").starts_with("PASS"));
}

#[test]
fn a_bot_that_chokes_on_unknown_fields_fails_that_check_only() {
    let run = check_fixture("strict_fields.py");
    assert!(item(&run, "ignores unknown fields and message types").starts_with("FAIL"));
    let failures = run.stdout.lines().filter(|line| line.trim_start().starts_with("FAIL")).count();
    assert_eq!(failures, 1, "{}", run.stdout);
}

#[test]
fn a_bot_that_ignores_the_end_of_its_input_fails_the_exit_check() {
    let run = check_fixture("ignores_eof.py");
    assert!(item(&run, "exits when its input closes").starts_with("FAIL"));
    assert!(
        details(&run, "exits when its input closes")
            .iter()
            .any(|line| line.contains("end of file"))
    );
}

#[test]
fn a_missing_bot_is_a_usage_error() {
    let scratch = Scratch::new();
    let run = check(&scratch, &["no-such-bot-anywhere"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("no-such-bot-anywhere"), "{}", run.stderr);
}

fn play(args: &[&str], input: &str) -> Run {
    let scratch = Scratch::new();
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    let run = scratch.arena_with_input(all, input);
    run.assert_success();
    run
}

#[test]
fn a_person_plays_number_claim_and_bad_input_is_asked_again() {
    // The built-in random player; the answers cover every number, so
    // whatever it claims, each turn finds one that is still free.
    let mut input = String::from("abc\n\n100\n");
    for number in (1..=9).rev() {
        input.push_str(&format!("{number}\n"));
    }
    let run = play(&["number-claim", "--seed", "3"], &input);
    let out = &run.stdout;
    assert!(out.contains("Welcome to Number Claim!"), "{out}");
    assert!(out.contains("`abc` is not a whole number"), "{out}");
    assert!(out.contains("Please type a number."), "{out}");
    assert!(out.contains("100"), "{out}");
    assert!(out.contains("Player 1 claims 9."), "{out}");
    assert!(out.contains("Updated Grid:") && out.contains("[P1]") && out.contains("[P2]"), "{out}");
    assert!(out.contains("Final Scores:") && out.contains("Winner: "), "{out}");
    assert!(!out.contains("forfeits"), "{out}");
}

#[test]
fn a_person_plays_number_duel_against_a_bot_from_seat_2() {
    let bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    // Whatever the bot does, some of these answers are legal; bad ones are
    // asked again, and running out of input ends the game cleanly.
    let mut input = String::from("x\n");
    for number in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].repeat(2) {
        input.push_str(&format!("{number}\nsubtract\nadd\n"));
    }
    let run = play(&["number-duel", "--vs", &bot, "--seat", "2", "--seed", "5"], &input);
    let out = &run.stdout;
    assert!(out.contains("Welcome to Number Duel!"), "{out}");
    assert!(out.contains("Choose an operation (add/multiply): "), "{out}");
    assert!(out.contains("subtract"), "{out}");
    assert!(out.contains("Player 1 (random-bot)") && out.contains("Player 2 (you)"), "{out}");
    assert!(out.contains("Final Scores:"), "{out}");
}

/// The person is told their seat before the game; `x` is not taken for
/// multiply (it means "leave" to many), and `quit` leaves the game.
#[test]
fn play_says_your_seat_first_refuses_x_and_quits_on_quit() {
    let run = play(&["number-duel", "--seed", "5"], "3\nx\nquit\n");
    let out = &run.stdout;
    assert!(
        out.starts_with(
            "You are Player 1 (you move first), against the built-in random player as Player 2."
        ),
        "{out}"
    );
    assert!(
        out.contains("`x` is not an operation. Please type add (or a, +) or multiply"),
        "{out}"
    );
    assert!(!out.contains("multiplies"), "{out}");
    assert!(out.contains("Player 1 (you) left the game."), "{out}");
    assert!(out.contains("Winner: Player 2 (random)"), "{out}");
}

#[test]
fn two_people_play_number_warriors_at_one_keyboard() {
    // Both type the same numbers in turn: every turn is a tie, no damage.
    let input: String = (1..=9).rev().flat_map(|n| [n, n]).map(|n| format!("{n}\n")).collect();
    let run = play(&["number-warriors", "--vs", "human"], &input);
    let out = &run.stdout;
    assert!(out.contains("Player 1, enter your number: "), "{out}");
    assert!(out.contains("Player 2, enter your number: "), "{out}");
    assert!(out.contains("Revealing selections..."), "{out}");
    assert_eq!(out.matches("Revealing selections...").count(), 9, "{out}");
    assert!(out.contains("It's a draw."), "{out}");
}

#[test]
fn running_out_of_input_ends_the_game_without_a_crash() {
    let run = play(&["number-snatch", "--seed", "2"], "");
    assert!(run.stdout.contains("left the game"), "{}", run.stdout);
    assert!(run.stdout.contains("Winner: Player 2 (random)"), "{}", run.stdout);
}

/// `arena check --param` plays its games with the parameter (and needs
/// --game, since parameters belong to one game).
#[test]
fn check_takes_game_parameters() {
    let scratch = Scratch::new();
    let bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    let run = check(&scratch, &["--game", "number-snatch", "--param", "count=4", &bot]);
    run.assert_success();
    let transcript = scratch.out().join("number-snatch/transcripts/game-000001.jsonl");
    let header = common::read_transcript(&transcript).remove(0);
    assert_eq!(header["params"]["count"], 4, "{header}");
    let run = check(&scratch, &["--param", "count=4", &bot]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let run = check(&scratch, &["--game", "number-snatch", "--param", "count=x", &bot]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains(r#"parameter `count` of number-snatch: expected a whole number, got "x""#),
        "{}",
        run.stderr
    );
}

/// A command typed as its words, unquoted, is the command those words
/// make; a word that starts with `-` comes after `--`.
#[test]
fn a_command_may_be_typed_as_words() {
    let scratch = Scratch::new();
    let mut args = vec!["--game", "number-snatch", "--games", "2"];
    args.extend(PYTHON_RANDOM_BOT.split(' '));
    let run = check(&scratch, &args);
    run.assert_success();
    assert!(run.stdout.contains(&format!("`{PYTHON_RANDOM_BOT}`")), "{}", run.stdout);
    let mut args = vec!["--game", "number-snatch", "--games", "2", "--", "python3", "-u"];
    args.extend(PYTHON_RANDOM_BOT.split(' ').skip(1));
    check(&scratch, &args).assert_success();
}

/// A word with spaces stays one argument, and a one-word command that is
/// the path of a file with a space in its name is that file: neither is
/// split again.
#[test]
fn a_path_with_spaces_is_one_word() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new();
    let root = scratch.out().parent().expect("the scratch folder").to_owned();
    let folder = root.join("my bots");
    std::fs::create_dir(&folder).unwrap();
    let script = folder.join("random bot.py");
    std::fs::copy("bots/python/random_bot.py", &script).unwrap();
    let launcher = folder.join("run bot");
    std::fs::write(&launcher, "#!/bin/sh\nexec python3 -u \"$(dirname \"$0\")/random bot.py\"\n")
        .unwrap();
    // Open to others: a sandboxed bot has only the rights others have.
    for (path, mode) in [(&root, 0o755), (&folder, 0o755), (&script, 0o644), (&launcher, 0o755)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let game = ["--game", "number-snatch", "--games", "2"];
    let mut args = game.to_vec();
    args.extend(["python3", script.to_str().unwrap()]);
    check(&scratch, &args).assert_success();
    let mut args = game.to_vec();
    args.push(launcher.to_str().unwrap());
    let run = check(&scratch, &args);
    run.assert_success();
    assert!(run.stdout.contains("run bot"), "{}", run.stdout);
}

/// A bot of one game checked without --game fails the built-in games it
/// was not written for: the check ends by saying so and how to check it
/// at its own. A bot that passes them all is told nothing of it.
#[test]
fn a_bot_of_one_game_checked_at_all_is_pointed_to_game() {
    let scratch = Scratch::new();
    let kuhn_bot = "python3 examples/games/kuhn-poker/bots/by_card.py";
    let run = scratch.arena(["check", kuhn_bot]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stdout);
    let last = run.stdout.lines().last().unwrap();
    assert!(
        last.starts_with("Checked at every built-in game, since no --game was given")
            && last.contains("--game GAME"),
        "{last}"
    );
    let random = scratch.arena(["check", PYTHON_RANDOM_BOT]);
    random.assert_success();
    assert!(!random.stdout.contains("no --game was given"), "{}", random.stdout);
}
