//! What one parameter set changes of a game program's declaration: the
//! `declares` of its answer to `init` (game-protocol.md, section 4).

use serde::{Deserialize, Serialize};

use super::{Declaration, Moves};
use arena_base::score::Score;

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
    /// The payoffs' range (a deeper stack, another deck).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoffs: Option<Payoffs>,
}

/// A game whose scores are payoffs: each seat's score at the end is what it
/// won (negative: lost), from `min` to `max`. A seat that forfeits is
/// charged `min`, and the other seat credited `max`, whatever the scores
/// stood at: a bot must not escape a loss by crashing before it is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payoffs {
    /// The least a seat can end a game with.
    pub min: Score,
    /// The most a seat can end a game with.
    pub max: Score,
}

impl Payoffs {
    /// Checks that the range is one: `min` below `max`.
    pub fn check(&self) -> Result<(), String> {
        match self.min < self.max {
            true => Ok(()),
            false => Err(format!(
                "`payoffs` must have `min` below `max`; got min {} and max {}",
                self.min, self.max
            )),
        }
    }

    /// What `seat`'s payoff counts as, given both seats' forfeits and
    /// `score`, its score as the game ended.
    pub fn counted(&self, score: f64, forfeits: [bool; 2], seat: crate::Seat) -> f64 {
        let [mine, theirs] = match seat {
            crate::Seat::One => forfeits,
            crate::Seat::Two => [forfeits[1], forfeits[0]],
        };
        match (mine, theirs) {
            (true, _) => self.min.as_f64(),
            (false, true) => self.max.as_f64(),
            (false, false) => score,
        }
    }
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
        if declares.payoffs.is_some() {
            declared.payoffs = declares.payoffs;
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
