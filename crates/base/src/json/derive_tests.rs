//! `#[derive(WriteJson)]` writes the bytes serde_json writes, for every
//! shape and attribute it accepts.

use serde::Serialize;

use super::WriteJson;

fn both<T: WriteJson + Serialize>(value: &T) -> (String, String) {
    let mut written = Vec::new();
    value.write_json(&mut written);
    (String::from_utf8(written).unwrap(), serde_json::to_string(value).unwrap())
}

fn agrees<T: WriteJson + Serialize>(value: &T) {
    let (written, serde) = both(value);
    assert_eq!(written, serde);
}

#[derive(Serialize, WriteJson)]
struct Plain {
    number: u32,
    #[serde(rename = "type")]
    kind: &'static str,
    list: Vec<Option<i64>>,
    flag: bool,
}

#[derive(Serialize, WriteJson)]
struct Optional {
    #[serde(skip_serializing_if = "Option::is_none")]
    first: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    second: Option<u8>,
    always: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    last: Option<String>,
}

#[derive(Serialize, WriteJson)]
struct OnlyOptional {
    #[serde(skip_serializing_if = "Option::is_none")]
    only: Option<u8>,
}

#[derive(Serialize, WriteJson)]
struct Generic<'a, T> {
    items: &'a [T],
    #[serde(rename = "move")]
    r#move: T,
    out: u8,
}

#[derive(Serialize, WriteJson)]
struct Newtype(u64);

#[derive(Serialize, WriteJson)]
struct Pair(u8, String);

#[derive(Serialize, WriteJson)]
struct Unit;

#[derive(Serialize, WriteJson)]
#[serde(rename_all = "snake_case")]
enum Word {
    Plain,
    TwoWords,
    #[serde(rename = "other")]
    Renamed,
}

#[derive(Serialize, WriteJson)]
#[serde(rename_all = "lowercase")]
enum External {
    Bare,
    Wrapped(u8),
    Tuple(u8, u8),
    Fields { a: u8, b: Option<u8> },
}

#[derive(Serialize, WriteJson)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Tagged<'a> {
    Hello {
        id: u64,
    },
    SayThis {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<u32>,
    },
    Nothing,
}

#[test]
fn structs_are_written_as_serde_json_writes_them() {
    agrees(&Plain { number: 12, kind: "x", list: vec![Some(-3), None], flag: true });
    for first in [None, Some(1)] {
        for second in [None, Some(2)] {
            for last in [None, Some("z".to_owned())] {
                agrees(&Optional { first, second, always: 3, last: last.clone() });
            }
        }
    }
    agrees(&OnlyOptional { only: None });
    agrees(&OnlyOptional { only: Some(4) });
    agrees(&Generic { items: &[Word::Plain, Word::TwoWords], r#move: Word::Renamed, out: 1 });
    agrees(&Newtype(u64::MAX));
    agrees(&Pair(1, "two".to_owned()));
    agrees(&Unit);
}

#[test]
fn enums_are_written_as_serde_json_writes_them() {
    for word in [Word::Plain, Word::TwoWords, Word::Renamed] {
        agrees(&word);
    }
    agrees(&External::Bare);
    agrees(&External::Wrapped(7));
    agrees(&External::Tuple(1, 2));
    agrees(&External::Fields { a: 1, b: None });
    agrees(&Tagged::Hello { id: 9 });
    agrees(&Tagged::SayThis { text: "hi", extra: None });
    agrees(&Tagged::SayThis { text: "hi", extra: Some(5) });
    agrees(&Tagged::Nothing);
}

#[test]
fn strings_are_escaped_as_serde_json_escapes_them() {
    let every_control: String = (0u8..0x20).map(char::from).collect();
    for text in
        ["", "plain", "quote \" and backslash \\", "\u{7f} é ☃ 🂡", every_control.as_str(), "\\\"\n"]
    {
        agrees(&text);
        agrees(&text.to_owned());
    }
}
