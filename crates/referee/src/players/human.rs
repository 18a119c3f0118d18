//! A person playing at the terminal, through the rule books' dialogue.
//!
//! The person's side keeps its own copy of the game, set up as the
//! referee sets it up (the `start` message's parameters and the seed the
//! referee's game was made from, given when the player is made: a bot's
//! `seed` is its seat's own, not the game's), and replays each move of the
//! history onto it, so every turn, the opponent's included, is told with
//! the exact position before and after.

use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::Session;
use crate::LocalPlayer;
use crate::story::tell_turns;
use crate::table::Builtin;
use arena_games::Seat;
use arena_games::narrate::{Console, Narrate};
use arena_protocol::Played;

/// The console people play on, shared by both seats when two people play.
pub type SharedConsole = Arc<Mutex<dyn Console + Send>>;

/// A person playing `G` on `console`, in a game the referee sets up from
/// `game_seed` (`Rules::seed_for` of the setup seed). The `narrator` tells
/// the game as it goes; with two people at one keyboard only one of them
/// does.
pub fn human<G: Narrate>(console: SharedConsole, narrator: bool, game_seed: u64) -> LocalPlayer {
    LocalPlayer::new("arena:human", move |io| {
        let console = Arc::clone(&console);
        async move { play::<G>(Session::new(io), console, narrator, game_seed).await }
    })
}

/// One game in progress, as the person's side sees it.
struct Table<G> {
    game: Builtin<G>,
    seat: Seat,
    /// Moves of the history already applied to `game`.
    applied: usize,
}

async fn play<G: Narrate>(
    mut session: Session,
    console: SharedConsole,
    narrator: bool,
    game_seed: u64,
) {
    let mut table: Option<Table<G>> = None;
    while let Some(message) = session.next().await {
        match message["type"].as_str() {
            Some("start") => {
                let Some(new_table) = start::<G>(&message, game_seed) else { return };
                if narrator {
                    let mut console = lock(&console);
                    console.say(&format!("Welcome to {}!", G::ID.title()));
                    console.say("");
                    for line in new_table.game.0.board() {
                        console.say(&line);
                    }
                }
                table = Some(new_table);
                let ready = json!({"type": "ready", "id": message["id"], "name": "human"});
                if session.reply(ready).await.is_err() {
                    return;
                }
            }
            Some("move") => {
                let Some(table) = table.as_mut() else { return };
                catch_up(table, &message, &console, narrator);
                let Some(legal) = field::<Vec<G::Move>>(&message, "legal_moves") else { return };
                let (game, seat) = (table.game.0.clone(), table.seat);
                let asking = Arc::clone(&console);
                let answer = tokio::task::spawn_blocking(move || {
                    let mut console = lock(&asking);
                    console.say("");
                    game.ask_move(seat, &legal, &mut *console)
                })
                .await;
                let Ok(Some(mv)) = answer else {
                    lock(&console).say(&format!("\nPlayer {seat} leaves the game."));
                    return;
                };
                let reply = json!({"type": "move", "id": message["id"], "move": mv});
                if session.reply(reply).await.is_err() {
                    return;
                }
            }
            Some("over") => {
                if let Some(table) = table.as_mut() {
                    catch_up(table, &message, &console, narrator);
                }
            }
            _ => {}
        }
    }
}

fn start<G: Narrate>(message: &Value, game_seed: u64) -> Option<Table<G>> {
    let params: G::Params = field(message, "params")?;
    let seat = Seat::from_number(u8::try_from(message["seat"].as_u64()?).ok()?)?;
    Some(Table { game: Builtin(G::new(&params, game_seed)), seat, applied: 0 })
}

/// Applies (and, for the narrator, tells) the history's moves not seen yet.
fn catch_up<G: Narrate>(
    table: &mut Table<G>,
    message: &Value,
    console: &SharedConsole,
    narrator: bool,
) {
    let Some(history) = field::<Vec<Played<G::Move>>>(message, "history") else { return };
    let new = history.get(table.applied..).unwrap_or_default();
    table.applied += tell_turns(&mut table.game, new, |_, lines| {
        if narrator {
            let mut console = lock(console);
            console.say("");
            for line in &lines {
                console.say(line);
            }
        }
    });
}

fn field<T: DeserializeOwned>(message: &Value, name: &str) -> Option<T> {
    serde_json::from_value(message.get(name)?.clone()).ok()
}

pub(super) fn lock(
    console: &SharedConsole,
) -> std::sync::MutexGuard<'_, dyn Console + Send + 'static> {
    console.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
