//! The transcript of one game: JSON Lines, the single source for replays
//! and audits.
//!
//! Line types, in order: one `header` (game, seed, parameters, bots, their
//! time controls, the full initial state), then `send` and `recv` for every
//! line exchanged with a bot (time since the game began, in microseconds), a
//! `move` for every accepted move with its think time (and the bank left,
//! under a clock), a `forfeit` for each forfeit, and one
//! closing `result`. protocol.md documents the format with an example.

use std::time::Instant;

use serde::Serialize;
use serde_json::value::RawValue;

use super::TimeControl;
use arena_base::json::{JsonText, WriteJson};
use arena_games::{GameRef, GameSetup, Seat};

/// A `send` or `recv` line: the message as JSON (`msg`), or, when it
/// reads as no JSON, as a string (`raw`).
#[derive(Serialize, WriteJson)]
struct Exchanged<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    t_us: u64,
    seat: Seat,
    #[serde(skip_serializing_if = "Option::is_none")]
    msg: Option<JsonText<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<std::borrow::Cow<'a, str>>,
}

/// A game program's answer that set up the game or played a turn.
#[derive(Serialize, WriteJson)]
struct Step<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    turn: u32,
    answer: JsonText<'a>,
}

/// Builds a transcript in memory; written to disk once, when the game ends.
/// A disabled transcript records nothing and costs nothing.
#[derive(Debug)]
pub struct Transcript {
    started: Instant,
    /// `None` when disabled.
    buffer: Option<Vec<u8>>,
}

#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    arena: &'static str,
    protocol: u32,
    game: &'a str,
    /// The game program, for a game that is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    game_program: Option<GameProgramLine<'a>>,
    seed: u64,
    /// The seed each seat got in `start`.
    seat_seeds: [u64; 2],
    /// The protections the bots ran under.
    sandbox: &'a str,
    params: &'a RawValue,
    bots: [TranscriptBot<'a>; 2],
    #[serde(flatten)]
    time: TranscriptTime,
    state: &'a RawValue,
}

/// A game program as a transcript's header names it.
#[derive(Serialize)]
struct GameProgramLine<'a> {
    command: &'a [String],
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    moves: arena_games::program::Moves,
    /// The seed its `init` got (keyed: not the setup seed), to deal the
    /// game again with the program itself.
    seed: u64,
}

/// The seeds of a game: its setup seed, the seed its rules were set up
/// from (a game program's is keyed), and each seat's.
#[derive(Clone, Copy)]
pub struct GameSeeds {
    /// The game's setup seed.
    pub setup: u64,
    /// The seed its rules were set up from.
    pub rules: u64,
    /// Each seat's seed, as sent in `start`.
    pub seats: [u64; 2],
}

/// The time each seat played under, as the header records it.
#[derive(Serialize)]
pub struct TranscriptTime {
    /// By seat.
    pub time_controls: [TimeControl; 2],
    /// Added to every deadline, in milliseconds; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub time_margin_ms: u64,
    /// No deadline at all (debugging); left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_time_limit: bool,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A bot as the transcript names it.
#[derive(Serialize)]
pub struct TranscriptBot<'a> {
    /// The seat it played.
    pub seat: Seat,
    /// The bot's name.
    pub name: &'a str,
    /// Its command, word by word.
    pub command: &'a [String],
}

impl Transcript {
    /// A recording transcript of a game that began at `started`.
    pub fn new(started: Instant) -> Transcript {
        Transcript { started, buffer: Some(Vec::with_capacity(4096)) }
    }

    /// Whether it records anything: what is written only into it need not
    /// be made otherwise.
    pub fn is_enabled(&self) -> bool {
        self.buffer.is_some()
    }

    /// A transcript that records nothing (no transcript file is wanted).
    pub fn disabled(started: Instant) -> Transcript {
        Transcript { started, buffer: None }
    }

    /// The first line: the game of `setup` from `seed`, whose starting
    /// state is `state`.
    #[allow(clippy::too_many_arguments)]
    pub fn header(
        &mut self,
        setup: &GameSetup,
        seeds: GameSeeds,
        sandbox: &str,
        bots: [TranscriptBot<'_>; 2],
        time: TranscriptTime,
        state: &RawValue,
    ) {
        if self.buffer.is_none() {
            return;
        }
        let params: &RawValue =
            serde_json::from_str(setup.params_json()).expect("parameters are JSON");
        let game_program = match setup.game() {
            GameRef::Builtin(_) => None,
            GameRef::Program(program) => Some(GameProgramLine {
                command: &program.argv,
                title: program.declaration.title(),
                version: program.declaration.version.as_deref(),
                moves: program.declaration.moves,
                seed: seeds.rules,
            }),
        };
        self.push(&Header {
            kind: "header",
            arena: env!("CARGO_PKG_VERSION"),
            protocol: arena_protocol::PROTOCOL_VERSION,
            game: setup.game().name(),
            game_program,
            seed: seeds.setup,
            seat_seeds: seeds.seats,
            sandbox: sandbox.strip_prefix("sandbox: ").unwrap_or(sandbox),
            params,
            bots,
            time,
            state,
        });
    }

    /// A game program's answer that set up the game (`turn` 0) or played
    /// turn `turn`: `{"type":"step","turn":N,"answer":{...}}`, the answer
    /// made compact.
    pub fn step(&mut self, turn: u32, answer: &[u8]) {
        let Some(buffer) = &mut self.buffer else { return };
        // The parser accepted the answer: it is JSON, so UTF-8.
        let text = String::from_utf8_lossy(answer);
        let step = Step { kind: "step", turn, answer: JsonText(&arena_base::json::compact(&text)) };
        step.write_json(buffer);
        buffer.push(b'\n');
    }

    /// A line sent to `seat`; `message` is its JSON, without the newline.
    pub fn sent(&mut self, seat: Seat, at: Instant, message: &[u8]) {
        // arena's own messages are JSON.
        self.record("send", seat, at, message, true);
    }

    /// A line received from `seat`, embedded as JSON when it reads back as
    /// JSON values and as a string otherwise.
    pub fn received(&mut self, seat: Seat, at: Instant, line: &[u8]) {
        let json = self.buffer.is_some()
            && serde_json::from_slice::<&RawValue>(line).is_ok()
            && arena_protocol::unreadable_json(line).is_none();
        self.record("recv", seat, at, line, json);
    }

    /// A line received from `seat` that the reply parser accepted, so is
    /// JSON: embedded without checking it again.
    pub fn received_reply(&mut self, seat: Seat, at: Instant, line: &[u8]) {
        self.record("recv", seat, at, line, true);
    }

    fn record(&mut self, kind: &'static str, seat: Seat, at: Instant, line: &[u8], json: bool) {
        let Some(buffer) = &mut self.buffer else { return };
        // Written with the derived writer: these lines are most of a
        // transcript, and serde's general path costs more than the move.
        let t_us = at.saturating_duration_since(self.started).as_micros() as u64;
        let exchanged = if json {
            // arena's messages and the replies a parser accepted are JSON.
            let msg = JsonText(std::str::from_utf8(line).unwrap_or("null"));
            Exchanged { kind, t_us, seat, msg: Some(msg), raw: None }
        } else {
            Exchanged { kind, t_us, seat, msg: None, raw: Some(String::from_utf8_lossy(line)) }
        };
        exchanged.write_json(buffer);
        buffer.push(b'\n');
    }

    /// A frequent line (`move`), with the writer its type derives.
    pub fn write<T: WriteJson>(&mut self, line: &T) {
        let Some(buffer) = &mut self.buffer else { return };
        line.write_json(buffer);
        buffer.push(b'\n');
    }

    /// Any other line (`header`, `forfeit`, `result`): a serializable object.
    pub fn push<T: Serialize>(&mut self, line: &T) {
        let Some(buffer) = &mut self.buffer else { return };
        serde_json::to_writer(&mut *buffer, line).expect("transcript lines serialize");
        buffer.push(b'\n');
    }

    /// The transcript's bytes (`None` when disabled).
    pub fn into_bytes(self) -> Option<Vec<u8>> {
        self.buffer
    }

    /// The transcript's bytes so far (`None` when disabled).
    pub fn bytes(&self) -> Option<&[u8]> {
        self.buffer.as_deref()
    }
}
