//! Protocol v1: the JSON lines exchanged between the referee and a bot.
//!
//! protocol.md at the top of the repository is the contract for bot authors;
//! these types are its implementation and must say the same thing.
//!
//! Every line is one JSON object with a `type`. Requests that need an answer
//! (`start`, `move`) carry an `id` that the reply must echo, so a late or
//! extra line is never mistaken for the answer to a later request. Fields a
//! side does not know are ignored by it.

#![warn(missing_docs)]

mod cursor;
pub mod encode;
pub mod game;
mod reasons;

use arena_base::score::Score;
use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use cursor::{Cursor, Integer};

use arena_base::json::WriteJson;
use arena_games::Seat;
pub use encode::History;
pub use reasons::{ForfeitNotice, ForfeitReason, ResultReason};

/// The largest seed handed out: 2^53 - 1, so that every JSON parser
/// (JavaScript's included) reads seeds exactly.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The protocol version this referee speaks, sent in every `start`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The limits a bot plays under, as sent in `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, WriteJson)]
pub struct Limits {
    /// Time for the reply to `start`, process start-up included.
    pub startup_ms: u64,
    /// Time for the reply to each `move` request; under a game clock, for
    /// the first one (each request says its own in `time_ms`).
    pub move_ms: u64,
    /// Longest line, in bytes without the newline, that a bot may send.
    pub max_line_bytes: usize,
    /// Under a game clock: the bank the game starts with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_ms: Option<u64>,
    /// Under a game clock: what each accepted move adds to the bank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment_ms: Option<u64>,
}

/// One move of the game so far, as listed in `history`.
pub use arena_games::Played;

/// A message from the referee to a bot. `P`, `V` and `M` are the game's
/// parameters, view and move types.
///
/// Written with the writer `#[derive(WriteJson)]` makes of this
/// definition ([`ToBot::line`]); serde's `Serialize`, made from the same
/// definition, is what the tests compare it with.
#[derive(Debug, Serialize, WriteJson)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot<'a, P, V, M> {
    /// A new game begins; answer with `ready`.
    Start {
        /// The request's id, which the `ready` reply echoes.
        id: u64,
        /// The protocol version, [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The game's id.
        game: &'a str,
        /// The game's parameters, every one with its value.
        params: &'a P,
        /// The seat the bot plays.
        seat: Seat,
        /// The game's setup seed; a bot may seed its own randomness from it
        /// so that whole tournaments reproduce.
        seed: u64,
        /// The limits the bot plays under.
        limits: Limits,
    },
    /// Your move; answer with `move`.
    Move {
        /// The request's id, which the `move` reply echoes.
        id: u64,
        /// Your view of the state (the game's own shape, see protocol.md).
        state: V,
        /// Every move of the game so far; for a bot that asked for the new
        /// ones only, the moves since its previous request.
        history: History<'a, M>,
        /// For a bot that asked for the new moves only: the index in the
        /// whole history of the first one listed.
        #[serde(skip_serializing_if = "Option::is_none")]
        history_from: Option<u64>,
        /// Every legal move, in exactly the form the reply takes.
        legal_moves: &'a [M],
        /// Milliseconds you have for this reply.
        time_ms: u64,
        /// Under a game clock: milliseconds left in your bank.
        #[serde(skip_serializing_if = "Option::is_none")]
        bank_ms: Option<u64>,
    },
    /// A simultaneous turn is locked in: both choices, by seat. `null` for a
    /// seat that forfeited instead of choosing. No answer.
    Reveal {
        /// Each seat's choice, `None` for a seat that forfeited.
        moves: [Option<&'a M>; 2],
    },
    /// The game is over. No answer; the next line is a `start` or the end of
    /// input.
    Over {
        /// The winning seat, `null` for a draw or a double forfeit.
        winner: Option<Seat>,
        /// `normal`, the forfeit reason, or `double_forfeit`.
        reason: ResultReason,
        /// The forfeits of the game, if any.
        forfeits: &'a [ForfeitNotice],
        /// Both seats' scores.
        scores: [Score; 2],
        /// Your view of the final state (before the failed step, after a forfeit).
        state: V,
        /// Every move of the game, as in `move` requests (the new ones
        /// only, for a bot that asked for them).
        history: History<'a, M>,
        /// As in `move` requests.
        #[serde(skip_serializing_if = "Option::is_none")]
        history_from: Option<u64>,
    },
}

/// What the referee expects a reply to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyKind {
    /// The reply to `start`.
    Ready,
    /// The reply to `move`.
    Move,
}

impl ReplyKind {
    /// The reply's `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyKind::Ready => "ready",
            ReplyKind::Move => "move",
        }
    }
}

/// A reply accepted as well-formed.
#[derive(Debug, PartialEq)]
pub enum Reply<M> {
    /// A `ready` reply.
    Ready(Ready),
    /// A `move` reply: the move, read as the game's move type.
    Move(M),
}

/// A `ready` reply's fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ready {
    /// The name the bot gives itself, if any.
    pub name: Option<String>,
    /// How the bot asks to be sent `history` in this game; `None` where
    /// its `ready` does not say (the game's declaration then decides).
    pub history: Option<HistoryMode>,
}

/// How a bot asks to be sent `history` (protocol.md, section 2).
pub use arena_games::program::HistoryMode;

/// What is wrong with a refused reply line. `arena check` and the hints
/// it gives match on these, never on a detail's wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BadReplyKind {
    /// Not JSON at all (a debug print, say).
    NotJson,
    /// The start of a JSON object or array that the line's end cuts short:
    /// a reply spread over several lines (pretty-printed).
    SplitOverLines,
    /// JSON, but not an object.
    NotAnObject,
    /// No `type`, or one that is not a string.
    NoType,
    /// A `type` other than the reply expected.
    WrongType,
    /// No `id`.
    NoId,
    /// An `id` that is not a whole number (`"2"`).
    IdNotANumber,
    /// The id of another request.
    WrongId,
    /// A `ready` whose `name` is not a string.
    NameNotAString,
    /// A `ready` that asks for `history` neither `"full"` nor `"new"`.
    UnknownHistory,
    /// A `move` reply without a `move`.
    NoMove,
    /// A `move` that is not a move of this game: the wrong shape.
    NotAMove,
}

impl BadReplyKind {
    /// The forfeit this earns: a move of the wrong shape is an illegal
    /// move; everything else is a malformed reply.
    pub fn forfeit_reason(self) -> ForfeitReason {
        match self {
            BadReplyKind::NotAMove => ForfeitReason::IllegalMove,
            _ => ForfeitReason::Malformed,
        }
    }

    /// Whether the reply got its `id` wrong (and the rest right enough to
    /// tell).
    pub fn is_about_the_id(self) -> bool {
        matches!(self, BadReplyKind::NoId | BadReplyKind::IdNotANumber | BadReplyKind::WrongId)
    }

    /// Whether the line was no protocol reply at all (stray output).
    pub fn is_stray_output(self) -> bool {
        matches!(self, BadReplyKind::NotJson | BadReplyKind::NotAnObject)
    }
}

/// Why a reply line was refused: its kind, and the detail in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct BadReply {
    /// What is wrong, as a value to match on.
    pub kind: BadReplyKind,
    /// What is wrong, for people.
    pub detail: String,
}

impl BadReply {
    fn new(kind: BadReplyKind, detail: impl Into<String>) -> BadReply {
        BadReply { kind, detail: detail.into() }
    }
}

/// The fields of a reply line, borrowed from it and read raw, so that a
/// field of the wrong type is named rather than failing the whole line.
/// Unknown fields are ignored.
#[derive(Deserialize)]
struct ReplyLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    /// Read only in a `ready`; elsewhere an unknown field like any other.
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    /// Read only in a `ready`, as `name`.
    #[serde(borrow)]
    history: Option<&'a RawValue>,
    #[serde(rename = "move", borrow)]
    mv: Option<&'a RawValue>,
}

/// A well-formed move reply, read in one pass. serde skips an unknown
/// field's value (in the reply, or in a move of fields) without reading it
/// whole, and transcripts keep the line: it is taken only if the whole line
/// reads back ([`unreadable_json`]).
#[derive(Deserialize)]
struct MoveReply<'a, M> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    id: u64,
    #[serde(rename = "move")]
    mv: M,
}

/// Parses one line from a bot as the reply to request `id` of kind `kind`.
/// A line it accepts is JSON (transcripts embed it as it came).
pub fn parse_reply<M: DeserializeOwned>(
    line: &[u8],
    kind: ReplyKind,
    id: u64,
) -> Result<Reply<M>, BadReply> {
    // serde would also read a struct from a JSON array; a reply is an object.
    if let Some(is_json) = not_an_object(line) {
        let kind = if is_json { BadReplyKind::NotAnObject } else { BadReplyKind::NotJson };
        // A launcher's banner starts with one (`npm start`'s).
        if line.trim_ascii().is_empty() {
            return Err(BadReply::new(
                kind,
                "an empty line, where a reply must be a JSON object, `{...}`: is something else writing to stdout? (`npm start` does: run `node` itself, or `npm start --silent`)",
            ));
        }
        return Err(BadReply::new(kind, "a reply must be a JSON object, `{...}`"));
    }
    // The common cases first: plain replies (a number for a move), read by
    // a scanner; then any good move reply, in one pass. Anything else takes
    // the careful path below, which says what is wrong.
    if let Some(scanned) = scan_reply(line)
        && scanned.kind == kind
        && scanned.id == id
    {
        match kind {
            ReplyKind::Ready => {
                let name = scanned.name.map(str::to_owned);
                return Ok(Reply::Ready(Ready { name, history: None }));
            }
            ReplyKind::Move => {
                if let Some(mv) = scanned.mv.and_then(Integer::read::<M>) {
                    return Ok(Reply::Move(mv));
                }
            }
        }
    }
    if kind == ReplyKind::Move
        && let Ok(reply) = serde_json::from_slice::<MoveReply<'_, M>>(line)
        && reply.kind == "move"
        && reply.id == id
        && unreadable_json(line).is_none()
    {
        return Ok(Reply::Move(reply.mv));
    }
    parse_reply_carefully(line, kind, id)
}

/// [`parse_reply`] without its shortcuts: says what is wrong with a line.
/// Why a `move` reply without `move` has none, naming a key that looks
/// like a misspelt `move` (`"mvoe"`, `"Move"`), if it has one.
fn no_move(line: &[u8]) -> String {
    let keys: Vec<String> = serde_json::from_slice::<serde_json::Map<String, Value>>(line)
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default();
    let near = keys.iter().find(|key| {
        arena_base::spelling::closest(&key.to_lowercase(), ["move"]).is_some()
            && !["type", "id"].contains(&key.as_str())
    });
    match near {
        Some(key) => format!("the reply has no `move`: its key `{key}` should be spelt `move`"),
        None => "the reply has no `move`".to_owned(),
    }
}

fn parse_reply_carefully<M: DeserializeOwned>(
    line: &[u8],
    kind: ReplyKind,
    id: u64,
) -> Result<Reply<M>, BadReply> {
    if let Some(why) = unreadable_json(line) {
        return Err(BadReply::new(
            BadReplyKind::NotJson,
            format!("not a JSON reply object: {why}"),
        ));
    }
    let reply: ReplyLine<'_> = serde_json::from_slice(line).map_err(|error| {
        let opens = line.trim_ascii_start().first().is_some_and(|&byte| byte == b'{' || byte == b'[');
        match error.is_eof() && opens {
            true => BadReply::new(
                BadReplyKind::SplitOverLines,
                format!(
                    "not a JSON reply object: the line ends inside it ({error}): a reply is one line of compact JSON, not pretty-printed"
                ),
            ),
            false => {
                BadReply::new(BadReplyKind::NotJson, format!("not a JSON reply object: {error}"))
            }
        }
    })?;
    let expected = kind.as_str();
    match reply.kind.map(|raw| serde_json::from_str::<Cow<'_, str>>(raw.get())) {
        Some(Ok(found)) if found == expected => {}
        Some(Ok(found)) => {
            return Err(BadReply::new(
                BadReplyKind::WrongType,
                format!("expected a `{expected}` reply, got type `{found}`"),
            ));
        }
        Some(Err(_)) => {
            return Err(BadReply::new(
                BadReplyKind::NoType,
                format!("the reply's `type` is not a string (expected \"{expected}\")"),
            ));
        }
        None => {
            return Err(BadReply::new(
                BadReplyKind::NoType,
                format!("the reply has no `type` (expected `{expected}`)"),
            ));
        }
    }
    match reply.id.map(|raw| (raw, serde_json::from_str::<u64>(raw.get()))) {
        Some((_, Ok(found))) if found == id => {}
        Some((_, Ok(found))) => {
            return Err(BadReply::new(
                BadReplyKind::WrongId,
                format!("the reply's id is {found}, the request's is {id}"),
            ));
        }
        Some((raw, Err(_))) => {
            return Err(BadReply::new(
                BadReplyKind::IdNotANumber,
                format!("the reply's id {} is not a number (expected {id})", raw.get()),
            ));
        }
        None => {
            return Err(BadReply::new(
                BadReplyKind::NoId,
                format!("the reply has no `id` (expected {id})"),
            ));
        }
    }
    match kind {
        ReplyKind::Ready => {
            let name = match reply.name {
                None => None,
                Some(raw) => Some(serde_json::from_str(raw.get()).map_err(|_| {
                    BadReply::new(
                        BadReplyKind::NameNotAString,
                        format!("the name {} is not a string", raw.get()),
                    )
                })?),
            };
            let history = match reply.history.map(RawValue::get) {
                None => None,
                Some(r#""full""#) => Some(HistoryMode::Full),
                Some(r#""new""#) => Some(HistoryMode::New),
                Some(other) => {
                    return Err(BadReply::new(
                        BadReplyKind::UnknownHistory,
                        format!(
                            "the ready asks for history {other}: it is \"full\" (every move, the default) or \"new\" (the moves since the bot's previous request)"
                        ),
                    ));
                }
            };
            Ok(Reply::Ready(Ready { name, history }))
        }
        ReplyKind::Move => {
            let raw = reply.mv.ok_or_else(|| BadReply::new(BadReplyKind::NoMove, no_move(line)))?;
            serde_json::from_str(raw.get()).map(Reply::Move).map_err(|error| {
                // serde's words, without the position in the move's own text.
                let words = error.to_string();
                let position = format!(" at line {} column {}", error.line(), error.column());
                let why = words.strip_suffix(&position).unwrap_or(&words);
                BadReply::new(
                    BadReplyKind::NotAMove,
                    format!("{} is not a move of this game: {why}", raw.get()),
                )
            })
        }
    }
}

/// For a line that does not start as an object, whether it is JSON of
/// another kind (else no JSON at all); `None` for a line that does. serde
/// would read a struct from an array, and say so in its own terms.
pub(crate) fn not_an_object(line: &[u8]) -> Option<bool> {
    (line.trim_ascii_start().first() != Some(&b'{'))
        .then(|| serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok())
}

/// Why `line` is JSON text that reads as no JSON value: serde_json takes
/// invalid UTF-8 inside a string, a lone UTF-16 surrogate (`"\ud800"`) or a
/// number past f64's range (`1e999`) where it skips or keeps a value raw,
/// and refuses them where it reads one. A line arena keeps (a transcript's,
/// a step's) must read back, so the parsers refuse such a line, as the
/// scanners do. `None` for a readable line, and for one that is no JSON at
/// all (the caller's to describe).
pub fn unreadable_json(line: &[u8]) -> Option<String> {
    // The common case, without building the values: the scanner takes
    // exactly what reads as values (but for UTF-8, checked here).
    let mut cursor = Cursor::new(line);
    if std::str::from_utf8(line).is_ok() && cursor.value().is_some() && cursor.at_end() {
        return None;
    }
    let error = serde_json::from_slice::<serde_json::Value>(line).err()?;
    serde_json::from_slice::<serde::de::IgnoredAny>(line).ok()?;
    Some(format!(
        "{error}: JSON text that no JSON value holds (invalid UTF-8 in a string, a lone UTF-16 surrogate such as \\ud800, or a number past 1.8e308)"
    ))
}

/// A reply as [`scan_reply`] reads it.
#[derive(Debug, PartialEq)]
struct ScannedReply<'a> {
    kind: ReplyKind,
    id: u64,
    mv: Option<Integer>,
    name: Option<&'a str>,
}

/// Reads the common replies, such as `{"type":"move","id":7,"move":12}` and
/// `{"type":"ready","id":1,"name":"me"}`, without a general JSON parser:
/// the keys `type`, `id`, `move` and `name` in any order, any JSON
/// whitespace, integers for `id` and `move`, and a `name` without escapes.
/// `None` for any other line, which may still be a good reply.
fn scan_reply(line: &[u8]) -> Option<ScannedReply<'_>> {
    let mut cursor = Cursor::new(line);
    cursor.expect(b'{')?;
    let (mut kind, mut id, mut mv, mut name) = (None, None, None, None);
    loop {
        let key = cursor.plain_string()?;
        cursor.expect(b':')?;
        match key {
            b"type" if kind.is_none() => {
                kind = Some(match cursor.plain_string()? {
                    b"move" => ReplyKind::Move,
                    b"ready" => ReplyKind::Ready,
                    _ => return None,
                });
            }
            b"id" if id.is_none() => {
                let Integer::Unsigned(number) = cursor.integer()? else { return None };
                id = Some(number);
            }
            b"move" if mv.is_none() => mv = Some(cursor.integer()?),
            b"name" if name.is_none() => {
                name = Some(std::str::from_utf8(cursor.plain_string()?).ok()?);
            }
            _ => return None,
        }
        if !cursor.next_after_value()? {
            break;
        }
    }
    cursor.skip_space();
    if !cursor.at_end() {
        return None;
    }
    Some(ScannedReply { kind: kind?, id: id?, mv, name })
}

#[cfg(test)]
mod tests;
