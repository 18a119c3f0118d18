//! The tournament file as written: each key with where it is, before any
//! check.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::{ConfigError, Restart};
use arena_base::units::{parse_duration, parse_duration_or_zero};
use arena_referee::clock::{ControlKind, TimeKey, TimeKeys};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTournament {
    pub(super) game: Option<Spanned<String>>,
    pub(super) game_command: Option<Spanned<Vec<String>>>,
    pub(super) game_dir: Option<Spanned<String>>,
    pub(super) game_timeout: Option<Spanned<String>>,
    pub(super) params: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    pub(super) openings: Option<Spanned<String>>,
    pub(super) seed: Option<Spanned<u64>>,
    pub(super) games_per_pair: Option<Spanned<u32>>,
    pub(super) startup_timeout: Option<Spanned<String>>,
    pub(super) move_timeout: Option<Spanned<String>>,
    pub(super) time_control: Option<Spanned<ControlKind>>,
    pub(super) bank: Option<Spanned<String>>,
    pub(super) increment: Option<Spanned<String>>,
    pub(super) move_cap: Option<Spanned<String>>,
    pub(super) time_margin: Option<Spanned<String>>,
    pub(super) concurrency: Option<Spanned<u32>>,
    pub(super) withdraw_after: Option<Spanned<u32>>,
    pub(super) out: Option<Spanned<String>>,
    pub(super) restart: Option<Spanned<Restart>>,
    pub(super) transcripts: Option<bool>,
    pub(super) pin: Option<bool>,
    pub(super) max_line_bytes: Option<Spanned<usize>>,
    pub(super) stderr_cap: Option<Spanned<u64>>,
    pub(super) sandbox: Option<Spanned<toml::Value>>,
    pub(super) memory_limit: Option<Spanned<String>>,
    pub(super) process_limit: Option<Spanned<u64>>,
    pub(super) cpu_limit: Option<Spanned<String>>,
    pub(super) open_files_limit: Option<Spanned<u64>>,
    pub(super) file_size_limit: Option<Spanned<String>>,
    pub(super) scratch_limit: Option<Spanned<String>>,
    pub(super) network: Option<bool>,
    #[serde(default)]
    pub(super) read_paths: Vec<Spanned<String>>,
    pub(super) build_network: Option<bool>,
    pub(super) build_timeout: Option<Spanned<String>>,
    #[serde(rename = "bot", default)]
    pub(super) bots: Vec<Spanned<RawBot>>,
    pub(super) challengers: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) sprt: Option<Spanned<RawSprt>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSprt {
    pub(super) elo0: Option<f64>,
    pub(super) elo1: Option<f64>,
    pub(super) alpha: Option<f64>,
    pub(super) beta: Option<f64>,
    pub(super) payoff0: Option<f64>,
    pub(super) payoff1: Option<f64>,
    pub(super) max_games: Option<Spanned<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBot {
    pub(super) name: Spanned<String>,
    pub(super) command: Spanned<Vec<String>>,
    pub(super) dir: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    pub(super) version: Option<Spanned<String>>,
    pub(super) build: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(super) read_paths: Vec<Spanned<String>>,
    pub(super) time_control: Option<Spanned<ControlKind>>,
    pub(super) move_timeout: Option<Spanned<String>>,
    pub(super) bank: Option<Spanned<String>>,
    pub(super) increment: Option<Spanned<String>>,
    pub(super) move_cap: Option<Spanned<String>>,
}

/// The time keys of a table as written, with where each one is.
pub(super) struct WrittenTimeKeys<'a> {
    pub(super) control: &'a Option<Spanned<ControlKind>>,
    pub(super) move_timeout: &'a Option<Spanned<String>>,
    pub(super) bank: &'a Option<Spanned<String>>,
    pub(super) increment: &'a Option<Spanned<String>>,
    pub(super) move_cap: &'a Option<Spanned<String>>,
}

impl WrittenTimeKeys<'_> {
    /// Where `key` is written, if it is.
    pub(super) fn span(&self, key: TimeKey) -> Option<Range<usize>> {
        match key {
            TimeKey::Control => self.control.as_ref().map(Spanned::span),
            TimeKey::MoveTimeout => self.move_timeout.as_ref().map(Spanned::span),
            TimeKey::Bank => self.bank.as_ref().map(Spanned::span),
            TimeKey::Increment => self.increment.as_ref().map(Spanned::span),
            TimeKey::MoveCap => self.move_cap.as_ref().map(Spanned::span),
        }
    }

    /// The keys' values: durations read, an error naming the key (after
    /// `prefix`) and its place if one is not a duration.
    pub(super) fn read(
        &self,
        prefix: &str,
        fail: impl Fn(Option<Range<usize>>, String) -> ConfigError,
    ) -> Result<TimeKeys, ConfigError> {
        let read = |value: &Option<Spanned<String>>, key: TimeKey, zero_allowed: bool| {
            let Some(text) = value else { return Ok(None) };
            let parsed = if zero_allowed {
                parse_duration_or_zero(text.get_ref())
            } else {
                parse_duration(text.get_ref())
            };
            parsed.map(Some).map_err(|error| {
                fail(Some(text.span()), format!("{prefix}{}: {error}", key.file_key()))
            })
        };
        Ok(TimeKeys {
            control: self.control.as_ref().map(|kind| *kind.get_ref()),
            move_timeout: read(self.move_timeout, TimeKey::MoveTimeout, false)?,
            bank: read(self.bank, TimeKey::Bank, false)?,
            increment: read(self.increment, TimeKey::Increment, true)?,
            move_cap: read(self.move_cap, TimeKey::MoveCap, false)?,
        })
    }
}
