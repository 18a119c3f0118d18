//! What one parameter set changes of a game program's declaration: the
//! `declares` of its answer to `init` (game-protocol.md, section 4).

use serde::{Deserialize, Serialize};

use super::{Declaration, Moves};

/// The keys of `hello`'s declaration that an `init` answer may set for its
/// parameters (goofspiel's bids hidden or public, a board size that allows
/// longer games). A key left out keeps `hello`'s value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declares {
    /// Whether moves are public or hidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Moves>,
    /// Whether the seed changes the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<bool>,
    /// Whether what the seed deals may be seen by one seat only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_chance: Option<bool>,
    /// The most turns a game can last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
}

impl Declaration {
    /// This declaration with `declares` applied, checked as `hello`'s is.
    pub fn with(&self, declares: &Declares) -> Result<Declaration, String> {
        let mut declared = self.clone();
        if let Some(moves) = declares.moves {
            declared.moves = moves;
        }
        if let Some(random) = declares.random {
            declared.random = random;
        }
        if declares.private_chance.is_some() {
            declared.private_chance = declares.private_chance;
        }
        if let Some(max_turns) = declares.max_turns {
            declared.max_turns = max_turns;
        }
        declared.check()?;
        Ok(declared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declares_change_only_the_keys_given_and_are_checked() {
        let hello = crate::program::tests::declaration();
        let declares =
            Declares { moves: Some(Moves::Public), max_turns: Some(40), ..Declares::default() };
        let declared = hello.with(&declares).unwrap();
        assert_eq!((declared.moves, declared.max_turns), (Moves::Public, 40));
        assert_eq!((declared.random, declared.params.len()), (hello.random, hello.params.len()));
        let too_long = Declares { max_turns: Some(0), ..Declares::default() };
        assert!(hello.with(&too_long).unwrap_err().contains("max_turns"));
        let misspelt: Result<Declares, _> = serde_json::from_str(r#"{"max_turn": 4}"#);
        assert!(misspelt.unwrap_err().to_string().contains("unknown field `max_turn`"));
    }
}
