//! A game program's move: any JSON value, kept as the text the game wrote
//! in its legal list and compared by value.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use arena_base::json::{RawJson, WriteJson};

/// A move of a game program: any JSON value. Two moves are the same when
/// their values are (`4` is not `4.0`, keys in any order); the move is
/// written as the game wrote it in its legal list (made compact).
#[derive(Clone)]
pub struct JsonMove {
    raw: RawJson,
}

impl JsonMove {
    /// The move the game program wrote as `text` (one JSON value, which a
    /// parser has accepted).
    pub fn from_text(text: &str) -> JsonMove {
        JsonMove { raw: RawJson::compact(text) }
    }

    /// The move as JSON text a game program wrote, already made compact.
    pub fn from_raw(raw: RawJson) -> JsonMove {
        JsonMove { raw }
    }

    /// The move's JSON text.
    pub fn raw(&self) -> &RawJson {
        &self.raw
    }

    /// The move as a JSON value.
    pub fn value(&self) -> Value {
        serde_json::from_str(self.raw.as_str()).expect("a move is JSON")
    }

    /// A number in the move that a JavaScript bot (or one in any language
    /// that reads JSON numbers as doubles) writes back otherwise, as
    /// written: an integer past ±[`crate::exact_numbers::MAX_EXACT`], a whole number written as
    /// a fraction or with an exponent (`2.0`, `1e3` come back as `2`,
    /// `1000`), or a negative zero. Such a move is the game's mistake.
    pub fn inexact_number(&self) -> Option<String> {
        crate::exact_numbers::inexact_number(&self.value())
    }

    /// Whether `sent` is this move as a reader of doubles writes it back
    /// (every number compared as the double it reads as).
    pub fn echoed_as(&self, sent: &JsonMove) -> bool {
        crate::exact_numbers::same_as_doubles(&self.value(), &sent.value())
    }
}

impl From<Value> for JsonMove {
    fn from(value: Value) -> JsonMove {
        JsonMove { raw: RawJson::compact(&value.to_string()) }
    }
}

impl PartialEq for JsonMove {
    fn eq(&self, other: &JsonMove) -> bool {
        let (mine, theirs) = (self.raw.as_str(), other.raw.as_str());
        if mine == theirs {
            return true;
        }
        // Compact texts of integers, plain strings, booleans, null and
        // lists of them are equal exactly when their values are; objects
        // (keys in any order), escapes and fractions need the values.
        let plain = |text: &str| !text.contains(['{', '\\', '.', 'e', 'E']);
        if plain(mine) && plain(theirs) {
            return false;
        }
        self.value() == other.value()
    }
}

impl fmt::Debug for JsonMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.raw)
    }
}

impl WriteJson for JsonMove {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.raw.write_json(out);
    }
}

impl Serialize for JsonMove {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonMove {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<JsonMove, D::Error> {
        deserializer.deserialize_any(MoveVisitor)
    }
}

/// Reads a bot's move: an integer (the usual move, read on every turn)
/// written straight as its digits, any other value as JSON text through a
/// [`Value`], as [`JsonMove::from`] writes it.
struct MoveVisitor;

impl MoveVisitor {
    fn integer(number: impl itoa::Integer) -> JsonMove {
        JsonMove::from_raw(RawJson::compact_already(itoa::Buffer::new().format(number)))
    }
}

impl<'de> serde::de::Visitor<'de> for MoveVisitor {
    type Value = JsonMove;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<JsonMove, E> {
        Ok(MoveVisitor::integer(number))
    }

    fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<JsonMove, E> {
        Ok(MoveVisitor::integer(number))
    }

    fn visit_f64<E: serde::de::Error>(self, number: f64) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::from(number)))
    }

    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::Bool(value)))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::String(text.to_owned())))
    }

    fn visit_string<E: serde::de::Error>(self, text: String) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::String(text)))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::Null))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<JsonMove, E> {
        Ok(JsonMove::from(Value::Null))
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, inner: D) -> Result<JsonMove, D::Error> {
        JsonMove::deserialize(inner)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<JsonMove, A::Error> {
        Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(JsonMove::from)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<JsonMove, A::Error> {
        Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(JsonMove::from)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_equal_by_value_and_written_as_the_game_wrote_them() {
        let game = JsonMove::from_text(r#"{"b": 1, "a": [2, 3]}"#);
        let bot: JsonMove = serde_json::from_str(r#"{"a":[2,3],"b":1}"#).unwrap();
        assert_eq!(game, bot);
        let mut written = Vec::new();
        game.write_json(&mut written);
        assert_eq!(written, br#"{"b":1,"a":[2,3]}"#);
        let text = JsonMove::from_text;
        assert_ne!(text("4"), text("4.0"));
        assert_ne!(text("4"), text("\"4\""));
        assert_ne!(text("[1,2]"), text("[2,1]"));
        assert_eq!(text("4.0"), text("4.00"), "the same number");
        assert_eq!(text(r#""\u0041""#), text(r#""A""#), "the same string");
        assert_eq!(text(r#"[{"x":1,"y":2}]"#), text(r#"[{"y":2,"x":1}]"#));
    }

    #[test]
    fn a_bots_move_is_read_as_its_value_writes() {
        for text in [
            "0",
            "7",
            "-12",
            "18446744073709551615",
            "-9223372036854775808",
            "18446744073709551616",
            "1.5",
            "2e3",
            "-0",
            "-0.0",
            "true",
            "null",
            r#""e2e4""#,
            r#""\u0041\n""#,
            "[1,[2,\"x\"]]",
            r#"{"b":1,"a":{"c":[]}}"#,
        ] {
            let read: JsonMove = serde_json::from_str(text).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(read.raw().as_str(), JsonMove::from(value).raw().as_str(), "{text}");
        }
    }

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
