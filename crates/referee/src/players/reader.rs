//! A person playing a game program at the terminal. arena knows no rules
//! of such a game, so the person is shown what a bot is sent: their view
//! (field by field), the moves played, and their legal moves. Where every
//! legal move is a whole number or a word (`3`, `e4`), the person types the
//! move itself; other moves (lists, objects, strings with spaces) are
//! numbered, and the person types a move's number.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Session;
use super::human::{SharedConsole, lock};
use crate::LocalPlayer;
use arena_base::printable::printable;
use arena_games::narrate::{Console, ask_number, readable_json};
use arena_games::program::Moves;

/// A person at `console`, playing the game titled `title`, whose moves
/// are `moves`, from the messages alone.
pub fn reader(console: SharedConsole, title: String, moves: Moves) -> LocalPlayer {
    LocalPlayer::new("arena:human", move |io| {
        let console = Arc::clone(&console);
        let title = title.clone();
        async move { play(Session::new(io), console, title, moves).await }
    })
}

async fn play(mut session: Session, console: SharedConsole, title: String, moves: Moves) {
    // Entries of the history already shown, and the seat whose history
    // entries are what this person learned, not what was played.
    let mut shown = 0;
    let mut learned_of = Value::Null;
    while let Some(message) = session.next().await {
        match message["type"].as_str() {
            Some("start") => {
                shown = 0;
                learned_of = match (moves, message["seat"].as_u64()) {
                    (Moves::Hidden, Some(seat)) => json!(3 - seat),
                    _ => Value::Null,
                };
                lock(&console)
                    .say(&format!("Welcome to {title}! You are Player {}.", message["seat"]));
                let ready = json!({"type": "ready", "id": message["id"], "name": "human"});
                if session.reply(ready).await.is_err() {
                    return;
                }
            }
            Some("move") => {
                tell_history(&message, &mut shown, &learned_of, &console);
                let Some(legal) = message["legal_moves"].as_array().cloned() else { return };
                let view = message["state"].clone();
                let asking = Arc::clone(&console);
                let answer = tokio::task::spawn_blocking(move || {
                    let mut console = lock(&asking);
                    console.say("");
                    console.say("Your view:");
                    for line in readable_json(&view) {
                        console.say(&format!("  {}", printable(&line)));
                    }
                    ask_move(&mut *console, &legal)
                })
                .await;
                let Ok(Some(mv)) = answer else {
                    // `quit` typed, or the end of the input.
                    lock(&console).say("\nYou leave the game.");
                    return;
                };
                let reply = json!({"type": "move", "id": message["id"], "move": mv});
                if session.reply(reply).await.is_err() {
                    return;
                }
            }
            Some("over") => {
                tell_history(&message, &mut shown, &learned_of, &console);
                let mut console = lock(&console);
                console.say("");
                console.say("Your final view:");
                for line in readable_json(&message["state"]) {
                    console.say(&format!("  {}", printable(&line)));
                }
            }
            _ => {}
        }
    }
}

/// The legal move the person chooses: typed as it is where every move is
/// a whole number or a word, else by its number in the list; `None` once
/// input has ended.
fn ask_move(console: &mut dyn Console, legal: &[Value]) -> Option<Value> {
    let typed: Option<Vec<String>> = legal.iter().map(typed_form).collect();
    let Some(typed) = typed else {
        console.say("Your legal moves:");
        for (number, mv) in legal.iter().enumerate() {
            console.say(&format!("  {}) {}", number + 1, printable(&mv.to_string())));
        }
        let count = legal.len() as u32;
        let prompt = format!("Your move (1-{count}): ");
        let chosen = ask_number(console, &prompt, |number| match number {
            1.. if number <= count => Ok(()),
            _ => Err(format!("Please type a number from 1 to {count}.")),
        })?;
        return Some(legal[chosen as usize - 1].clone());
    };
    let list = typed.join(", ");
    console.say(&format!("Your legal moves: {list}"));
    loop {
        let answer = console.ask("Your move: ")?;
        let answer = answer.trim();
        match typed.iter().position(|form| form == answer) {
            Some(index) => return Some(legal[index].clone()),
            None if answer.is_empty() => console.say(&format!("Please type one of: {list}.")),
            None => {
                console.say(&format!("`{answer}` is not a legal move. Please type one of: {list}."))
            }
        }
    }
}

/// How a person types `mv`: a whole number as written, a word (no space,
/// comma, quote or control character) as it is; `None` for anything else.
fn typed_form(mv: &Value) -> Option<String> {
    match mv {
        Value::Number(number) if number.is_i64() || number.is_u64() => Some(number.to_string()),
        Value::String(word)
            if !word.is_empty()
                && !word.contains(|character: char| {
                    character.is_whitespace() || matches!(character, ',' | '"')
                })
                && arena_base::printable::hazard(word).is_none() =>
        {
            Some(word.clone())
        }
        _ => None,
    }
}

/// Says the moves of `message`'s history not shown yet (`shown` counts
/// those told). `learned_of` is the seat whose moves this person learns
/// only as the game tells them (in a game with hidden moves: the other
/// seat; `null` otherwise).
fn tell_history(message: &Value, shown: &mut usize, learned_of: &Value, console: &SharedConsole) {
    let Some(history) = message["history"].as_array() else { return };
    let mut console = lock(console);
    for entry in history.iter().skip(*shown) {
        let seat = &entry["seat"];
        match &entry["move"] {
            // A move the game keeps from this seat (a card played face down).
            Value::Null => console.say(&format!("Player {seat} played a hidden move.")),
            // What the game tells this seat of the other's hidden move.
            learned if seat == learned_of => console.say(&format!(
                "Player {seat} played a hidden move; you learned {}.",
                printable(&learned.to_string())
            )),
            mv => console.say(&format!("Player {seat} played {}.", printable(&mv.to_string()))),
        }
    }
    *shown = history.len().max(*shown);
}
