//! The requests arena writes to a game program, each one line.

use serde::Serialize;

use arena_base::json::{JsonText, WriteJson};
use arena_games::Played;
use arena_games::program::JsonMove;

/// The game protocol's version, sent in `hello`.
const GAME_PROTOCOL_VERSION: u32 = 1;

/// What a request to a game program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameRequestKind {
    /// `hello`: describe yourself.
    Hello,
    /// `init`: set up a game.
    Init,
    /// `apply`: play a turn.
    Apply,
}

impl GameRequestKind {
    /// The request's `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameRequestKind::Hello => "hello",
            GameRequestKind::Init => "init",
            GameRequestKind::Apply => "apply",
        }
    }
}

/// A request to a game program, written by the writer
/// `#[derive(WriteJson)]` makes of this definition.
#[derive(Debug, Serialize, WriteJson)]
#[serde(tag = "type", rename_all = "snake_case")]
enum GameRequest<'a> {
    Hello { id: u64, protocol: u32 },
    Init { id: u64, params: JsonText<'a>, seed: u64 },
    Apply { id: u64, moves: &'a [Played<JsonMove>] },
}

impl GameRequest<'_> {
    fn line(&self, capacity: usize) -> Vec<u8> {
        let mut line = Vec::with_capacity(capacity);
        self.write_json(&mut line);
        line.push(b'\n');
        line
    }
}

/// `{"type":"hello","id":1,"protocol":1}`, newline included.
pub fn hello_request(id: u64) -> Vec<u8> {
    GameRequest::Hello { id, protocol: GAME_PROTOCOL_VERSION }.line(48)
}

/// `{"type":"init","id":2,"params":{...},"seed":7}`, newline included.
/// `params_json` is every parameter with its value, as compact JSON.
pub fn init_request(id: u64, params_json: &str, seed: u64) -> Vec<u8> {
    GameRequest::Init { id, params: JsonText(params_json), seed }.line(64 + params_json.len())
}

/// `{"type":"apply","id":3,"moves":[{"seat":1,"move":4}]}`, newline
/// included: the moves of one turn, in seat order.
pub fn apply_request(id: u64, moves: &[Played<JsonMove>]) -> Vec<u8> {
    GameRequest::Apply { id, moves }.line(64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_games::Seat;

    #[test]
    fn requests_are_written_as_documented() {
        assert_eq!(hello_request(1), b"{\"type\":\"hello\",\"id\":1,\"protocol\":1}\n");
        assert_eq!(
            init_request(2, r#"{"rows":6}"#, 7),
            b"{\"type\":\"init\",\"id\":2,\"params\":{\"rows\":6},\"seed\":7}\n"
        );
        let moves = [
            Played { seat: Seat::One, mv: JsonMove::from_text("3") },
            Played { seat: Seat::Two, mv: JsonMove::from_text(r#"{"bid": [2, 5]}"#) },
        ];
        assert_eq!(
            String::from_utf8(apply_request(3, &moves)).unwrap(),
            "{\"type\":\"apply\",\"id\":3,\"moves\":[{\"seat\":1,\"move\":3},{\"seat\":2,\"move\":{\"bid\":[2,5]}}]}\n"
        );
        // The derived writer and serde agree on every request.
        let requests = [
            GameRequest::Hello { id: 1, protocol: GAME_PROTOCOL_VERSION },
            GameRequest::Init { id: 2, params: JsonText(r#"{"rows":6,"name":"a\"b"}"#), seed: 7 },
            GameRequest::Apply { id: 3, moves: &moves },
        ];
        for request in requests {
            assert_eq!(
                String::from_utf8(request.line(0)).unwrap(),
                serde_json::to_string(&request).unwrap() + "\n"
            );
        }
    }
}
