//! The `declares` of an answer to `init`: what its parameter set changes
//! of the program's declaration (game-protocol.md, section 4).

use serde::Deserialize;

use super::{BadAnswer, BadAnswerKind};
use arena_games::program::Declares;

#[derive(Deserialize)]
struct WithDeclares {
    #[serde(default)]
    declares: Option<Declares>,
}

/// The `declares` of `line`, an answer to `init` already read as a step;
/// `None` where it has none. Most answers have none: they are not read
/// again.
pub fn declares_of(line: &[u8]) -> Result<Option<Declares>, BadAnswer> {
    if memchr::memmem::find(line, b"\"declares\"").is_none() {
        return Ok(None);
    }
    let read: WithDeclares = serde_json::from_slice(line).map_err(|error| {
        BadAnswer::new(BadAnswerKind::Malformed, format!("`declares`: {error}"))
    })?;
    Ok(read.declares)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_games::program::Moves;

    #[test]
    fn an_init_answer_may_declare_for_its_parameters() {
        let plain = br#"{"type":"step","id":2,"to_move":[1],"legal_moves":[[1],[]],"views":[1,2],"scores":[0,0]}"#;
        assert_eq!(declares_of(plain), Ok(None));
        let declaring = br#"{"type":"step","id":2,"declares":{"moves":"hidden","max_turns":40},"to_move":[1],"legal_moves":[[1],[]],"views":[1,2],"scores":[0,0]}"#;
        let declares = declares_of(declaring).unwrap().unwrap();
        assert_eq!(
            (declares.moves, declares.max_turns, declares.random),
            (Some(Moves::Hidden), Some(40), None)
        );
        let misspelt = br#"{"type":"step","id":2,"declares":{"max_turn":40},"to_move":[],"views":[1,2],"scores":[0,0]}"#;
        let refused = declares_of(misspelt).unwrap_err();
        assert!(refused.detail.contains("unknown field `max_turn`"), "{refused}");
    }
}
