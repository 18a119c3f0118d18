//! Games written as programs, refereed by the real binary: a game program
//! plays as a built-in game does, in every command that takes a game, with
//! its parameters checked; the built-in Number Warriors and its program
//! send bots the same messages. Its faults: tests/game_program_faults.rs.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{
    PYTHON_RANDOM_BOT, Scratch, match_of_random_bots as match_of, read_games_csv, read_transcript,
    rust_strong_bot, tinygame as tiny,
};

#[test]
fn a_game_program_plays_like_a_built_in_game() {
    let scratch = Scratch::new();
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py", 4, &[]);
    run.assert_success();
    let rows = read_games_csv(&scratch.out());
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(&row["game"], "hidden-cards");
        assert_eq!(&row["reason"], "normal", "{row:?}");
        assert_eq!(row.number("plies"), 6);
    }
    // Hidden moves: a seat's history shows its own cards and, of the
    // other's, only what it learned (nothing for seat 1's face-down card).
    let transcript = read_transcript(&scratch.out().join("transcripts/game-000001.jsonl"));
    let last_request = |seat: u64| {
        transcript
            .iter()
            .rfind(|line| {
                line["type"] == "send" && line["seat"] == seat && line["msg"]["type"] == "move"
            })
            .unwrap()["msg"]
            .clone()
    };
    let two = last_request(2);
    let history = two["history"].as_array().unwrap();
    assert!(history.iter().any(|entry| entry["seat"] == 1 && entry["move"].is_null()), "{two}");
    assert!(history.iter().any(|entry| entry["seat"] == 2 && entry["move"].is_u64()), "{two}");
    let one = last_request(1);
    assert!(
        one["history"].as_array().unwrap().iter().all(|entry| entry["move"].is_u64()),
        "seat 1 learns seat 2's cards: {one}"
    );
    assert!(
        transcript.iter().any(|line| line["type"] == "step" && line["turn"] == 6),
        "every step is kept"
    );
    let replay = scratch
        .arena(["replay", scratch.out().join("transcripts/game-000002.jsonl").to_str().unwrap()]);
    replay.assert_success();
    assert!(replay.stdout.starts_with("Hidden Cards — seed "), "{}", replay.stdout);
    // The leaderboard's settings say which game program was played.
    let markdown = scratch.out().with_file_name("standings.md");
    scratch
        .arena([
            "report",
            scratch.out().to_str().unwrap(),
            "--markdown",
            markdown.to_str().unwrap(),
        ])
        .assert_success();
    let markdown = std::fs::read_to_string(&markdown).expect("the Markdown");
    let line =
        markdown.lines().find(|line| line.starts_with("- game program: ")).unwrap_or_default();
    assert!(
        line.starts_with("- game program: tests/fixtures/games/tinygame.py (version ")
            && line.ends_with(", declared `1`)"),
        "{markdown}"
    );
    // What the program says of itself is shown as code, never as markup.
    assert!(markdown.starts_with("## `Hidden Cards` standings ("), "{markdown}");
}

#[test]
fn parameters_are_checked_against_the_games_declaration_and_by_the_game() {
    let scratch = Scratch::new();
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py", 2, &["--param", "cards=9"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("parameter `cards` of hidden-cards: must be between 2 and 5, got 9"),
        "{}",
        run.stderr
    );
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py", 2, &["--param", "size=3"]);
    assert!(
        run.stderr.contains("no such parameter (the parameters are cards, top)"),
        "{}",
        run.stderr
    );
    // In range, but the game cannot deal: it refuses, naming the parameter.
    let run = match_of(
        &scratch,
        "tests/fixtures/games/tinygame.py",
        2,
        &["--param", "cards=5", "--param", "top=9"],
    );
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("refuses its parameters: parameter `top`: too few cards to deal"),
        "{}",
        run.stderr
    );
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py --flaw bad-hello", 2, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("`seats` is 3: arena plays two-seat games only"), "{}", run.stderr);
    let run = match_of(&scratch, "tests/fixtures/games/tinygame.py", 2, &["--game-timeout", "1ms"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("if the game needs longer, raise --game-timeout"),
        "{}",
        run.stderr
    );
    let run = match_of(&scratch, "tests/fixtures/games/no_such_game.py", 2, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("is neither a game (number-snatch"), "{}", run.stderr);
}

/// The messages sent to each seat, in order, with their timing left out.
fn sent(transcript: &[serde_json::Value]) -> Vec<(u64, serde_json::Value)> {
    transcript
        .iter()
        .filter(|line| line["type"] == "send")
        .map(|line| (line["seat"].as_u64().unwrap(), line["msg"].clone()))
        .collect()
}

#[test]
fn bots_see_exactly_the_messages_of_the_built_in_number_warriors() {
    let strong = rust_strong_bot().to_str().unwrap().to_owned();
    for params in [&[][..], &["--param", "life=20", "--param", "max=12"][..]] {
        let mut transcripts = Vec::new();
        for game in ["number-warriors", "examples/games/number-warriors/game.py"] {
            // One seat-seed key for both folders: the same seeds.
            let scratch = Scratch::new().with_seed_key("one key");
            let out = scratch.out();
            let mut args =
                vec!["match", game, PYTHON_RANDOM_BOT, &strong, "--games", "60", "--seed", "11"];
            args.extend(["--out", out.to_str().unwrap()]);
            args.extend(params);
            scratch.arena(&args).assert_success();
            let rows = read_games_csv(&out);
            assert_eq!(rows.len(), 60);
            transcripts.push(
                (1..=60)
                    .map(|game| {
                        sent(&read_transcript(
                            &out.join(format!("transcripts/game-{game:06}.jsonl")),
                        ))
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let seeds: std::collections::BTreeSet<_> =
            transcripts[0].iter().map(|messages| messages[0].1["seed"].as_u64()).collect();
        assert!(seeds.len() >= 30, "many seeds: {}", seeds.len());
        for (game, (built_in, program)) in transcripts[0].iter().zip(&transcripts[1]).enumerate() {
            assert_eq!(built_in, program, "game {}: the bots were sent other messages", game + 1);
        }
    }
}

const LIARS_DICE: &str = "examples/games/liars-dice/game.py";
const COUNTER: &str = "python3 examples/games/liars-dice/bots/counter.py";

#[test]
fn sprt_and_gauntlet_play_a_game_program() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let sprt = scratch.arena([
        "sprt",
        COUNTER,
        PYTHON_RANDOM_BOT,
        "--game",
        LIARS_DICE,
        "--elo0",
        "0",
        "--elo1",
        "100",
        "--max-games",
        "200",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        sprt.status.code(),
        Some(0),
        "H1 accepted: the counter is far stronger:\n{}\n{}",
        sprt.stdout,
        sprt.stderr
    );
    assert!(
        sprt.stdout.contains("SPRT of counter against random_bot at Liar's Dice"),
        "{}",
        sprt.stdout
    );
    let rows = read_games_csv(&out);
    assert!(
        rows.len() < 200 && rows.iter().all(|row| &row["game"] == "liars-dice"),
        "{}",
        rows.len()
    );

    let scratch = Scratch::new();
    let out = scratch.out();
    let gauntlet = scratch.arena([
        "gauntlet",
        "--game",
        LIARS_DICE,
        COUNTER,
        PYTHON_RANDOM_BOT,
        "node bots/javascript/random_bot.js",
        "--games",
        "6",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    gauntlet.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 12, "the challenger against each of the field, 6 games each");
    assert!(
        rows.iter().all(|row| row["seat1"].contains("counter") || row["seat2"].contains("counter"))
    );
    let won = rows.iter().filter(|row| &row["winner"] == "counter").count();
    assert!(won >= 10, "the counter wins nearly every game: {won} of 12");
}

#[test]
fn a_match_of_a_game_program_killed_midway_resumes_to_the_same_results() {
    let paced = "python3 tests/fixtures/tournament/paced_bot.py --delay-ms 5";
    let args = |out: &Path| {
        vec![
            "match".to_owned(),
            LIARS_DICE.to_owned(),
            COUNTER.to_owned(),
            paced.to_owned(),
            "--games".to_owned(),
            "24".to_owned(),
            "--seed".to_owned(),
            "9".to_owned(),
            "--out".to_owned(),
            out.to_str().unwrap().to_owned(),
        ]
    };
    // One seat-seed key for both folders: the same games.
    let whole = Scratch::new().with_seed_key("one key");
    whole.arena(args(&whole.out())).assert_success();

    let scratch = Scratch::new().with_seed_key("one key");
    let out = scratch.out();
    let mut arena = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args(&out))
        .env("ARENA_SEED_KEY", "one key")
        .current_dir(common::repo_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let rows = || {
        std::fs::read_to_string(out.join("games.csv"))
            .map_or(0, |text| text.lines().count().saturating_sub(1))
    };
    let started = std::time::Instant::now();
    while rows() < 4 {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no games recorded");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    arena.kill().unwrap();
    arena.wait().unwrap();
    let killed_at = rows();
    assert!(killed_at < 24, "killed midway: {killed_at} games recorded");
    let resumed = scratch.arena(args(&out));
    resumed.assert_success();
    assert!(
        resumed.stdout.contains(&format!("resuming: {killed_at} games already in games.csv")),
        "{}",
        resumed.stdout
    );
    let without_timing = |out: &Path| {
        let mut rows: Vec<Vec<String>> = read_games_csv(out)
            .iter()
            .map(|row| {
                [
                    "game_index",
                    "seat1",
                    "seat2",
                    "seed",
                    "winner",
                    "reason",
                    "score1",
                    "score2",
                    "plies",
                ]
                .iter()
                .map(|column| row[column].to_owned())
                .collect()
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(without_timing(&whole.out()), without_timing(&out));
    assert_eq!(
        std::fs::read_to_string(whole.out().join("standings.csv")).unwrap(),
        std::fs::read_to_string(out.join("standings.csv")).unwrap()
    );
}

#[test]
fn a_person_plays_a_game_program_at_the_terminal() {
    let scratch = Scratch::new();
    // Connect Four's moves are whole numbers: typed as they are. The
    // columns in turn, a full one asked again, until the game ends; "9"
    // and "x" are asked again.
    let input = "9\nx\n".to_owned() + &"0\n1\n2\n3\n4\n5\n6\n".repeat(10);
    let run = scratch.arena_with_input(
        ["play", "examples/games/connect-four/game.py", "--seed", "4", "--vs", PYTHON_RANDOM_BOT],
        &input,
    );
    run.assert_success();
    let out = &run.stdout;
    assert!(out.contains("Welcome to Connect Four! You are Player 1."), "{out}");
    assert!(out.contains("Your view:") && out.contains("  you: \"X\""), "{out}");
    assert!(out.contains("Your legal moves: 0, 1, 2, 3, 4, 5, 6\n"), "{out}");
    assert!(
        out.contains("`9` is not a legal move. Please type one of: 0, 1, 2, 3, 4, 5, 6."),
        "{out}"
    );
    assert!(out.contains("`x` is not a legal move."), "{out}");
    assert!(out.contains("Player 1 played 0.\n"), "the first legal column typed: {out}");
    assert!(out.contains("Player 2 played "), "the opponent's moves are told: {out}");
    assert!(out.contains("Final Scores:") && out.contains("Player 2 (random_bot)"), "{out}");
    // Liar's Dice's bids are objects: numbered, and chosen by number.
    let input = "0\n".to_owned() + &"1\n".repeat(60);
    let run = scratch.arena_with_input(
        ["play", "examples/games/liars-dice/game.py", "--seed", "4", "--vs", PYTHON_RANDOM_BOT],
        &input,
    );
    run.assert_success();
    let out = &run.stdout;
    assert!(out.contains("Welcome to Liar's Dice! You are Player 1."), "{out}");
    assert!(out.contains("Your legal moves:\n  1) {\"bid\":[1,1]}\n  2) {\"bid\":[1,2]}"), "{out}");
    assert!(out.contains("Please type a number from 1 to "), "{out}");
    assert!(out.contains("Final Scores:"), "{out}");
    // Hidden Cards' first card is played face down: seat 2 is told a move
    // was made, not which.
    let input = "4\n5\n11\n".repeat(3);
    let run = scratch.arena_with_input(
        ["play", &tiny("none"), "--seat", "2", "--seed", "1", "--vs", PYTHON_RANDOM_BOT],
        &input,
    );
    run.assert_success();
    assert!(run.stdout.contains("Player 1 played a hidden move.\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("played null"), "{}", run.stdout);
    // Seat 1 learns seat 2's card once turned up: told as learned, not as
    // the move itself; its own moves as played.
    let input: String = (1..=12).map(|card| format!("{card}\n")).collect::<String>().repeat(3);
    let run = scratch.arena_with_input(
        ["play", &tiny("none"), "--seat", "1", "--seed", "1", "--vs", PYTHON_RANDOM_BOT],
        &input,
    );
    run.assert_success();
    assert!(run.stdout.contains("Player 2 played a hidden move; you learned "), "{}", run.stdout);
    assert!(run.stdout.contains("Player 1 played "), "{}", run.stdout);
    assert!(!run.stdout.contains("Player 2 played 1"), "{}", run.stdout);
    let refused = scratch.arena(["play", "examples/games/connect-four/game.py", "--vs", "human"]);
    assert_eq!(refused.status.code(), Some(2), "{}", refused.stderr);
    assert!(refused.stderr.contains("--vs human needs a built-in game"), "{}", refused.stderr);
}

#[test]
fn a_bot_is_checked_on_a_game_program() {
    let scratch = Scratch::new();
    let run = scratch.arena([
        "check",
        "--game",
        "examples/games/goofspiel/game.js",
        "node examples/games/goofspiel/bots/matcher.js",
    ]);
    run.assert_success();
    assert!(run.stdout.contains("\nGoofspiel:"), "{}", run.stdout);
    assert!(run.stdout.contains("PASS  answers only legal moves: all "), "{}", run.stdout);
    assert!(run.stdout.contains("All checks passed."), "{}", run.stdout);
    // A game that fails is no verdict on the bot: the check stops and says so.
    let run = scratch.arena(["check", "--game", &tiny("crash"), PYTHON_RANDOM_BOT]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stdout);
    assert!(run.stderr.contains("is void: the game program"), "{}", run.stderr);
    assert!(run.stderr.contains("arena check-game"), "{}", run.stderr);
}

#[test]
fn a_game_program_in_a_folder_closed_to_others_is_told_once_which_folder() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("game");
    std::fs::create_dir_all(&folder).expect("the game's folder");
    let game = folder.join("tinygame.py");
    std::fs::copy("tests/fixtures/games/tinygame.py", &game).expect("copying the game");
    let chmod = |mode| {
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    chmod(0o700);
    let command = format!("python3 {}", game.display());
    let refused = match_of(&scratch, &command, 2, &[]);
    if root {
        assert_eq!(refused.status.code(), Some(2), "{}", refused.stderr);
        let closed = format!("`{}` (mode 700) is closed to them", folder.display());
        assert_eq!(refused.stderr.matches(&closed).count(), 1, "said once: {}", refused.stderr);
        assert!(refused.stderr.contains("a game program's"), "{}", refused.stderr);
        assert!(refused.stderr.contains("chmod o+rx"), "{}", refused.stderr);
        assert!(!scratch.out().join("games.csv").exists(), "games were played");
    } else {
        refused.assert_success();
    }
    chmod(0o755);
    match_of(&scratch, &command, 2, &["--fresh"]).assert_success();
    assert_eq!(read_games_csv(&scratch.out()).len(), 2);
}

/// A bot that says a token of its process at every `start`, on stderr (so
/// in the game's log), and plays a legal move drawn from its seat seed. (Not
/// its pid: each box numbers its processes from 1.)
const TELLS_PID: &str = r#"import json, os, random, sys
rng = random.Random(0)
token = os.urandom(8).hex()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(message["seed"])
        print(f"process {token}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready", "id": message["id"]}), flush=True)
    elif message["type"] == "move":
        print(json.dumps({"type": "move", "id": message["id"], "move": rng.choice(message["legal_moves"])}), flush=True)
"#;

#[test]
fn liars_dice_and_kuhn_poker_deal_every_game_anew_and_keep_their_bots() {
    for game in [LIARS_DICE, "examples/games/kuhn-poker/game.py"] {
        deals_every_game_anew_and_keeps_its_bots(game);
    }
}

fn deals_every_game_anew_and_keeps_its_bots(game: &str) {
    let scratch = Scratch::new();
    let bot = scratch.out().with_extension("py");
    std::fs::write(&bot, TELLS_PID).unwrap();
    let bot = format!("python3 {}", bot.display());
    let out = scratch.out();
    let run =
        scratch.arena(["match", game, &bot, &bot, "--games", "6", "--out", out.to_str().unwrap()]);
    run.assert_success();
    assert!(run.stdout.contains("every game has a setup of its own"), "{}", run.stdout);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 6);
    // No two games share a setup: not the two of a round, nor any others.
    let seeds: std::collections::BTreeSet<&str> = rows.iter().map(|row| &row["seed"]).collect();
    assert_eq!(seeds.len(), 6, "{game}: {seeds:?}");
    let deals: std::collections::BTreeSet<String> = (1..=6)
        .map(|game| {
            let path = out.join(format!("transcripts/game-{game:06}.jsonl"));
            let text = std::fs::read_to_string(&path).unwrap();
            let header: serde_json::Value =
                serde_json::from_str(text.lines().next().unwrap()).unwrap();
            header["state"].to_string()
        })
        .collect();
    // (Kuhn poker has six deals in all, so two games may be dealt alike by
    // chance: its seeds are the check.)
    if game == LIARS_DICE {
        assert_eq!(deals.len(), 6, "{game}: games dealt alike: {deals:?}");
    }
    // One process per seat's bot for the whole pairing.
    let mut pids = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(out.join("logs")).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        pids.extend(
            text.lines().filter_map(|line| line.strip_prefix("process ")).map(str::to_owned),
        );
    }
    assert_eq!(pids.len(), 2, "{game}: bots started more than once: {pids:?}");
}

/// A parameter set may declare otherwise than `hello` (game-protocol.md,
/// section 4): with two cards, tinygame's `init` answer declares its moves
/// public, and the bots are shown each other's cards as played; with the
/// default three, its moves stay hidden. An answer that declares otherwise
/// than the first one with the same parameters is the game's fault.
#[test]
fn an_init_answer_declares_for_its_parameters() {
    let moves_shown = |cards: &str| {
        let scratch = Scratch::new();
        let param = format!("cards={cards}");
        let run = common::match_of_random_bots(
            &scratch,
            &common::tinygame("declares"),
            2,
            &["--param", &param],
        );
        run.assert_success();
        let rows = read_games_csv(&scratch.out());
        let transcript = common::transcript_of(&scratch.out(), &rows[0]);
        let moves = transcript[0]["game_program"]["moves"].as_str().unwrap().to_owned();
        // What seat 2 is shown of seat 1's first card in its next request.
        let shown = transcript
            .iter()
            .filter(|line| {
                line["type"] == "send" && line["seat"] == 2 && line["msg"]["type"] == "move"
            })
            .find_map(|line| {
                line["msg"]["history"].as_array().and_then(|history| history.first().cloned())
            })
            .expect("seat 2 is asked after seat 1 moved");
        let played =
            transcript.iter().find(|line| line["type"] == "move" && line["seat"] == 1).unwrap();
        (moves, shown["move"].clone(), played["move"].clone())
    };
    let (moves, shown, played) = moves_shown("2");
    assert_eq!((moves.as_str(), &shown), ("public", &played));
    let (moves, shown, _) = moves_shown("3");
    assert_eq!((moves.as_str(), &shown), ("hidden", &serde_json::Value::Null));

    let scratch = Scratch::new();
    let run = common::match_of_random_bots(&scratch, &common::tinygame("declares-once"), 2, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            r#"it declares nothing for these parameters, where its first answer to `init` with them declared {"max_turns":10}"#
        ),
        "{}",
        run.stderr
    );
}
