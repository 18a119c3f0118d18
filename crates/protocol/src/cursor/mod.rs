//! A position in a line being scanned without a general JSON parser: what
//! the scanners of the lines read on every move (a bot's reply, a game
//! program's step) are built from. Each method that reads a token skips
//! the whitespace before it (`take`, `rest` and `advance` work where the
//! cursor is) and gives up (`None`) on anything it does not take, which
//! sends the line to the careful parser.

mod tokens;

use std::ops::Range;

use serde::de::DeserializeOwned;

use tokens::{key_end, number_end, plain_run, space_end, string_end, word_end};

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
        // Most lines are compact: a look at the next byte settles it.
        if let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at = space_end(self.bytes, self.at);
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
        self.take(b"null")
    }

    /// Skips whitespace, then a JSON string without escapes: its bytes
    /// (still to be checked as UTF-8).
    pub(super) fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.at;
        let (end, quote) = plain_run(self.bytes, start)?;
        if !quote {
            return None;
        }
        self.at = end + 1;
        Some(&self.bytes[start..end])
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

    /// Whether `written` comes next, as it is (then taken).
    pub(super) fn take(&mut self, written: &[u8]) -> bool {
        let next = self.rest().starts_with(written);
        self.at += if next { written.len() } else { 0 };
        next
    }

    /// Skips whitespace, then `byte` if it comes next (then taken).
    pub(super) fn closes(&mut self, byte: u8) -> bool {
        self.skip_space();
        let closes = self.peek() == Some(byte);
        self.at += usize::from(closes);
        closes
    }

    /// What follows a member of an object: whether a `,` (another member)
    /// rather than the closing `}` comes next; `None` for anything else.
    pub(super) fn next_after_value(&mut self) -> Option<bool> {
        self.skip_space();
        match self.next()? {
            b',' => Some(true),
            b'}' => Some(false),
            _ => None,
        }
    }

    /// A number, or a string without escapes, as its place in the line: a
    /// value that is compact as written. `None`, the cursor moved past
    /// whitespace only, for any other value.
    pub(super) fn scalar(&mut self) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.at;
        let end = match *self.bytes.get(start)? {
            b'-' | b'0'..=b'9' => number_end(self.bytes, start)?,
            b'"' => match plain_run(self.bytes, start + 1)? {
                (end, true) => end + 1,
                (_, false) => return None,
            },
            _ => return None,
        };
        self.at = end;
        Some(start..end)
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
        if self.closes(b']') {
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
    /// loop over the tokens on a local index, the open arrays and objects
    /// kept as bits: the scanners read a step's views and legal moves on
    /// every turn, where a call and a bounds check per token would cost
    /// more than the token.
    pub(super) fn value(&mut self) -> Option<Range<usize>> {
        let bytes = self.bytes;
        let start = space_end(bytes, self.at);
        let mut at = start;
        let mut spaced = start > self.at;
        // Bit i set: the i-th open container is an object.
        let (mut objects, mut depth) = (0u64, 0usize);
        loop {
            // A value is due.
            let byte = *bytes.get(at)?;
            at += 1;
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    spaced = true;
                    continue;
                }
                b'{' | b'[' => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    let object = byte == b'{';
                    let close = if object { b'}' } else { b']' };
                    let first = space_end(bytes, at);
                    spaced |= first > at;
                    at = first;
                    if bytes.get(at) == Some(&close) {
                        // Empty: what follows a value.
                        at += 1;
                    } else {
                        objects |= u64::from(object) << depth;
                        depth += 1;
                        if object {
                            at = key_end(bytes, at, &mut spaced)?;
                        }
                        continue;
                    }
                }
                b'"' => at = string_end(bytes, at)?,
                b'-' | b'0'..=b'9' => at = number_end(bytes, at - 1)?,
                b't' => at = word_end(bytes, at, b"rue")?,
                b'f' => at = word_end(bytes, at, b"alse")?,
                b'n' => at = word_end(bytes, at, b"ull")?,
                _ => return None,
            }
            // What follows a value: the end, a `,` or a closing bracket.
            loop {
                if depth == 0 {
                    self.at = at;
                    self.spaced |= spaced;
                    return Some(start..at);
                }
                let byte = *bytes.get(at)?;
                at += 1;
                let object = objects >> (depth - 1) & 1 == 1;
                match byte {
                    b' ' | b'\t' | b'\n' | b'\r' => spaced = true,
                    b',' if object => {
                        at = key_end(bytes, at, &mut spaced)?;
                        break;
                    }
                    b',' => break,
                    b'}' if object => {
                        depth -= 1;
                        objects &= !(1 << depth);
                    }
                    b']' if !object => depth -= 1,
                    _ => return None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
