//! A game written as a program: what it says of itself in answer to
//! `hello` (its [`Declaration`]), and its parameters checked against that
//! declaration as the built-in games' are against their rule books.
//!
//! This is data only: running the program is the referee's business
//! (game-protocol.md is the contract, `referee::game_program` the client).

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod declares;
mod json_move;

use super::{ParamError, ParamsError, ShapeError};

pub use declares::{Declares, Payoffs};
pub use json_move::{JsonMove, first_inexact, inexact_words};

/// Most parameters a game may declare.
const MAX_PARAMS: usize = 64;
/// Most turns a game may declare.
pub const MAX_TURNS: u32 = 1_000_000;

/// A game program: the command that runs it and what it declared.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramGame {
    /// Program and arguments, the program resolved against `dir` (no shell
    /// runs them).
    pub argv: Vec<String>,
    /// The command as the user wrote it (what results folders record).
    pub written: Vec<String>,
    /// The folder it runs in; arena's own when `None`.
    pub dir: Option<PathBuf>,
    /// Its own folder, as `game_dir` declares it (its box shows it; else
    /// the folder of its program or script).
    pub folder: Option<PathBuf>,
    /// What it said of itself.
    pub declaration: Declaration,
}

/// How bots are sent `history`: every move every time, or the moves since
/// a bot's previous request of the game (protocol.md, "The new moves
/// only"). A game program may declare it for its bots (`hello`'s
/// `history`); a bot may ask for it in its `ready`, over the game's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryMode {
    /// `"full"`: the whole history every time.
    #[default]
    Full,
    /// `"new"`: what is new since the bot's previous request of the game,
    /// with `history_from` saying where it begins.
    New,
}

impl HistoryMode {
    fn is_full(&self) -> bool {
        *self == HistoryMode::Full
    }
}

/// Whether bots see each other's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moves {
    /// Every move is shown to both seats once its turn is played (in
    /// `history`, and in `reveal` after a simultaneous turn).
    Public,
    /// A seat is shown its own moves, and of the other seat's only what the
    /// game says it learns.
    Hidden,
}

/// What a game program says of itself in answer to `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// The game's id: lowercase letters, digits and `-`, as in `start`,
    /// games.csv and transcripts.
    pub name: String,
    /// The name people read; the id when left out.
    #[serde(default)]
    pub title: Option<String>,
    /// The program's own version, shown in transcripts.
    #[serde(default)]
    pub version: Option<String>,
    /// Seats: 2, the only number arena plays.
    pub seats: u32,
    /// Whether moves are public or hidden.
    pub moves: Moves,
    /// Whether the seed changes the game (a deal, a shuffle, dice).
    pub random: bool,
    /// Whether what the seed deals may be seen by one seat only (a hand,
    /// dice under a cup); left out, as `random` says. Such a game is never
    /// dealt the same twice to a pairing (see [`Declaration::deals_privately`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_chance: Option<bool>,
    /// The most turns (`apply` requests) a game can last; a game that goes on longer
    /// is at fault.
    pub max_turns: u32,
    /// How its bots are sent `history` unless a bot's `ready` asks
    /// otherwise; left out, the whole history.
    #[serde(default, skip_serializing_if = "HistoryMode::is_full")]
    pub history: HistoryMode,
    /// Whether the scores are payoffs (chips won, a utility), and their
    /// range: standings then rank by mean payoff; left out, they rank by
    /// wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoffs: Option<Payoffs>,
    /// The parameters, in the order `start` lists them. Required, if
    /// empty: a game that left it out would be sent no parameters and
    /// refuse them, and the author would look for the fault elsewhere.
    pub params: Vec<ParamSpec>,
}

/// One parameter a game program declares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// Its name, as files and `--param` spell it.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// The smallest value allowed (numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<serde_json::Number>,
    /// The largest value allowed (numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<serde_json::Number>,
    /// The values allowed (strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// Its value when none is given.
    pub default: Value,
    /// What it is, in words (`arena check-game` shows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A string.
    String,
}

impl Declaration {
    /// Whether the seed deals what one seat may see and the other not:
    /// `private_chance`, else `random`. The second game of a setup plays
    /// the seats swapped; dealt the same, each seat would be dealt what the
    /// other held (and was shown at the end) in the first, so such a game
    /// gets a setup of its own every game.
    pub fn deals_privately(&self) -> bool {
        self.random && self.private_chance.unwrap_or(true)
    }

    /// Reads a declaration from the fields of a `hello` answer (without
    /// `type` and `id`), checking what serde cannot: the id's form, two
    /// seats, distinct parameter names and defaults that their own rules
    /// allow.
    pub fn from_value(value: Value) -> Result<Declaration, String> {
        let declaration: Declaration =
            serde_path_to_error::deserialize(value).map_err(|error| {
                let path = error.path().to_string();
                let why = arena_base::spelling::suggest_field(error.into_inner().to_string());
                match path.as_str() {
                    "" | "." => why,
                    _ => format!("`{path}`: {why}"),
                }
            })?;
        declaration.check()?;
        Ok(declaration)
    }

    fn check(&self) -> Result<(), String> {
        check_game_name(&self.name)?;
        // Shown as they are: on the terminal, in check-game's report, in
        // the Markdown report.
        // A parameter's values and doc may run over lines (a board or a
        // layout given as text): shown escaped, a line break is no hazard.
        let mut texts: Vec<(&str, &str, bool)> = Vec::new();
        texts.extend(self.title.as_deref().map(|title| ("title", title, false)));
        texts.extend(self.version.as_deref().map(|version| ("version", version, false)));
        for spec in &self.params {
            texts.extend(spec.doc.as_deref().map(|doc| ("doc", doc, true)));
            let choices = spec.choices.iter().flatten();
            texts.extend(choices.map(|choice| ("choices", choice.as_str(), true)));
            texts.extend(spec.default.as_str().map(|default| ("default", default, true)));
        }
        for (field, text, lines_allowed) in texts {
            let hazard = match lines_allowed {
                true => text.split('\n').find_map(arena_base::printable::hazard),
                false => arena_base::printable::hazard(text),
            };
            if let Some(c) = hazard {
                return Err(format!(
                    "`{field}` holds a control character ({}), which would reach a terminal as it is: {}",
                    arena_base::printable::printable(&c.to_string()),
                    arena_base::printable::printable(text)
                ));
            }
        }
        if self.seats != 2 {
            return Err(format!("`seats` is {}: arena plays two-seat games only", self.seats));
        }
        if !(1..=MAX_TURNS).contains(&self.max_turns) {
            return Err(format!(
                "`max_turns` must be from 1 to {MAX_TURNS}, got {}",
                self.max_turns
            ));
        }
        if let Some(payoffs) = &self.payoffs {
            payoffs.check()?;
        }
        if self.params.len() > MAX_PARAMS {
            return Err(format!("at most {MAX_PARAMS} parameters, got {}", self.params.len()));
        }
        for (index, spec) in self.params.iter().enumerate() {
            if spec.name.is_empty()
                || !spec.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(format!(
                    "parameter name {:?}: use letters, digits, `_` and `-`",
                    spec.name
                ));
            }
            if self.params[..index].iter().any(|other| other.name == spec.name) {
                return Err(format!("parameter `{}` is declared twice", spec.name));
            }
            spec.check_rules().map_err(|why| format!("parameter `{}`: {why}", spec.name))?;
            spec.check(&spec.default).map_err(|why| {
                format!("parameter `{}`: its default {}: {why}", spec.name, spec.default)
            })?;
        }
        Ok(())
    }

    /// The name people read.
    pub fn title(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The full parameters for `overrides` (names the game declares, each
    /// value checked against its type and range), the rest at their
    /// defaults, in declaration order.
    pub fn params_from(&self, overrides: &Map<String, Value>) -> Result<ParamValues, ParamsError> {
        for name in overrides.keys() {
            if !self.params.iter().any(|spec| &spec.name == name) {
                return Err(ParamsError::Shape(ShapeError::Unknown {
                    param: name.clone(),
                    known: self.params.iter().map(|spec| spec.name.clone()).collect(),
                }));
            }
        }
        let mut values = Vec::with_capacity(self.params.len());
        for spec in &self.params {
            let value = overrides.get(&spec.name).unwrap_or(&spec.default);
            if let Some(expected) = spec.type_mismatch(value) {
                return Err(ParamsError::Shape(ShapeError::WrongType {
                    param: spec.name.clone(),
                    expected,
                    got: value.to_string(),
                }));
            }
            spec.check(value).map_err(|message| {
                ParamsError::Invalid(ParamError { param: spec.name.clone().into(), message })
            })?;
            values.push((spec.name.clone(), value.clone()));
        }
        Ok(ParamValues(values))
    }
}

impl ParamSpec {
    /// Whether `value` is one this parameter allows; why not.
    fn check(&self, value: &Value) -> Result<(), String> {
        if let Some(expected) = self.type_mismatch(value) {
            return Err(format!("expected {expected}, got {value}"));
        }
        match self.kind {
            ParamType::Integer => {
                let bound =
                    |bound: &Option<serde_json::Number>| bound.as_ref().and_then(|n| n.as_i64());
                outside(value.as_i64().expect("an integer"), bound(&self.min), bound(&self.max))
            }
            ParamType::Number => {
                let bound =
                    |bound: &Option<serde_json::Number>| bound.as_ref().and_then(|n| n.as_f64());
                outside(value.as_f64().expect("a number"), bound(&self.min), bound(&self.max))
            }
            ParamType::Boolean => Ok(()),
            ParamType::String => match &self.choices {
                Some(choices)
                    if !choices.iter().any(|choice| Some(choice.as_str()) == value.as_str()) =>
                {
                    Err(format!("must be one of {}, got {value}", quoted(choices)))
                }
                _ => Ok(()),
            },
        }
    }

    /// What a value must be when `value` is of another JSON type.
    fn type_mismatch(&self, value: &Value) -> Option<&'static str> {
        let (expected, fits) = match self.kind {
            ParamType::Integer => ("a whole number", value.is_i64()),
            ParamType::Number => ("a number", value.is_number()),
            ParamType::Boolean => ("true or false", value.is_boolean()),
            ParamType::String => ("a string", value.is_string()),
        };
        (!fits).then_some(expected)
    }

    /// That the bounds and choices fit the type and each other.
    fn check_rules(&self) -> Result<(), String> {
        let numeric = matches!(self.kind, ParamType::Integer | ParamType::Number);
        if !numeric && (self.min.is_some() || self.max.is_some()) {
            return Err("`min` and `max` are for integers and numbers".to_owned());
        }
        if self.kind == ParamType::Integer
            && [&self.min, &self.max].into_iter().flatten().any(|bound| !bound.is_i64())
        {
            return Err("the bounds of an integer are whole numbers".to_owned());
        }
        if let (Some(low), Some(high)) = (&self.min, &self.max)
            && low.as_f64() > high.as_f64()
        {
            return Err("`min` is above `max`".to_owned());
        }
        match (&self.choices, self.kind) {
            (Some(_), kind) if kind != ParamType::String => {
                Err("`choices` are for strings".to_owned())
            }
            (Some(choices), _) if choices.is_empty() => Err("`choices` is empty".to_owned()),
            _ => Ok(()),
        }
    }

    /// How the type is written in listings: "integer 4..12".
    pub fn describe(&self) -> String {
        let show = |bound: &Option<serde_json::Number>| {
            bound.as_ref().map(ToString::to_string).unwrap_or_default()
        };
        let range = match (&self.min, &self.max) {
            (None, None) => String::new(),
            (min, max) => format!(" {}..{}", show(min), show(max)),
        };
        match (self.kind, &self.choices) {
            (ParamType::Integer, _) => format!("integer{range}"),
            (ParamType::Number, _) => format!("number{range}"),
            (ParamType::Boolean, _) => "boolean".to_owned(),
            (ParamType::String, Some(choices)) => format!("one of {}", quoted(choices)),
            (ParamType::String, None) => "string".to_owned(),
        }
    }
}

/// "must be between 1 and 9, got 12", or nothing when `value` is in range.
fn outside<T: PartialOrd + fmt::Display + Copy>(
    value: T,
    min: Option<T>,
    max: Option<T>,
) -> Result<(), String> {
    match (min, max) {
        (Some(low), Some(high)) if value < low || value > high => {
            Err(format!("must be between {low} and {high}, got {value}"))
        }
        (Some(low), None) if value < low => Err(format!("must be at least {low}, got {value}")),
        (None, Some(high)) if value > high => Err(format!("must be at most {high}, got {value}")),
        _ => Ok(()),
    }
}

fn quoted(choices: &[String]) -> String {
    choices.iter().map(|choice| format!("\"{choice}\"")).collect::<Vec<_>>().join(", ")
}

/// Checks a game id: 1 to 40 characters, lowercase letters, digits and
/// `-`, starting with a letter (so it can never be taken for a path).
pub fn check_game_name(name: &str) -> Result<(), String> {
    let good = (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    match good {
        true => Ok(()),
        false => Err(format!(
            "`name` {name:?} must be 1 to 40 lowercase letters, digits and `-`, starting with a letter"
        )),
    }
}

/// A game program's parameters, every one with its value, in declaration
/// order (the order `start` and `init` write them in).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamValues(pub Vec<(String, Value)>);

impl ParamValues {
    /// The value of `name`, if the game has it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value)
    }

    /// The same parameters with `name` set to `value` (added if absent).
    pub fn with(&self, name: &str, value: Value) -> ParamValues {
        let mut values = self.clone();
        match values.0.iter_mut().find(|(key, _)| key == name) {
            Some((_, old)) => *old = value,
            None => values.0.push((name.to_owned(), value)),
        }
        values
    }
}

impl Serialize for ParamValues {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use serde_json::json;

    use super::*;

    pub(super) fn declaration() -> Declaration {
        Declaration::from_value(json!({
            "name": "connect-four", "title": "Connect Four", "seats": 2, "moves": "public",
            "random": false, "max_turns": 42,
            "params": [
                {"name": "rows", "type": "integer", "min": 4, "max": 12, "default": 6},
                {"name": "cols", "type": "integer", "min": 4, "max": 12, "default": 7},
                {"name": "variant", "type": "string", "choices": ["classic", "pop"], "default": "classic"},
                {"name": "fast", "type": "boolean", "default": false}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_declaration_reads_and_fills_defaults_in_its_order() {
        let declaration = declaration();
        assert_eq!(declaration.title(), "Connect Four");
        let overrides = Map::from_iter([("cols".to_owned(), json!(9))]);
        let params = declaration.params_from(&overrides).unwrap();
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"rows":6,"cols":9,"variant":"classic","fast":false}"#
        );
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let declaration = declaration();
        let refused = |name: &str, value: Value| {
            let overrides = Map::from_iter([(name.to_owned(), value)]);
            declaration.params_from(&overrides).unwrap_err().to_string()
        };
        assert_eq!(
            refused("rows", json!(13)),
            "parameter `rows`: must be between 4 and 12, got 13"
        );
        assert_eq!(
            refused("rows", json!("x")),
            r#"parameter `rows`: expected a whole number, got "x""#
        );
        assert_eq!(
            refused("rows", json!(4.5)),
            "parameter `rows`: expected a whole number, got 4.5"
        );
        assert_eq!(
            refused("variant", json!("odd")),
            r#"parameter `variant`: must be one of "classic", "pop", got "odd""#
        );
        assert_eq!(
            refused("depth", json!(1)),
            "parameter `depth`: no such parameter (the parameters are rows, cols, variant, fast)"
        );
        assert_eq!(
            refused("row", json!(6)),
            "parameter `row`: no such parameter: did you mean `rows`? (the parameters are rows, cols, variant, fast)"
        );
        assert_eq!(
            refused("rows", json!("6")),
            r#"parameter `rows`: expected a whole number, got "6": write it without quotes, rows = 6"#
        );
    }

    #[test]
    fn a_bad_declaration_says_what_is_wrong() {
        let bad = |patch: Value| {
            let mut value = serde_json::to_value(declaration()).unwrap();
            for (key, field) in patch.as_object().unwrap() {
                value[key] = field.clone();
            }
            Declaration::from_value(value).unwrap_err()
        };
        assert!(bad(json!({"seats": 3})).contains("two-seat"));
        assert!(bad(json!({"name": "Connect Four"})).contains("lowercase"));
        assert!(bad(json!({"moves": "secret"})).contains("`moves`"));
        assert!(bad(json!({"max_turns": 0})).contains("max_turns"));
        let mut without_params = serde_json::to_value(declaration()).unwrap();
        without_params.as_object_mut().unwrap().remove("params");
        assert_eq!(Declaration::from_value(without_params).unwrap_err(), "missing field `params`");
        let twice = json!([{"name": "a", "type": "boolean", "default": true},
                           {"name": "a", "type": "boolean", "default": true}]);
        assert!(bad(json!({"params": twice})).contains("declared twice"));
        let default = json!([{"name": "n", "type": "integer", "min": 1, "max": 3, "default": 5}]);
        assert!(bad(json!({"params": default})).contains("its default 5"));
        // Texts shown as they are hold no control characters.
        let title = bad(json!({"title": "Four\u{1b}]0;pwned\u{7}"}));
        let said = r"`title` holds a control character (\u{1b}), which would reach a terminal as it is: Four\u{1b}]0;pwned\u{7}";
        assert_eq!(title, said);
        assert!(bad(json!({"version": "1\u{202e}"})).contains("`version`"));
        let doc = json!([{"name": "n", "type": "integer", "default": 5, "doc": "a\rb"}]);
        assert!(bad(json!({"params": doc})).contains("`doc`"));
        let choices =
            json!([{"name": "s", "type": "string", "choices": ["x", "\u{1b}[2J"], "default": "x"}]);
        assert!(bad(json!({"params": choices})).contains("`choices`"));
        // A parameter's text may run over lines (a board given as text);
        // a title may not.
        let board = json!([{"name": "board", "type": "string", "default": "x.o\n.x.\no.x",
                            "doc": "the start:\nrows top to bottom"}]);
        let mut value = serde_json::to_value(declaration()).unwrap();
        value["params"] = board;
        let declared = Declaration::from_value(value).expect("a default over lines");
        assert_eq!(declared.params[0].default, json!("x.o\n.x.\no.x"));
        assert!(bad(json!({"title": "Four\nRows"})).contains("`title`"));
        // A misspelt field is told the one it was likely meant to be.
        let misspelt = bad(json!({"max_turn": 42}));
        assert!(
            misspelt.starts_with(
                "`max_turn`: unknown field `max_turn`: did you mean `max_turns`? (expected "
            ),
            "{misspelt}"
        );
        let unknown = json!([{"name": "n", "type": "integer", "default": 5, "step": 2}]);
        assert!(
            bad(json!({"params": unknown})).contains("step"),
            "{}",
            bad(json!({"params": unknown}))
        );
    }
}
