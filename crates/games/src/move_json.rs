//! Strict readers for the parts of a move, so that a move is read from
//! exactly the JSON protocol.md allows and nothing serde's derive would
//! also take.

use std::fmt;

use serde::Deserialize;

/// Reads a unit-like move part (`"L"`, `"add"`) from a JSON string naming
/// one of `names`, and from nothing else: serde's derive would also take
/// `{"L": null}`, which protocol.md does not allow. Returns the index of
/// the name in `names`.
pub fn name_from_string<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    struct Names(&'static [&'static str]);
    impl serde::de::Visitor<'_> for Names {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let quoted: Vec<String> = self.0.iter().map(|name| format!("\"{name}\"")).collect();
            write!(f, "one of the strings {}", quoted.join(", "))
        }
        fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<usize, E> {
            self.0
                .iter()
                .position(|name| *name == value)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(value), &self))
        }
    }
    deserializer.deserialize_str(Names(names))
}

/// Reads a move's fields `F` from a JSON object, and from nothing else:
/// serde's derive would also read a struct from an array (`[7, "add"]`),
/// which protocol.md does not allow. `expecting` says what a move is.
pub fn fields_from_object<'de, D, F>(
    deserializer: D,
    expecting: &'static str,
) -> Result<F, D::Error>
where
    D: serde::Deserializer<'de>,
    F: Deserialize<'de>,
{
    struct ObjectOnly<F>(&'static str, std::marker::PhantomData<F>);
    impl<'de, F: Deserialize<'de>> serde::de::Visitor<'de> for ObjectOnly<F> {
        type Value = F;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<F, A::Error> {
            F::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(ObjectOnly(expecting, std::marker::PhantomData))
}
