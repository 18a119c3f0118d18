//! The built-in random player: a uniformly random legal move, seeded like
//! the Rust random bot (from the game's seed and the seat), so both play the
//! same games.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::json;

use super::Session;
use crate::LocalPlayer;

/// A local player that answers every request with a random legal move.
pub fn random_player() -> LocalPlayer {
    LocalPlayer::new("arena:random", |io| async move {
        let mut session = Session::new(io);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        while let Some(message) = session.next().await {
            let id = &message["id"];
            let reply = match message["type"].as_str() {
                Some("start") => {
                    let seat = message["seat"].as_u64().unwrap_or(1);
                    let seed = message["seed"].as_u64().unwrap_or(0);
                    rng =
                        ChaCha8Rng::seed_from_u64(seed ^ seat.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    json!({"type": "ready", "id": id, "name": "random"})
                }
                Some("move") => {
                    let Some(legal) =
                        message["legal_moves"].as_array().filter(|legal| !legal.is_empty())
                    else {
                        continue;
                    };
                    json!({"type": "move", "id": id, "move": legal[rng.random_range(0..legal.len())]})
                }
                _ => continue,
            };
            if session.reply(reply).await.is_err() {
                return;
            }
        }
    })
}
