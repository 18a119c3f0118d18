//! What arena sent one seat's bot in a game, from the game's transcript:
//! each line exactly as written to the bot's standard input. Piped into
//! the bot, they play the game again from its side (a bot that seeds its
//! randomness with the `start` message's seed answers as it did).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{LineError, json_lines, with_header};
use arena_games::Seat;

/// A `send` line of a transcript: the message as arena wrote it.
#[derive(Deserialize)]
struct SendLine<'a> {
    seat: Seat,
    #[serde(borrow)]
    msg: &'a RawValue,
}

/// The lines `seat`'s bot was sent in the game the transcript `text`
/// records, in order.
pub fn sent_to(text: &str, seat: Seat) -> Result<Vec<String>, LineError> {
    let lines = json_lines(text)?;
    let (_, _, rest) = with_header(&lines)?;
    let mut sent = Vec::new();
    for line in rest {
        if line.kind()? != "send" {
            continue;
        }
        let entry: SendLine<'_> = serde_json::from_str(&line.text).map_err(|error| {
            LineError::new(line.number, format!("not a valid `send` line: {error}"))
        })?;
        // arena sends objects only: anything else was not written by it.
        if !entry.msg.get().starts_with('{') {
            return Err(LineError::new(line.number, "a `send` line whose `msg` is no object"));
        }
        if entry.seat == seat {
            sent.push(entry.msg.get().to_owned());
        }
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"header","arena":"0.1.0","protocol":1,"game":"number-snatch","seed":1,"params":{},"bots":[],"state":null}"#;

    #[test]
    fn a_seats_lines_come_as_written_in_order() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n",
            r#"{"type":"send","t_us":1,"seat":1,"msg":{"type":"start","id":1,"seed":7}}"#,
            r#"{"type":"send","t_us":2,"seat":2,"msg":{"type":"start","id":1,"seed":8}}"#,
            r#"{"type":"recv","t_us":3,"seat":1,"msg":{"type": "ready", "id": 1}}"#,
            r#"{"type":"send","t_us":4,"seat":1,"msg":{"type":"move","id":2,"state":{"a": [1, 2]}}}"#,
        );
        assert_eq!(
            sent_to(&text, Seat::One).unwrap(),
            [
                r#"{"type":"start","id":1,"seed":7}"#,
                r#"{"type":"move","id":2,"state":{"a": [1, 2]}}"#
            ]
        );
        assert_eq!(sent_to(&text, Seat::Two).unwrap(), [r#"{"type":"start","id":1,"seed":8}"#]);
    }

    #[test]
    fn a_bad_send_line_is_named() {
        let text = format!("{HEADER}\n{}\n", r#"{"type":"send","t_us":1,"seat":3,"msg":{}}"#);
        let error = sent_to(&text, Seat::One).unwrap_err().to_string();
        assert!(error.starts_with("2: not a valid `send` line"), "{error}");
        let text = format!("{HEADER}\n{}\n", r#"{"type":"send","t_us":1,"seat":1,"msg":"hi"}"#);
        let error = sent_to(&text, Seat::One).unwrap_err().to_string();
        assert_eq!(error, "2: a `send` line whose `msg` is no object");
    }
}
