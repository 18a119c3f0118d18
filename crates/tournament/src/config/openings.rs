//! Openings: a file of setups that a tournament plays in order, each in
//! both seat orders, so that every pairing meets the same positions.
//!
//! The file is JSON Lines, one setup per line: `{"seed": 42}` fixes the
//! setup's seed, `{"seed": 7, "params": {"count": 12}}` its parameters too
//! (over the tournament file's `[params]`, name by name), and an entry
//! without a seed takes the one the schedule derives from the tournament's
//! seed. Blank lines and lines starting with `#` are skipped. Every entry
//! is checked against the game's parameters when the file is read, before
//! any game; an error names the file, the line (and column) and the field.
//! tournaments/README.md documents the format for users.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::ConfigError;
use crate::schedule::SetupSeeds;
use arena_games::GameSetup;
use arena_referee::seeds::MAX_SEED;

/// Largest openings file read: some hundred thousand setups.
pub const MAX_OPENINGS_BYTES: u64 = 16 << 20;

/// An openings file, read and checked.
#[derive(Clone, Debug)]
pub struct Openings {
    /// The path as the tournament file writes it (relative to that file),
    /// which results folders record.
    pub written: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// The SHA-256 of its content, as hex: a results folder played under
    /// other content is another tournament.
    pub sha256: String,
    /// The setups, in file order (never empty).
    pub entries: Arc<[Opening]>,
}

/// One setup of an openings file.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The seed the entry fixes, if it gives one.
    pub seed: Option<u64>,
    /// The parameters the entry gives, as it writes them.
    pub params: Map<String, Value>,
    /// The game with the tournament's parameters and the entry's over them,
    /// checked.
    pub setup: GameSetup,
}

/// One line as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object such as {\"seed\": 42}")]
struct RawOpening<'a> {
    // Kept raw so that an error in a value points to where the value is.
    #[serde(borrow)]
    seed: Option<&'a RawValue>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

impl Openings {
    /// Checks the openings file `text`, read from `path` (which the
    /// tournament file writes as `written`), whose entries' parameters go
    /// over those of `base`.
    pub fn parse(
        path: &Path,
        written: &str,
        text: &str,
        base: &GameSetup,
    ) -> Result<Openings, ConfigError> {
        let mut entries = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let fail = |column: usize, message: String| ConfigError {
                file: path.to_owned(),
                location: Some((number, column)),
                message,
            };
            // Where a piece of `line` starts, as a 1-based column.
            let column_of = |piece: &str| {
                let offset = (piece.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
                line.get(..offset).map_or(1, |before| before.chars().count() + 1)
            };
            let raw: RawOpening = serde_json::from_str(line).map_err(|error| {
                let message = json_message(&error);
                match error.classify() {
                    serde_json::error::Category::Data => fail(error.column(), message),
                    _ => fail(error.column(), format!("not a JSON object: {message}")),
                }
            })?;
            let seed = match raw.seed {
                None => None,
                Some(value) => {
                    let seed: u64 = serde_json::from_str(value.get()).map_err(|error| {
                        fail(column_of(value.get()), format!("seed: {}", json_message(&error)))
                    })?;
                    if seed > MAX_SEED {
                        return Err(fail(
                            column_of(value.get()),
                            format!(
                                "seed: must be at most {MAX_SEED} (2^53 - 1, which every JSON reader reads exactly), got {seed}"
                            ),
                        ));
                    }
                    Some(seed)
                }
            };
            let (params, setup) = match raw.params {
                None => (Map::new(), base.clone()),
                Some(value) => {
                    let at = column_of(value.get());
                    let params: Map<String, Value> = serde_json::from_str(value.get())
                        .map_err(|error| fail(at, format!("params: {}", json_message(&error))))?;
                    let mut merged = base.overrides().clone();
                    merged.extend(params.clone());
                    let setup = base
                        .with_overrides(merged)
                        .map_err(|error| fail(at, format!("params: {error}")))?;
                    (params, setup)
                }
            };
            entries.push(Opening { seed, params, setup });
        }
        if entries.is_empty() {
            return Err(ConfigError {
                file: path.to_owned(),
                location: None,
                message: "the openings file holds no setup: write one JSON object per line, such as {\"seed\": 42} or {\"seed\": 7, \"params\": {...}}".to_owned(),
            });
        }
        Ok(Openings {
            written: written.to_owned(),
            path: path.to_owned(),
            sha256: sha256_hex(text.as_bytes()),
            entries: entries.into(),
        })
    }

    /// The entry setup `setup` (from 0) of every pairing plays: the file is
    /// cycled when a pairing plays more setups than it has.
    pub fn entry(&self, setup: u64) -> &Opening {
        &self.entries[(setup % self.entries.len() as u64) as usize]
    }

    /// The seeds of the schedule's setups, for a run seeded with `master`.
    pub fn seeds(&self, master: u64) -> SetupSeeds {
        SetupSeeds::listed(master, self.entries.iter().map(|entry| entry.seed))
    }

    /// What a results folder records of this file.
    pub fn record(&self) -> RecordedOpenings {
        RecordedOpenings {
            file: self.written.clone(),
            sha256: self.sha256.clone(),
            setups: self
                .entries
                .iter()
                .map(|entry| RecordedOpening { seed: entry.seed, params: entry.params.clone() })
                .collect(),
        }
    }
}

/// An openings file as a results folder records it (in tournament.json):
/// the file's content names what round `r` of every pairing played, entry
/// `(r - 1) mod setups.len()`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedOpenings {
    /// The path as the tournament file writes it.
    pub file: String,
    /// The SHA-256 of its content, as hex.
    pub sha256: String,
    /// Its entries, in order, as the file writes them.
    pub setups: Vec<RecordedOpening>,
}

impl RecordedOpenings {
    /// The file in a few words: `openings/duel.jsonl (3 setups, sha256 3f1a9c0d2b7e)`.
    pub fn describe(&self) -> String {
        let count = self.setups.len();
        format!(
            "{} ({count} setup{}, sha256 {})",
            self.file,
            if count == 1 { "" } else { "s" },
            self.sha256.get(..12).unwrap_or(&self.sha256)
        )
    }

    /// The seeds of the schedule's setups, for a run seeded with `master`.
    pub fn seeds(&self, master: u64) -> SetupSeeds {
        SetupSeeds::listed(master, self.setups.iter().map(|setup| setup.seed))
    }
}

/// One entry of a recorded openings file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedOpening {
    /// The seed the entry fixes; none when it took the derived one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The parameters the entry gives over the tournament's.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
}

/// serde_json's message without the position it appends (the caller names
/// the position as the file's).
fn json_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&position).unwrap_or(&text).to_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_games::GameId;

    fn base() -> GameSetup {
        let mut params = Map::new();
        params.insert("max".into(), 30.into());
        GameSetup::new(GameId::NumberSnatch, params).unwrap()
    }

    fn parse(text: &str) -> Result<Openings, ConfigError> {
        Openings::parse(Path::new("o.jsonl"), "o.jsonl", text, &base())
    }

    fn error_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn entries_take_their_seed_and_parameters_over_the_tournaments() {
        let text = "# three setups\n{\"seed\": 42}\n\n{\"seed\": 7, \"params\": {\"count\": 12}}\r\n{\"params\": {\"max\": 15}}\n";
        let openings = parse(text).unwrap();
        assert_eq!(openings.entries.len(), 3);
        assert_eq!(openings.entries[0].seed, Some(42));
        assert_eq!(openings.entries[0].setup, base());
        let second = &openings.entries[1].setup;
        assert_eq!(second.overrides()["count"], 12);
        assert_eq!(second.overrides()["max"], 30, "the tournament's parameters stay");
        assert_eq!(openings.entries[2].setup.overrides()["max"], 15, "the entry's win");
        assert_eq!(openings.entries[2].seed, None);
        // Cycled, seeds derived where an entry has none.
        assert_eq!(openings.entry(4).seed, Some(7));
        let seeds = openings.seeds(9);
        assert_eq!([seeds.seed(0), seeds.seed(1), seeds.seed(3)], [42, 7, 42]);
        assert_eq!(seeds.seed(2), SetupSeeds::derived(9).seed(2));
        // Recorded as written, and named by content.
        let recorded = openings.record();
        assert_eq!(
            serde_json::to_string(&recorded.setups).unwrap(),
            r#"[{"seed":42},{"seed":7,"params":{"count":12}},{"params":{"max":15}}]"#
        );
        assert_eq!(recorded.seeds(9), seeds);
        assert_eq!(openings.sha256.len(), 64);
        assert_ne!(parse(&text.replace("42", "43")).unwrap().sha256, openings.sha256);
    }

    #[test]
    fn errors_name_the_line_column_and_field() {
        let cases = [
            ("{\"seed\": 1}\n{\"params\": {\"colour\": 3}}\n", "o.jsonl:2:12: params: ", "colour"),
            (
                "{\"seed\": 1}\n{\"params\": {\"count\": \"x\"}}\n",
                "o.jsonl:2:12: params: ",
                "count",
            ),
            ("{\"params\": {\"count\": 0}}\n", "o.jsonl:1:12: params: ", "parameter `count`"),
            ("{\"params\": {\"count\": 40}}\n", "o.jsonl:1:12: params: ", "count"),
            ("{\"params\": 3}\n", "o.jsonl:1:12: params: ", "expected a map"),
            ("{\"seed\": \"x\"}\n", "o.jsonl:1:10: seed: ", "expected u64"),
            ("{\"seed\": -1}\n", "o.jsonl:1:10: seed: ", "expected u64"),
            ("{\"seed\": 9007199254740992}\n", "o.jsonl:1:10: seed: ", "at most"),
            ("{\"sed\": 1}\n", "o.jsonl:1:", "unknown field `sed`"),
            ("\n\n{\"seed\": 1\n", "o.jsonl:3:", "not a JSON object"),
            ("{\"seed\": 1} x\n", "o.jsonl:1:", "not a JSON object"),
            ("42\n", "o.jsonl:1:", "{\"seed\": 42}"),
            ("# only a comment\n\n", "o.jsonl: ", "no setup"),
        ];
        for (text, start, word) in cases {
            let error = error_of(text);
            assert!(error.starts_with(start) && error.contains(word), "{text:?}: {error}");
            assert!(!error.contains(" at line "), "{text:?}: {error}");
        }
    }
}
