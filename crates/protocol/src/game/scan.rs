//! A step read without a general JSON parser: the answer arena reads on
//! every turn of a game program, so its common shape is scanned in one
//! pass, each value kept as the slice of the line it was written in.
//! Anything unusual (a duplicate key, an escape in `type`, a number where
//! none belongs) makes the scanner give up, and the careful parser reads
//! the line and says what is wrong.

use super::{Raw, ResultField, StepFields, ToMove, usual_seats};
use crate::cursor::Cursor;
use arena_base::json::RawJson;
use arena_base::score::Score;
use arena_games::Seat;
use arena_games::program::JsonMove;

/// A step's keys, each with its place (a bit of `seen`).
#[derive(Clone, Copy)]
enum Key {
    Type,
    Id,
    ToMove,
    LegalMoves,
    Views,
    Scores,
    Result,
    Learned,
    State,
    Text,
}

/// The step's keys, each as a game program writes it: quoted, then `:`.
const KEYS: [(&[u8], Key); 10] = [
    (b"\"type\":", Key::Type),
    (b"\"id\":", Key::Id),
    (b"\"to_move\":", Key::ToMove),
    (b"\"legal_moves\":", Key::LegalMoves),
    (b"\"views\":", Key::Views),
    (b"\"scores\":", Key::Scores),
    (b"\"result\":", Key::Result),
    (b"\"learned\":", Key::Learned),
    (b"\"state\":", Key::State),
    (b"\"text\":", Key::Text),
];

/// The next key and its `:`: the step key it is, if it is one. A key as
/// game programs write them (`"views":`) is matched whole; any other is
/// read as a string first.
fn next_key(cursor: &mut Cursor<'_>) -> Option<Option<Key>> {
    cursor.skip_space();
    if let [b'"', first, ..] = cursor.rest() {
        for (written, key) in KEYS {
            if written[1] == *first && cursor.take(written) {
                return Some(Some(key));
            }
        }
    }
    let key = cursor.plain_string()?;
    cursor.expect(b':')?;
    // The key without its quotes and `:`.
    Some(
        KEYS.iter().find(|(written, _)| &written[1..written.len() - 2] == key).map(|(_, key)| *key),
    )
}

/// The fields of `line`, if it is a step object of the usual shape.
pub(super) fn scan_step(line: &[u8]) -> Option<StepFields<'_>> {
    // UTF-8 checked once: the values are slices of the text.
    let text = std::str::from_utf8(line).ok()?;
    let mut cursor = Cursor::new(line);
    let value = |cursor: &mut Cursor<'_>| raw_value(cursor, text);
    let mut fields = StepFields {
        kind: None,
        id: None,
        to_move: ToMove::Seats(&[]),
        legal_moves: None,
        views: [Raw::null(); 2],
        scores: [Score::ZERO; 2],
        result: None,
        learned: None,
        state: None,
        text: None,
    };
    let (mut to_move, mut views, mut scores) = (false, false, false);
    cursor.expect(b'{')?;
    // The known keys seen, as bits: a second one is the parser's to refuse.
    let mut seen = 0u16;
    loop {
        let Some(known) = next_key(&mut cursor)? else {
            // Fields the protocol does not know are ignored.
            cursor.value()?;
            match cursor.next_after_value()? {
                true => continue,
                false => break,
            }
        };
        let bit = 1 << known as u16;
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        match known {
            Key::Type => {
                fields.kind = Some(std::str::from_utf8(cursor.plain_string()?).ok()?.into())
            }
            Key::Id => fields.id = Some(cursor.unsigned()?),
            Key::ToMove => {
                fields.to_move = ToMove::Seats(seats(&mut cursor)?);
                to_move = true;
            }
            Key::LegalMoves => {
                let lists = cursor.pair(|cursor| cursor.list(|cursor| legal_move(cursor, text)))?;
                fields.legal_moves = Some(lists.map(super::MoveList));
            }
            Key::Views => {
                fields.views = views_pair(&mut cursor, text)?;
                views = true;
            }
            Key::Scores => {
                // A decimal score stops the scan: serde reads it.
                fields.scores = cursor.pair(Cursor::signed)?.map(Score::from);
                scores = true;
            }
            Key::Result => {
                fields.result = match cursor.null() {
                    true => None,
                    false => Some(result(&mut cursor)?),
                }
            }
            Key::Learned => {
                fields.learned = match cursor.null() {
                    true => None,
                    false => Some(cursor.pair(value)?),
                }
            }
            Key::State => fields.state = Some(value(&mut cursor)?),
            Key::Text => {
                let raw = value(&mut cursor)?.text;
                // Escapes are common in text (new lines): the parser reads it.
                fields.text = match raw {
                    "null" => None,
                    _ => Some(serde_json::from_str(raw).ok()?),
                }
            }
        }
        if !cursor.next_after_value()? {
            break;
        }
    }
    (cursor.at_end() && to_move && views && scores).then_some(fields)
}

/// The seats to move, if the list is a usual one (`usual_seats`); any
/// other is the parser's to name.
fn seats(cursor: &mut Cursor<'_>) -> Option<&'static [Seat]> {
    cursor.expect(b'[')?;
    // Two seats at most: a longer list is never a usual one.
    let mut listed = [0u8; 2];
    let mut count = 0;
    if !cursor.closes(b']') {
        loop {
            *listed.get_mut(count)? = u8::try_from(cursor.unsigned()?).ok()?;
            count += 1;
            if cursor.closes(b']') {
                break;
            }
            cursor.expect(b',')?;
        }
    }
    usual_seats(&listed[..count])
}

/// One legal move. The usual ones (a number, a string without escapes)
/// are compact as written, and are read without the general scanner.
fn legal_move(cursor: &mut Cursor<'_>, text: &str) -> Option<JsonMove> {
    let range = match cursor.scalar() {
        Some(range) => range,
        None => return Some(JsonMove::from_raw(raw_value(cursor, text)?.to_json())),
    };
    Some(JsonMove::from_raw(RawJson::compact_already(&text[range])))
}

/// The next value of the line `text`, as written.
fn raw_value<'a>(cursor: &mut Cursor<'_>, text: &'a str) -> Option<Raw<'a>> {
    let (range, compact) = cursor.compact_value()?;
    Some(Raw { text: &text[range], compact })
}

/// The two views: often the same text (a game without secrets), which is
/// then checked once.
fn views_pair<'a>(cursor: &mut Cursor<'a>, text: &'a str) -> Option<[Raw<'a>; 2]> {
    cursor.expect(b'[')?;
    let first = raw_value(cursor, text)?;
    cursor.expect(b',')?;
    cursor.skip_space();
    let second = match cursor.rest().strip_prefix(first.text.as_bytes()) {
        Some(after) if after.trim_ascii_start().first() == Some(&b']') => {
            cursor.advance(first.text.len());
            first
        }
        _ => raw_value(cursor, text)?,
    };
    cursor.expect(b']')?;
    Some([first, second])
}

/// `{"winner": 1}`, `{"winner": 2}` or `{"winner": null}`.
fn result(cursor: &mut Cursor<'_>) -> Option<ResultField> {
    cursor.expect(b'{')?;
    if cursor.plain_string()? != b"winner" {
        return None;
    }
    cursor.expect(b':')?;
    let winner = match cursor.null() {
        true => None,
        false => Some(u8::try_from(cursor.unsigned()?).ok()?),
    };
    cursor.expect(b'}')?;
    Some(ResultField { winner })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::game::{Answer, GameRequestKind, parse_answer, step};
    use arena_games::program::Moves;

    /// What the careful parser makes of `line`.
    fn careful(line: &str) -> Result<Answer, String> {
        let mut fields: StepFields<'_> =
            serde_json::from_str(line).map_err(|error| error.to_string())?;
        step(&mut fields, false).map(|step| Answer::Step(Box::new(step))).map_err(|bad| bad.detail)
    }

    #[test]
    fn a_usual_step_is_scanned_as_the_parser_reads_it() {
        for line in [
            r#"{"type":"step","id":3,"to_move":[2],"legal_moves":[[],[0,1,"x",{"a":[1.5e3,true]}]],"views":[{"grid":["..X"]},{"grid":["..X"]}],"scores":[0,-3],"state":{"n":null},"text":"Line one\nline \"two\"","extra":[1,{"b":2}]}"#,
            "{ \"type\" : \"step\" , \"id\":3, \"to_move\":[ 1 , 2 ],\n \"legal_moves\": [ [ 1 ], [ 2 ] ], \"views\": [ 1, 2 ], \"scores\": [ 0, 0 ], \"learned\": null }",
            r#"{"type":"step","id":3,"to_move":[],"views":["é",{}],"scores":[1,1],"result":{"winner":null},"learned":[[],"\u00e9"]}"#,
            r#"{"type":"step","id":3,"to_move":[1],"legal_moves":[[1],[]],"views":[{"a": [1, 2]} , {"a": [1, 2]} ],"scores":[0,0]}"#,
            r#"{"type":"step","id":3,"to_move":[1],"legal_moves":[[1],[]],"views":[1,12],"scores":[0,0]}"#,
            r#"{"type":"step","id":3,"to_move":[1],"legal_moves":[["a b"],[]],"views":["a b","a b"],"scores":[0,0]}"#,
        ] {
            let scanned = scan_step(line.as_bytes()).map(|mut fields| {
                step(&mut fields, false)
                    .map(|step| Answer::Step(Box::new(step)))
                    .map_err(|bad| bad.detail)
            });
            assert_eq!(scanned, Some(careful(line)), "{line}");
        }
    }

    #[test]
    fn unusual_lines_are_left_to_the_parser() {
        for line in [
            r#"{"type":"step","type":"step","id":3,"to_move":[],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"st\u0065p","id":3,"to_move":[],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[1,2],"scores":[1.0,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[1,2,3],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[01,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[1,2],"scores":[1,1]} x"#,
            r#"{"type":"step","id":3,"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":["a\x"],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[[1],[1]x],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[],"views":[[1],[1]]],"scores":[1,1]}"#,
            // Lists of seats other than the usual four.
            r#"{"type":"step","id":3,"to_move":[2,1],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[1,1],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[0],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[300],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[1,2,3],"views":[1,2],"scores":[1,1]}"#,
            r#"{"type":"step","id":3,"to_move":[[1]],"views":[1,2],"scores":[1,1]}"#,
        ] {
            assert!(scan_step(line.as_bytes()).is_none(), "{line}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Whatever the scanner reads, `parse_answer` reads the same as
        /// the careful parser.
        #[test]
        fn the_step_scanner_agrees_with_the_parser(
            leaves in proptest::collection::vec(0..12usize, 1..24),
            pretty in any::<bool>(),
            to_move in 0..4usize,
            same_views in any::<bool>(),
        ) {
            const LEAVES: [&str; 12] = ["0", "-7", "1.5", "2e3", "true", "null", "\"a\"", "\"é\\n\"", "\"\\u0041\"", "[]", "{}", "123456789012"];
            let values: Vec<Value> = leaves.iter().map(|leaf| serde_json::from_str(LEAVES[*leaf]).unwrap()).collect();
            let movers: &[usize] = [&[][..], &[1], &[2], &[1, 2]][to_move];
            let legal = |seat: usize| if movers.contains(&seat) { json!(values.clone()) } else { json!([]) };
            let mut answer = json!({"type": "step", "id": 5, "to_move": movers,
                "legal_moves": [legal(1), legal(2)],
                "views": [json!(values.clone()), if same_views { json!(values.clone()) } else { json!({"v": values.clone()}) }],
                "scores": [values.len(), -1], "state": values.clone()});
            if to_move == 0 {
                answer["result"] = json!({"winner": 2});
            }
            let line = if pretty { serde_json::to_string_pretty(&answer).unwrap().replace('\n', " ") } else { answer.to_string() };
            let fast = parse_answer(line.as_bytes(), GameRequestKind::Apply, 5, Moves::Public);
            prop_assert_eq!(fast.map_err(|bad| bad.detail), careful(&line));
            prop_assert!(scan_step(line.as_bytes()).is_some(), "{}", line);
        }
    }
}
