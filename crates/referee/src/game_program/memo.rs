//! What a game program answered in the last game of a setup, hashed, so
//! that the next game of the same setup (in a tournament, the seats
//! swapped) is checked against it: a deterministic game answers the same
//! requests the same.

use std::hash::{Hash, Hasher};

use arena_protocol::game::Step;

/// The answers of the last game set up, to compare the next game of the
/// same setup with (in a tournament, the same setup with the seats
/// swapped): as long as it is sent the same requests, a deterministic
/// game answers the same.
#[derive(Default)]
pub(super) struct Memo {
    /// The setup of the game being recorded, and its exchanges so far.
    recording: (u64, Vec<Exchange>),
    /// An earlier game of the same setup, while the current one has been
    /// sent the same requests.
    earlier: Option<Vec<Exchange>>,
}

/// One exchange, hashed: the request (without its id), and each field of
/// the step that answered it.
#[derive(Clone, PartialEq)]
struct Exchange {
    request: u64,
    fields: [(&'static str, u64); 8],
}

impl Memo {
    /// A game of setup `key` begins.
    pub(super) fn begin(&mut self, key: u64) {
        let (last_key, last) = std::mem::take(&mut self.recording);
        self.earlier = (last_key == key && !last.is_empty()).then_some(last);
        self.recording = (key, Vec::new());
    }

    /// Notes an exchange of the current game; the field that differs from
    /// the earlier game's answer to the same request, if one does.
    pub(super) fn note(&mut self, request: &[u8], step: &Step) -> Option<&'static str> {
        let exchange = Exchange { request: hash(request), fields: step_hashes(step) };
        let turn = self.recording.1.len();
        let mut differs = None;
        if let Some(earlier) = &self.earlier {
            match earlier.get(turn) {
                Some(before) if before.request == exchange.request => {
                    differs = before
                        .fields
                        .iter()
                        .zip(&exchange.fields)
                        .find(|(before, now)| before != now)
                        .map(|(before, _)| before.0);
                }
                // Other moves from here on: nothing to compare.
                _ => self.earlier = None,
            }
        }
        self.recording.1.push(exchange);
        differs
    }
}

pub(super) fn hash(value: impl Hash) -> u64 {
    let mut hasher = Quick::default();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A hash for telling an answer from another, cheap on every turn: eight
/// bytes at a time, multiplied and rotated (FxHash's step). Not meant to
/// withstand anyone choosing collisions.
#[derive(Default)]
struct Quick(u64);

impl Hasher for Quick {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let mut last = bytes.len() as u64;
        for (place, byte) in chunks.remainder().iter().enumerate() {
            last ^= u64::from(*byte) << (8 * place + 8);
        }
        self.mix(last);
    }

    fn write_u8(&mut self, number: u8) {
        self.mix(u64::from(number));
    }

    fn write_usize(&mut self, number: usize) {
        self.mix(number as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Quick {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A request line without its id: `{"type":"apply","id":7,` is cut to the
/// rest, so requests of two games compare.
pub(super) fn without_id(line: &[u8]) -> &[u8] {
    let after_id = line.iter().position(|&byte| byte == b',').map_or(0, |comma| comma + 1);
    let rest = &line[after_id..];
    let next = rest.iter().position(|&byte| byte == b',').map_or(0, |comma| comma + 1);
    &rest[next..]
}

fn step_hashes(step: &Step) -> [(&'static str, u64); 8] {
    [
        ("to_move", hash(step.to_move)),
        ("legal_moves", {
            let mut hasher = Quick::default();
            for list in &step.legal_moves {
                list.len().hash(&mut hasher);
                for mv in list {
                    mv.raw().hash(&mut hasher);
                }
            }
            hasher.finish()
        }),
        ("views", hash(&step.views)),
        ("scores", hash(step.scores)),
        ("result", hash(step.result.map(|outcome| outcome.winner))),
        ("learned", hash(&step.learned)),
        ("state", hash(&step.state)),
        ("text", hash(&step.text)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_compare_without_their_ids() {
        assert_eq!(
            without_id(br#"{"type":"apply","id":7,"moves":[{"seat":1,"move":3}]}"#),
            without_id(br#"{"type":"apply","id":12,"moves":[{"seat":1,"move":3}]}"#)
        );
        assert_eq!(
            without_id(br#"{"type":"init","id":2,"params":{},"seed":4}"#),
            br#""params":{},"seed":4}"#
        );
    }
}
