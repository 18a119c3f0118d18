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
use serde::Deserialize;
use serde_json::value::RawValue;

/// The fields of a referee message this bot reads; the rest (the state,
/// the history) is skipped. Borrowed from the line, so nothing is copied.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: Option<u64>,
    seed: Option<u64>,
    seat: Option<u64>,
    #[serde(borrow, default)]
    legal_moves: Vec<&'a RawValue>,
}

fn main() -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(()); // input closed: the session is over
        }
        let message: Message = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("random-bot: ignoring a line I cannot read ({error}): {line}");
                continue;
            }
        };
        let id = message.id.unwrap_or(0);
        match message.kind {
            "start" => {
                let seat = message.seat.unwrap_or(1);
                let seed = message.seed.unwrap_or(0) ^ seat.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                rng = ChaCha8Rng::seed_from_u64(seed);
                writeln!(output, r#"{{"type":"ready","id":{id},"name":"random-bot"}}"#)?;
            }
            "move" if !message.legal_moves.is_empty() => {
                let choice = message.legal_moves[rng.random_range(0..message.legal_moves.len())];
                writeln!(output, r#"{{"type":"move","id":{id},"move":{}}}"#, choice.get())?;
            }
            // `reveal`, `over` and anything newer need no answer.
            _ => continue,
        }
        output.flush()?;
    }
}
