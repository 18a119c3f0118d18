//! A bot that plays a uniformly random legal move in every arena game.
//!
//! It needs no knowledge of the rules: every `move` request lists the legal
//! moves in exactly the form the reply takes, so echoing one of them back is
//! always legal. It plays any number of games per process and exits when its
//! input closes. Randomness is seeded from each game's `seed` and the seat,
//! so the same tournament reproduces the same games.

use std::io::{self, BufRead, Write};

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            eprintln!("random-bot: ignoring a line that is not JSON: {line}");
            continue;
        };
        let reply = match message["type"].as_str() {
            Some("start") => {
                let seed = message["seed"].as_u64().unwrap_or(0);
                let seat = message["seat"].as_u64().unwrap_or(1);
                rng = ChaCha8Rng::seed_from_u64(seed ^ seat.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                json!({"type": "ready", "id": message["id"], "name": "random-bot"})
            }
            Some("move") => {
                let legal = message["legal_moves"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                if legal.is_empty() {
                    eprintln!("random-bot: a move request without legal moves");
                    continue;
                }
                let choice = &legal[rng.random_range(0..legal.len())];
                json!({"type": "move", "id": message["id"], "move": choice})
            }
            // `reveal`, `over` and anything newer need no answer.
            _ => continue,
        };
        writeln!(stdout, "{reply}")?;
        stdout.flush()?;
    }
    Ok(())
}
