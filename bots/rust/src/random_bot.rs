//! A bot that plays a uniformly random legal move in every arena game.
//!
//! It needs no knowledge of the rules: every `move` request lists the legal
//! moves in exactly the form the reply takes, so echoing one of them back is
//! always legal. It plays any number of games per process and exits when its
//! input closes. Randomness is seeded from the seat's own `seed` in each
//! `start`, so the same tournament reproduces the same games and the other
//! seat cannot predict this one. Debug output goes to
//! stderr (`eprintln!`), never stdout: stdout carries protocol lines only.
//!
//! It logs one line per game to stderr, which arena keeps in a log file per
//! game. `random-bot --quiet` logs nothing, so no log files are written:
//! that is the setting for measuring the referee's own speed.
//!
//! To write your own bot, copy this file (and its `[[bin]]` entry in
//! Cargo.toml) and change the `"move"` branch: read the fields you need into
//! `Message` (for example `state: Option<&'a RawValue>`, parsed into your
//! own struct) and write one of `legal_moves` back. `bots/rust/src/strong/`
//! is a complete example that parses every game's state.

use std::borrow::Cow;
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
    #[serde(borrow)]
    game: Option<Cow<'a, str>>,
    seed: Option<u64>,
    seat: Option<u64>,
    #[serde(borrow, default)]
    legal_moves: Vec<&'a RawValue>,
}

fn main() -> io::Result<()> {
    let quiet = std::env::args().skip(1).any(|arg| arg == "--quiet");
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
                // A new game (the same process may play many): read it all
                // from this message and reset any per-game state here.
                let seat = message.seat.unwrap_or(1);
                rng = ChaCha8Rng::seed_from_u64(message.seed.unwrap_or(0));
                if !quiet {
                    eprintln!(
                        "game started: {}, seat {seat}",
                        message.game.as_deref().unwrap_or("?")
                    );
                }
                writeln!(output, r#"{{"type":"ready","id":{id},"name":"random-bot"}}"#)?;
            }
            "move" if !message.legal_moves.is_empty() => {
                // YOUR LOGIC GOES HERE: pick one of the legal moves.
                let choice = message.legal_moves[rng.random_range(0..message.legal_moves.len())];
                writeln!(output, r#"{{"type":"move","id":{id},"move":{}}}"#, choice.get())?;
            }
            // `reveal`, `over` and anything newer need no answer.
            _ => continue,
        }
        output.flush()?;
    }
}
