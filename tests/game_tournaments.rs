//! Tournament files that name a game program (`game_command`), run by the
//! real binary: the examples' tournaments play; a new version of the game
//! program has every game set aside and played again; the file's mistakes
//! about the game are reported at their place.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{Scratch, read_games_csv, repo_dir};

/// Each example's tournament, at two games a pairing (its own file, its
/// own paths, its own bots), with a leaderboard page.
#[test]
fn the_examples_tournaments_play() {
    let examples = [
        ("connect-four", "Connect Four", ["searcher", "random-py", "random-js"]),
        ("goofspiel", "Goofspiel", ["matcher", "random-js", "random-py"]),
        ("kuhn-poker", "Kuhn Poker", ["by-card", "random-py", "random-js"]),
        ("liars-dice", "Liar's Dice", ["counter", "random-py", "random-js"]),
        ("number-warriors", "Number Warriors", ["strong-rs", "random-py", "random-rs"]),
    ];
    for (example, title, bots) in examples {
        let scratch = Scratch::new();
        let out = scratch.out();
        let page = out.with_extension("html");
        let mut file = repo_dir().join(format!("examples/games/{example}/tournament.toml"));
        let text = std::fs::read_to_string(&file).unwrap();
        if text.contains("target/release/") {
            // The Rust bots as the tests built them, in a copy of the file
            // beside a copy of the game.
            let folder = scratch.out().with_file_name(example);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::copy(file.with_file_name("game.py"), folder.join("game.py")).unwrap();
            common::rust_random_bot();
            let built = common::rust_strong_bot().parent().unwrap();
            let repo = format!("{}/", repo_dir().display());
            let text = text
                .replace("../../../target/release/", &format!("{}/", built.display()))
                .replace("../../../", &repo);
            file = folder.join("tournament.toml");
            std::fs::write(&file, text).unwrap();
        }
        let run = scratch.arena([
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--games-per-pair",
            "2",
            "--html",
            page.to_str().unwrap(),
        ]);
        run.assert_success();
        let rows = read_games_csv(&out);
        // Three bots: three pairings of two games.
        assert_eq!(rows.len(), 6, "{example}: {}", run.stdout);
        for bot in bots {
            assert!(
                rows.iter().any(|row| row["seat1"] == *bot || row["seat2"] == *bot),
                "{example}: {bot} played no game"
            );
        }
        assert!(!out.join("void").exists(), "{example}: a game was void: {}", run.stdout);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(title), "{example}: the page names the game");
        let wrote = format!("wrote {}", page.display());
        assert!(run.stdout.contains(&wrote), "{example}: the page is named: {}", run.stdout);
    }
}

/// A folder with a copy of the tiny game program and a tournament file
/// that runs it (a relative `game_command`, run in the file's folder).
fn tournament_of_copy(scratch: &Scratch) -> std::path::PathBuf {
    let folder = scratch.out().with_file_name("league");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(repo_dir().join("tests/fixtures/games/tinygame.py"), folder.join("game.py"))
        .unwrap();
    let random = repo_dir().join("bots/python/random_bot.py");
    let file = folder.join("tournament.toml");
    std::fs::write(
        &file,
        format!(
            "game_command = [\"python3\", \"game.py\"]\nseed = 4\ngames_per_pair = 4\n\
             [params]\ncards = 4\n\
             [[bot]]\nname = \"one\"\ncommand = [\"python3\", {random:?}]\n\
             [[bot]]\nname = \"two\"\ncommand = [\"python3\", {random:?}, \"--seed\", \"5\"]\n"
        ),
    )
    .unwrap();
    file
}

#[test]
fn a_new_version_of_the_game_program_has_every_game_played_again() {
    let scratch = Scratch::new();
    let file = tournament_of_copy(&scratch);
    let out = scratch.out();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend(extra);
        scratch.arena(args)
    };
    run(&[]).assert_success();
    assert_eq!(read_games_csv(&out).len(), 4);
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(recorded["game"], "hidden-cards");
    assert_eq!(recorded["game_program"]["command"], serde_json::json!(["python3", "game.py"]));
    assert_eq!(recorded["game_program"]["title"], "Hidden Cards");

    // The same program: nothing to play.
    let again = run(&[]);
    again.assert_success();
    assert!(!again.stdout.contains("new version"), "{}", again.stdout);

    // Another version: every game is set aside and played again.
    let game = file.with_file_name("game.py");
    let mut text = std::fs::read_to_string(&game).unwrap();
    text.push_str("# a second version\n");
    std::fs::write(&game, text).unwrap();
    let changed = run(&["--json"]);
    changed.assert_success();
    let event = changed
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|event| event["type"] == "game_changed")
        .unwrap_or_else(|| panic!("no game_changed event: {}", changed.stdout));
    assert_eq!(event["set_aside"], 4);
    assert_ne!(event["from"], event["to"]);
    assert_eq!(common::read_csv(&out.join("set-aside.csv")).len(), 4);
    assert_eq!(read_games_csv(&out).len(), 4, "played again");
}

#[test]
fn the_files_mistakes_about_the_game_are_reported_at_their_place() {
    let scratch = Scratch::new();
    let file = tournament_of_copy(&scratch);
    let text = std::fs::read_to_string(&file).unwrap();
    let fails_with = |text: &str, expected: &str| {
        std::fs::write(&file, text).unwrap();
        let run = scratch.arena(["run", file.to_str().unwrap(), "--out", "/nonexistent/out"]);
        assert!(!run.status.success(), "{text}");
        assert!(
            run.stderr.contains(expected),
            "expected `{expected}` for\n{text}\ngot {}",
            run.stderr
        );
        assert!(run.stderr.contains("tournament.toml"), "{}", run.stderr);
    };
    let name = file.to_str().unwrap();
    fails_with(
        &format!("game = \"number-snatch\"\n{text}"),
        &format!("{name}:1:8: give either `game` (a built-in game) or `game_command`"),
    );
    fails_with(
        &text.replace("game_command = [\"python3\", \"game.py\"]", ""),
        "game: missing: name the game",
    );
    // Said so whether or not the id is a game's.
    fails_with(
        &format!("game = \"hidden-cards\"\n{text}"),
        &format!("{name}:1:8: give either `game` (a built-in game) or `game_command`"),
    );
    // A program alone is named by its path, as game_command needs.
    fails_with(
        &text.replace("game_command = [\"python3\", \"game.py\"]", "game = \"game.py\""),
        "a game program is given by its command: game_command = [\"./game.py\"]",
    );
    // A misspelt id is told the id.
    fails_with(
        &text.replace("game_command = [\"python3\", \"game.py\"]", "game = \"number_snatch\""),
        "did you mean `number-snatch`?",
    );
    // A command given as `game` is shown as the `game_command` it means.
    fails_with(
        &text.replace("game_command = [\"python3\", \"game.py\"]", "game = \"python3 game.py\""),
        &format!(
            "{name}:1:8: game: unknown game `python3 game.py`; the games are: number-snatch, numbers-war, number-warriors, number-claim, number-duel; a game program is given by its command: game_command = [\"python3\", \"game.py\"] (game-protocol.md)"
        ),
    );
    // Out of the declared range: at the value.
    fails_with(
        &text.replace("cards = 4", "cards = 9"),
        &format!(
            "{name}:5:9: params: parameter `cards` of hidden-cards: must be between 2 and 5, got 9"
        ),
    );
    fails_with(
        &text.replace("cards = 4", "colour = 1"),
        &format!(
            "{name}:5:10: params: parameter `colour` of hidden-cards: no such parameter (the parameters are cards, top)"
        ),
    );
    fails_with(
        &text.replace("\"game.py\"", "\"game.py\", \"--flaw\", \"bad-hello\""),
        &format!("{name}:1:16: game_command:"),
    );
    fails_with(&text.replace("\"python3\", \"game.py\"", "\"./no-such-game\""), "game_command:");
    fails_with(&text.replace("[\"python3\", \"game.py\"]", "[]"), "game_command is empty");
    // No Python starts in a millisecond: the time is named where it is set.
    let slow = text.replace("seed = 4", "seed = 4\ngame_timeout = \"1ms\"");
    fails_with(
        &slow,
        &format!(
            "{name}:3:16: game_timeout: the game program `python3 game.py` did not answer within 1 ms (hello request 1)"
        ),
    );
    fails_with(&slow, ": raise it if the game needs longer");
}

/// `arena gauntlet --league FILE` plays the league file's game program.
#[test]
fn a_gauntlet_against_a_league_plays_its_game_program() {
    let scratch = Scratch::new();
    let file = tournament_of_copy(&scratch);
    let out = scratch.out();
    let challenger = format!("python3 {}", repo_dir().join("bots/python/random_bot.py").display());
    let run = scratch.arena([
        "gauntlet",
        &challenger,
        "--league",
        file.to_str().unwrap(),
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 4, "{}", run.stdout);
    let transcript = common::transcript_of(&out, &rows[0]);
    assert_eq!(transcript[0]["game"], "hidden-cards", "{:?}", transcript[0]);
    assert!(Path::new(&out).join("tournament.json").exists());
}

/// A game program whose command names its whole folder (as `java -cp .
/// Game` does), with the tournament file and the bots in that folder: an
/// added `[[bot]]` (its file already there) is no new version of the game;
/// any file of the folder, a bot's included, is the game's.
#[test]
fn a_game_programs_folder_leaves_out_the_tournament_file() {
    let scratch = Scratch::new();
    let file = tournament_of_copy(&scratch);
    let folder = file.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(folder.join("bots")).unwrap();
    for name in ["one", "three"] {
        let bot = folder.join(format!("bots/{name}.py"));
        std::fs::copy(repo_dir().join("bots/python/random_bot.py"), bot).unwrap();
    }
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("[\"python3\", \"game.py\"]", "[\"python3\", \"game.py\", \".\"]")
        .replacen(
            &format!("{:?}", repo_dir().join("bots/python/random_bot.py")),
            "\"bots/one.py\"",
            1,
        );
    assert!(text.contains("\"bots/one.py\"") && text.contains("\"game.py\", \".\""), "{text}");
    std::fs::write(&file, &text).unwrap();
    let out = scratch.out();
    let run = || {
        let run = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        run.assert_success();
        run.stdout
    };
    run();

    std::fs::write(
        &file,
        format!("{text}[[bot]]\nname = \"three\"\ncommand = [\"python3\", \"bots/three.py\"]\n"),
    )
    .unwrap();
    let after_bot_added = run();
    assert!(!after_bot_added.contains("new version"), "{after_bot_added}");

    let bot = folder.join("bots/one.py");
    let mut edited = std::fs::read_to_string(&bot).unwrap();
    edited.push_str("# edited\n");
    std::fs::write(&bot, edited).unwrap();
    let after_bot_edit = run();
    assert!(after_bot_edit.contains("bot `one` is a new version"), "{after_bot_edit}");
    assert!(after_bot_edit.contains("the game program is a new version"), "{after_bot_edit}");
}

/// With `game_dir`, every file of the game's folder is the game's, as a
/// bot's `dir` makes it: an edited module the game imports (a file its
/// command does not name) is a new version. The key is checked at its place.
#[test]
fn a_game_dir_makes_every_file_in_it_the_games() {
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("league");
    std::fs::create_dir_all(folder.join("game")).unwrap();
    std::fs::copy(repo_dir().join("tests/fixtures/games/tinygame.py"), folder.join("game/game.py"))
        .unwrap();
    let rules = folder.join("game/rules.py");
    std::fs::write(&rules, "HIGH_CARD_WINS = True\n").unwrap();
    let random = repo_dir().join("bots/python/random_bot.py");
    let file = folder.join("tournament.toml");
    let text = |dir_line: &str| {
        format!(
            "game_command = [\"python3\", \"game.py\"]\n{dir_line}seed = 4\ngames_per_pair = 2\n\
             [[bot]]\nname = \"one\"\ncommand = [\"python3\", {random:?}]\n\
             [[bot]]\nname = \"two\"\ncommand = [\"python3\", {random:?}, \"--seed\", \"5\"]\n"
        )
    };
    std::fs::write(&file, text("game_dir = \"game\"\n")).unwrap();
    let out = scratch.out();
    let run = || {
        let run = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        run.assert_success();
        run.stdout
    };
    run();
    std::fs::write(&rules, "HIGH_CARD_WINS = False\n").unwrap();
    let after = run();
    assert!(after.contains("the game program is a new version"), "{after}");

    // Checked at its place: a folder that is not there, and a game_dir
    // without a game program.
    std::fs::write(&file, text("game_dir = \"gone\"\n")).unwrap();
    let missing = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2), "{}", missing.stderr);
    assert!(missing.stderr.contains("tournament.toml:2:12: game_dir:"), "{}", missing.stderr);
    assert!(missing.stderr.contains("is not a folder"), "{}", missing.stderr);
    let built_in = "game = \"number-snatch\"\ngame_dir = \"game\"\n[[bot]]\nname = \"one\"\ncommand = [\"x\"]\n";
    std::fs::write(&file, built_in).unwrap();
    let stray = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(stray.stderr.contains("game_dir is a game program's folder"), "{}", stray.stderr);
}

/// A `game_dir` written through `..` (a league's file in a folder beside
/// the game's) names the same folder, in the box as outside it.
#[test]
fn a_game_dir_through_a_parent_folder_plays() {
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("repo");
    std::fs::create_dir_all(folder.join("game")).unwrap();
    std::fs::create_dir_all(folder.join("leagues")).unwrap();
    std::fs::copy(repo_dir().join("tests/fixtures/games/tinygame.py"), folder.join("game/game.py"))
        .unwrap();
    let random = repo_dir().join("bots/python/random_bot.py");
    let file = folder.join("leagues/tournament.toml");
    std::fs::write(
        &file,
        format!(
            "game_command = [\"python3\", \"game.py\"]\ngame_dir = \"../game\"\nseed = 4\n\
             games_per_pair = 2\n[[bot]]\nname = \"one\"\ncommand = [\"python3\", {random:?}]\n\
             [[bot]]\nname = \"two\"\ncommand = [\"python3\", {random:?}, \"--seed\", \"5\"]\n"
        ),
    )
    .unwrap();
    let out = scratch.out();
    let run = scratch.arena(["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
}
