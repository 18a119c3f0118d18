use super::*;

fn parse_move(line: &str, id: u64) -> Result<Reply<u32>, BadReply> {
    parse_reply::<u32>(line.as_bytes(), ReplyKind::Move, id)
}

#[test]
fn a_move_reply_is_accepted_with_unknown_fields_ignored() {
    assert_eq!(parse_move(r#"{"type":"move","id":4,"move":13}"#, 4), Ok(Reply::Move(13)));
    assert_eq!(
        parse_move(r#"{"id":4,"comment":"hi","move":13,"type":"move","extra":[1]}"#, 4),
        Ok(Reply::Move(13))
    );
}

#[test]
fn a_ready_reply_may_carry_a_name() {
    let reply = parse_reply::<u32>(br#"{"type":"ready","id":1,"name":"me"}"#, ReplyKind::Ready, 1);
    assert_eq!(reply, Ok(Reply::Ready(Ready { name: Some("me".into()), history: None })));
    let reply = parse_reply::<u32>(br#"{"type":"ready","id":1}"#, ReplyKind::Ready, 1);
    assert_eq!(reply, Ok(Reply::Ready(Ready::default())));
    let reply = parse_reply::<u32>(br#"{"type":"ready","id":1,"name":null}"#, ReplyKind::Ready, 1);
    assert_eq!(reply, Ok(Reply::Ready(Ready::default())));
    let reply = parse_reply::<u32>(br#"{"type":"ready","id":1,"name":7}"#, ReplyKind::Ready, 1);
    assert!(matches!(reply, Err(BadReply { kind: BadReplyKind::NameNotAString, .. })), "{reply:?}");
}

#[test]
fn a_ready_reply_may_ask_for_the_new_moves_only() {
    let ready = |line: &[u8]| parse_reply::<u32>(line, ReplyKind::Ready, 1);
    let new = Ready { name: Some("me".into()), history: Some(HistoryMode::New) };
    assert_eq!(
        ready(br#"{"type":"ready","id":1,"name":"me","history":"new"}"#),
        Ok(Reply::Ready(new))
    );
    let full = Ready { name: None, history: Some(HistoryMode::Full) };
    assert_eq!(ready(br#"{"type":"ready","id":1,"history":"full"}"#), Ok(Reply::Ready(full)));
    let refused = ready(br#"{"type":"ready","id":1,"history":"delta"}"#).unwrap_err();
    assert_eq!(refused.kind, BadReplyKind::UnknownHistory);
    assert!(refused.detail.contains(r#"history "delta": it is "full""#), "{refused}");
}

#[test]
fn a_refused_reply_says_what_kind_of_wrong_it_is() {
    for (line, kind) in [
        ("debug: thinking", BadReplyKind::NotJson),
        ("[2]", BadReplyKind::NotAnObject),
        (r#"{"type":"move","id":2,"move":"#, BadReplyKind::SplitOverLines),
        ("{", BadReplyKind::SplitOverLines),
        (r#"  "type": "move","#, BadReplyKind::NotJson),
        (r#"{"id":2,"move":3}"#, BadReplyKind::NoType),
        (r#"{"type":7,"id":2,"move":3}"#, BadReplyKind::NoType),
        (r#"{"type":"ready","id":2,"move":3}"#, BadReplyKind::WrongType),
        (r#"{"type":"move","move":3}"#, BadReplyKind::NoId),
        (r#"{"type":"move","id":"2","move":3}"#, BadReplyKind::IdNotANumber),
        (r#"{"type":"move","id":2.5,"move":3}"#, BadReplyKind::IdNotANumber),
        (r#"{"type":"move","id":3,"move":3}"#, BadReplyKind::WrongId),
        (r#"{"type":"move","id":2}"#, BadReplyKind::NoMove),
        (r#"{"type":"move","id":2,"move":"3"}"#, BadReplyKind::NotAMove),
    ] {
        let reply = parse_reply::<u32>(line.as_bytes(), ReplyKind::Move, 2);
        assert_eq!(reply.map_err(|bad| bad.kind), Err(kind), "{line}");
    }
    // An empty line (a launcher's banner) says what may be writing it.
    let empty = parse_move("", 2).unwrap_err();
    assert_eq!(empty.kind, BadReplyKind::NotJson);
    assert!(empty.detail.contains("npm start --silent"), "{}", empty.detail);
    assert!(BadReplyKind::IdNotANumber.is_about_the_id());
    assert_eq!(BadReplyKind::NotAMove.forfeit_reason(), ForfeitReason::IllegalMove);
    assert_eq!(BadReplyKind::WrongId.forfeit_reason(), ForfeitReason::Malformed);
}

#[test]
fn wrong_id_wrong_type_and_garbage_are_malformed() {
    for line in [
        r#"{"type":"move","id":3,"move":13}"#,
        r#"{"type":"move","move":13}"#,
        r#"{"type":"ready","id":4}"#,
        r#"{"id":4,"move":13}"#,
        r#"{"type":"move","id":"4","move":13}"#,
        r#"{"type":"move","id":4}"#,
        "13",
        "hello",
        r#"{"type":"move","id":4,"move":13} trailing"#,
        r#"["move",4,null,13]"#,
    ] {
        assert!(
            matches!(parse_move(line, 4), Err(bad) if bad.kind.forfeit_reason() == ForfeitReason::Malformed),
            "{line}"
        );
    }
}

#[test]
fn a_value_of_the_wrong_shape_is_not_a_move() {
    assert!(matches!(
        parse_move(r#"{"type":"move","id":4,"move":"L"}"#, 4),
        Err(BadReply { kind: BadReplyKind::NotAMove, .. })
    ));
    // serde would read a struct from an array; a Number Duel move is an
    // object, and the detail says so.
    let array = br#"{"type":"move","id":4,"move":[7,"add"]}"#;
    let refused = parse_reply::<arena_games::duel::DuelMove>(array, ReplyKind::Move, 4);
    let Err(bad) = refused else { panic!("{refused:?}") };
    assert_eq!(bad.kind, BadReplyKind::NotAMove);
    assert_eq!(bad.kind.forfeit_reason(), ForfeitReason::IllegalMove);
    assert!(bad.detail.starts_with(r#"[7,"add"] is not a move of this game"#), "{}", bad.detail);
    assert!(bad.detail.contains("expected an object"), "{}", bad.detail);
    assert!(!bad.detail.contains("column"), "{}", bad.detail);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
    /// Whatever the scanner accepts, the careful parser reads the same;
    /// whatever it leaves, `parse_reply` answers as the careful parser.
    #[test]
    fn the_reply_scanner_agrees_with_the_json_parser(
        order in 0..6usize,
        values in [0..32usize, 0..32usize, 0..32usize],
        extra in proptest::option::of((0..7usize, 0..32usize, 0..4usize)),
        dropped in proptest::option::of(0..3usize),
        space in 0..4usize,
        trailer in 0..4usize,
    ) {
        const KEYS: [&str; 7] = ["type", "id", "move", "name", "note", r"typ\u0065", "Move"];
        // Value `k` is the good one for key `k`.
        const VALUES: [&str; 20] =
            [r#""move""#, "4", "13", r#""me""#, r#""ready""#, "04", "-4", "1.5", r#""13""#,
             "null", r#"{"a":1}"#, "18446744073709551615", "18446744073709551616", "-0",
             "300", "-9223372036854775808", "-9223372036854775809", r#""b\u0041""#,
             "\"\u{1}\"", r#""né""#];
        const SPACES: [&str; 4] = ["", " ", "\t", "\n "];
        const ORDERS: [[usize; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        // Half the values drawn are the good one for their key.
        let value_for = |key: usize, drawn: usize| if drawn < 16 { key.min(3) } else { drawn - 12 };
        let mut pairs: Vec<(usize, usize)> =
            ORDERS[order].iter().map(|&key| (key, value_for(key, values[key]))).collect();
        if let Some(index) = dropped {
            pairs.remove(index);
        }
        if let Some((key, value, at)) = extra {
            pairs.insert(at.min(pairs.len()), (key, value_for(key, value)));
        }
        let space = SPACES[space];
        let fields: Vec<String> = pairs
            .iter()
            .map(|&(key, value)| format!(r#"{space}"{}"{space}:{space}{}{space}"#, KEYS[key], VALUES[value]))
            .collect();
        let line = format!("{{{}{}", fields.join(","), ["}", "} ", "}x", ""][trailer]);
        if let Some(scanned) = scan_reply(line.as_bytes()) {
            let careful = parse_reply_carefully::<i64>(line.as_bytes(), scanned.kind, scanned.id);
            match (scanned.kind, scanned.mv.map(Integer::read::<i64>)) {
                (ReplyKind::Ready, _) => proptest::prop_assert_eq!(
                    careful, Ok(Reply::Ready(Ready { name: scanned.name.map(str::to_owned), history: None })), "{}", line
                ),
                (ReplyKind::Move, Some(Some(expected))) => {
                    proptest::prop_assert_eq!(careful, Ok(Reply::Move(expected)), "{}", line)
                }
                (ReplyKind::Move, Some(None)) => {
                    proptest::prop_assert!(matches!(careful, Err(BadReply { kind: BadReplyKind::NotAMove, .. })), "{}", line)
                }
                (ReplyKind::Move, None) => {
                    proptest::prop_assert!(matches!(&careful, Err(bad) if bad.kind.forfeit_reason() == ForfeitReason::Malformed), "{}", line)
                }
            }
        }
        for id in [4, 5] {
            proptest::prop_assert_eq!(
                parse_reply::<i64>(line.as_bytes(), ReplyKind::Ready, id),
                parse_reply_carefully::<i64>(line.as_bytes(), ReplyKind::Ready, id),
                "{}", line
            );
            proptest::prop_assert_eq!(
                parse_reply::<i64>(line.as_bytes(), ReplyKind::Move, id),
                parse_reply_carefully::<i64>(line.as_bytes(), ReplyKind::Move, id),
                "{}", line
            );
            proptest::prop_assert_eq!(
                parse_reply::<u8>(line.as_bytes(), ReplyKind::Move, id),
                parse_reply_carefully::<u8>(line.as_bytes(), ReplyKind::Move, id),
                "{}", line
            );
            // Transcripts embed an accepted reply without checking it again.
            for kind in [ReplyKind::Ready, ReplyKind::Move] {
                if parse_reply::<i64>(line.as_bytes(), kind, id).is_ok() {
                    proptest::prop_assert!(
                        serde_json::from_str::<&serde_json::value::RawValue>(&line).is_ok(),
                        "{}", line
                    );
                }
            }
        }
    }
}

#[test]
fn the_reply_scanner_reads_plain_replies() {
    assert_eq!(
        scan_reply(br#" { "move" : -3 , "id":12,"type":"move"}"#),
        Some(ScannedReply {
            kind: ReplyKind::Move,
            id: 12,
            mv: Some(Integer::Negative(-3)),
            name: None
        })
    );
    assert_eq!(
        scan_reply(br#"{"type":"ready","id":1,"name":"bot 7"}"#),
        Some(ScannedReply { kind: ReplyKind::Ready, id: 1, mv: None, name: Some("bot 7") })
    );
    for line in [
        r#"{"type":"move","id":4,"move":13,"note":1}"#,
        r#"{"type":"move","id":4,"id":4,"move":13}"#,
        r#"{"type":"move","id":4,"move":1.5}"#,
        r#"{"type":"move","id":4,"move":013}"#,
        r#"{"type":"start","id":4,"move":13}"#,
        r#"{"type":"move","id":-4,"move":13}"#,
        r#"{"type":"move","id":4,"move":13}x"#,
        r#"{"type":"ready","id":4,"name":"a\"b"}"#,
    ] {
        assert_eq!(scan_reply(line.as_bytes()), None, "{line}");
    }
}

#[test]
fn requests_serialize_with_their_type_tag() {
    let history = [Played { seat: Seat::One, mv: 13u32 }];
    let message: ToBot<'_, (), Vec<u32>, u32> = ToBot::Move {
        id: 2,
        state: vec![5, 7],
        history: History::Moves(&history),
        history_from: None,
        legal_moves: &[5, 7],
        time_ms: 1000,
        bank_ms: None,
    };
    assert_eq!(
        serde_json::to_string(&message).unwrap(),
        r#"{"type":"move","id":2,"state":[5,7],"history":[{"seat":1,"move":13}],"legal_moves":[5,7],"time_ms":1000}"#
    );
    assert_eq!(message.line(), [serde_json::to_vec(&message).unwrap(), b"\n".to_vec()].concat());
    let reveal: ToBot<'_, (), (), u32> = ToBot::Reveal { moves: [Some(&5), None] };
    assert_eq!(serde_json::to_string(&reveal).unwrap(), r#"{"type":"reveal","moves":[5,null]}"#);
    assert_eq!(reveal.line(), b"{\"type\":\"reveal\",\"moves\":[5,null]}\n");
}

/// JSON text that serde_json's raw reader takes but no value holds: a lone
/// UTF-16 surrogate, a number past f64's range. A game program's step or a
/// bot's reply holding one is refused, by the scanners and the careful
/// parsers alike: arena keeps those lines, and must read them back.
#[test]
fn text_that_reads_as_no_json_value_is_refused_on_every_path() {
    use super::game::{Answer, GameRequestKind, parse_answer};
    use arena_games::program::Moves;
    let cases = [
        (r#""\ud800x""#, false),
        (r#""\udc00""#, false),
        (r#""\ud800\u0041""#, false),
        (r#""\ud800\"#, false),
        (r#""\ud83d\ude00""#, true),
        (r#""\u00e9\u0041""#, true),
        ("1e999", false),
        ("-1.8e308", false),
        ("1e308", true),
        ("1E400", false),
        ("-0e5", true),
        ("180e306", false),
        ("17e307", true),
        ("0.0000001e310", true),
        ("1e+0400", false),
        ("1e-999", true),
        ("123456789012345678901234567890", true),
        (&"9".repeat(400), false),
        // Hundreds of digits and a negative exponent: 1e390, 1e300.
        (&format!("1{}e-10", "0".repeat(400)), false),
        (&format!("1{}e-100", "0".repeat(400)), true),
    ];
    for (value, readable) in cases {
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(value).is_ok(),
            readable,
            "serde_json itself: {value}"
        );
        // The compact step takes the scanner's path; the spaced one with
        // an unknown field, the careful parser's.
        for step in [
            format!(
                r#"{{"type":"step","id":2,"to_move":[1],"legal_moves":[[{value}],[]],"views":[1,2],"scores":[0,0]}}"#
            ),
            format!(
                r#"{{"type":"step","id":2,"to_move":[1],"legal_moves":[[1],[]],"views":[{value},2],"scores":[0,0]}}"#
            ),
            format!(
                r#"{{"type":"step","id":2,"to_move":[1],"legal_moves":[[1],[]],"views":[1,2],"scores":[0,0],"state":{value}}}"#
            ),
            format!(
                r#"{{ "type": "step", "id": 2, "to_move": [1], "legal_moves": [[1], []], "views": [1, 2], "scores": [0, 0], "note": {value} }}"#
            ),
        ] {
            let answer = parse_answer(step.as_bytes(), GameRequestKind::Init, 2, Moves::Public);
            assert_eq!(matches!(answer, Ok(Answer::Step(_))), readable, "{step}: {answer:?}");
        }
        let reply = format!(r#"{{"type":"move","id":4,"move":3,"note":{value}}}"#);
        let parsed = parse_reply::<i64>(reply.as_bytes(), ReplyKind::Move, 4);
        assert_eq!(parsed.is_ok(), readable, "{reply}: {parsed:?}");
        // Inside a move of fields, read in one pass (serde skips the field).
        let reply = format!(r#"{{"type":"move","id":4,"move":{{"number":3,"x":{value}}}}}"#);
        let parsed = parse_reply::<Pick>(reply.as_bytes(), ReplyKind::Move, 4);
        assert_eq!(parsed.is_ok(), readable, "{reply}: {parsed:?}");
    }
    // Invalid UTF-8 inside a skipped string, likewise.
    let reply = b"{\"type\":\"move\",\"id\":4,\"move\":{\"number\":3,\"x\":\"\xff\"}}";
    assert!(parse_reply::<Pick>(reply, ReplyKind::Move, 4).is_err());
    let reply = br#"{"type":"move","id":4,"move":{"number":3,"x":"fine"},"comment":"ok"}"#;
    assert_eq!(parse_reply::<Pick>(reply, ReplyKind::Move, 4), Ok(Reply::Move(Pick { number: 3 })));
}

/// A move of fields that skips the ones it does not know (as a game's move
/// type does).
#[derive(Debug, PartialEq, serde::Deserialize)]
struct Pick {
    number: u32,
}
