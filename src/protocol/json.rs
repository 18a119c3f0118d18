//! Compact JSON written straight into a buffer, for the values that go into
//! every `move` request: views, legal moves and history entries.
//!
//! The bytes are exactly those of `serde_json::to_writer` (a test checks
//! every implementation against it); writing them directly skips the
//! general serializer, which costs several times more for these small
//! values, on the path every move takes.

use crate::games::Seat;
use crate::games::claim::ClaimView;
use crate::games::duel::{DuelMove, DuelView, Op};
use crate::games::numbers_war::{NumbersWarView, Side};
use crate::games::snatch::SnatchView;
use crate::games::warriors::WarriorsView;

/// A value that writes itself as compact JSON.
pub trait WriteJson {
    fn write_json(&self, out: &mut Vec<u8>);
}

macro_rules! integers {
    ($($integer:ty),*) => {$(
        impl WriteJson for $integer {
            fn write_json(&self, out: &mut Vec<u8>) {
                // Most numbers in these games have one or two digits.
                match u8::try_from(*self) {
                    Ok(small @ 0..10) => out.push(b'0' + small),
                    Ok(small @ 10..100) => out.extend_from_slice(&[b'0' + small / 10, b'0' + small % 10]),
                    _ => out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes()),
                }
            }
        }
    )*};
}
integers!(u8, u32, u64, i64);

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.write_json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut Vec<u8>) {
        // Room for short elements, so the writing below rarely regrows.
        out.reserve(2 + 4 * self.len());
        out.push(b'[');
        for (index, value) in self.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            value.write_json(out);
        }
        out.push(b']');
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_slice().write_json(out);
    }
}

impl<T: WriteJson, const N: usize> WriteJson for [T; N] {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_slice().write_json(out);
    }
}

impl WriteJson for Seat {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'0' + self.number());
    }
}

/// Writes an object's fields, each `(key, value)`; keys are plain names
/// that need no escaping.
macro_rules! write_object {
    ($out:expr, $(($key:literal, $value:expr)),+) => {{
        let out: &mut Vec<u8> = $out;
        let mut separator = b'{';
        $(
            out.push(separator);
            out.extend_from_slice(concat!("\"", $key, "\":").as_bytes());
            WriteJson::write_json($value, out);
            separator = b',';
        )+
        let _ = separator;
        out.push(b'}');
    }};
}

impl WriteJson for Side {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(match self {
            Side::L => br#""L""#,
            Side::R => br#""R""#,
        });
    }
}

impl WriteJson for Op {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(match self {
            Op::Add => br#""add""#.as_slice(),
            Op::Multiply => br#""multiply""#.as_slice(),
        });
    }
}

impl WriteJson for DuelMove {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(out, ("number", &self.number), ("op", &self.op));
    }
}

impl WriteJson for SnatchView {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(
            out,
            ("numbers", &self.numbers),
            ("scores", &self.scores),
            ("last_picks", &self.last_picks)
        );
    }
}

impl WriteJson for NumbersWarView {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(
            out,
            ("numbers", &self.numbers),
            ("taken", &self.taken),
            ("sums", &self.sums)
        );
    }
}

impl WriteJson for WarriorsView {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(out, ("pool", &self.pool), ("life", &self.life), ("turn", &self.turn));
    }
}

impl WriteJson for ClaimView {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(out, ("grid", &self.grid), ("owners", &self.owners), ("sums", &self.sums));
    }
}

impl WriteJson for DuelView {
    fn write_json(&self, out: &mut Vec<u8>) {
        write_object!(
            out,
            ("pool", &self.pool),
            ("scores", &self.scores),
            ("target", &self.target)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::claim::NumberClaim;
    use crate::games::duel::NumberDuel;
    use crate::games::numbers_war::NumbersWar;
    use crate::games::snatch::NumberSnatch;
    use crate::games::warriors::NumberWarriors;

    fn json<T: WriteJson + ?Sized>(value: &T) -> String {
        let mut out = Vec::new();
        value.write_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// Plays whole games, checking every view and move against serde_json.
    fn agrees_with_serde<G: Game>(seeds: std::ops::Range<u64>) {
        for seed in seeds {
            let mut game = G::new(&G::Params::default(), seed);
            let mut turn = 0;
            while !game.to_move().is_empty() {
                for seat in Seat::BOTH {
                    let view = game.view(seat);
                    assert_eq!(json(&view), serde_json::to_string(&view).unwrap(), "{view:?}");
                }
                let mut chosen = Vec::new();
                for &seat in game.to_move() {
                    let legal = game.legal_moves(seat);
                    assert_eq!(json(&legal), serde_json::to_string(&legal).unwrap());
                    chosen.push((seat, legal[(seed as usize + turn * 7) % legal.len()].clone()));
                }
                for (seat, mv) in chosen {
                    game.apply(seat, &mv);
                }
                turn += 1;
            }
        }
    }

    #[test]
    fn views_and_moves_are_written_as_serde_json_writes_them() {
        agrees_with_serde::<NumberSnatch>(0..20);
        agrees_with_serde::<NumbersWar>(0..20);
        agrees_with_serde::<NumberWarriors>(0..5);
        agrees_with_serde::<NumberClaim>(0..5);
        agrees_with_serde::<NumberDuel>(0..5);
        assert_eq!(json(&[Some(Seat::Two), None]), "[2,null]");
        for number in [0, 9, 10, 99, 100, 255, 256, -1, i64::MIN, i64::MAX] {
            assert_eq!(json(&number), number.to_string());
        }
    }
}
