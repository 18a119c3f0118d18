//! Why a game ended and why a seat forfeited, as bots, transcripts and
//! games.csv spell them.

use serde::{Deserialize, Serialize};

use arena_base::json::WriteJson;
use arena_games::Seat;

/// Why a seat lost by forfeit. Serialized in snake_case; the same words
/// appear in `over`, in transcripts and in games.csv.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, WriteJson)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// No reply (or no complete line) before the deadline.
    Timeout,
    /// A well-formed reply whose move is not one of the legal moves.
    IllegalMove,
    /// A line that is not JSON, not a reply of the expected type, or that
    /// carries the wrong id.
    Malformed,
    /// The bot exited, was killed, or closed its output.
    Crash,
    /// A line longer than the line limit.
    LineTooLong,
    /// Not a protocol forfeit: the bot had crashed or failed to start in
    /// so many games in a row that the run withdrew it, and recorded its
    /// remaining games unplayed (games.csv only; no bot is ever told it).
    Withdrawn,
}

impl ForfeitReason {
    /// Every reason, in declaration order.
    pub const ALL: [ForfeitReason; 6] = [
        ForfeitReason::Timeout,
        ForfeitReason::IllegalMove,
        ForfeitReason::Malformed,
        ForfeitReason::Crash,
        ForfeitReason::LineTooLong,
        ForfeitReason::Withdrawn,
    ];

    /// The reason as it is serialized (`illegal_move`).
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Timeout => "timeout",
            ForfeitReason::IllegalMove => "illegal_move",
            ForfeitReason::Malformed => "malformed",
            ForfeitReason::Crash => "crash",
            ForfeitReason::LineTooLong => "line_too_long",
            ForfeitReason::Withdrawn => "withdrawn",
        }
    }

    /// Whether the bot process can be trusted with another game. After an
    /// illegal move it is still in step with the protocol; after the others
    /// a stale or partial line may be on its way, so it is restarted.
    pub fn leaves_bot_in_doubt(self) -> bool {
        self != ForfeitReason::IllegalMove
    }
}

impl std::fmt::Display for ForfeitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended: on the board, by one forfeit, or by two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultReason {
    /// Played to its end.
    Normal,
    /// One seat forfeited, for this reason.
    Forfeit(ForfeitReason),
    /// Both seats forfeited.
    DoubleForfeit,
}

impl ResultReason {
    /// `normal`, the forfeit reason's word, or `double_forfeit`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultReason::Normal => "normal",
            ResultReason::Forfeit(reason) => reason.as_str(),
            ResultReason::DoubleForfeit => "double_forfeit",
        }
    }
}

impl std::fmt::Display for ResultReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ResultReason {
    type Err = String;

    fn from_str(word: &str) -> Result<ResultReason, String> {
        match word {
            "normal" => Ok(ResultReason::Normal),
            "double_forfeit" => Ok(ResultReason::DoubleForfeit),
            _ => ForfeitReason::ALL
                .into_iter()
                .find(|reason| reason.as_str() == word)
                .map(ResultReason::Forfeit)
                .ok_or_else(|| format!("unknown result reason `{word}`")),
        }
    }
}

impl Serialize for ResultReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl WriteJson for ResultReason {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_str().write_json(out);
    }
}

impl<'de> Deserialize<'de> for ResultReason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        word.parse().map_err(serde::de::Error::custom)
    }
}

/// A forfeit as bots are told of it in `over`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, WriteJson)]
pub struct ForfeitNotice {
    /// The seat that forfeited.
    pub seat: Seat,
    /// Why it forfeited.
    pub reason: ForfeitReason,
    /// What went wrong, in words (without what a crashed bot wrote to stderr).
    pub detail: String,
}
