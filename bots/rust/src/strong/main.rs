//! strong-bot: plays all five arena games well, from the rules alone.
//!
//! The protocol side is the same as the random bot's: one JSON message per
//! line on stdin, one answer per `start` and `move` on stdout, any number of
//! games per process, exit when stdin closes. The difference is the choice:
//! each game has its own module that reads the `state` and picks one of the
//! `legal_moves`, and the reply echoes that legal move exactly as the
//! referee wrote it.
//!
//! Every choice depends only on the request (and the seat from `start`), so
//! the same messages always get the same replies.

mod budget;
mod claim;
mod duel;
mod snatch;
mod war;
mod warriors;

use std::io::{self, BufRead, Write};
use std::time::Instant;

use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::value::RawValue;

use budget::Limits;

/// The fields of a referee message this bot reads, borrowed from the line.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: Option<u64>,
    game: Option<String>,
    seat: Option<u8>,
    #[serde(borrow)]
    state: Option<&'a RawValue>,
    #[serde(borrow, default)]
    legal_moves: Vec<&'a RawValue>,
    time_ms: Option<u64>,
}

/// What a game's `start` told us.
struct Game {
    id: String,
    /// 0 for seat 1, 1 for seat 2: an index into the state's per-seat lists.
    me: usize,
}

fn main() -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    let mut game = Game { id: String::new(), me: 0 };
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(()); // input closed: the session is over
        }
        let message: Message = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("strong-bot: ignoring a line I cannot read ({error})");
                continue;
            }
        };
        let id = message.id.unwrap_or(0);
        match message.kind {
            "start" => {
                let seat = message.seat.unwrap_or(1);
                game = Game { id: message.game.unwrap_or_default(), me: usize::from(seat == 2) };
                eprintln!("game started: {}, seat {seat}", game.id);
                writeln!(output, r#"{{"type":"ready","id":{id},"name":"strong-bot"}}"#)?;
            }
            "move" if !message.legal_moves.is_empty() => {
                let limits = Limits::new(message.time_ms.unwrap_or(1000), Instant::now());
                let index = choose(&game, message.state, &message.legal_moves, limits)
                    .unwrap_or_else(|error| {
                        eprintln!("strong-bot: {error}; playing the first legal move");
                        0
                    });
                let choice = message.legal_moves[index].get();
                writeln!(output, r#"{{"type":"move","id":{id},"move":{choice}}}"#)?;
            }
            // `reveal`, `over` and anything newer need no answer.
            _ => continue,
        }
        output.flush()?;
    }
}

/// The index in `legal` of the move to play.
fn choose(
    game: &Game,
    state: Option<&RawValue>,
    legal: &[&RawValue],
    limits: Limits,
) -> Result<usize, String> {
    let state = state.ok_or("the request has no state")?;
    let me = game.me;
    match game.id.as_str() {
        // These two need only the legal moves.
        "number-claim" => pick(state, legal, |_: IgnoredAny, moves| claim::choose(moves)),
        "number-warriors" => pick(state, legal, |_: IgnoredAny, moves| warriors::choose(moves)),
        "numbers-war" => pick(state, legal, |state, _| war::choose(&state, me, limits.time_ms)),
        "number-snatch" => pick(state, legal, |state, _| snatch::choose(&state, me, limits)),
        "number-duel" => pick(state, legal, |state, _| duel::choose(&state, me, limits)),
        other => Err(format!("unknown game `{other}`")),
    }
}

/// Parses the state and the legal moves, asks `strategy` for a move and
/// finds it among the legal moves.
fn pick<S, M>(
    state: &RawValue,
    legal: &[&RawValue],
    strategy: impl FnOnce(S, &[M]) -> M,
) -> Result<usize, String>
where
    S: DeserializeOwned,
    M: DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let state = serde_json::from_str(state.get()).map_err(|e| format!("bad state: {e}"))?;
    let moves = legal
        .iter()
        .map(|raw| serde_json::from_str(raw.get()))
        .collect::<Result<Vec<M>, _>>()
        .map_err(|e| format!("bad legal move: {e}"))?;
    let chosen = strategy(state, &moves);
    moves.iter().position(|m| *m == chosen).ok_or(format!("{chosen:?} is not a legal move"))
}
