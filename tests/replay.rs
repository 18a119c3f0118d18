//! `arena replay`, end to end: matches played by the real binary with real
//! bot processes, then told back from their transcripts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The arena binary, run from the repository root.
fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the arena binary runs")
}

fn random_bot() -> String {
    format!("python3 {}/bots/python/random_bot.py", env!("CARGO_MANIFEST_DIR"))
}

/// Plays one game of `game` between `first` (seat 1, named ann) and
/// `second` (bob) into `dir`, returning the results folder.
fn play(dir: &Path, game: &str, first: &str, second: &str) -> PathBuf {
    let out = dir.join(format!("out-{game}"));
    let output = arena(&[
        "match",
        game,
        first,
        second,
        "--name1",
        "ann",
        "--name2",
        "bob",
        "--games",
        "1",
        "--seed",
        "11",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "match failed: {}", String::from_utf8_lossy(&output.stderr));
    out
}

/// The only row of a results folder's games.csv, by column name.
fn only_game(out: &Path) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_path(out.join("games.csv")).unwrap();
    let columns = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    columns
        .iter()
        .zip(&rows[0])
        .map(|(column, value)| (column.to_owned(), value.to_owned()))
        .collect()
}

/// Replays `transcript`, which must succeed; its standard output.
fn replay(transcript: &Path) -> String {
    let output = arena(&["replay", transcript.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "replay of {} failed: {stderr}", transcript.display());
    String::from_utf8(output.stdout).unwrap()
}

/// The `move` lines of a transcript.
fn moves(transcript: &Path) -> Vec<Value> {
    std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["type"] == "move")
        .collect()
}

/// Whether `line` is how `game` tells `mv` (a `move` line), the `index`th of
/// `count` moves.
fn tells(game: &str, line: &str, mv: &Value, index: usize, count: usize) -> bool {
    let who = format!("Player {}", mv["seat"]);
    let played = &mv["move"];
    match game {
        "number-snatch" => line == format!("{who} selects {played}."),
        "numbers-war" => {
            let end = match played.as_str() {
                _ if index + 1 == count => "the only number left",
                Some("L") => "Left",
                _ => "Right",
            };
            line.starts_with(&format!("{who} picked ")) && line.ends_with(&format!(" ({end})."))
        }
        "number-warriors" => line == format!("{who} chose: {played}"),
        "number-claim" => line == format!("{who} claims {played}."),
        "number-duel" => {
            let number = &played["number"];
            match played["op"].as_str() {
                Some("add") => line == format!("{who} adds {number} to their score."),
                _ => line == format!("{who} multiplies their score by {number}."),
            }
        }
        _ => unreachable!("unknown game {game}"),
    }
}

fn title(game: &str) -> &'static str {
    match game {
        "number-snatch" => "Number Snatch",
        "numbers-war" => "Numbers War",
        "number-warriors" => "Number Warriors",
        "number-claim" => "Number Claim",
        "number-duel" => "Number Duel",
        _ => unreachable!("unknown game {game}"),
    }
}

/// Plays `game` between two random bots and checks that its replay has the
/// title, every move in order, and the result games.csv records.
fn replays_a_game_of(game: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = play(dir.path(), game, &random_bot(), &random_bot());
    let row = only_game(&out);
    let transcript = out.join(&row["transcript"]);
    let story = replay(&transcript);
    let lines: Vec<&str> = story.lines().collect();

    let expected_title =
        format!("{} — seed {} — Player 1: ann, Player 2: bob", title(game), row["seed"]);
    assert_eq!(lines[0], expected_title);

    let moves = moves(&transcript);
    assert_eq!(moves.len().to_string(), row["plies"], "every move of {game} was played");
    let mut rest = lines.iter();
    for (index, mv) in moves.iter().enumerate() {
        let found = rest.any(|line| tells(game, line, mv, index, moves.len()));
        assert!(found, "{game}: move {index} ({mv}) is not told in order:\n{story}");
    }

    let scores =
        format!("Final scores: Player 1 (ann) {}, Player 2 (bob) {}", row["score1"], row["score2"]);
    assert!(lines.contains(&scores.as_str()), "{scores} in:\n{story}");
    let verdict = match row["outcome"].as_str() {
        "seat1" => "Winner: Player 1 (ann)",
        "seat2" => "Winner: Player 2 (bob)",
        "draw" => "Draw",
        other => panic!("a game between random bots ended {other}"),
    };
    assert!(lines.contains(&verdict), "{verdict} in:\n{story}");
    assert_eq!(lines.last(), Some(&format!("Reason: {}", row["reason"]).as_str()));
}

#[test]
fn a_game_of_number_snatch_is_replayed() {
    replays_a_game_of("number-snatch");
}

#[test]
fn a_game_of_numbers_war_is_replayed() {
    replays_a_game_of("numbers-war");
}

#[test]
fn a_game_of_number_warriors_is_replayed() {
    replays_a_game_of("number-warriors");
}

#[test]
fn a_game_of_number_claim_is_replayed() {
    replays_a_game_of("number-claim");
}

#[test]
fn a_game_of_number_duel_is_replayed() {
    replays_a_game_of("number-duel");
}

/// A bot that answers every move request with 999999, never legal.
const CHEAT: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "start":
        print(json.dumps({"type": "ready", "id": message["id"], "name": "cheat"}), flush=True)
    elif message.get("type") == "move":
        print(json.dumps({"type": "move", "id": message["id"], "move": 999999}), flush=True)
"#;

#[test]
fn a_forfeit_is_told_with_its_offending_line() {
    let dir = tempfile::tempdir().unwrap();
    let cheat = dir.path().join("cheat.py");
    std::fs::write(&cheat, CHEAT).unwrap();
    let out =
        play(dir.path(), "number-claim", &format!("python3 {}", cheat.display()), &random_bot());
    let row = only_game(&out);
    let story = replay(&out.join(&row["transcript"]));
    let lines: Vec<&str> = story.lines().collect();

    let forfeit = "Player 1 (ann) forfeits: illegal_move — 999999 is not one of the legal moves";
    let at = lines
        .iter()
        .position(|line| *line == forfeit)
        .unwrap_or_else(|| panic!("{forfeit} in:\n{story}"));
    assert!(
        lines[at + 1].starts_with("Offending line: {") && lines[at + 1].contains("999999"),
        "{story}"
    );
    assert!(lines.contains(&"Winner: Player 2 (bob)"), "{story}");
    assert!(lines.contains(&"Reason: illegal_move"), "{story}");
}

/// Replays `transcript`, which must be refused as invalid input; its error.
fn refused(transcript: &Path) -> String {
    let output = arena(&["replay", transcript.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(output.stdout.is_empty(), "nothing is told of a bad transcript");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn corrupt_transcripts_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = play(dir.path(), "number-snatch", &random_bot(), &random_bot());
    let good = std::fs::read_to_string(out.join(&only_game(&out)["transcript"])).unwrap();
    let (header, rest) = good.split_once('\n').unwrap();

    let not_json = dir.path().join("not-json.jsonl");
    std::fs::write(&not_json, format!("{header}\nthis is not json\n{rest}")).unwrap();
    let error = refused(&not_json);
    assert!(error.contains(&format!("{}:2: not JSON", not_json.display())), "{error}");

    let unknown = dir.path().join("unknown-game.jsonl");
    std::fs::write(&unknown, good.replacen("\"number-snatch\"", "\"number-chess\"", 1)).unwrap();
    let error = refused(&unknown);
    assert!(
        error.contains(&format!("{}:1: unknown game `number-chess`", unknown.display())),
        "{error}"
    );

    let missing = dir.path().join("missing.jsonl");
    assert!(refused(&missing).contains(&missing.display().to_string()));
}

/// The lines a seat's bot answered in `transcript` (its `recv` lines), as
/// JSON values.
fn answers_of(transcript: &Path, seat: u64) -> Vec<Value> {
    std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["type"] == "recv" && line["seat"] == seat)
        .map(|line| line["msg"].clone())
        .collect()
}

#[test]
fn a_seats_lines_piped_into_its_bot_play_its_side_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = play(dir.path(), "number-warriors", &random_bot(), &random_bot());
    let transcript = out.join(&only_game(&out)["transcript"]);
    for seat in [1, 2] {
        // From the transcript file, and from the results folder by number.
        let seat_arg = seat.to_string();
        let output = arena(&["replay", transcript.to_str().unwrap(), "--seat", &seat_arg]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let by_number =
            arena(&["replay", out.to_str().unwrap(), "--game", "1", "--seat", &seat_arg]);
        assert_eq!(by_number.stdout, output.stdout);
        let sent = String::from_utf8(output.stdout).unwrap();
        let first: Value = serde_json::from_str(sent.lines().next().unwrap()).unwrap();
        assert_eq!((first["type"].as_str(), first["seat"].as_u64()), (Some("start"), Some(seat)));
        // The same bot, fed what its seat was sent, answers as it did (it
        // seeds itself with the `start` message's seed).
        let command = random_bot();
        let words: Vec<&str> = command.split_whitespace().collect();
        let mut bot = Command::new(words[0])
            .args(&words[1..])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        bot.stdin.take().unwrap().write_all(sent.as_bytes()).unwrap();
        let answered = bot.wait_with_output().unwrap();
        let again: Vec<Value> = String::from_utf8(answered.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let answers = answers_of(&transcript, seat);
        assert!(answers.len() >= 2, "a start and a move at least: {answers:?}");
        assert_eq!(again, answers, "seat {seat}");
    }
    // A game whose seat was sent nothing prints nothing, and says so.
    let header_only = dir.path().join("header-only.jsonl");
    let text = std::fs::read_to_string(&transcript).unwrap();
    std::fs::write(&header_only, format!("{}\n", text.lines().next().unwrap())).unwrap();
    let output = arena(&["replay", header_only.to_str().unwrap(), "--seat", "1"]);
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("seat 1's bot was sent nothing in this game"), "{stderr}");
    // Only a seat of the game, and not with --jsonl.
    for wrong in [&["--seat", "3"][..], &["--seat", "1", "--jsonl"]] {
        let mut args = vec!["replay", transcript.to_str().unwrap()];
        args.extend_from_slice(wrong);
        let output = arena(&args);
        assert_eq!(output.status.code(), Some(2), "{wrong:?}");
        assert!(output.stdout.is_empty());
    }
}
