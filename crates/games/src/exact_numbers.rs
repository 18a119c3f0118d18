//! Which JSON numbers a double holds as written: a game program's legal
//! move holding one it does not is echoed otherwise by a bot that reads
//! numbers as doubles (JavaScript, and JSON in many languages), and so is
//! the game's mistake, never the bot's.

use serde_json::Value;

/// What a game must write instead, for hints.
pub fn exact_numbers_advice() -> String {
    format!(
        "write whole numbers in moves as integers (`2`, not `2.0`), within ±{MAX_EXACT}, and no -0; a bigger number can travel as a string"
    )
}

/// Whether `a` and `b` are alike once every number is read as a double.
pub(super) fn same_as_doubles(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_as_doubles(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(key, a)| b.get(key).is_some_and(|b| same_as_doubles(a, b)))
        }
        (a, b) => a == b,
    }
}

/// The largest integer every double holds exactly (2^53 - 1).
pub const MAX_EXACT: u64 = (1 << 53) - 1;

/// Which number of `value`, if any, no double holds as written (what
/// `program::JsonMove::inexact_number` asks of a move).
pub(super) fn inexact_number(value: &Value) -> Option<String> {
    match value {
        Value::Number(number) => {
            let past = |n: u64| n > MAX_EXACT;
            let inexact = number.as_u64().is_some_and(past)
                || number.as_i64().is_some_and(|n| past(n.unsigned_abs()))
                // JavaScript writes a whole number below 1e21 as an integer.
                || number.as_f64().is_some_and(|n| number.is_f64() && n.fract() == 0.0 && n.abs() < 1e21);
            inexact.then(|| number.to_string())
        }
        Value::Array(items) => items.iter().find_map(inexact_number),
        Value::Object(fields) => fields.values().find_map(inexact_number),
        _ => None,
    }
}
