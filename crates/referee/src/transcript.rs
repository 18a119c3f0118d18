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
use arena_games::{GameRef, GameSetup, Seat};

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
        buffer.extend_from_slice(br#"{"type":"step","turn":"#);
        buffer.extend_from_slice(itoa::Buffer::new().format(turn).as_bytes());
        buffer.extend_from_slice(br#","answer":"#);
        // The parser accepted the answer: it is JSON, so UTF-8.
        let text = String::from_utf8_lossy(answer);
        buffer.extend_from_slice(arena_base::json::compact(&text).as_bytes());
        buffer.extend_from_slice(b"}\n");
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
        // Written piece by piece: these lines are most of a transcript, and
        // a formatted string per line costs more than the rest of the move.
        let micros = at.saturating_duration_since(self.started).as_micros();
        let mut number = itoa::Buffer::new();
        buffer.extend_from_slice(br#"{"type":""#);
        buffer.extend_from_slice(kind.as_bytes());
        buffer.extend_from_slice(br#"","t_us":"#);
        buffer.extend_from_slice(number.format(micros).as_bytes());
        buffer.extend_from_slice(br#","seat":"#);
        buffer.extend_from_slice(number.format(seat.number()).as_bytes());
        buffer.push(b',');
        if json {
            buffer.extend_from_slice(b"\"msg\":");
            buffer.extend_from_slice(line);
        } else {
            buffer.extend_from_slice(b"\"raw\":");
            let text = String::from_utf8_lossy(line);
            serde_json::to_writer(&mut *buffer, &text).expect("writing to a Vec cannot fail");
        }
        buffer.extend_from_slice(b"}\n");
    }

    /// Any other line (`move`, `forfeit`, `result`): a serializable object.
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
