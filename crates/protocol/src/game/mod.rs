//! The game protocol (game-protocol.md): the lines arena and a game
//! program exchange. arena asks (`hello`, `init`, `apply`), the program
//! answers each request with one line carrying the request's `id`: its
//! description (`game`), the game after the request (`step`), or a
//! refusal of parameters (`refuse`).
//!
//! A step is checked here for what makes it unusable or contradictory (a
//! seat to move without legal moves, a view missing, a result while a
//! seat is still to move), so the referee only ever sees sound ones.

mod declares;
mod requests;
mod scan;

use arena_base::score::Score;
use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;

use arena_base::json::RawJson;
use arena_games::program::{Declaration, JsonMove, Moves};
use arena_games::{Outcome, Seat};

pub use declares::declares_of;
pub use requests::{GameRequestKind, apply_request, hello_request, init_request};

/// A game program's answer, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Its description, in answer to `hello` (boxed, as a step is: a
    /// declaration is large, and asked for once).
    Game(Box<Declaration>),
    /// The game after `init` or `apply`: boxed, since an answer is moved
    /// from the parser to the referee's table several times a ply, and a
    /// step is large.
    Step(Box<Step>),
    /// Parameters `init` cannot set up a game with.
    Refuse(Refusal),
}

/// An `init` refused: the parameter at fault, if the game names one, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The parameter at fault, if the game names one.
    pub param: Option<String>,
    /// Why, in the game program's words.
    pub message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The program's words, made printable: they reach the terminal.
        let message = arena_base::printable::printable(&self.message);
        match &self.param {
            Some(param) => {
                write!(f, "parameter `{}`: {message}", arena_base::printable::printable(param))
            }
            None => f.write_str(&message),
        }
    }
}

/// A game as a step describes it: who is to move, their legal moves, what
/// each seat is shown, the scores and, once over, the result.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The seats to move: one, both (a simultaneous turn) or none (over).
    pub to_move: &'static [Seat],
    /// Each seat's legal moves; empty for a seat not to move.
    pub legal_moves: [Vec<JsonMove>; 2],
    /// What each seat is shown.
    pub views: [RawJson; 2],
    /// Both seats' scores.
    pub scores: [Score; 2],
    /// The result, once the game is over.
    pub result: Option<Outcome>,
    /// In a game with hidden moves, after `apply`: what each seat learns
    /// of the other seat's move in the turn just played.
    pub learned: Option<[RawJson; 2]>,
    /// The whole state, if the game gives it (for transcripts and replays).
    pub state: Option<RawJson>,
    /// The turn (or, after `init`, the position) in words, if the game
    /// gives it (for replays only: bots never see it).
    pub text: Option<String>,
}

impl Step {
    /// The first field in which `self` and `other` differ, named as the
    /// protocol names it.
    pub fn difference(&self, other: &Step) -> Option<&'static str> {
        if self.to_move != other.to_move {
            Some("to_move")
        } else if self.legal_moves != other.legal_moves {
            Some("legal_moves")
        } else if self.views != other.views {
            Some("views")
        } else if self.scores != other.scores {
            Some("scores")
        } else if self.result != other.result {
            Some("result")
        } else if self.learned != other.learned {
            Some("learned")
        } else if self.state != other.state {
            Some("state")
        } else if self.text != other.text {
            Some("text")
        } else {
            None
        }
    }
}

/// Why an answer was refused: its kind, and the detail in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct BadAnswer {
    /// What is wrong, for matching on.
    pub kind: BadAnswerKind,
    /// What is wrong, in words.
    pub detail: String,
}

/// What is wrong with an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadAnswerKind {
    /// Not a JSON object.
    NotJson,
    /// Another `type` than the request asks for.
    WrongType,
    /// No `id`, or another request's.
    WrongId,
    /// A field missing or of the wrong shape.
    Malformed,
    /// Well-formed, but contradicting itself (a seat to move without
    /// legal moves, a result while a seat is to move).
    Contradiction,
}

impl BadAnswer {
    /// A refusal of this kind with this detail.
    pub fn new(kind: BadAnswerKind, detail: impl Into<String>) -> BadAnswer {
        BadAnswer { kind, detail: detail.into() }
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    id: Option<&'a RawValue>,
}

/// A step's fields, each JSON value as the slice of the line it was
/// written in; `type` and `id` too, as the scanner reads them.
#[derive(Deserialize)]
struct StepFields<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    id: Option<u64>,
    to_move: ToMove,
    #[serde(default)]
    legal_moves: Option<[MoveList; 2]>,
    #[serde(borrow)]
    views: [Raw<'a>; 2],
    scores: [Score; 2],
    #[serde(default)]
    result: Option<ResultField>,
    #[serde(borrow, default)]
    learned: Option<[Raw<'a>; 2]>,
    #[serde(borrow, default)]
    state: Option<Raw<'a>>,
    #[serde(default)]
    text: Option<String>,
}

/// The seats a step names as to move: a usual list as its seats (the
/// scanner reads no other), any other as it was written, for the step's
/// check to name.
enum ToMove {
    Seats(&'static [Seat]),
    Other(Vec<u8>),
}

impl<'de> Deserialize<'de> for ToMove {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ToMove, D::Error> {
        let seats = Vec::<u8>::deserialize(deserializer)?;
        Ok(match usual_seats(&seats) {
            Some(seats) => ToMove::Seats(seats),
            None => ToMove::Other(seats),
        })
    }
}

/// The seats a usual `to_move` list names (`[]`, `[1]`, `[2]` or
/// `[1, 2]`); `None` for any other list.
fn usual_seats(listed: &[u8]) -> Option<&'static [Seat]> {
    match listed {
        [] => Some(&[]),
        [1] => Some(&[Seat::One]),
        [2] => Some(&[Seat::Two]),
        [1, 2] => Some(&Seat::BOTH),
        _ => None,
    }
}

/// One JSON value, as the text it was written in, and whether that text
/// is known to be compact already.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Raw<'a> {
    text: &'a str,
    compact: bool,
}

impl Raw<'_> {
    fn null() -> Raw<'static> {
        Raw { text: "null", compact: true }
    }

    /// The value made compact (unless it is).
    fn to_json(self) -> RawJson {
        match self.compact {
            true => RawJson::compact_already(self.text),
            false => RawJson::compact(self.text),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Raw<'a>, D::Error> {
        <&'de RawValue>::deserialize(deserializer)
            .map(|raw| Raw { text: raw.get(), compact: false })
    }
}

/// A list of moves, each kept as the game wrote it (read in one pass).
struct MoveList(Vec<JsonMove>);

impl<'de> Deserialize<'de> for MoveList {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<MoveList, D::Error> {
        struct Moves;
        impl<'de> serde::de::Visitor<'de> for Moves {
            type Value = MoveList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of moves")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<MoveList, A::Error> {
                let mut moves = Vec::with_capacity(seq.size_hint().unwrap_or(8));
                while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                    moves.push(JsonMove::from_text(raw.get()));
                }
                Ok(MoveList(moves))
            }
        }
        deserializer.deserialize_seq(Moves)
    }
}

/// `{"winner": 1}`, `{"winner": 2}` or `{"winner": null}`, exactly: a
/// misspelt or missing `winner` must never read as a draw.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultField {
    #[serde(deserialize_with = "Option::deserialize")]
    winner: Option<u8>,
}

#[derive(Deserialize)]
struct RefuseFields {
    #[serde(default)]
    param: Option<String>,
    message: String,
}

/// Reads `line` as the answer to request `id` of `kind`. `moves` says
/// whether the game's moves are hidden, which makes `learned` required
/// after `apply`.
pub fn parse_answer(
    line: &[u8],
    kind: GameRequestKind,
    id: u64,
    moves: Moves,
) -> Result<Answer, BadAnswer> {
    // The common case first: a good step, read in one pass. Anything else
    // takes the careful path below, which says what is wrong.
    if kind != GameRequestKind::Hello
        && let Some(mut fields) = scan::scan_step(line)
        && fields.kind.as_deref() == Some("step")
        && fields.id == Some(id)
    {
        return step(&mut fields, kind == GameRequestKind::Apply && moves == Moves::Hidden)
            .map(|step| Answer::Step(Box::new(step)));
    }
    if let Some(is_json) = super::not_an_object(line) {
        // Text that is not JSON at all is most often a print meant as a log.
        let what = if is_json {
            "JSON, but not an object (an answer is one object, `{...}`, a line)"
        } else {
            "not JSON (an answer is one object, `{...}`, a line; write anything else to stderr)"
        };
        return Err(BadAnswer::new(
            BadAnswerKind::NotJson,
            format!("not a JSON answer object: the line is {what}"),
        ));
    }
    if let Some(why) = super::unreadable_json(line) {
        return Err(BadAnswer::new(
            BadAnswerKind::NotJson,
            format!("not a JSON answer object: {why}"),
        ));
    }
    let envelope: Envelope<'_> = serde_json::from_slice(line).map_err(|error| {
        // An object begun and not ended on its line: most often one
        // written over several lines.
        let why = match error.is_eof() {
            true => "the line ends before the object does (an answer is one object on one line: is it pretty-printed over several?)".to_owned(),
            false => error.to_string(),
        };
        BadAnswer::new(BadAnswerKind::NotJson, format!("not a JSON answer object: {why}"))
    })?;
    match envelope.id.map(|raw| serde_json::from_str::<u64>(raw.get())) {
        Some(Ok(found)) if found == id => {}
        Some(Ok(found)) => {
            return Err(BadAnswer::new(
                BadAnswerKind::WrongId,
                format!("the answer's id is {found}, the request's is {id}"),
            ));
        }
        Some(Err(_)) | None => {
            return Err(BadAnswer::new(
                BadAnswerKind::WrongId,
                format!("the answer has no whole-number `id` (expected {id})"),
            ));
        }
    }
    let expected: &[&str] = match kind {
        GameRequestKind::Hello => &["game"],
        GameRequestKind::Init => &["step", "refuse"],
        GameRequestKind::Apply => &["step"],
    };
    let found = envelope.kind.unwrap_or("");
    if !expected.contains(&found) {
        let wanted = expected.iter().map(|word| format!("`{word}`")).collect::<Vec<_>>();
        return Err(BadAnswer::new(
            BadAnswerKind::WrongType,
            match envelope.kind {
                Some(found) => format!(
                    "a `{}` request is answered with {}, not `{found}`",
                    kind.as_str(),
                    wanted.join(" or ")
                ),
                None => format!("the answer has no `type` (expected {})", wanted.join(" or ")),
            },
        ));
    }
    let malformed = |error: serde_path_to_error::Error<serde_json::Error>| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let words = inner.to_string();
        let position = format!(" at line {} column {}", inner.line(), inner.column());
        let why = in_json_words(words.strip_suffix(&position).unwrap_or(&words));
        BadAnswer::new(
            BadAnswerKind::Malformed,
            match path.as_str() {
                "" | "." => why,
                _ => format!("`{path}`: {why}"),
            },
        )
    };
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    match found {
        "game" => {
            let mut value: serde_json::Value =
                serde_json::from_slice(line).expect("parsed as an object above");
            let object = value.as_object_mut().expect("an object");
            object.remove("type");
            object.remove("id");
            Declaration::from_value(value)
                .map(|declaration| Answer::Game(Box::new(declaration)))
                .map_err(|why| BadAnswer::new(BadAnswerKind::Malformed, why))
        }
        "refuse" => {
            let fields: RefuseFields =
                serde_path_to_error::deserialize(&mut deserializer).map_err(malformed)?;
            Ok(Answer::Refuse(Refusal { param: fields.param, message: fields.message }))
        }
        _ => {
            let mut fields: StepFields<'_> =
                serde_path_to_error::deserialize(&mut deserializer).map_err(malformed)?;
            step(&mut fields, kind == GameRequestKind::Apply && moves == Moves::Hidden)
                .map(|step| Answer::Step(Box::new(step)))
        }
    }
}

/// serde's words for a value of the wrong type, with the Rust type it
/// expected said as JSON says it: "expected i64" is "expected a whole
/// number" to a game's author.
fn in_json_words(why: &str) -> String {
    let mut said = arena_base::spelling::suggest_field(why.to_owned());
    for rust in ["i64", "u64", "u32", "u8"] {
        said = said.replace(&format!("expected {rust}"), "expected a whole number");
    }
    said
}

/// A step from its fields, checked for contradictions, their lists taken
/// (borrowed, not moved: the fields are large, and read on every turn).
fn step(fields: &mut StepFields<'_>, learned_required: bool) -> Result<Step, BadAnswer> {
    let contradiction = |detail: String| BadAnswer::new(BadAnswerKind::Contradiction, detail);
    let to_move: &'static [Seat] = match &fields.to_move {
        ToMove::Seats(seats) => seats,
        ToMove::Other(other) => {
            return Err(BadAnswer::new(
                BadAnswerKind::Malformed,
                format!("`to_move` is {other:?}: it must be [], [1], [2] or [1, 2]"),
            ));
        }
    };
    let legal_moves =
        fields.legal_moves.take().map_or_else(Default::default, |lists| lists.map(|list| list.0));
    for seat in Seat::BOTH {
        let moving = to_move.contains(&seat);
        let count = legal_moves[seat.index()].len();
        if moving && count == 0 {
            return Err(contradiction(format!(
                "seat {seat} is to move but has no legal moves (`legal_moves[{}]` is empty)",
                seat.index()
            )));
        }
        if !moving && count > 0 {
            return Err(contradiction(format!(
                "seat {seat} is not to move but has {count} legal move{}",
                if count == 1 { "" } else { "s" }
            )));
        }
    }
    let result = match fields.result {
        Some(ResultField { winner: None }) => Some(Outcome::draw()),
        Some(ResultField { winner: Some(number) }) => match Seat::from_number(number) {
            Some(seat) => Some(Outcome::win(seat)),
            None => {
                return Err(BadAnswer::new(
                    BadAnswerKind::Malformed,
                    format!("`result.winner` is {number}: it must be 1, 2 or null"),
                ));
            }
        },
        None => None,
    };
    match (to_move.is_empty(), result.is_some()) {
        (true, false) => {
            return Err(contradiction(
                "no seat is to move but there is no `result`: a finished game gives its result"
                    .to_owned(),
            ));
        }
        (false, true) => {
            return Err(contradiction(format!(
                "the step gives a result while seat {} is to move",
                to_move[0]
            )));
        }
        _ => {}
    }
    if learned_required && fields.learned.is_none() {
        return Err(BadAnswer::new(
            BadAnswerKind::Malformed,
            "a game with hidden moves answers `apply` with `learned`: what each seat learns of the other's move (null for nothing)",
        ));
    }
    Ok(Step {
        to_move,
        legal_moves,
        views: fields.views.map(Raw::to_json),
        scores: fields.scores,
        result,
        learned: fields.learned.map(|learned| learned.map(Raw::to_json)),
        state: fields.state.filter(|state| state.text != "null").map(Raw::to_json),
        text: fields.text.take(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str, kind: GameRequestKind) -> Result<Answer, BadAnswer> {
        parse_answer(line.as_bytes(), kind, 2, Moves::Public)
    }

    const STEP: &str = r#"{"type": "step", "id": 2, "to_move": [1], "legal_moves": [[0, 1], []], "views": [{"b": 1, "a": 2}, {"b": 1}], "scores": [0, 0], "note": "ignored"}"#;

    #[test]
    fn a_step_is_read_with_its_views_as_written() {
        let Ok(Answer::Step(step)) = answer(STEP, GameRequestKind::Init) else { panic!() };
        assert_eq!(step.to_move, &[Seat::One]);
        assert_eq!(step.legal_moves[0].len(), 2);
        assert_eq!(step.views[0].as_str(), r#"{"b":1,"a":2}"#);
        assert_eq!(step.result, None);
    }

    #[test]
    fn contradictions_and_bad_shapes_are_named() {
        let kind = |line: &str| answer(line, GameRequestKind::Apply).unwrap_err().kind;
        let patched = |from: &str, to: &str| STEP.replace(from, to);
        assert_eq!(kind(&patched("[[0, 1], []]", "[[], []]")), BadAnswerKind::Contradiction);
        assert_eq!(kind(&patched("[[0, 1], []]", "[[0], [1]]")), BadAnswerKind::Contradiction);
        assert_eq!(
            kind(&patched(r#""to_move": [1]"#, r#""to_move": []"#)),
            BadAnswerKind::Contradiction
        );
        assert_eq!(
            kind(&patched(r#""scores""#, r#""result": {"winner": 1}, "scores""#)),
            BadAnswerKind::Contradiction
        );
        assert_eq!(kind(&patched(r#", {"b": 1}]"#, "]")), BadAnswerKind::Malformed);
        assert_eq!(kind(&patched(r#""id": 2"#, r#""id": 3"#)), BadAnswerKind::WrongId);
        assert_eq!(kind(&patched(r#""step""#, r#""game""#)), BadAnswerKind::WrongType);
        assert_eq!(kind("debug output"), BadAnswerKind::NotJson);
        // A JVM's warning on stdout reads as an array to serde.
        let warning =
            answer("[0.023s][warning][os,thread] Failed to start thread", GameRequestKind::Apply);
        assert_eq!(
            warning.unwrap_err().detail,
            "not a JSON answer object: the line is not JSON (an answer is one object, `{...}`, a line; write anything else to stderr)"
        );
        // A pretty-printed answer's first line.
        let begun = answer("{", GameRequestKind::Apply).unwrap_err();
        assert!(begun.detail.contains("is it pretty-printed over several?"), "{}", begun.detail);
        // A number's type said as JSON says it, not as Rust does.
        let text = answer(&patched("[0, 0]", r#"["046", 0]"#), GameRequestKind::Apply).unwrap_err();
        assert_eq!(text.detail, r#"`scores[0]`: invalid type: string "046", expected a number"#);
        let array = answer("[1, 2]", GameRequestKind::Apply).unwrap_err();
        assert!(array.detail.contains("JSON, but not an object"), "{}", array.detail);
        let missing =
            answer(&patched(r#""views""#, r#""view""#), GameRequestKind::Apply).unwrap_err();
        assert!(missing.detail.contains("views"), "{}", missing.detail);
        let hidden = parse_answer(STEP.as_bytes(), GameRequestKind::Apply, 2, Moves::Hidden);
        assert!(hidden.unwrap_err().detail.contains("learned"));
        let over = r#"{"type":"step","id":2,"to_move":[],"views":[1,2],"scores":[3,1],"result":{"winner":null}}"#;
        let Ok(Answer::Step(step)) = answer(over, GameRequestKind::Apply) else { panic!() };
        assert_eq!(step.result, Some(Outcome::draw()));
        // A misspelt, missing or padded `winner` is no draw.
        for result in [r#"{}"#, r#"{"winer":1}"#, r#"{"winner":1,"by":"points"}"#] {
            let line = over.replace(r#"{"winner":null}"#, result);
            let refused = answer(&line, GameRequestKind::Apply).unwrap_err();
            assert_eq!(refused.kind, BadAnswerKind::Malformed, "{result}: {}", refused.detail);
        }
    }

    #[test]
    fn a_refusal_names_its_parameter() {
        let refused = answer(
            r#"{"type":"refuse","id":2,"param":"rows","message":"must be even"}"#,
            GameRequestKind::Init,
        );
        let Ok(Answer::Refuse(refusal)) = refused else { panic!("{refused:?}") };
        assert_eq!(refusal.to_string(), "parameter `rows`: must be even");
        // The program's words reach the terminal: made printable.
        let refused =
            answer(r#"{"type":"refuse","id":2,"message":"no\u001b[2J"}"#, GameRequestKind::Init);
        let Ok(Answer::Refuse(refusal)) = refused else { panic!("{refused:?}") };
        assert_eq!(refusal.to_string(), r"no\u{1b}[2J");
        assert!(
            answer(r#"{"type":"refuse","id":2,"message":"no"}"#, GameRequestKind::Apply).is_err()
        );
    }
}
