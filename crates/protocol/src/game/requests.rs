//! The requests arena writes to a game program, each one line.

use arena_base::json::WriteJson;
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

/// `{"type":"hello","id":1,"protocol":1}`, newline included.
pub fn hello_request(id: u64) -> Vec<u8> {
    format!("{{\"type\":\"hello\",\"id\":{id},\"protocol\":{GAME_PROTOCOL_VERSION}}}\n")
        .into_bytes()
}

/// `{"type":"init","id":2,"params":{...},"seed":7}`, newline included.
/// `params_json` is every parameter with its value, as JSON.
pub fn init_request(id: u64, params_json: &str, seed: u64) -> Vec<u8> {
    let mut line = Vec::with_capacity(64 + params_json.len());
    line.extend_from_slice(br#"{"type":"init","id":"#);
    id.write_json(&mut line);
    line.extend_from_slice(br#","params":"#);
    line.extend_from_slice(params_json.as_bytes());
    line.extend_from_slice(br#","seed":"#);
    seed.write_json(&mut line);
    line.extend_from_slice(b"}\n");
    line
}

/// `{"type":"apply","id":3,"moves":[{"seat":1,"move":4}]}`, newline
/// included: the moves of one turn, in seat order.
pub fn apply_request(id: u64, moves: &[Played<JsonMove>]) -> Vec<u8> {
    let mut line = Vec::with_capacity(64);
    line.extend_from_slice(br#"{"type":"apply","id":"#);
    id.write_json(&mut line);
    line.extend_from_slice(br#","moves":["#);
    for (index, played) in moves.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        line.extend_from_slice(br#"{"seat":"#);
        played.seat.write_json(&mut line);
        line.extend_from_slice(br#","move":"#);
        played.mv.write_json(&mut line);
        line.push(b'}');
    }
    line.extend_from_slice(b"]}\n");
    line
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
    }
}
