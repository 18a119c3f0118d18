//! A seat's score: a whole number (points, discs, life) or a decimal one
//! (chips won, a utility), as a game gives it.
//!
//! A whole number is kept exactly, as an `i64`, and written without a
//! fraction (`6`, never `6.0`), so that the built-in games' scores read as
//! they always did in games.csv, messages and transcripts. A decimal score
//! is a finite `f64`, written as serde_json writes it. A decimal with no
//! fraction (`2.0`, `1e16`) within an `i64` is the whole number: one score
//! has one form, so two equal scores compare equal however they were
//! written.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::json::WriteJson;

/// One seat's score.
#[derive(Clone, Copy, PartialEq)]
pub struct Score(Form);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Whole(i64),
    /// Finite, with a fraction (so below 2^53 in magnitude), or beyond
    /// an `i64`.
    Decimal(f64),
}

/// 2^63: an `f64` with no fraction below it in magnitude is an `i64`
/// exactly (every `f64` of 2^53 and more has no fraction).
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

impl Score {
    /// A score of zero.
    pub const ZERO: Score = Score(Form::Whole(0));

    /// The score `value`, refused when it is not finite (JSON has no
    /// infinity, and a mean over one would say nothing).
    pub fn decimal(value: f64) -> Result<Score, NotFinite> {
        if !value.is_finite() {
            return Err(NotFinite(value));
        }
        if value.fract() == 0.0 && (-I64_BOUND..I64_BOUND).contains(&value) {
            return Ok(Score(Form::Whole(value as i64)));
        }
        Ok(Score(Form::Decimal(value)))
    }

    /// The score as a number to average.
    pub fn as_f64(self) -> f64 {
        match self.0 {
            Form::Whole(whole) => whole as f64,
            Form::Decimal(decimal) => decimal,
        }
    }

    /// The score, when it is a whole number.
    pub fn as_whole(self) -> Option<i64> {
        match self.0 {
            Form::Whole(whole) => Some(whole),
            Form::Decimal(_) => None,
        }
    }
}

/// A score that is not a finite number.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("a score must be a finite number, not {0}")]
pub struct NotFinite(pub f64);

// Never NaN, and one form per value: equality is an equivalence, and
// equal scores hash alike.
impl Eq for Score {}

impl std::hash::Hash for Score {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self.0 {
            Form::Whole(whole) => whole.hash(state),
            Form::Decimal(decimal) => decimal.to_bits().hash(state),
        }
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Score) -> std::cmp::Ordering {
        match (self.0, other.0) {
            (Form::Whole(one), Form::Whole(other)) => one.cmp(&other),
            _ => self.as_f64().total_cmp(&other.as_f64()),
        }
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Score) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl From<i64> for Score {
    fn from(whole: i64) -> Score {
        Score(Form::Whole(whole))
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Form::Whole(whole) => write!(f, "{whole}"),
            Form::Decimal(decimal) => {
                f.write_str(&serde_json::to_string(&decimal).map_err(|_| fmt::Error)?)
            }
        }
    }
}

/// As the number it is (`[0, 2]` in a message about scores, not the
/// representation's names).
impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Form::Whole(whole) => serializer.serialize_i64(whole),
            Form::Decimal(decimal) => serializer.serialize_f64(decimal),
        }
    }
}

impl WriteJson for Score {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self.0 {
            Form::Whole(whole) => whole.write_json(out),
            // Rare (decimal scores are a game program's): serde's own bytes.
            Form::Decimal(decimal) => {
                serde_json::to_writer(out, &decimal).expect("a finite f64 writes")
            }
        }
    }
}

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Score, D::Error> {
        struct ScoreVisitor;
        impl Visitor<'_> for ScoreVisitor {
            type Value = Score;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, whole: i64) -> Result<Score, E> {
                Ok(Score::from(whole))
            }
            fn visit_u64<E: de::Error>(self, whole: u64) -> Result<Score, E> {
                match i64::try_from(whole) {
                    Ok(whole) => Ok(Score::from(whole)),
                    Err(_) => Score::decimal(whole as f64).map_err(E::custom),
                }
            }
            fn visit_f64<E: de::Error>(self, decimal: f64) -> Result<Score, E> {
                Score::decimal(decimal).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(ScoreVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(score: Score) -> String {
        let mut out = Vec::new();
        score.write_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn whole_and_decimal_scores_write_as_serde_does_and_read_back() {
        for text in ["0", "-3", "6", "0.5", "-1.25", "1e300", "0.1", "123456789012"] {
            let score: Score = serde_json::from_str(text).unwrap();
            let json = serde_json::to_string(&score).unwrap();
            assert_eq!(written(score), json, "{text}");
            assert_eq!(score.to_string(), json, "{text}");
            assert_eq!(serde_json::from_str::<Score>(&json).unwrap(), score, "{text}");
        }
        assert_eq!(written(Score::from(6)), "6", "a whole score has no fraction");
    }

    #[test]
    fn a_decimal_without_fraction_is_the_whole_number() {
        let two: Score = serde_json::from_str("2.0").unwrap();
        assert_eq!(two, Score::from(2));
        assert_eq!(two.to_string(), "2");
        assert_eq!(two.as_whole(), Some(2));
        assert_eq!(serde_json::from_str::<Score>("0.5").unwrap().as_whole(), None);
        assert_eq!(Score::decimal(-0.75).unwrap().as_f64(), -0.75);
    }

    #[test]
    fn a_large_whole_number_has_one_form_however_written() {
        let forms = ["10000000000000000", "1e16", "10000000000000000.0"];
        let scores: Vec<Score> =
            forms.iter().map(|text| serde_json::from_str(text).unwrap()).collect();
        assert!(scores.iter().all(|score| *score == scores[0]), "{scores:?}");
        assert_eq!(scores[1].as_whole(), Some(10_000_000_000_000_000));
    }

    #[test]
    fn only_numbers_are_scores() {
        assert!(Score::decimal(f64::NAN).is_err());
        assert!(Score::decimal(f64::INFINITY).is_err());
        let refused = serde_json::from_str::<Score>("\"046\"").unwrap_err().to_string();
        assert!(refused.contains("invalid type: string \"046\", expected a number"), "{refused}");
        assert!(serde_json::from_str::<Score>("true").is_err());
    }

    #[test]
    fn a_csv_field_reads_back_as_the_score_it_was() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Row {
            score1: Score,
            score2: Score,
        }
        let row = Row { score1: Score::from(-4), score2: Score::decimal(0.875).unwrap() };
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.serialize(&row).unwrap();
        let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        assert_eq!(text, "score1,score2\n-4,0.875\n");
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let back: Row = reader.deserialize().next().unwrap().unwrap();
        assert_eq!(back, row);
    }
}
