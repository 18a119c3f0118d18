//! docs/protocol.schema.json against real messages: every line arena sent
//! and every line the random bots answered in games of each built-in game
//! (their transcripts' `send` and `recv` lines), with a clock and without,
//! passes the schema's root, its direction's definition and the game's
//! own; so does every protocol message protocol.md shows as an example;
//! and lines a bot gets wrong fail them.

#[allow(dead_code)]
mod common;

use std::path::Path;

use jsonschema::Validator;
use serde_json::{Value, json};

use common::{Scratch, repo_dir};

fn schema() -> Value {
    let text = std::fs::read_to_string(repo_dir().join("docs/protocol.schema.json"))
        .expect("docs/protocol.schema.json");
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// A validator for the schema's root.
fn root() -> Validator {
    jsonschema::validator_for(&schema()).expect("the schema compiles")
}

/// A validator for the schema's `$defs/name`.
fn definition(name: &str) -> Validator {
    let schema = schema();
    assert!(schema["$defs"].get(name).is_some(), "the schema has no $defs/{name}");
    let one = json!({"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": format!("#/$defs/{name}")});
    jsonschema::validator_for(&one).unwrap_or_else(|error| panic!("$defs/{name}: {error}"))
}

/// The schema's name for a game: `number-snatch` is `numberSnatch`.
fn camel(game: &str) -> String {
    let mut words = game.split('-');
    let first = words.next().expect("a name").to_owned();
    words.fold(first, |name, word| {
        let mut letters = word.chars();
        let head = letters.next().map(|letter| letter.to_ascii_uppercase());
        name + &head.into_iter().chain(letters).collect::<String>()
    })
}

/// The reasons `validator` refuses `message`, if any.
fn refusals(validator: &Validator, message: &Value) -> Vec<String> {
    validator
        .iter_errors(message)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

/// Every `send` and `recv` message of the transcripts in `out`: (sent by
/// arena, the message).
fn exchanged(out: &Path) -> Vec<(bool, Value)> {
    let mut messages = Vec::new();
    for entry in std::fs::read_dir(out.join("transcripts")).expect("transcripts") {
        let text = std::fs::read_to_string(entry.expect("a transcript").path()).expect("its text");
        for line in text.lines() {
            let record: Value = serde_json::from_str(line).expect("a JSON line");
            let sent = match record["type"].as_str() {
                Some("send") => true,
                Some("recv") => false,
                _ => continue,
            };
            if let Some(message) = record.get("msg") {
                messages.push((sent, message.clone()));
            }
        }
    }
    messages
}

#[test]
fn every_line_of_real_games_passes_the_schema() {
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let (any, to_bot, from_bot) = (root(), definition("toBot"), definition("fromBot"));
    let (mut wrong, mut reveals) = (Vec::new(), 0);
    for game in common::GAMES {
        let (to_game, from_game) = (
            definition(&format!("{}ToBot", camel(game))),
            definition(&format!("{}FromBot", camel(game))),
        );
        // Under a clock, the first bot asks for the new moves only
        // (`history_from` in its requests).
        let new_history = common::fixture("new_history.py");
        for (clock, first) in [
            (&[][..], common::PYTHON_RANDOM_BOT),
            (&["--bank", "10s", "--increment", "100ms"][..], new_history.as_str()),
        ] {
            let scratch = Scratch::new();
            let out = scratch.out();
            let mut args = vec!["match", game, first, &bot, "--games", "4", "--seed", "11"];
            args.extend(["--out", out.to_str().expect("UTF-8")]);
            args.extend(clock);
            scratch.arena(&args).assert_success();
            let messages = exchanged(&out);
            for kind in ["start", "move", "over"] {
                assert!(
                    messages.iter().any(|(sent, message)| *sent && message["type"] == kind),
                    "{game}: no {kind} was sent"
                );
            }
            reveals += messages.iter().filter(|(_, message)| message["type"] == "reveal").count();
            if first == new_history {
                assert!(
                    messages
                        .iter()
                        .any(|(sent, message)| *sent && message.get("history_from").is_some()),
                    "{game}: no history_from was sent"
                );
            }
            for (sent, message) in &messages {
                let checks =
                    if *sent { [&any, &to_bot, &to_game] } else { [&any, &from_bot, &from_game] };
                for validator in checks {
                    let refused = refusals(validator, message);
                    if !refused.is_empty() {
                        wrong.push(format!("{game} {clock:?}: {message}: {refused:?}"));
                    }
                }
            }
        }
    }
    assert!(reveals > 0, "no game of simultaneous turns sent a reveal");
    assert!(
        wrong.is_empty(),
        "{} lines refused, the first: {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn every_message_protocol_md_shows_passes_the_schema() {
    let text = std::fs::read_to_string(repo_dir().join("protocol.md")).expect("protocol.md");
    let any = root();
    let kinds = ["start", "move", "reveal", "over", "ready"];
    let (mut checked, mut wrong) = (0, Vec::new());
    let mut in_json = false;
    for (number, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_json = line == "```json";
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(line.trim()) else { continue };
        // A transcript's `move` line (a move accepted, with its thinking
        // time) shares the name of the messages but is none.
        let transcript_line = message.get("think_us").is_some();
        if !in_json
            || transcript_line
            || !message["type"].as_str().is_some_and(|kind| kinds.contains(&kind))
        {
            continue;
        }
        checked += 1;
        let refused = refusals(&any, &message);
        if !refused.is_empty() {
            wrong.push(format!("protocol.md:{}: {refused:?}", number + 1));
        }
    }
    assert!(checked >= 20, "only {checked} messages found in protocol.md's examples");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The other way: what a careless bot writes, and a request cut short.
#[test]
fn lines_a_bot_gets_wrong_fail_the_schema() {
    let (from_bot, snatch) = (definition("fromBot"), definition("numberSnatchFromBot"));
    for (line, validator) in [
        (json!({"type": "move", "id": 2, "move": "seven"}), &snatch),
        (json!({"type": "move", "move": 7}), &from_bot),
        (json!({"type": "ready"}), &from_bot),
        (json!({"type": "hello", "id": 1}), &from_bot),
        (json!({"type": "move", "id": 2, "move": {"number": 10, "op": "multiply"}}), &snatch),
    ] {
        assert!(!validator.is_valid(&line), "{line} passed");
    }
    let request = json!({"type": "move", "id": 2, "state": {}, "history": []});
    assert!(!definition("toBot").is_valid(&request), "a request without legal moves passed");
}
