//! Compact JSON written straight into a buffer, for the values that go into
//! every `move` request: views, legal moves and history entries.
//!
//! The bytes are exactly those of `serde_json::to_writer`; writing them
//! directly skips the general serializer, which costs several times more
//! for these small values, on the path every move takes. A type's writer
//! is derived (`#[derive(Serialize, WriteJson)]`) from the definition and
//! `#[serde]` attributes serde reads, never kept by hand beside it; only
//! the few types whose `Serialize` is hand-written (a seat as its number, a
//! reason as its word, JSON text kept as it came) write themselves by hand
//! too. protocol/encode.rs's tests check every game's messages against
//! serde.

/// Derives [`WriteJson`](trait@WriteJson) from a type's definition and its
/// `#[serde]` attributes (see the arena-json-derive crate for what it
/// follows): the writer of a message, view or move is never written by
/// hand beside its `Serialize`.
///
/// ```
/// use arena_base::json::WriteJson;
///
/// #[derive(serde::Serialize, WriteJson)]
/// struct View {
///     pool: Vec<u32>,
///     #[serde(rename = "type")]
///     kind: &'static str,
/// }
/// let mut out = Vec::new();
/// View { pool: vec![3, 4], kind: "x" }.write_json(&mut out);
/// assert_eq!(out, br#"{"pool":[3,4],"type":"x"}"#);
/// ```
///
/// An attribute it does not follow is refused where it is written, rather
/// than writing other bytes than serde:
///
/// ```compile_fail
/// use arena_base::json::WriteJson;
///
/// #[derive(serde::Serialize, WriteJson)]
/// struct View {
///     #[serde(skip_serializing_if = "Vec::is_empty")]
///     pool: Vec<u32>,
/// }
/// ```
pub use arena_json_derive::WriteJson;

/// A value that writes itself as compact JSON.
pub trait WriteJson {
    /// Appends the value's JSON to `out`, without spaces.
    fn write_json(&self, out: &mut Vec<u8>);
}

macro_rules! integers {
    ($($integer:ty),*) => {$(
        impl WriteJson for $integer {
            fn write_json(&self, out: &mut Vec<u8>) {
                // Most numbers in these games have one or two digits.
                match u8::try_from(*self) {
                    Ok(small @ 0..10) => out.push(b'0' + small),
                    Ok(small @ 10..100) => out.extend_from_slice(&[b'0' + small / 10, b'0' + small % 10]),
                    _ => out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes()),
                }
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, u128, usize, i32, i64);

impl WriteJson for () {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"null");
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_string(self, out);
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_string(self, out);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut Vec<u8>) {
        (**self).write_json(out);
    }
}

impl WriteJson for std::borrow::Cow<'_, str> {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_string(self, out);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for Box<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        (**self).write_json(out);
    }
}

/// `text` as a JSON string, escaped as serde_json escapes it: the quote,
/// the backslash and the control characters, the common ones by their short forms and
/// the rest as `\u00xx`; everything else, DEL and non-ASCII included, as it is.
fn write_string(text: &str, out: &mut Vec<u8>) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        let short = match byte {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            0x00..0x20 => b'u',
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..index]);
        out.push(b'\\');
        out.push(short);
        if short == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
        }
        start = index + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.write_json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut Vec<u8>) {
        // Room for short elements, so the writing below rarely regrows.
        out.reserve(2 + 4 * self.len());
        out.push(b'[');
        for (index, value) in self.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            value.write_json(out);
        }
        out.push(b']');
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_slice().write_json(out);
    }
}

impl<T: WriteJson, const N: usize> WriteJson for [T; N] {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_slice().write_json(out);
    }
}

/// JSON text kept as it came, made compact: a view, a move or a state a
/// game program sent, passed on to bots and transcripts byte for byte
/// (its keys in the program's order), without the spaces between tokens.
/// Short texts (a move such as `3` or `"e2e4"`) are kept inline: a legal
/// list is made on every turn, and an allocation per move would cost more
/// than the move.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawJson(compact_str::CompactString);

impl RawJson {
    /// `text`, which must be one JSON value (a parser accepted it), made
    /// compact.
    pub fn compact(text: &str) -> RawJson {
        RawJson(match compact(text) {
            std::borrow::Cow::Borrowed(text) => compact_str::CompactString::new(text),
            std::borrow::Cow::Owned(text) => compact_str::CompactString::from(text),
        })
    }

    /// `text`, one JSON value a scanner has checked and found compact (no
    /// whitespace between its tokens), kept as it is.
    pub fn compact_already(text: &str) -> RawJson {
        debug_assert!(matches!(compact(text), std::borrow::Cow::Borrowed(_)), "{text}");
        RawJson(compact_str::CompactString::new(text))
    }

    /// `null`.
    pub fn null() -> RawJson {
        RawJson(compact_str::CompactString::const_new("null"))
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Compact JSON text already written (a game's parameters, say), copied as
/// it is.
#[derive(Clone, Copy, Debug)]
pub struct JsonText<'a>(pub &'a str);

impl WriteJson for JsonText<'_> {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.0.as_bytes());
    }
}

impl serde::Serialize for JsonText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Valid JSON by construction: serde_json embeds it as it is.
        let raw: &serde_json::value::RawValue = serde_json::from_str(self.0)
            .map_err(|_| serde::ser::Error::custom("JsonText holds JSON"))?;
        raw.serialize(serializer)
    }
}

impl WriteJson for RawJson {
    fn write_json(&self, out: &mut Vec<u8>) {
        JsonText(&self.0).write_json(out);
    }
}

impl serde::Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        JsonText(&self.0).serialize(serializer)
    }
}

/// `text` (one JSON value) without whitespace between its tokens; the
/// text itself when it has none (the usual case), so nothing is copied.
pub fn compact(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    // No whitespace byte at all, in strings or out: compact already. A
    // plain pass the compiler vectorizes; most programs write compact JSON.
    if !bytes.iter().any(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r')) {
        return std::borrow::Cow::Borrowed(text);
    }
    let is_space = |byte: &u8| matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
    let mut in_string = false;
    let mut escaped = false;
    let first_space = bytes.iter().position(|byte| {
        let space = !in_string && is_space(byte);
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            _ => {}
        }
        space
    });
    let Some(first_space) = first_space else { return std::borrow::Cow::Borrowed(text) };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first_space]);
    let (mut in_string, mut escaped) = (false, false);
    for character in text[first_space..].chars() {
        if in_string {
            match (escaped, character) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if matches!(character, ' ' | '\t' | '\n' | '\r') {
            continue;
        } else if character == '"' {
            in_string = true;
        }
        out.push(character);
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod derive_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn json<T: WriteJson + ?Sized>(value: &T) -> String {
        let mut out = Vec::new();
        value.write_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_options_and_lists_are_written_as_serde_json_writes_them() {
        for number in [0, 9, 10, 99, 100, 255, 256, -1, i64::MIN, i64::MAX] {
            assert_eq!(json(&number), serde_json::to_string(&number).unwrap());
        }
        assert_eq!(json(&u128::MAX), serde_json::to_string(&u128::MAX).unwrap());
        for number in [0u64, 7, 10, 1 << 53, u64::MAX] {
            assert_eq!(json(&number), serde_json::to_string(&number).unwrap());
        }
        let list: Vec<Option<u32>> = vec![Some(3), None, Some(42)];
        assert_eq!(json(&list), serde_json::to_string(&list).unwrap());
        assert_eq!(json(&[[1u8, 2], [3, 4]]), "[[1,2],[3,4]]");
        let empty: [u32; 0] = [];
        assert_eq!(json(&empty), "[]");
    }

    #[test]
    fn compact_json_drops_the_space_between_tokens_only() {
        assert_eq!(compact(r#"{"a": [1, 2], "b": "x y"}"#), r#"{"a":[1,2],"b":"x y"}"#);
        assert_eq!(
            compact("{\n  \"q\\\" \": \" \\\\\" ,\r\n \"t\" :\ttrue }"),
            r#"{"q\" ":" \\","t":true}"#
        );
        assert!(matches!(compact(r#"{"a":[1,2]}"#), std::borrow::Cow::Borrowed(_)));
        let raw = RawJson::compact(r#"{"z": 1, "a": 2}"#);
        assert_eq!(json(&raw), r#"{"z":1,"a":2}"#);
        assert_eq!(serde_json::to_string(&vec![raw]).unwrap(), r#"[{"z":1,"a":2}]"#);
    }
}
