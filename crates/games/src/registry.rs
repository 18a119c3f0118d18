//! The registry of built-in games: the one list of games and what is
//! generated from it ([`GameId`], parsing, titles, and the dispatch of
//! [`with_game!`](crate::with_game) from a runtime id to generic code).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The one list of games: each line names a game's [`GameId`] variant, its
/// module (the folder `src/games/<module>/`), its id in the protocol and on
/// the command line, the title its rule book gives it, and its
/// [`Game`](crate::Game) type in that module. Everything that goes
/// from an id to a game is generated from it: the module declarations, the
/// [`GameId`] enum and its serde names, [`GameId::ALL`], parsing, titles,
/// the help texts that list games, and the dispatch of
/// [`with_game!`](crate::with_game). Adding a game is a new folder and one
/// line here (docs/adding-a-game.md).
///
/// `games_list!(callback! { args })` calls `callback! { args; list }`.
#[macro_export]
#[doc(hidden)]
macro_rules! games_list {
    ($callback:ident ! { $($args:tt)* }) => {
        $crate::$callback! { $($args)*;
            (NumberSnatch, snatch, "number-snatch", "Number Snatch", NumberSnatch),
            (NumbersWar, numbers_war, "numbers-war", "Numbers War", NumbersWar),
            (NumberWarriors, warriors, "number-warriors", "Number Warriors", NumberWarriors),
            (NumberClaim, claim, "number-claim", "Number Claim", NumberClaim),
            (NumberDuel, duel, "number-duel", "Number Duel", NumberDuel),
        }
    };
}

/// Declares each game's module from the list of games.
#[macro_export]
#[doc(hidden)]
macro_rules! declare_game_modules {
    (; $(($variant:ident, $module:ident, $id:literal, $title:literal, $game:ident)),+ $(,)?) => {
        $(pub mod $module;)+
    };
}

/// Defines [`GameId`] from the list of games.
#[macro_export]
#[doc(hidden)]
macro_rules! define_game_ids {
    (; $(($variant:ident, $module:ident, $id:literal, $title:literal, $game:ident)),+ $(,)?) => {
        /// The games arena knows, by protocol id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum GameId {
            $(
                #[doc = $title]
                #[serde(rename = $id)]
                $variant,
            )+
        }

        impl GameId {
            /// Every game, in the list's order.
            pub const ALL: &'static [GameId] = &[$(GameId::$variant),+];

            /// The id used in the protocol, on the command line and in files.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(GameId::$variant => $id,)+
                }
            }

            /// The name the rule books give the game.
            pub fn title(self) -> &'static str {
                match self {
                    $(GameId::$variant => $title,)+
                }
            }
        }
    };
}

games_list!(define_game_ids! {});

/// The `match` arm of [`with_game!`](crate::with_game), one per game of the list.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_game {
    ($id:expr, $G:ident, $body:expr; $(($variant:ident, $module:ident, $name:literal, $title:literal, $game:ident)),+ $(,)?) => {
        match $id {
            $(
                $crate::GameId::$variant => {
                    type $G = $crate::$module::$game;
                    $body
                }
            )+
        }
    };
}

/// Runs `$body` with `$G` standing for the [`Game`](crate::Game)
/// type of `$id`, so code generic over `G: Game` can be entered from a
/// runtime game id.
#[macro_export]
macro_rules! with_game {
    ($id:expr, $G:ident => $body:expr) => {
        $crate::games_list!(dispatch_game! { $id, $G, $body })
    };
}

/// The title of the game with id `id`: a built-in game's, or the id itself
/// (a game program's title is its own business).
pub fn title_of(id: &str) -> &str {
    match id.parse::<GameId>() {
        Ok(game) => game.title(),
        Err(_) => id,
    }
}

impl GameId {
    /// All ids, comma-separated, for error messages and help.
    pub fn list() -> String {
        GameId::ALL.iter().map(|id| id.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game id that arena does not know.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "unknown game `{}`; the games are: {}",
    arena_base::printable::printable(given),
    GameId::list()
)]
pub struct UnknownGame {
    /// The id as given (shown with its control characters escaped: it may
    /// come from a file's string, where `\u001b` is one).
    pub given: String,
}

impl FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        GameId::ALL
            .iter()
            .copied()
            .find(|id| id.as_str() == s)
            .ok_or_else(|| UnknownGame { given: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_round_trip_and_unknown_ones_list_the_valid_ones() {
        for &id in GameId::ALL {
            assert_eq!(id.as_str().parse::<GameId>().unwrap(), id);
            assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{id}\""));
        }
        let error = "chess".parse::<GameId>().unwrap_err().to_string();
        assert!(error.contains("chess") && error.contains("number-duel"), "{error}");
        let error = "snatch\u{1b}[31m".parse::<GameId>().unwrap_err().to_string();
        assert!(error.contains("unknown game `snatch\\u{1b}[31m`"), "{error}");
    }
}
