use proptest::prelude::*;

use super::Cursor;

/// Pieces of JSON text, valid and not: values are made of them, so that
/// most are JSON and many are nearly so.
const PIECES: [&str; 40] = [
    "0",
    "7",
    "-3",
    "10",
    "01",
    "-0",
    "-",
    "1.5",
    "1.",
    ".5",
    "2e3",
    "2E+3",
    "2e-3",
    "2e",
    "1e999",
    "1e308",
    "\"a\"",
    "\"\"",
    "\"\\n\"",
    "\"\\u00e9\"",
    "\"\\ud800\"",
    "\"\\ud83d\\ude00\"",
    "\"\\x\"",
    "\"\u{1}\"",
    "\"é\"",
    "true",
    "false",
    "null",
    "nul",
    "tru",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    " ",
    "\n",
    "\t",
    "x",
];

/// What the scanner makes of the whole of `text`: the value's place if
/// it is one JSON value (whitespace around it allowed), and whether it
/// was written with whitespace.
fn scanned(text: &str) -> Option<(std::ops::Range<usize>, bool)> {
    let mut cursor = Cursor::new(text.as_bytes());
    let range = cursor.compact_value()?;
    cursor.at_end().then_some(range)
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let readable = serde_json::from_str::<serde_json::Value>(text).is_ok();
    let scanned = scanned(text);
    prop_assert_eq!(scanned.is_some(), readable, "{:?}", text);
    if let Some((range, compact)) = scanned {
        let value = &text[range];
        prop_assert_eq!(value, text.trim_matches([' ', '\n', '\t']), "{:?}", text);
        // Compact: nothing for json::compact to take out.
        prop_assert_eq!(compact, arena_base::json::compact(value) == value, "{:?}", text);
    }
    Ok(())
}

#[test]
fn values_are_read_as_serde_json_reads_them() {
    for text in [
        "[]",
        "{}",
        " [ ] ",
        "[1,[2,{\"a\":[]}]]",
        "{\"a\":1,\"b\":{\"c\":null}}",
        "{\"a\" : 1}",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\"}",
        "{1:2}",
        "[1 2]",
        "\"a\\\"b\"",
        "[-0.5e+10,true,false]",
        "\"\\ud800\\udc00\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "\"tab\tin\"",
    ] {
        check(text).unwrap();
    }
    // Hundreds of digits brought back into range by a negative
    // exponent, or not (1e390, 1e300, 1e0).
    for exponent in ["e-10", "e-0000000010", "e-100", "e-0000000100", "E-400", "e+0000000001"] {
        check(&format!("1{}{exponent}", "0".repeat(400))).unwrap();
    }
    let deep = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
    assert!(scanned(&deep(64)).is_some());
    // Deeper than the scanner goes: the careful parser's to read.
    assert!(scanned(&deep(65)).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    #[test]
    fn any_text_is_read_as_serde_json_reads_it(pieces in proptest::collection::vec(0..PIECES.len(), 1..12)) {
        let text: String = pieces.iter().map(|&piece| PIECES[piece]).collect();
        check(&text)?;
    }

    #[test]
    fn values_serde_json_writes_are_read_whole(seed in any::<u64>(), pretty in any::<bool>()) {
        let value = sample_value(seed, 4);
        let text = match pretty {
            true => serde_json::to_string_pretty(&value).unwrap(),
            false => value.to_string(),
        };
        check(&text)?;
    }
}

/// A JSON value of all kinds, drawn from `seed`.
fn sample_value(seed: u64, depth: u32) -> serde_json::Value {
    use rand::{RngExt, SeedableRng};
    let mut random = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    let mut next = || random.random::<u64>();
    fn draw(next: &mut impl FnMut() -> u64, depth: u32) -> serde_json::Value {
        use serde_json::{Value, json};
        match next() % if depth == 0 { 6 } else { 8 } {
            0 => Value::Null,
            1 => json!(next().is_multiple_of(2)),
            2 => json!(next() as i64 >> (next() % 64)),
            3 => json!(f64::from_bits(next()) % 1e12),
            4 => json!(["a", "é\n", "\"q\"", "\u{1f600}", "\\", "\u{7}"][next() as usize % 6]),
            5 => json!(next() % 1000),
            6 => Value::Array((0..next() % 4).map(|_| draw(next, depth - 1)).collect()),
            _ => Value::Object(
                (0..next() % 4).map(|key| (format!("k{key}"), draw(next, depth - 1))).collect(),
            ),
        }
    }
    draw(&mut next, depth)
}
