//! A person playing a game program at the terminal. arena knows no rules
//! of such a game, so the person is shown what a bot is sent: their view
//! (field by field), the moves played, and their legal moves, numbered,
//! one of which they choose.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Session;
use super::human::{SharedConsole, lock};
use crate::games::narrate::{ask_number, readable_json};
use crate::referee::LocalPlayer;

/// A person at `console`, playing from the messages alone.
pub fn reader(console: SharedConsole) -> LocalPlayer {
    LocalPlayer::new("arena:human", move |io| {
        let console = Arc::clone(&console);
        async move { play(Session::new(io), console).await }
    })
}

async fn play(mut session: Session, console: SharedConsole) {
    // Entries of the history already shown.
    let mut shown = 0;
    while let Some(message) = session.next().await {
        match message["type"].as_str() {
            Some("start") => {
                shown = 0;
                lock(&console).say(&format!(
                    "Welcome to {}! You are Player {}.",
                    message["game"].as_str().unwrap_or("the game"),
                    message["seat"]
                ));
                let ready = json!({"type": "ready", "id": message["id"], "name": "human"});
                if session.reply(ready).await.is_err() {
                    return;
                }
            }
            Some("move") => {
                tell_history(&message, &mut shown, &console);
                let Some(legal) = message["legal_moves"].as_array().cloned() else { return };
                let view = message["state"].clone();
                let asking = Arc::clone(&console);
                let answer = tokio::task::spawn_blocking(move || {
                    let mut console = lock(&asking);
                    console.say("");
                    console.say("Your view:");
                    for line in readable_json(&view) {
                        console.say(&format!("  {line}"));
                    }
                    console.say("Your legal moves:");
                    for (number, mv) in legal.iter().enumerate() {
                        console.say(&format!("  {}) {mv}", number + 1));
                    }
                    let count = legal.len() as u32;
                    let prompt = format!("Your move (1-{count}): ");
                    let chosen = ask_number(&mut *console, &prompt, |number| match number {
                        1.. if number <= count => Ok(()),
                        _ => Err(format!("Please type a number from 1 to {count}.")),
                    })?;
                    Some(legal[chosen as usize - 1].clone())
                })
                .await;
                let Ok(Some(mv)) = answer else {
                    lock(&console).say("\nInput ended: you leave the game.");
                    return;
                };
                let reply = json!({"type": "move", "id": message["id"], "move": mv});
                if session.reply(reply).await.is_err() {
                    return;
                }
            }
            Some("over") => {
                tell_history(&message, &mut shown, &console);
                let mut console = lock(&console);
                console.say("");
                console.say("Your final view:");
                for line in readable_json(&message["state"]) {
                    console.say(&format!("  {line}"));
                }
            }
            _ => {}
        }
    }
}

/// Says the moves of `message`'s history not shown yet.
fn tell_history(message: &Value, shown: &mut usize, console: &SharedConsole) {
    let Some(history) = message["history"].as_array() else { return };
    let mut console = lock(console);
    for entry in history.iter().skip(*shown) {
        console.say(&format!("Player {} played {}.", entry["seat"], entry["move"]));
    }
    *shown = history.len().max(*shown);
}
