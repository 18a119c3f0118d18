//! Where each token of a JSON text ends, read on a byte index: the pieces
//! [`super::Cursor::value`] and the scanners' shortcuts are made of. Each
//! takes the line and a position and gives the position after its token,
//! or `None` for anything a JSON parser would refuse (but for UTF-8, which
//! the line's reader checks once, whole).

/// Where the whitespace from `at` ends.
pub(super) fn space_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// What may not stand as itself in a JSON string: the quote that ends it,
/// the backslash that starts an escape, and the control characters.
static NOT_PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The run of plain string bytes from `at`: where it ends, and whether it
/// ends at a quote (otherwise at a backslash). `None` at a control
/// character or the end of the line.
#[inline]
pub(super) fn plain_run(bytes: &[u8], mut at: usize) -> Option<(usize, bool)> {
    loop {
        let byte = *bytes.get(at)?;
        if NOT_PLAIN[usize::from(byte)] {
            return match byte {
                b'"' => Some((at, true)),
                b'\\' => Some((at, false)),
                _ => None,
            };
        }
        at += 1;
    }
}

/// Where the string whose opening quote ends before `at` ends (after its
/// closing quote), its escapes checked.
pub(super) fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let (end, quote) = plain_run(bytes, at)?;
        if quote {
            return Some(end + 1);
        }
        at = escape_end(bytes, end + 1)?;
    }
}

/// Where the escape whose backslash ends before `at` ends.
fn escape_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(at + 1),
        // A UTF-16 surrogate must come in a pair, high then low: a lone one
        // is valid JSON text that no string holds, and serde_json refuses it
        // when it reads the value (a replay would fail on it).
        b'u' => match hex_escape(bytes, at + 1)? {
            0xD800..=0xDBFF => {
                if bytes.get(at + 5..at + 7)? != b"\\u" {
                    return None;
                }
                match hex_escape(bytes, at + 7)? {
                    0xDC00..=0xDFFF => Some(at + 11),
                    _ => None,
                }
            }
            0xDC00..=0xDFFF => None,
            _ => Some(at + 5),
        },
        _ => None,
    }
}

/// The four hex digits at `at`, as a UTF-16 code unit.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u16> {
    bytes
        .get(at..at + 4)?
        .iter()
        .try_fold(0, |unit, &digit| Some(unit << 4 | char::from(digit).to_digit(16)? as u16))
}

/// Where an object's key (a string at `at`, after whitespace), the
/// whitespace after it and its `:` end.
pub(super) fn key_end(bytes: &[u8], at: usize, spaced: &mut bool) -> Option<usize> {
    let quote = space_end(bytes, at);
    if bytes.get(quote) != Some(&b'"') {
        return None;
    }
    let end = string_end(bytes, quote + 1)?;
    let colon = space_end(bytes, end);
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    *spaced |= quote > at || colon > end;
    Some(colon + 1)
}

/// Where the rest of a `true`, `false` or `null` (`rest`, from `at`) ends.
pub(super) fn word_end(bytes: &[u8], at: usize, rest: &[u8]) -> Option<usize> {
    (bytes.get(at..at + rest.len())? == rest).then_some(at + rest.len())
}

/// Where the JSON number at `start` ends:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, within the range of an
/// f64 as serde_json reads it (`1e999` is valid JSON text that no value
/// holds). An integer of up to 300 characters (most numbers in views and
/// moves) is read here; a longer one, or one with a fraction or an
/// exponent, by [`number_tail`].
#[inline]
pub(super) fn number_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + usize::from(bytes[start] == b'-');
    let first = *bytes.get(at)?;
    at += 1;
    if first != b'0' {
        if !first.is_ascii_digit() {
            return None;
        }
        while let Some(b'0'..=b'9') = bytes.get(at) {
            at += 1;
        }
    }
    match bytes.get(at) {
        Some(b'.' | b'e' | b'E') => number_tail(bytes, start, at),
        _ if at - start > 300 => number_tail(bytes, start, at),
        _ => Some(at),
    }
}

/// Where the number at `start`, whose integer part ends at `at`, ends.
#[cold]
fn number_tail(bytes: &[u8], start: usize, mut at: usize) -> Option<usize> {
    let digits = |mut at: usize| {
        while let Some(b'0'..=b'9') = bytes.get(at) {
            at += 1;
        }
        at
    };
    // Without an exponent, only hundreds of digits before the point can
    // leave f64's range (1.8e308).
    let mut may_overflow = at - start > 300;
    if bytes.get(at) == Some(&b'.') {
        let after = digits(at + 1);
        if after == at + 1 {
            return None;
        }
        at = after;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = bytes.get(at) {
            at += 1;
        }
        let after = digits(at);
        if after == at {
            return None;
        }
        at = after;
        may_overflow = true;
    }
    // The rare number that may is read as serde_json would.
    if may_overflow {
        serde_json::from_slice::<f64>(&bytes[start..at]).ok()?;
    }
    Some(at)
}
