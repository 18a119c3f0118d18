//! What `arena play` shows a person is the game the referee plays: a game
//! of each built-in game (from either seat) and of two game programs,
//! played through `play` with scripted answers, its screen checked against
//! the transcript it wrote.

#[allow(dead_code)]
mod common;

use common::{Scratch, repo_dir};
use serde_json::Value;

/// A game played through `arena play`: what the person saw, and the
/// transcript's lines.
struct Played {
    screen: Vec<String>,
    transcript: Vec<Value>,
    scratch: Scratch,
}

impl Played {
    fn transcript_path(scratch: &Scratch) -> std::path::PathBuf {
        scratch.out().with_extension("jsonl")
    }

    /// The transcript's header, result, and the messages sent to `seat`.
    fn header(&self) -> &Value {
        self.transcript.iter().find(|line| line["type"] == "header").expect("a header")
    }

    fn result(&self) -> &Value {
        self.transcript.iter().find(|line| line["type"] == "result").expect("a result")
    }

    fn sent_to(&self, seat: u64) -> impl Iterator<Item = &Value> {
        self.transcript
            .iter()
            .filter(move |line| line["type"] == "send" && line["seat"] == seat)
            .map(|line| &line["msg"])
    }
}

fn play(game: &str, seat: u8, input: &str) -> Played {
    let scratch = Scratch::new();
    let transcript = Played::transcript_path(&scratch);
    let seat = seat.to_string();
    let run = scratch.arena_with_input(
        [
            "play",
            game,
            "--seed",
            "11",
            "--seat",
            seat.as_str(),
            "--transcript",
            transcript.to_str().expect("UTF-8"),
        ],
        input,
    );
    run.assert_success();
    let text = std::fs::read_to_string(&transcript).expect("the transcript");
    let transcript = text.lines().map(|line| serde_json::from_str(line).expect("JSON")).collect();
    let screen = run.stdout.lines().map(|line| line.trim().to_owned()).collect();
    Played { screen, transcript, scratch }
}

/// Every whole number in `text`, in order.
fn numbers(text: &str) -> Vec<i64> {
    text.split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|word| word.parse().ok())
        .collect()
}

/// Every whole number in `value`, depth first.
fn value_numbers(value: &Value) -> Vec<i64> {
    match value {
        Value::Number(number) => number.as_i64().into_iter().collect(),
        Value::Array(items) => items.iter().flat_map(value_numbers).collect(),
        Value::Object(fields) => fields.values().flat_map(value_numbers).collect(),
        _ => Vec::new(),
    }
}

/// Each `[...]` of `line`.
fn lists(line: &str) -> Vec<&str> {
    line.match_indices('[')
        .filter_map(|(start, _)| line[start..].find(']').map(|end| &line[start..=start + end]))
        .collect()
}

/// Checks a built-in game's screen against its transcript: the game the
/// referee dealt is the one shown first, every board and turn `arena
/// replay` tells from the transcript was shown in order, no list shown is
/// one the refereed game never held, and the final scores are the result's.
fn check_builtin(played: &Played, dealt: Option<&str>) {
    let screen = &played.screen;
    let header = played.header();
    // The deal (of a game that deals one): the header's numbers, in
    // order, on the first board.
    if let Some(dealt) = dealt {
        let welcome =
            screen.iter().position(|line| line.starts_with("Welcome to")).expect("welcome");
        let board_end = welcome
            + 2
            + screen[welcome + 2..].iter().position(|line| line.is_empty()).expect("a board");
        let board: Vec<i64> =
            screen[welcome + 1..board_end].iter().flat_map(|line| numbers(line)).collect();
        let deal = value_numbers(&header["state"][dealt]);
        assert!(!deal.is_empty(), "the header deals {dealt}: {header}");
        assert!(
            board.windows(deal.len()).any(|window| window == deal.as_slice()),
            "the first board shows {board:?}, the referee dealt {deal:?}:\n{}",
            screen.join("\n")
        );
    }
    // The transcript told: each of its lines shown, in order.
    let transcript = Played::transcript_path(&played.scratch);
    let replay = played.scratch.arena(["replay", transcript.to_str().expect("UTF-8")]);
    replay.assert_success();
    let told: Vec<&str> = replay.stdout.lines().map(str::trim).collect();
    let story_start = told.iter().position(|line| line.is_empty()).expect("replay's header") + 1;
    let story_end =
        told.iter().rposition(|line| line.starts_with("Final scores")).unwrap_or(told.len());
    let mut shown = screen.iter();
    for line in told[story_start..story_end].iter().filter(|line| !line.is_empty()) {
        if line.contains("forfeits") || line.starts_with("Result") {
            continue;
        }
        assert!(
            shown.any(|seen| seen.ends_with(line)),
            "replay tells `{line}`, which the screen does not show in that place:\n--- screen\n{}\n--- replay\n{}",
            screen.join("\n"),
            replay.stdout
        );
    }
    // No list shown that the refereed game never held: each is one of
    // replay's, or an array of a view the referee sent.
    let told_lists: Vec<&str> = told.iter().flat_map(|line| lists(line)).collect();
    let mut held: Vec<Vec<i64>> = told_lists.iter().map(|list| numbers(list)).collect();
    for message in played.sent_to(1).chain(played.sent_to(2)) {
        if let Some(view) = message["state"].as_object() {
            held.extend(view.values().filter(|field| field.is_array()).map(value_numbers));
        }
    }
    for line in screen {
        for list in lists(line) {
            let known = match numbers(list) {
                shown if shown.is_empty() => told_lists.contains(&list),
                shown => held.contains(&shown),
            };
            assert!(
                known,
                "the screen shows {list} (`{line}`), which no board or view of the refereed game holds:\n{}",
                replay.stdout
            );
        }
    }
    // The final scores are the result's.
    let scores = played.result()["scores"].as_array().expect("scores").clone();
    for (index, score) in scores.iter().enumerate() {
        let label = format!("Player {} (", index + 1);
        let line = screen
            .iter()
            .skip_while(|line| *line != "Final Scores:")
            .find(|line| line.starts_with(&label))
            .expect("a final score");
        assert!(line.ends_with(&format!(": {score}")), "`{line}`, the result says {score}");
    }
}

/// Answers that cover every move of a game, again and again: the bad ones
/// are asked again, so every turn finds a legal one.
fn answers(each_round: &[&str], rounds: usize) -> String {
    let mut input = String::new();
    for _ in 0..rounds {
        for answer in each_round {
            input.push_str(answer);
            input.push('\n');
        }
    }
    input
}

fn numbers_up_to(top: u32) -> Vec<String> {
    (1..=top).map(|number| number.to_string()).collect()
}

#[test]
fn play_shows_number_snatch_as_refereed() {
    let up_to = numbers_up_to(20);
    let each: Vec<&str> = up_to.iter().map(String::as_str).collect();
    for seat in [1, 2] {
        check_builtin(&play("number-snatch", seat, &answers(&each, 12)), Some("numbers"));
    }
}

#[test]
fn play_shows_numbers_war_as_refereed() {
    for seat in [1, 2] {
        check_builtin(&play("numbers-war", seat, &answers(&["L", "R"], 10)), Some("numbers"));
    }
}

#[test]
fn play_shows_number_claim_as_refereed() {
    let up_to = numbers_up_to(9);
    let each: Vec<&str> = up_to.iter().map(String::as_str).collect();
    for seat in [1, 2] {
        check_builtin(&play("number-claim", seat, &answers(&each, 6)), Some("grid"));
    }
}

#[test]
fn play_shows_number_duel_as_refereed() {
    // A number, then its operation; an unavailable number is asked again
    // (and `add` refused as a number), so the next one is taken.
    let mut each = Vec::new();
    let up_to = numbers_up_to(10);
    for number in &up_to {
        each.push(number.as_str());
        each.push("add");
    }
    for seat in [1, 2] {
        check_builtin(&play("number-duel", seat, &answers(&each, 30)), None);
    }
}

#[test]
fn play_shows_number_warriors_as_refereed() {
    let up_to = numbers_up_to(9);
    let each: Vec<&str> = up_to.iter().map(String::as_str).collect();
    for seat in [1, 2] {
        check_builtin(&play("number-warriors", seat, &answers(&each, 20)), None);
    }
}

/// Checks a game program's screen: each view shown is the view the
/// referee sent that seat, in order, and the final one is the `over`'s.
fn check_program(played: &Played, seat: u64) {
    let views: Vec<Vec<String>> = played
        .sent_to(seat)
        .filter(|message| message["type"] == "move" || message["type"] == "over")
        .map(|message| {
            let state = message["state"].as_object().expect("a view of fields");
            let mut keys: Vec<&String> = state.keys().collect();
            keys.sort();
            // A text of several lines (a board drawn) is shown as its
            // lines under its key; any other value as its JSON.
            keys.iter()
                .flat_map(|key| match state[*key].as_str().filter(|text| text.contains('\n')) {
                    Some(text) => std::iter::once(format!("{key}:"))
                        .chain(text.lines().map(|line| line.trim().to_owned()))
                        .collect::<Vec<_>>(),
                    None => vec![format!("{key}: {}", state[*key])],
                })
                .collect()
        })
        .collect();
    assert!(views.len() >= 2, "a game of more than one move: {views:?}");
    let mut shown = Vec::new();
    let screen = &played.screen;
    for (index, line) in screen.iter().enumerate() {
        if line == "Your view:" || line == "Your final view:" {
            let fields: Vec<String> = screen[index + 1..]
                .iter()
                .take_while(|field| !field.is_empty() && !field.starts_with("Your "))
                .cloned()
                .collect();
            shown.push(fields);
        }
    }
    assert_eq!(shown, views, "the views shown, against those the referee sent seat {seat}");
}

#[test]
fn play_shows_a_game_programs_views_as_sent() {
    let connect_four =
        format!("python3 {}", repo_dir().join("examples/games/connect-four/game.py").display());
    let columns: Vec<String> = (0..7).map(|column| column.to_string()).collect();
    let each: Vec<&str> = columns.iter().map(String::as_str).collect();
    check_program(&play(&connect_four, 1, &answers(&each, 10)), 1);
    let liars_dice =
        format!("python3 {}", repo_dir().join("examples/games/liars-dice/game.py").display());
    check_program(&play(&liars_dice, 2, &answers(&["1"], 60)), 2);
    // A view holding a drawing (a string of several lines) shows it drawn.
    let drawn = format!(
        "python3 {} --flaw drawn",
        repo_dir().join("tests/fixtures/games/tinygame.py").display()
    );
    let up_to = numbers_up_to(12);
    let each: Vec<&str> = up_to.iter().map(String::as_str).collect();
    let played = play(&drawn, 1, &answers(&each, 4));
    check_program(&played, 1);
    assert!(played.screen.iter().any(|line| line == "table:"), "{:?}", played.screen);
    assert!(!played.screen.iter().any(|line| line.contains("\\n")), "{:?}", played.screen);
}
