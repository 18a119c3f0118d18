//! Places inside a JSON value: found as JSON pointers (RFC 6901, as
//! `serde_json::Value::pointer` reads them) and written as check-game shows
//! them (`state.bids[1]`); where two answers first differ.

use serde_json::Value;

use arena_base::json::RawJson;
use arena_protocol::game::Step;

/// Longest value shown beside a path.
const SHOWN_CHARS: usize = 80;

/// `key` as a token of a JSON pointer (RFC 6901: `~` and `/` escaped).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer as check-game writes places: `/hand/0` as `hand[0]`.
pub fn written(pointer: &str) -> String {
    let mut text = String::new();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.bytes().all(|byte| byte.is_ascii_digit()) && !token.is_empty() {
            text.push_str(&format!("[{token}]"));
        } else {
            if !text.is_empty() {
                text.push('.');
            }
            text.push_str(&token);
        }
    }
    text
}

/// Where `one` and `other` first differ (`path` is where they sit), with
/// what each holds there (`None`: nothing).
pub fn first_difference(
    one: &Value,
    other: &Value,
    path: String,
) -> Option<(String, Option<Value>, Option<Value>)> {
    match (one, other) {
        (Value::Object(mine), Value::Object(theirs)) => {
            for (key, value) in mine {
                let at = format!("{path}.{key}");
                match theirs.get(key) {
                    Some(their) => {
                        if let Some(found) = first_difference(value, their, at) {
                            return Some(found);
                        }
                    }
                    None => return Some((at, Some(value.clone()), None)),
                }
            }
            let (key, value) = theirs.iter().find(|(key, _)| !mine.contains_key(*key))?;
            Some((format!("{path}.{key}"), None, Some(value.clone())))
        }
        (Value::Array(mine), Value::Array(theirs)) => {
            for index in 0..mine.len().max(theirs.len()) {
                let at = format!("{path}[{index}]");
                match (mine.get(index), theirs.get(index)) {
                    (Some(value), Some(their)) => {
                        if let Some(found) = first_difference(value, their, at) {
                            return Some(found);
                        }
                    }
                    (value, their) => return Some((at, value.cloned(), their.cloned())),
                }
            }
            None
        }
        _ => (one != other).then(|| (path, Some(one.clone()), Some(other.clone()))),
    }
}

/// Field `field` of `step` (named as the protocol names it) as JSON.
pub fn field_value(step: &Step, field: &str) -> Value {
    let raw = |raw: &RawJson| serde_json::from_str(raw.as_str()).unwrap_or(Value::Null);
    let pair = |pair: &[RawJson; 2]| Value::Array(pair.iter().map(raw).collect());
    match field {
        "to_move" => step.to_move.iter().map(|seat| seat.number()).collect(),
        "legal_moves" => step
            .legal_moves
            .iter()
            .map(|list| list.iter().map(|mv| raw(mv.raw())).collect::<Value>())
            .collect(),
        "views" => pair(&step.views),
        "scores" => serde_json::to_value(step.scores).expect("scores are numbers"),
        "result" => step.result.map_or(Value::Null, |outcome| {
            outcome.winner.map_or(Value::Null, |seat| seat.number().into())
        }),
        "learned" => step.learned.as_ref().map_or(Value::Null, pair),
        "state" => step.state.as_ref().map_or(Value::Null, raw),
        "text" => step.text.clone().map_or(Value::Null, Value::from),
        _ => Value::Null,
    }
}

/// Where field `field` of two steps first differs, in words: "at
/// `state.bids[1]`: 3, then 7".
pub fn where_differs(one: &Step, other: &Step, field: &str) -> Option<String> {
    let (path, mine, theirs) =
        first_difference(&field_value(one, field), &field_value(other, field), field.to_owned())?;
    Some(format!("at `{path}`: {}, then {}", shown(mine), shown(theirs)))
}

/// A value found by [`first_difference`], cut to a readable length.
pub fn shown(value: Option<Value>) -> String {
    match value {
        None => "nothing".to_owned(),
        Some(value) => {
            let text = value.to_string();
            if text.chars().count() <= SHOWN_CHARS {
                return text;
            }
            format!("{}…", text.chars().take(SHOWN_CHARS).collect::<String>())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_found_by_path() {
        let one = json!({"position": 0, "bids": [3, 4], "bonus": {"a": 1}});
        let other = json!({"position": 0, "bids": [3, 7], "bonus": {"a": 2}});
        let found = first_difference(&one, &other, "state".into());
        assert_eq!(found, Some(("state.bids[1]".into(), Some(json!(4)), Some(json!(7)))));
        let shorter = json!({"position": 0, "bids": [3]});
        let found = first_difference(&shorter, &one, "state".into());
        assert_eq!(found, Some(("state.bids[1]".into(), None, Some(json!(4)))));
        assert_eq!(first_difference(&one, &one.clone(), String::new()), None);
        assert_eq!(written("/views/0/hand/1"), "views[0].hand[1]");
        assert_eq!(written("/a~1b/c~0d"), "a/b.c~d");
    }
}
