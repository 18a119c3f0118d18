//! Which JSON numbers a double holds as written: a game program's legal
//! move holding one it does not is echoed otherwise by a bot that reads
//! numbers as doubles (JavaScript, and JSON in many languages), and so is
//! the game's mistake, never the bot's.

use std::fmt;

use serde_json::Value;

use super::program::JsonMove;

/// The first of `moves` that holds a number no double holds as written
/// (see [`JsonMove::inexact_number`]), with that number.
pub fn first_inexact(moves: &[JsonMove]) -> Option<(&JsonMove, String)> {
    moves.iter().find_map(|mv| Some((mv, mv.inexact_number()?)))
}

/// Why such a move is the game's mistake, for seat `seat`'s legal move `mv`
/// holding `number`.
pub fn inexact_words(seat: impl fmt::Display, mv: &JsonMove, number: &str) -> String {
    format!(
        "seat {seat}'s legal move {} holds {number}, which a double (a JavaScript number, and JSON's in many languages) cannot hold as written: a bot that reads and echoes it sends another move, an illegal one",
        mv.raw().as_str()
    )
}

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

/// See [`JsonMove::inexact_number`].
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_echoed_as_doubles_is_told_from_another() {
        let mv = |text: &str| JsonMove::from_text(text);
        for (legal, echoed) in [
            ("1.0", "1"),
            ("-0", "0"),
            ("12345678901234567891", "12345678901234567000"),
            (
                r#"{"card":3,"tag":12345678901234567891}"#,
                r#"{"tag":12345678901234567000,"card":3}"#,
            ),
        ] {
            assert!(mv(legal).inexact_number().is_some(), "{legal}");
            assert!(mv(legal).echoed_as(&mv(echoed)), "{legal} echoed as {echoed}");
        }
        assert!(!mv("1.0").echoed_as(&mv("2")));
        assert!(!mv("1.0").echoed_as(&mv("\"1\"")));
        assert!(!mv(r#"{"card":3,"tag":1e20}"#).echoed_as(&mv(r#"{"card":4,"tag":1e20}"#)));
        assert_eq!(mv("[1, 2]").inexact_number(), None);
    }
}
