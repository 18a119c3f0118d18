//! A position in a line being scanned without a general JSON parser: what
//! the scanners of the lines read on every move (a bot's reply, a game
//! program's step) are built from. Each method skips the whitespace before
//! its token and gives up (`None`) on anything it does not take, which
//! sends the line to the careful parser.

use std::ops::Range;

use serde::de::DeserializeOwned;

/// Deepest nesting [`Cursor::value`] scans; deeper values go to the parser.
const MAX_DEPTH: usize = 64;

/// A position in a line.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Whether whitespace was skipped since [`Cursor::compact_value`]
    /// began: a value without any between its tokens is compact already.
    spaced: bool,
}

/// A JSON integer, as a JSON parser hands it to a type: unsigned unless it
/// is negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Integer {
    Unsigned(u64),
    Negative(i64),
}

impl Integer {
    /// The integer as a `T`, with the same result as parsing its JSON text.
    pub(super) fn read<T: DeserializeOwned>(self) -> Option<T> {
        use serde::de::value::{Error, I64Deserializer, U64Deserializer};
        match self {
            Integer::Unsigned(number) => T::deserialize(U64Deserializer::<Error>::new(number)),
            Integer::Negative(number) => T::deserialize(I64Deserializer::<Error>::new(number)),
        }
        .ok()
    }
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, at: 0, spaced: false }
    }

    /// Whether only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.at == self.bytes.len()
    }

    /// The bytes not yet read.
    pub(super) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at..]
    }

    /// Takes `count` bytes as read.
    pub(super) fn advance(&mut self, count: usize) {
        self.at += count;
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    pub(super) fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    pub(super) fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
            self.spaced = true;
        }
    }

    /// Skips whitespace, then `byte`.
    pub(super) fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.next()? == byte).then_some(())
    }

    /// Whether a `null` comes next (then taken).
    pub(super) fn null(&mut self) -> bool {
        self.skip_space();
        let null = self.bytes[self.at..].starts_with(b"null");
        if null {
            self.at += 4;
        }
        null
    }

    /// Skips whitespace, then a JSON string without escapes: its bytes
    /// (still to be checked as UTF-8).
    pub(super) fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            match self.next()? {
                b'"' => return Some(&self.bytes[start..self.at - 1]),
                b'\\' | 0..0x20 => return None,
                _ => {}
            }
        }
    }

    /// Skips whitespace, then a JSON integer (`-?(0|[1-9][0-9]*)`). `None`
    /// for anything else, and for integers a JSON parser would not hand over
    /// as integers: out of range, or `-0`.
    pub(super) fn integer(&mut self) -> Option<Integer> {
        self.skip_space();
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let start = self.at;
        let mut magnitude: u64 = 0;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            magnitude = magnitude.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
            self.at += 1;
        }
        let digits = self.at - start;
        if digits == 0 || (digits > 1 && self.bytes[start] == b'0') {
            return None;
        }
        // `1.5`, `1e3`: a number, but not an integer; not this scanner's case.
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        match (negative, magnitude) {
            (false, _) => Some(Integer::Unsigned(magnitude)),
            (true, 0) => None,
            (true, _) => Some(Integer::Negative(0i64.checked_sub_unsigned(magnitude)?)),
        }
    }

    /// A JSON integer that fits `u64`.
    pub(super) fn unsigned(&mut self) -> Option<u64> {
        match self.integer()? {
            Integer::Unsigned(number) => Some(number),
            Integer::Negative(_) => None,
        }
    }

    /// A JSON integer that fits `i64`.
    pub(super) fn signed(&mut self) -> Option<i64> {
        match self.integer()? {
            Integer::Unsigned(number) => i64::try_from(number).ok(),
            Integer::Negative(number) => Some(number),
        }
    }

    /// `[first, second]`.
    pub(super) fn pair<T>(
        &mut self,
        mut item: impl FnMut(&mut Cursor<'a>) -> Option<T>,
    ) -> Option<[T; 2]> {
        self.expect(b'[')?;
        let first = item(self)?;
        self.expect(b',')?;
        let second = item(self)?;
        self.expect(b']')?;
        Some([first, second])
    }

    /// `[item, ...]`.
    pub(super) fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Cursor<'a>) -> Option<T>,
    ) -> Option<Vec<T>> {
        self.expect(b'[')?;
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(Vec::new());
        }
        // Room for a legal list of a usual size, allocated once.
        let mut items = Vec::with_capacity(16);
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

    /// One JSON value as [`Cursor::value`] reads it, and whether it is
    /// compact as written (no whitespace between its tokens), which spares
    /// the caller a second pass to find out.
    pub(super) fn compact_value(&mut self) -> Option<(Range<usize>, bool)> {
        self.skip_space();
        self.spaced = false;
        let range = self.value()?;
        Some((range, !self.spaced))
    }

    /// One JSON value, checked as the parser would (but for UTF-8: the
    /// caller checks the line once, whole), as its place in the line. One
    /// loop over the tokens, the open arrays and objects kept as bits (a
    /// view is mostly small numbers: a call per value would cost more than
    /// the value).
    pub(super) fn value(&mut self) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.at;
        // Bit i set: the i-th open container is an object.
        let (mut objects, mut depth) = (0u64, 0usize);
        loop {
            // A value is due.
            self.skip_space();
            match self.next()? {
                open @ (b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    let object = open == b'{';
                    objects |= u64::from(object) << depth;
                    depth += 1;
                    self.skip_space();
                    if self.peek() == Some(if object { b'}' } else { b']' }) {
                        // Empty: what follows a value.
                        self.at += 1;
                        depth -= 1;
                        objects &= !(1 << depth);
                    } else {
                        if object {
                            self.key()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.at -= 1;
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => {
                    self.at -= 1;
                    self.number()?;
                }
                b't' | b'f' | b'n' => {
                    let rest = &self.bytes[self.at - 1..];
                    let word = [&b"true"[..], b"false", b"null"]
                        .into_iter()
                        .find(|word| rest.starts_with(word))?;
                    self.at += word.len() - 1;
                }
                _ => return None,
            }
            // What follows a value: the end, a `,` or a closing bracket.
            loop {
                if depth == 0 {
                    return Some(start..self.at);
                }
                let object = objects >> (depth - 1) & 1 == 1;
                self.skip_space();
                match (self.next()?, object) {
                    (b',', true) => {
                        self.key()?;
                        break;
                    }
                    (b',', false) => break,
                    (b'}', true) | (b']', false) => {
                        depth -= 1;
                        objects &= !(1 << depth);
                    }
                    _ => return None,
                }
            }
        }
    }

    /// An object's key and its `:`.
    fn key(&mut self) -> Option<()> {
        self.string()?;
        self.expect(b':')
    }

    /// A JSON string (escapes checked), the cursor at its quote.
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => match self.next()? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    // A UTF-16 surrogate must come in a pair, high then
                    // low: a lone one is valid JSON text that no string
                    // holds, and serde_json refuses it when it reads the
                    // value (a replay would fail on it).
                    b'u' => match self.hex_escape()? {
                        0xD800..=0xDBFF => {
                            self.expect_byte(b'\\')?;
                            self.expect_byte(b'u')?;
                            if !(0xDC00..=0xDFFF).contains(&self.hex_escape()?) {
                                return None;
                            }
                        }
                        0xDC00..=0xDFFF => return None,
                        _ => {}
                    },
                    _ => return None,
                },
                0..0x20 => return None,
                _ => {}
            }
        }
    }

    /// A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
    /// within the range of an f64 as serde_json reads it (`1e999` is valid
    /// JSON text that no value holds).
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        self.number_text()?;
        let text = &self.bytes[start..self.at];
        // Only a large positive exponent or hundreds of digits can leave
        // f64's range (1.8e308): the rare number that may is read as
        // serde_json would.
        if magnitude(text) > 300 {
            serde_json::from_slice::<f64>(text).ok()?;
        }
        Some(())
    }

    fn number_text(&mut self) -> Option<()> {
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

    /// The four hex digits of a `\u` escape, as a UTF-16 code unit.
    fn hex_escape(&mut self) -> Option<u16> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = char::from(self.next()?).to_digit(16)?;
            unit = unit << 4 | digit as u16;
        }
        Some(unit)
    }

    /// The next byte, if it is `byte`, without skipping whitespace.
    fn expect_byte(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
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

/// At most how many decimal digits the number `text` (valid JSON) has
/// before its point once its exponent is applied; 0 for a negative
/// exponent, which can only bring it towards zero.
fn magnitude(text: &[u8]) -> usize {
    let digits = text
        .iter()
        .skip_while(|&&byte| byte == b'-')
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    let Some(e) = text.iter().position(|&byte| byte == b'e' || byte == b'E') else {
        return digits;
    };
    let exponent = &text[e + 1..];
    if exponent.first() == Some(&b'-') {
        return 0;
    }
    let exponent = exponent.strip_prefix(b"+").unwrap_or(exponent);
    // More than four digits of exponent: past any double, whatever it says.
    let value = match exponent.len() {
        0..=4 => exponent.iter().fold(0, |value, &digit| value * 10 + usize::from(digit - b'0')),
        _ => usize::MAX / 2,
    };
    digits.saturating_add(value)
}
