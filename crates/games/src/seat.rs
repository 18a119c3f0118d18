//! Seats and outcomes: the two players a game is played between, and how a
//! finished game came out.

use std::fmt;

use serde::{Deserialize, Serialize};

use arena_base::json::WriteJson;

/// One of the two players. Serialized as the number `1` or `2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    /// Seat 1, which moves first.
    One,
    /// Seat 2.
    Two,
}

impl Seat {
    /// Both seats, seat 1 first.
    pub const BOTH: [Seat; 2] = [Seat::One, Seat::Two];

    /// 0 for seat 1, 1 for seat 2: the index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            Seat::One => 0,
            Seat::Two => 1,
        }
    }

    /// 1 or 2, as players and the protocol number seats.
    pub fn number(self) -> u8 {
        self.index() as u8 + 1
    }

    /// The seat numbered 1 or 2; `None` for any other number.
    pub fn from_number(number: u8) -> Option<Seat> {
        match number {
            1 => Some(Seat::One),
            2 => Some(Seat::Two),
            _ => None,
        }
    }

    /// The opponent's seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::One => Seat::Two,
            Seat::Two => Seat::One,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl Serialize for Seat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.number())
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u8::deserialize(deserializer)?;
        Seat::from_number(number)
            .ok_or_else(|| serde::de::Error::custom(format!("seat must be 1 or 2, not {number}")))
    }
}

impl WriteJson for Seat {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'0' + self.number());
    }
}

/// How a finished game came out on the board (forfeits are the referee's business).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning seat; `None` is a draw.
    pub winner: Option<Seat>,
}

impl Outcome {
    /// `seat` won.
    pub fn win(seat: Seat) -> Outcome {
        Outcome { winner: Some(seat) }
    }

    /// Nobody won.
    pub fn draw() -> Outcome {
        Outcome { winner: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_serialize_as_numbers() {
        assert_eq!(serde_json::to_string(&Seat::Two).unwrap(), "2");
        assert_eq!(serde_json::from_str::<Seat>("1").unwrap(), Seat::One);
        assert!(serde_json::from_str::<Seat>("3").is_err());
    }
}
