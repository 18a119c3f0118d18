//! `arena check-game`: it passes the example games and fails each
//! deliberately broken fixture (tests/fixtures/games/tinygame.py with one
//! flaw) on exactly the item the flaw breaks.

#[allow(dead_code)]
mod common;

use common::Scratch;

/// The items `arena check-game` lists with their status, from its output.
fn items(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let line = line.strip_prefix("  ")?;
            let (status, rest) = line.split_once("  ")?;
            let (title, _) = rest.split_once(": ")?;
            ["PASS", "FAIL", "SKIP"]
                .contains(&status)
                .then(|| (status.to_owned(), title.to_owned()))
        })
        .collect()
}

/// The titles of the items that failed.
fn failed_items(stdout: &str) -> Vec<String> {
    items(stdout)
        .into_iter()
        .filter(|(status, _)| status == "FAIL")
        .map(|(_, title)| title)
        .collect()
}

fn check_game(command: &str, extra: &[&str]) -> (Option<i32>, String) {
    let scratch = Scratch::new();
    let mut args = vec!["check-game", command];
    args.extend(extra);
    let run = scratch.arena(&args);
    (run.status.code(), run.stdout)
}

#[test]
fn the_examples_pass() {
    for game in [
        "examples/games/connect-four/game.py",
        "examples/games/goofspiel/game.js",
        "examples/games/kuhn-poker/game.py",
        "examples/games/liars-dice/game.py",
        "examples/games/number-warriors/game.py",
        "tests/fixtures/games/tinygame.py",
    ] {
        let (status, stdout) = check_game(game, &[]);
        assert_eq!(status, Some(0), "{game}:\n{stdout}");
        let items = items(&stdout);
        // A game that declares payoffs (Kuhn poker) has one item more.
        let payoffs = game.contains("kuhn-poker");
        assert_eq!(items.len(), 11 + usize::from(payoffs), "{game}:\n{stdout}");
        let payoff_item = stdout.contains("PASS  ends with scores within its declared payoffs");
        assert_eq!(payoff_item, payoffs, "{game}:\n{stdout}");
        assert!(items.iter().all(|(status, _)| status != "FAIL"), "{game}:\n{stdout}");
        let passed = items.iter().filter(|(status, _)| status == "PASS").count();
        assert!(passed >= 8, "{game}: judged on evidence:\n{stdout}");
        if game.contains("connect-four") {
            // Nothing of a view is one seat's: the skip says what is probed.
            assert!(
                stdout.contains("a single number or a short word is not probed"),
                "{game}:\n{stdout}"
            );
            // The last line names what was not judged.
            assert!(
                stdout.contains("All checks passed; not judged (SKIP above): ")
                    && stdout.contains("\"keeps a seat's private values from the other seat\""),
                "{game}:\n{stdout}"
            );
        }
    }
    // The fixture has hidden moves and private hands: every item is judged.
    let (_, stdout) = check_game("tests/fixtures/games/tinygame.py", &[]);
    assert!(items(&stdout).iter().all(|(status, _)| status == "PASS"), "{stdout}");
    assert!(!stdout.contains("the lower score won"), "{stdout}");
    // A winner named wrong passes every item (each answer is sound), but
    // is noted: every game was won by the lower score.
    let (status, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw swaps-winner", &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("games won on different scores the lower score won: if the higher should, check that `winner` is the winning seat's number, 1 or 2"),
        "{stdout}"
    );
    // A game whose seats learn every move leaves no view to compare: the
    // skip says there is nothing to fix.
    let (status, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw tells-choices", &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.lines().any(|line| line.starts_with("  SKIP  ")
            && line.contains("changed what the other seat learned")
            && line.ends_with("nothing to fix")),
        "{stdout}"
    );
}

/// A game whose chance every seat sees may say so, and is checked: the
/// seed changes both seats' views alike; it then keeps seat-swapped pairs
/// of one deal, where a game that deals privately gets a setup per game.
#[test]
fn a_game_that_declares_its_chance_public_is_held_to_it() {
    let (status, stdout) = check_game(&common::tinygame("public-chance"), &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("PASS  deals in the open as it declares: game 1's moves from seeds"),
        "{stdout}"
    );
    let (_, private) = check_game(&common::tinygame(""), &[]);
    assert!(!private.contains("deals in the open"), "judged only where declared: {private}");
    let (_, claimed) = check_game(&common::tinygame("claims-public"), &[]);
    assert!(
        claimed.contains(
            "it declares `private_chance: false`, but game 1's moves played again from seed"
        ) && claimed.contains("the seed dealt something only seat 1 sees"),
        "{claimed}"
    );
}

/// Chance may come during play, as game-protocol.md allows: a random
/// game whose seeds all set up the same game, and whose seed shows later
/// (a number drawn each turn), passes; one the seed never changes fails,
/// saying the replay from another seed came out the same.
#[test]
fn chance_during_play_is_judged_by_a_replay_not_by_the_setups() {
    let (status, stdout) = check_game(&common::tinygame("rolls-later"), &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("PASS  seeds change the game as it declares: 6 seeds set up the same game, and game 1's moves played again from seed")
            && stdout.contains("random during play"),
        "{stdout}"
    );
    let (status, ignored) = check_game(&common::tinygame("ignores-seed"), &[]);
    assert_eq!(status, Some(1), "{ignored}");
    assert!(
        ignored.contains("set up the same game, and game 1's moves played again from seed")
            && ignored.contains("give the same answers throughout"),
        "{ignored}"
    );
}

/// A value made public by play is no leak: tinygame's `reveals-rows`
/// shows the other seat's cards masked (`"card??"`) until a round turns
/// one up, at a place of the other seat's own; the leaks of a dealt hand
/// still fail (each_broken_fixture_fails_exactly_its_item).
#[test]
fn a_value_turned_up_by_play_is_no_leak() {
    let (status, stdout) = check_game(&common::tinygame("reveals-rows"), &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("PASS  keeps a seat's private values from the other seat: "),
        "{stdout}"
    );
}

/// What the answer to `init` declares for the parameters checked is what
/// the games are checked by, and the header says so.
#[test]
fn check_game_checks_by_what_init_declares_for_the_parameters() {
    let (status, stdout) = check_game(&common::tinygame("declares"), &["--param", "cards=2"]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("moves public, random, at most 4 turns\n  (for these parameters, as its answer to `init` declares)")
            && stdout.contains("(at most 4 declared)")
            && stdout.contains("SKIP  views do not show hidden choices: not judged: its moves are public"),
        "{stdout}"
    );
    let (_, defaults) = check_game(&common::tinygame("declares"), &[]);
    assert!(defaults.contains("moves hidden, random, at most 10 turns\n  PASS"), "{defaults}");
}

#[test]
fn each_broken_fixture_fails_exactly_its_item() {
    for (flaw, item, extra) in [
        ("bad-hello", "describes itself", &[][..]),
        ("accepts-any", "sets up games and refuses bad parameters by name", &[]),
        ("refuses-defaults", "sets up games and refuses bad parameters by name", &[]),
        ("endless", "plays to the end within its declared turns", &[]),
        ("no-legal-moves", "answers every request with a sound step", &[]),
        ("malformed", "answers every request with a sound step", &[]),
        ("wrong-id", "answers every request with a sound step", &[]),
        ("unreadable", "answers every request with a sound step", &[]),
        ("inexact-move", "answers every request with a sound step", &[]),
        // 48 MiB a step: past the 256 MiB a game may answer at its sixth
        // answer, where check-game stops rather than hold more games.
        ("bloats", "answers every request with a sound step", &[]),
        ("crash", "answers every request with a sound step", &[]),
        ("salted", "answers the same in a fresh process", &[]),
        ("shuffles-keys", "answers the same in a fresh process", &[]),
        ("keeps-state", "answers the same after other games and in another order", &[]),
        ("ignores-seed", "seeds change the game as it declares", &[]),
        ("seeds-later", "seeds change the game as it declares", &[]),
        ("claims-public", "deals in the open as it declares", &[]),
        ("leaks-choice", "views do not show hidden choices", &[]),
        ("leaks-hand", "keeps a seat's private values from the other seat", &[]),
        ("leaks-later", "keeps a seat's private values from the other seat", &[]),
        ("leaks-both", "keeps a seat's private values from the other seat", &[]),
        ("leaks-in-moves", "keeps a seat's private values from the other seat", &[]),
        ("leaks-in-learned", "keeps a seat's private values from the other seat", &[]),
        ("slow", "answers in time", &["--timeout", "1s"]),
        ("hang", "answers in time", &["--timeout", "500ms"]),
        ("never-exits", "exits when its input closes", &[]),
        ("unflushed", "describes itself", &["--timeout", "500ms"]),
    ] {
        let command = common::tinygame(flaw);
        let (status, stdout) = check_game(&command, extra);
        assert_eq!(status, Some(1), "{flaw}:\n{stdout}");
        let failed = failed_items(&stdout);
        assert_eq!(failed, [item], "{flaw}:\n{stdout}");
        if flaw == "salted" {
            // The place where the answers first differ, with both values.
            // Which card differs first depends on the two processes' salts:
            // a seat's legal moves, or where seat 1's cards came out alike,
            // seat 2's hand in its view.
            assert!(
                stdout.contains("`legal_moves` differs at `legal_moves[0][")
                    || stdout.contains("`views` differs at `views[1].hand["),
                "{stdout}"
            );
            assert!(stdout.contains(", then "), "{stdout}");
        }
        if flaw == "leaks-hand" {
            // The field that leaked is named first, then whose value it is.
            assert!(
                stdout.contains("seat 2 is shown seat 1's private value in its view at `opponent_hand`, as the game is set up")
                    && stdout.contains("seat 1's `hand`, which changes with the seed"),
                "{stdout}"
            );
            // The view as the game wrote it, its keys in the game's order.
            assert!(
                stdout.contains(r#"answer: seat 2's view: {"hand":["#)
                    && stdout.contains(r#""opponent_cards":3,"turn":0,"opponent_hand":["#),
                "{stdout}"
            );
        }
        if flaw == "leaks-choice" {
            // The field that shows the hidden choice, named.
            assert!(stdout.contains("seat 2's view differs at `view.opponent_card`: "), "{stdout}");
        }
        if flaw == "leaks-in-learned" {
            assert!(
                stdout.contains("seat 2 learns seat 1's private value of its moves again and again, in `learned` at `dealt` (after turns 1, 3, 5)"),
                "{stdout}"
            );
        }
        if flaw == "shuffles-keys" {
            // Told apart from other values: its keys' order alone differs.
            assert!(stdout.contains("`state` differs in its keys' order alone"), "{stdout}");
        }
        if flaw == "crash" {
            // What it wrote to stderr, a line each, not run together.
            assert!(
                stdout
                    .contains("\n        stderr, its last 3 lines:\n          tinygame: process ")
                    && stdout.contains("\n          tinygame: crashing on purpose\n        hint: "),
                "{stdout}"
            );
            // Every game stops at the same fault: the same answers up to it
            // are no evidence that whole games replay the same.
            for item in [
                "answers the same in a fresh process",
                "answers the same after other games and in another order",
            ] {
                let status = items(&stdout).into_iter().find(|(_, title)| title == item);
                assert_eq!(status, Some(("SKIP".to_owned(), item.to_owned())), "{stdout}");
            }
        }
        if flaw == "refuses-defaults" {
            // No game was played: the items that judge games played pass
            // on nothing, and say why.
            for item in [
                "plays to the end within its declared turns",
                "answers every request with a sound step",
                "views do not show hidden choices",
            ] {
                let status = items(&stdout).into_iter().find(|(_, title)| title == item);
                assert_eq!(status, Some(("SKIP".to_owned(), item.to_owned())), "{stdout}");
            }
            assert!(
                stdout.contains("not judged: no game was set up: it refused its own defaults"),
                "{stdout}"
            );
        }
        if flaw == "unflushed" {
            // Told what is wrong, not to allow more time.
            assert!(stdout.contains("        hint: flush stdout after every line"), "{stdout}");
            assert!(!stdout.contains("--timeout"), "{stdout}");
        }
        if flaw == "hang" {
            assert!(stdout.contains("else allow more with --timeout"), "{stdout}");
        }
        // Each failure shows its evidence and a hint.
        assert!(stdout.contains("        hint: "), "{flaw}:\n{stdout}");
    }
}

#[test]
fn a_secret_turned_up_once_by_a_move_is_no_leak() {
    // Seat 1's first card shows seat 2 the hand it was dealt, once: what a
    // move may turn up, unlike `leaks-in-learned`, which tells it every turn.
    let (status, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw turns-hand-up", &[]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        items(&stdout).contains(&(
            "PASS".to_owned(),
            "keeps a seat's private values from the other seat".to_owned()
        )),
        "{stdout}"
    );
}

#[test]
fn a_generator_the_seed_does_not_seed_is_not_mistaken_for_a_random_game() {
    // Dealt from an unseeded generator: another deal in every game, so
    // every item that replays a seed fails, and the seeds item does not
    // offer `random: true` (which would hide the fault) as the fix.
    let (status, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw unseeded", &[]);
    assert_eq!(status, Some(1), "{stdout}");
    let failed = failed_items(&stdout);
    assert_eq!(
        failed,
        [
            "answers the same in a fresh process",
            "answers the same after other games and in another order",
            "seeds change the game as it declares"
        ],
        "{stdout}"
    );
    assert!(stdout.contains("hint: the same seed set up different games too"), "{stdout}");
    assert!(stdout.contains("Python's `random.Random(seed)`"), "{stdout}");
    // Dealt from the seed while declared not random: declaring it is the fix.
    let (_, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw hides-random", &[]);
    assert!(
        stdout
            .contains("hint: declare `random: true`, or set up the game from the parameters alone"),
        "{stdout}"
    );
    assert!(!stdout.contains("the same seed set up different games"), "{stdout}");
}

#[test]
fn a_failure_quotes_the_request_and_the_answer() {
    let (_, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw no-legal-moves", &[]);
    assert!(stdout.contains(r#"        request: {"type":"apply","id":"#), "{stdout}");
    assert!(
        stdout.contains(
            r#"        answer: {"type": "step", "to_move": [1], "legal_moves": [[], []]"#
        ),
        "{stdout}"
    );
    assert!(stdout.contains("seat 1 is to move but has no legal moves"), "{stdout}");
    let (_, stdout) = check_game("tests/fixtures/games/tinygame.py --flaw salted", &[]);
    assert!(stdout.contains("        then: "), "both answers are shown: {stdout}");
}

#[test]
fn the_minimal_game_of_the_protocol_document_passes_and_plays() {
    let document = std::fs::read_to_string(common::repo_dir().join("game-protocol.md")).unwrap();
    let section = &document[document.find("## 10. A minimal game").expect("section 10")..];
    let start = section.find("```python\n").expect("a Python block") + "```python\n".len();
    let code = &section[start..start + section[start..].find("```").unwrap()];
    let folder = tempfile::tempdir().unwrap();
    let game = folder.path().join("take_away.py");
    std::fs::write(&game, code).unwrap();
    let command = format!("python3 {}", game.display());
    let (status, stdout) = check_game(&command, &[]);
    assert_eq!(status, Some(0), "{stdout}");
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        &command,
        common::PYTHON_RANDOM_BOT,
        "node bots/javascript/random_bot.js",
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let replay =
        scratch.arena(["replay", out.join("transcripts/game-000001.jsonl").to_str().unwrap()]);
    replay.assert_success();
    assert!(replay.stdout.contains("15 stones."), "{}", replay.stdout);
    assert!(replay.stdout.contains(" left."), "{}", replay.stdout);
}

/// The command may be typed as its words, unquoted.
#[test]
fn the_command_may_be_typed_as_words() {
    let scratch = Scratch::new();
    let game = "tests/fixtures/games/tinygame.py";
    let run = scratch.arena(["check-game", "python3", game, "--games", "2"]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("`python3 {game}`")), "{}", run.stdout);
}

/// Parameters given are checked (in a sandbox of their own) and the games
/// played with them: the check's own sandbox must outlive the first one.
#[test]
fn a_check_with_parameters_plays_with_them() {
    let (status, stdout) =
        check_game("tests/fixtures/games/tinygame.py", &["--param", "cards=2", "--games", "3"]);
    assert_eq!(status, Some(0), "{stdout}");
    assert!(stdout.contains("All checks passed"), "{stdout}");
    // Two cards a seat: every game ends in four turns.
    assert!(stdout.contains("3 random games ended, in 4 to 4 turns"), "{stdout}");
}
