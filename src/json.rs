//! Compact JSON written straight into a buffer, for the values that go into
//! every `move` request: views, legal moves and history entries.
//!
//! The bytes are exactly those of `serde_json::to_writer`; writing them
//! directly skips the general serializer, which costs several times more
//! for these small values, on the path every move takes. Each game writes
//! its own view and move types beside their definitions, with
//! [`write_object!`](crate::write_object); protocol/encode.rs's tests check
//! every game's output against serde.

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
integers!(u8, u32, u64, i64);

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

/// Writes an object's fields, each `(key, value)`; keys are plain names
/// that need no escaping.
#[macro_export]
#[doc(hidden)]
macro_rules! write_object {
    ($out:expr, $(($key:literal, $value:expr)),+) => {{
        let out: &mut Vec<u8> = $out;
        let mut separator = b'{';
        $(
            out.push(separator);
            out.extend_from_slice(concat!("\"", $key, "\":").as_bytes());
            $crate::json::WriteJson::write_json($value, out);
            separator = b',';
        )+
        let _ = separator;
        out.push(b'}');
    }};
}

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
        for number in [0u64, 7, 10, 1 << 53, u64::MAX] {
            assert_eq!(json(&number), serde_json::to_string(&number).unwrap());
        }
        let list: Vec<Option<u32>> = vec![Some(3), None, Some(42)];
        assert_eq!(json(&list), serde_json::to_string(&list).unwrap());
        assert_eq!(json(&[[1u8, 2], [3, 4]]), "[[1,2],[3,4]]");
        let empty: [u32; 0] = [];
        assert_eq!(json(&empty), "[]");
    }
}
