//! A game's parameters: the trait their types implement, the checks their
//! values go through, reading them from JSON overrides, and the errors that
//! name what is wrong.

use std::borrow::Cow;
use std::fmt;
use std::ops::RangeInclusive;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A parameter value that the rules do not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}`: {message}")]
pub struct ParamError {
    /// The parameter's name, as files and `--param` spell it.
    pub param: Cow<'static, str>,
    /// What is wrong with its value.
    pub message: String,
}

impl ParamError {
    /// Refuses the value of `param`, saying why.
    pub fn new(param: &'static str, message: impl Into<String>) -> ParamError {
        ParamError { param: Cow::Borrowed(param), message: message.into() }
    }
}

/// The most numbers a list, pool or grid may hold. Every request carries
/// the whole position and a transcript is kept in memory until its game
/// ends, so positions stay small.
pub const MAX_NUMBERS: u32 = 1000;

/// Checks that parameter `param` lies in `range`, with a message that names
/// the allowed bounds and the value given.
pub fn check_range(
    param: &'static str,
    value: u32,
    range: RangeInclusive<u32>,
) -> Result<(), ParamError> {
    if range.contains(&value) {
        Ok(())
    } else {
        let (low, high) = range.into_inner();
        Err(ParamError::new(param, format!("must be between {low} and {high}, got {value}")))
    }
}

/// A game's settings. Defaults are the rule book's own numbers; every
/// implementation denies unknown fields so a misspelt parameter is an error.
pub trait GameParams:
    Clone + fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Checks ranges and relations between fields, naming the offending one.
    fn validate(&self) -> Result<(), ParamError>;
}

/// Checks that `max` (parameter `max`) is at least `count`, so that
/// `count` distinct numbers up to `max` can be drawn.
pub fn check_distinct(count: u32, max: u32) -> Result<(), ParamError> {
    if max < count {
        return Err(ParamError::new(
            "max",
            format!("must be at least count ({count}) so the numbers can be distinct, got {max}"),
        ));
    }
    Ok(())
}

/// Reads a game's parameters from a JSON object of overrides (missing fields
/// keep the rule book's default) and validates them.
///
/// Each override is first compared with the rule book's default: a name the
/// game does not have, or a value of another JSON type than the default's,
/// is refused with the parameter's name and what it should be.
pub fn parse_params<P: GameParams>(
    overrides: serde_json::Map<String, serde_json::Value>,
) -> Result<P, ParamsError> {
    let defaults = serde_json::to_value(P::default()).expect("parameters serialize");
    let defaults = defaults.as_object().expect("parameters are an object");
    for (name, value) in &overrides {
        let Some(default) = defaults.get(name) else {
            return Err(ParamsError::Shape(ShapeError::Unknown {
                param: name.clone(),
                known: defaults.keys().cloned().collect(),
            }));
        };
        if let Some(expected) = expected_like(default, value) {
            return Err(ParamsError::Shape(ShapeError::WrongType {
                param: name.clone(),
                expected,
                got: value.to_string(),
            }));
        }
    }
    // What is left (a number too large for its type): the path names the
    // parameter, which serde's own message leaves out.
    let params: P = serde_path_to_error::deserialize(serde_json::Value::Object(overrides))
        .map_err(|error| {
            let name = error.path().to_string();
            ParamsError::Shape(ShapeError::Other {
                param: (!matches!(name.as_str(), "" | ".")).then_some(name),
                message: error.into_inner().to_string(),
            })
        })?;
    params.validate()?;
    Ok(params)
}

/// What `value` should have been, when it is not of the JSON type of
/// `default`: "a whole number" where the default is one, and so on.
fn expected_like(default: &serde_json::Value, value: &serde_json::Value) -> Option<&'static str> {
    use serde_json::Value;
    let (expected, fits) = match default {
        // -1 is a whole number to most people: say which ones.
        Value::Number(number) if number.is_u64() && value.as_i64().is_some_and(|v| v < 0) => {
            ("a whole number of 0 or more", false)
        }
        Value::Number(number) if number.is_u64() => ("a whole number", value.is_u64()),
        Value::Number(number) if number.is_i64() => ("an integer", value.is_i64()),
        Value::Number(_) => ("a number", value.is_number()),
        Value::Bool(_) => ("true or false", value.is_boolean()),
        Value::String(_) => ("a string", value.is_string()),
        _ => return None,
    };
    (!fits).then_some(expected)
}

/// Why a set of game parameters was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamsError {
    /// An unknown name or a value of the wrong type.
    Shape(ShapeError),
    /// A value the rules do not allow.
    Invalid(ParamError),
}

/// A parameter the game does not have, or a value of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// No parameter has this name.
    Unknown {
        /// The name given.
        param: String,
        /// The game's parameters' names.
        known: Vec<String>,
    },
    /// A value of another type than the parameter's.
    WrongType {
        /// The parameter's name.
        param: String,
        /// What its value must be: "a whole number".
        expected: &'static str,
        /// The value given, as JSON.
        got: String,
    },
    /// Anything else the parameters' reader refused.
    Other {
        /// The parameter's name, when the problem has one.
        param: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl From<ParamError> for ParamsError {
    fn from(error: ParamError) -> ParamsError {
        ParamsError::Invalid(error)
    }
}

impl ParamsError {
    /// The parameter at fault, when one is.
    pub fn param(&self) -> Option<&str> {
        match self {
            ParamsError::Shape(
                ShapeError::Unknown { param, .. } | ShapeError::WrongType { param, .. },
            ) => Some(param),
            ParamsError::Shape(ShapeError::Other { param, .. }) => param.as_deref(),
            ParamsError::Invalid(error) => Some(&error.param),
        }
    }

    /// What is wrong, without the parameter's name.
    fn problem(&self) -> String {
        match self {
            ParamsError::Shape(ShapeError::Unknown { param, known }) => {
                let names = known.iter().map(String::as_str);
                match (arena_base::spelling::closest(param, names), known.is_empty()) {
                    (Some(meant), _) => format!(
                        "no such parameter: did you mean `{meant}`? (the parameters are {})",
                        known.join(", ")
                    ),
                    (None, true) => "no such parameter (the game has none)".to_owned(),
                    (None, false) => {
                        format!("no such parameter (the parameters are {})", known.join(", "))
                    }
                }
            }
            ParamsError::Shape(ShapeError::WrongType { param, expected, got }) => {
                // A number or a truth value written in quotes: say how to
                // write it instead.
                let unquoted = serde_json::from_str::<String>(got).ok().filter(|text| {
                    matches!(
                        serde_json::from_str::<serde_json::Value>(text),
                        Ok(serde_json::Value::Number(_) | serde_json::Value::Bool(_))
                    )
                });
                match unquoted {
                    Some(text) => format!(
                        "expected {expected}, got {got}: write it without quotes, {param} = {text}"
                    ),
                    None => format!("expected {expected}, got {got}"),
                }
            }
            ParamsError::Shape(ShapeError::Other { message, .. }) => message.clone(),
            ParamsError::Invalid(error) => error.message.clone(),
        }
    }
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.param() {
            Some(param) => write!(f, "parameter `{param}`: {}", self.problem()),
            None => f.write_str(&self.problem()),
        }
    }
}

impl std::error::Error for ParamsError {}

/// Parameters refused for a game: the game, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    /// The id of the game the parameters were for.
    pub game: String,
    /// What is wrong with them.
    pub error: ParamsError,
}

impl fmt::Display for SetupError {
    /// "parameter `count` of numbers-war: expected a whole number, got \"x\"".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error.param() {
            Some(param) => {
                write!(f, "parameter `{param}` of {}: {}", self.game, self.error.problem())
            }
            None => write!(f, "{} parameters: {}", self.game, self.error.problem()),
        }
    }
}

impl std::error::Error for SetupError {}
