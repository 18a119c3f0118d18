//! A step read without a general JSON parser: the answer arena reads on
//! every turn of a game program, so its common shape is scanned in one
//! pass, each value kept as the slice of the line it was written in.
//! Anything unusual (a duplicate key, an escape in `type`, a number where
//! none belongs) makes the scanner give up, and the careful parser reads
//! the line and says what is wrong.

use super::{Raw, ResultField, StepFields};
use crate::games::program::JsonMove;

/// The keys of a step.
const KEYS: [&str; 10] = [
    "type",
    "id",
    "to_move",
    "legal_moves",
    "views",
    "scores",
    "result",
    "learned",
    "state",
    "text",
];

/// Deepest nesting scanned; deeper values go to the parser.
const MAX_DEPTH: usize = 64;

/// The fields of `line`, if it is a step object of the usual shape.
pub(super) fn scan_step(line: &[u8]) -> Option<StepFields<'_>> {
    // Strings are sliced at ASCII bytes, so the slices are UTF-8 too.
    let text = std::str::from_utf8(line).ok()?;
    let mut cursor = Cursor { text, at: 0 };
    let mut fields = StepFields {
        kind: None,
        id: None,
        to_move: Vec::new(),
        legal_moves: None,
        views: [Raw("null"); 2],
        scores: [0; 2],
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
        let key = cursor.plain_string()?;
        if let Some(bit) = KEYS.iter().position(|known| *known == key) {
            if seen & 1 << bit != 0 {
                return None;
            }
            seen |= 1 << bit;
        }
        cursor.expect(b':')?;
        match key {
            "type" => fields.kind = Some(cursor.plain_string()?.into()),
            "id" => fields.id = Some(cursor.unsigned()?),
            "to_move" => {
                fields.to_move = cursor.list(|cursor| u8::try_from(cursor.unsigned()?).ok())?;
                to_move = true;
            }
            "legal_moves" => {
                let mut lists = cursor.list(|cursor| {
                    cursor.list(|cursor| Some(JsonMove::from_text(cursor.value()?)))
                })?;
                let (Some(second), Some(first), None) = (lists.pop(), lists.pop(), lists.pop())
                else {
                    return None;
                };
                fields.legal_moves = Some([super::MoveList(first), super::MoveList(second)]);
            }
            "views" => {
                fields.views = cursor.pair(|cursor| cursor.value().map(Raw))?;
                views = true;
            }
            "scores" => {
                fields.scores = cursor.pair(Cursor::signed)?;
                scores = true;
            }
            "result" => {
                fields.result = match cursor.null() {
                    true => None,
                    false => Some(cursor.result()?),
                }
            }
            "learned" => {
                fields.learned = match cursor.null() {
                    true => None,
                    false => Some(cursor.pair(|cursor| cursor.value().map(Raw))?),
                }
            }
            "state" => fields.state = Some(Raw(cursor.value()?)),
            "text" => {
                let raw = cursor.value()?;
                // Escapes are common in text (new lines): the parser reads it.
                fields.text = match raw {
                    "null" => None,
                    _ => Some(serde_json::from_str(raw).ok()?),
                }
            }
            // Fields the protocol does not know are ignored.
            _ => {
                cursor.value()?;
            }
        }
        cursor.skip_space();
        match cursor.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    cursor.skip_space();
    (cursor.at == text.len() && to_move && views && scores).then_some(fields)
}

/// A position in a line being scanned.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.next()? == byte).then_some(())
    }

    /// Whether a `null` comes next (then taken).
    fn null(&mut self) -> bool {
        self.skip_space();
        let null = self.text[self.at..].starts_with("null");
        if null {
            self.at += 4;
        }
        null
    }

    /// A string without escapes, as its text.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            match self.next()? {
                b'"' => return Some(&self.text[start..self.at - 1]),
                b'\\' | 0..0x20 => return None,
                _ => {}
            }
        }
    }

    /// A JSON integer that fits `u64`.
    fn unsigned(&mut self) -> Option<u64> {
        self.skip_space();
        let start = self.at;
        self.number()?;
        self.text[start..self.at].parse().ok()
    }

    /// A JSON integer that fits `i64`.
    fn signed(&mut self) -> Option<i64> {
        self.skip_space();
        let start = self.at;
        self.number()?;
        let text = &self.text[start..self.at];
        // `-0` and numbers with a fraction or exponent are left to the parser.
        (!text.contains(['.', 'e', 'E']) && text != "-0").then(|| text.parse().ok()).flatten()
    }

    /// `[first, second]`.
    fn pair<T>(&mut self, mut item: impl FnMut(&mut Cursor<'a>) -> Option<T>) -> Option<[T; 2]> {
        self.expect(b'[')?;
        let first = item(self)?;
        self.expect(b',')?;
        let second = item(self)?;
        self.expect(b']')?;
        Some([first, second])
    }

    /// `[item, ...]`.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Cursor<'a>) -> Option<T>) -> Option<Vec<T>> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            self.skip_space();
            match self.next()? {
                b',' => {}
                b']' => return Some(items),
                _ => return None,
            }
        }
    }

    /// `{"winner": 1}`, `{"winner": 2}` or `{"winner": null}`.
    fn result(&mut self) -> Option<ResultField> {
        self.expect(b'{')?;
        if self.plain_string()? != "winner" {
            return None;
        }
        self.expect(b':')?;
        let winner = match self.null() {
            true => None,
            false => Some(u8::try_from(self.unsigned()?).ok()?),
        };
        self.expect(b'}')?;
        Some(ResultField { winner })
    }

    /// One JSON value, checked as the parser would, as its slice of the
    /// line. One loop over the bytes, the open arrays and objects kept as
    /// bits (a view is mostly small numbers: a call per value would cost
    /// more than the value).
    fn value(&mut self) -> Option<&'a str> {
        /// What may come next.
        #[derive(Clone, Copy, PartialEq)]
        enum Next {
            /// A value.
            Value,
            /// A value or the `]` of an empty array.
            ValueOrClose,
            /// A key or the `}` of an empty object.
            KeyOrClose,
            /// A key (after a `,` in an object).
            Key,
            /// What follows a value: `,`, a closing bracket, or the end.
            After,
        }
        self.skip_space();
        let start = self.at;
        // Bit i set: the i-th open container is an object.
        let (mut objects, mut depth) = (0u64, 0usize);
        let mut next = Next::Value;
        loop {
            self.skip_space();
            let byte = self.peek()?;
            next = match (next, byte) {
                (Next::After, _) if depth == 0 => break,
                (Next::After, b',') => {
                    self.at += 1;
                    if objects >> (depth - 1) & 1 == 1 { Next::Key } else { Next::Value }
                }
                (Next::After, b']') if objects >> (depth - 1) & 1 == 0 => {
                    self.at += 1;
                    depth -= 1;
                    Next::After
                }
                (Next::After, b'}') if objects >> (depth - 1) & 1 == 1 => {
                    self.at += 1;
                    depth -= 1;
                    objects &= !(1 << depth);
                    Next::After
                }
                (Next::ValueOrClose, b']') | (Next::KeyOrClose, b'}') => {
                    self.at += 1;
                    depth -= 1;
                    objects &= !(1 << depth);
                    Next::After
                }
                (Next::Key | Next::KeyOrClose, b'"') => {
                    self.string()?;
                    self.expect(b':')?;
                    Next::Value
                }
                (Next::Value | Next::ValueOrClose, b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    self.at += 1;
                    depth += 1;
                    if byte == b'{' {
                        objects |= 1 << (depth - 1);
                        Next::KeyOrClose
                    } else {
                        Next::ValueOrClose
                    }
                }
                (Next::Value | Next::ValueOrClose, b'"') => {
                    self.string()?;
                    Next::After
                }
                (Next::Value | Next::ValueOrClose, b't' | b'f' | b'n') => {
                    let rest = &self.text[self.at..];
                    let word = ["true", "false", "null"]
                        .into_iter()
                        .find(|word| rest.starts_with(word))?;
                    self.at += word.len();
                    Next::After
                }
                (Next::Value | Next::ValueOrClose, b'-' | b'0'..=b'9') => {
                    self.number()?;
                    Next::After
                }
                _ => return None,
            };
        }
        Some(&self.text[start..self.at])
    }

    /// A JSON string (escapes checked), the cursor at its quote.
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => match self.next()? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        for _ in 0..4 {
                            if !self.next()?.is_ascii_hexdigit() {
                                return None;
                            }
                        }
                    }
                    _ => return None,
                },
                0..0x20 => return None,
                _ => {}
            }
        }
    }

    /// A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let start = self.at;
        self.digits();
        (self.at > start).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::games::program::Moves;
    use crate::protocol::game::{Answer, GameRequestKind, parse_answer, step};

    /// What the careful parser makes of `line`.
    fn careful(line: &str) -> Result<Answer, String> {
        let fields: StepFields<'_> =
            serde_json::from_str(line).map_err(|error| error.to_string())?;
        step(fields, false).map(Answer::Step).map_err(|bad| bad.detail)
    }

    #[test]
    fn a_usual_step_is_scanned_as_the_parser_reads_it() {
        for line in [
            r#"{"type":"step","id":3,"to_move":[2],"legal_moves":[[],[0,1,"x",{"a":[1.5e3,true]}]],"views":[{"grid":["..X"]},{"grid":["..X"]}],"scores":[0,-3],"state":{"n":null},"text":"Line one\nline \"two\"","extra":[1,{"b":2}]}"#,
            "{ \"type\" : \"step\" , \"id\":3, \"to_move\":[ 1 , 2 ],\n \"legal_moves\": [ [ 1 ], [ 2 ] ], \"views\": [ 1, 2 ], \"scores\": [ 0, 0 ], \"learned\": null }",
            r#"{"type":"step","id":3,"to_move":[],"views":["é",{}],"scores":[1,1],"result":{"winner":null},"learned":[[],"\u00e9"]}"#,
        ] {
            let scanned = scan_step(line.as_bytes())
                .map(|fields| step(fields, false).map(Answer::Step).map_err(|bad| bad.detail));
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
        ) {
            const LEAVES: [&str; 12] = ["0", "-7", "1.5", "2e3", "true", "null", "\"a\"", "\"é\\n\"", "\"\\u0041\"", "[]", "{}", "123456789012"];
            let values: Vec<Value> = leaves.iter().map(|leaf| serde_json::from_str(LEAVES[*leaf]).unwrap()).collect();
            let movers: &[usize] = [&[][..], &[1], &[2], &[1, 2]][to_move];
            let legal = |seat: usize| if movers.contains(&seat) { json!(values.clone()) } else { json!([]) };
            let mut answer = json!({"type": "step", "id": 5, "to_move": movers,
                "legal_moves": [legal(1), legal(2)], "views": [values.clone(), {"v": values.clone()}],
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
