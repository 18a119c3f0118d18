//! What tournament.json records: the settings a results folder was played
//! under, its bots and their fingerprints, and how two records differ.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::SETTINGS_JSON;
use crate::games::GameId;
use crate::referee::{GameClock, TimeControl};
use crate::tournament::config::{BotEntry, Tournament};
use crate::tournament::identity::Fingerprint;
use crate::tournament::openings::RecordedOpenings;
use crate::tournament::schedule::Schedule;
use crate::tournament::sprt::SprtSettings;

/// The settings a results folder was played under (tournament.json).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedSettings {
    pub game: GameId,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub seed: u64,
    pub games_per_pair: u32,
    pub startup_timeout_ms: u64,
    /// The limit per move; absent under a game clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_timeout_ms: Option<u64>,
    /// The game clock, when the tournament has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<GameClock>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_margin_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_time_limit: bool,
    pub max_line_bytes: usize,
    /// Bots in file order.
    pub bots: Vec<RecordedBot>,
    /// The protections bots ran under, as said at the start of the last
    /// run. For the record only: a run on a machine with other protections
    /// resumes the same results.
    #[serde(default)]
    pub sandbox: String,
    /// The openings file the setups came from, if the tournament has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<RecordedOpenings>,
    /// The challengers of a gauntlet, by name; empty in a round robin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challengers: Vec<String>,
    /// The sequential test the games were played for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSettings>,
}

/// A bot as a results folder records it: as the tournament file writes
/// it (paths relative to the file, so the folder does not depend on where
/// the checkout lives), and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedBot {
    pub name: String,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The SHA-256 of what runs (see `identity`), as hex; empty in folders
    /// written before arena kept fingerprints.
    #[serde(default)]
    pub fingerprint: String,
    /// The bot's own time control (a handicap), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl RecordedSettings {
    /// The settings of `tournament`, whose bots have `fingerprints` (in
    /// file order).
    pub fn of(tournament: &Tournament, fingerprints: &[Fingerprint]) -> RecordedSettings {
        RecordedSettings {
            game: tournament.setup.game(),
            params: tournament.setup.overrides().clone(),
            seed: tournament.seed,
            games_per_pair: tournament.games_per_pair,
            startup_timeout_ms: tournament.settings.startup_timeout.as_millis() as u64,
            move_timeout_ms: match tournament.settings.time_control {
                TimeControl::PerMove { limit } => Some(limit.as_millis() as u64),
                TimeControl::Clock(_) => None,
            },
            clock: tournament.settings.time_control.clock(),
            time_margin_ms: tournament.settings.time_margin.as_millis() as u64,
            no_time_limit: tournament.settings.no_time_limit,
            max_line_bytes: tournament.settings.max_line_bytes,
            bots: tournament
                .bots
                .iter()
                .zip(fingerprints)
                .map(|(bot, fingerprint)| RecordedBot::of(bot, fingerprint))
                .collect(),
            sandbox: String::new(),
            openings: tournament.openings.as_ref().map(|openings| openings.record()),
            challengers: tournament
                .challengers
                .iter()
                .map(|&index| tournament.bots[index].name.clone())
                .collect(),
            sprt: tournament.sprt,
        }
    }

    /// The settings recorded in `folder`'s tournament.json, if it has one.
    pub fn read(folder: &Path) -> anyhow::Result<Option<RecordedSettings>> {
        let path = folder.join(SETTINGS_JSON);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        let settings = serde_json::from_slice(&bytes).with_context(|| {
            format!("{} is not a tournament.json arena can read", path.display())
        })?;
        Ok(Some(settings))
    }

    /// The schedule the folder's games belong to.
    pub fn schedule(&self) -> Schedule {
        let challengers: Vec<usize> = self
            .challengers
            .iter()
            .filter_map(|name| self.bots.iter().position(|bot| bot.name == *name))
            .collect();
        let schedule = match &challengers[..] {
            [] => Schedule::new(self.bots.len(), self.games_per_pair, self.seed),
            challengers => {
                Schedule::gauntlet(self.bots.len(), self.games_per_pair, self.seed, challengers)
            }
        };
        match &self.openings {
            Some(openings) => schedule.with_seeds(openings.seeds(self.seed)),
            None => schedule,
        }
    }

    /// The time control every bot without one of its own plays under.
    pub fn time_control(&self) -> TimeControl {
        match (self.clock, self.move_timeout_ms) {
            (Some(clock), _) => TimeControl::Clock(clock),
            (None, Some(move_ms)) => TimeControl::PerMove { limit: Duration::from_millis(move_ms) },
            (None, None) => TimeControl::default(),
        }
    }

    pub fn bot_names(&self) -> Vec<String> {
        self.bots.iter().map(|bot| bot.name.clone()).collect()
    }

    /// The settings that keep a folder played under `self` from resuming
    /// under `newer`: any but the bots, and fewer games per pairing (more
    /// only adds games).
    pub(super) fn resume_differences(&self, newer: &RecordedSettings) -> Vec<String> {
        let mut differences = self.setting_differences(newer);
        if newer.games_per_pair < self.games_per_pair {
            // An SPRT's games per pairing are its most games.
            let key = if newer.sprt.is_some() { "max_games" } else { "games_per_pair" };
            differences.push(format!(
                "{key} was {}, now {} (fewer would leave games out: it may only grow)",
                self.games_per_pair, newer.games_per_pair
            ));
        }
        differences
    }

    /// The settings (bots and games per pairing aside) that make `newer` a
    /// different tournament than `self`.
    pub(super) fn setting_differences(&self, newer: &RecordedSettings) -> Vec<String> {
        let mut differences = Vec::new();
        let mut compare = |what: &str, old: String, new: String| {
            if old != new {
                differences.push(format!("{what} was {old}, now {new}"));
            }
        };
        compare("game", self.game.to_string(), newer.game.to_string());
        compare(
            "params",
            serde_json::to_string(&self.params).unwrap_or_default(),
            serde_json::to_string(&newer.params).unwrap_or_default(),
        );
        compare("seed", self.seed.to_string(), newer.seed.to_string());
        compare(
            "startup_timeout",
            format!("{}ms", self.startup_timeout_ms),
            format!("{}ms", newer.startup_timeout_ms),
        );
        compare("time control", self.time_control().to_string(), newer.time_control().to_string());
        compare(
            "time_margin",
            format!("{}ms", self.time_margin_ms),
            format!("{}ms", newer.time_margin_ms),
        );
        let limit = |off: bool| if off { "off (--no-time-limit)" } else { "on" }.to_owned();
        compare("time limit", limit(self.no_time_limit), limit(newer.no_time_limit));
        for old in &self.bots {
            let Some(new) = newer.bots.iter().find(|bot| bot.name == old.name) else { continue };
            let own = |control: Option<TimeControl>| {
                control.map_or_else(|| "the tournament's".to_owned(), |control| control.to_string())
            };
            compare(
                &format!("bot `{}`'s time control", old.name),
                own(old.time_control),
                own(new.time_control),
            );
        }
        compare(
            "max_line_bytes",
            self.max_line_bytes.to_string(),
            newer.max_line_bytes.to_string(),
        );
        let names = |names: &[String]| match names {
            [] => "none (a round robin)".to_owned(),
            names => names.join(", "),
        };
        compare("challengers", names(&self.challengers), names(&newer.challengers));
        let test = |sprt: &Option<SprtSettings>| match sprt {
            None => "none".to_owned(),
            Some(test) => format!(
                "elo0 {}, elo1 {}, alpha {}, beta {}",
                test.elo0, test.elo1, test.alpha, test.beta
            ),
        };
        compare("sprt", test(&self.sprt), test(&newer.sprt));
        // By content: the same file moved elsewhere plays the same games.
        let content = |openings: &Option<RecordedOpenings>| {
            openings.as_ref().map(|openings| openings.sha256.clone())
        };
        if content(&self.openings) != content(&newer.openings) {
            let describe = |openings: &Option<RecordedOpenings>| {
                openings.as_ref().map_or("none".to_owned(), RecordedOpenings::describe)
            };
            differences.push(format!(
                "openings was {}, now {}",
                describe(&self.openings),
                describe(&newer.openings)
            ));
        }
        differences
    }

    /// Which bots recorded here are gone from `newer` or are other
    /// versions there. Bots recorded without a fingerprint (by an earlier
    /// arena) are taken to be the versions `newer` has.
    pub(super) fn bot_changes(&self, newer: &RecordedSettings) -> BotChanges {
        let mut changes = BotChanges::default();
        for old in &self.bots {
            match newer.bots.iter().find(|bot| bot.name == old.name) {
                None => {
                    changes.removed.push((old.name.clone(), old.short_fingerprint().to_owned()))
                }
                Some(_) if old.fingerprint.is_empty() => changes.adopted.push(old.name.clone()),
                Some(new) if new.fingerprint != old.fingerprint => changes.changed.push((
                    old.name.clone(),
                    old.short_fingerprint().to_owned(),
                    new.short_fingerprint().to_owned(),
                )),
                Some(_) => {}
            }
        }
        changes
    }

    /// Everything that keeps two shards of `arena run --shard` from being
    /// one tournament: any setting, and any bot recorded differently.
    pub(super) fn merge_differences(&self, other: &RecordedSettings) -> Vec<String> {
        let mut differences = self.setting_differences(other);
        if self.games_per_pair != other.games_per_pair {
            differences.push(format!(
                "games_per_pair was {}, now {}",
                self.games_per_pair, other.games_per_pair
            ));
        }
        for bot in &self.bots {
            match other.bots.iter().find(|theirs| theirs.name == bot.name) {
                None => differences.push(format!("bot `{}` is only in the first", bot.name)),
                Some(theirs) => {
                    let found = bot.differences(theirs);
                    if !found.is_empty() {
                        differences.push(format!("bot `{}`: {}", bot.name, found.join(", ")));
                    }
                }
            }
        }
        for theirs in &other.bots {
            if !self.bots.iter().any(|bot| bot.name == theirs.name) {
                differences.push(format!("bot `{}` is only in the second", theirs.name));
            }
        }
        differences
    }
}

/// How the bots of a results folder differ from the tournament file's.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BotChanges {
    /// Bots no longer in the file, with their short fingerprint.
    pub removed: Vec<(String, String)>,
    /// Bots whose fingerprint changed: name, old and new short fingerprint.
    pub changed: Vec<(String, String, String)>,
    /// Bots recorded without a fingerprint, taken as the file's versions.
    pub adopted: Vec<String>,
}

impl BotChanges {
    /// The bots whose games no longer count.
    pub(super) fn retired(&self) -> std::collections::HashSet<&str> {
        self.removed
            .iter()
            .map(|c| c.0.as_str())
            .chain(self.changed.iter().map(|c| c.0.as_str()))
            .collect()
    }
}

impl RecordedBot {
    fn of(bot: &BotEntry, fingerprint: &Fingerprint) -> RecordedBot {
        RecordedBot {
            name: bot.name.clone(),
            command: bot.written_command.clone(),
            dir: bot.written_dir.clone(),
            env: bot.env.clone(),
            version: bot.version.clone(),
            fingerprint: fingerprint.hex(),
            time_control: bot.time_control,
        }
    }

    /// The first 12 hex digits of the fingerprint, for messages.
    pub fn short_fingerprint(&self) -> &str {
        self.fingerprint.get(..12).unwrap_or("(none)")
    }

    /// How `other` differs from this record of the same bot, in words.
    fn differences(&self, other: &RecordedBot) -> Vec<String> {
        let mut found = Vec::new();
        let mut compare = |what: &str, one: String, two: String| {
            if one != two {
                found.push(format!("{what} {one} / {two}"));
            }
        };
        let words = |command: &[String]| shell_words::join(command);
        compare("command", words(&self.command), words(&other.command));
        compare("dir", format!("{:?}", self.dir), format!("{:?}", other.dir));
        compare("env", format!("{:?}", self.env), format!("{:?}", other.env));
        compare("version", format!("{:?}", self.version), format!("{:?}", other.version));
        if self.fingerprint != other.fingerprint {
            compare(
                "files (fingerprint)",
                self.short_fingerprint().to_owned(),
                other.short_fingerprint().to_owned(),
            );
        }
        found
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Settings of a three-bot round robin of number-snatch.
    pub(crate) fn settings() -> RecordedSettings {
        let bot = |name: &str| RecordedBot {
            name: name.into(),
            command: vec![name.into()],
            dir: None,
            env: BTreeMap::new(),
            version: None,
            fingerprint: format!("{name:0>64}"),
            time_control: None,
        };
        RecordedSettings {
            game: GameId::NumberSnatch,
            params: serde_json::Map::new(),
            seed: 4,
            games_per_pair: 2,
            startup_timeout_ms: 5000,
            move_timeout_ms: Some(1000),
            clock: None,
            time_margin_ms: 0,
            no_time_limit: false,
            max_line_bytes: 65536,
            bots: vec![bot("a"), bot("b"), bot("c")],
            sandbox: String::new(),
            openings: None,
            challengers: Vec::new(),
            sprt: None,
        }
    }

    #[test]
    fn more_games_per_pair_resume_but_fewer_or_other_openings_do_not() {
        let old = settings();
        let mut more = old.clone();
        more.games_per_pair = 6;
        assert!(old.resume_differences(&more).is_empty());
        let fewer = more.resume_differences(&old);
        assert_eq!(fewer.len(), 1);
        assert!(fewer[0].starts_with("games_per_pair was 6, now 2"), "{fewer:?}");
        // Shards are one tournament only with the same number.
        assert_eq!(old.merge_differences(&more), ["games_per_pair was 2, now 6"]);

        let openings = |sha256: &str| RecordedOpenings {
            file: "o.jsonl".into(),
            sha256: sha256.into(),
            setups: vec![crate::tournament::openings::RecordedOpening {
                seed: Some(9),
                params: serde_json::Map::new(),
            }],
        };
        let mut with = old.clone();
        with.openings = Some(openings("aa"));
        assert_eq!(
            old.resume_differences(&with),
            ["openings was none, now o.jsonl (1 setup, sha256 aa)"]
        );
        let mut moved = with.clone();
        moved.openings.as_mut().unwrap().file = "elsewhere/o.jsonl".into();
        assert!(with.resume_differences(&moved).is_empty(), "the same content elsewhere");
        let mut changed = with.clone();
        changed.openings = Some(openings("bb"));
        assert_eq!(with.resume_differences(&changed).len(), 1);
        // The recorded seeds lay out the schedule.
        assert!(with.schedule().iter().all(|game| game.seed == 9));
    }

    #[test]
    fn time_settings_are_recorded_and_a_change_is_a_different_tournament() {
        let per_move = settings();
        // A tournament.json of an arena before clocks reads the same.
        let mut written = serde_json::to_value(&per_move).unwrap();
        assert!(written.get("clock").is_none() && written.get("time_margin_ms").is_none());
        written.as_object_mut().unwrap().remove("no_time_limit");
        let read: RecordedSettings = serde_json::from_value(written).unwrap();
        assert!(per_move.setting_differences(&read).is_empty());

        let clock = GameClock {
            bank: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            move_cap: None,
        };
        let mut clocked = per_move.clone();
        clocked.move_timeout_ms = None;
        clocked.clock = Some(clock);
        let json = serde_json::to_string(&clocked).unwrap();
        assert!(json.contains(r#""clock":{"bank_ms":10000,"increment_ms":100}"#), "{json}");
        assert_eq!(serde_json::from_str::<RecordedSettings>(&json).unwrap(), clocked);
        assert_eq!(
            per_move.setting_differences(&clocked),
            ["time control was 1s per move, now clock 10s + 100ms per move"]
        );

        let mut loosened = clocked.clone();
        loosened.time_margin_ms = 50;
        loosened.no_time_limit = true;
        loosened.bots[1].time_control =
            Some(TimeControl::PerMove { limit: Duration::from_secs(2) });
        assert_eq!(
            clocked.setting_differences(&loosened),
            [
                "time_margin was 0ms, now 50ms",
                "time limit was on, now off (--no-time-limit)",
                "bot `b`'s time control was the tournament's, now 2s per move",
            ]
        );
    }
}
