//! How two records of tournament.json differ, for a resume (the folder's
//! record against the run's) and a merge (shard against shard).
//!
//! Records are compared as JSON, key by key down to every leaf, so a
//! setting added to the record is compared without a line here. What is
//! not compared is listed once: [`MAY_CHANGE`] (how a run is carried out,
//! never what its games are) and the keys with rules of their own
//! ([`OWN_RULES`]: the bots, whose new versions have their games set aside
//! rather than the run refused, and games per pairing, which a resume may
//! raise). Wording is kinder for the keys users meet most (time control,
//! openings, the seat-seed key); any other key is named by its path.

use std::collections::BTreeSet;

use serde_json::Value;

use super::settings::{NOT_IN_EARLIER_FORMAT, RecordedSettings, SETTINGS_FORMAT};
use crate::config::openings::RecordedOpenings;
use crate::sprt::SprtSettings;
use arena_referee::TimeControl;

/// Keys that may differ between runs of one tournament: how many games at
/// once and on which CPUs, where transcripts and how much stderr go, and
/// the protections the machine gave. None of them changes a game.
pub const MAY_CHANGE: [&str; 5] =
    ["concurrency", "pin", "transcripts", "stderr_cap", "protections"];

/// Keys below the top that may differ: where the openings file is (the
/// same content elsewhere plays the same games; its content is compared).
const MAY_CHANGE_BELOW: [&str; 1] = ["openings.file"];

/// Keys compared by rules of their own: the record's format, the bots (by
/// name; see [`BOT_IDENTITY`]), games per pairing (a resume may raise
/// it, a merge needs it equal) and the game program (a new version has
/// every game set aside, as a bot's has its own).
pub const OWN_RULES: [&str; 4] = ["format", "bots", "games_per_pair", "game_program"];

/// Keys of a recorded bot that say which version it is: its fingerprint
/// covers its command, environment, version key and files. A change in
/// them is a new version, whose games are set aside and played again; a
/// change in any other key of a bot (its time control) is a different
/// tournament.
const BOT_IDENTITY: [&str; 6] = ["name", "command", "dir", "env", "version", "fingerprint"];

/// The keys each format added (dotted paths), with that format: a record
/// of an earlier format takes them from the run that resumes it. Format 2
/// was the first with a `format` key; what it added over the files before
/// is [`NOT_IN_EARLIER_FORMAT`].
pub const ADDED_KEYS: &[(u32, &str)] = &[(3, "game_program")];

/// Keys written only when set: a record without one had it unset, and is
/// compared so (no new format, nothing adopted).
#[cfg_attr(not(test), allow(dead_code))]
pub const WRITTEN_WHEN_SET: [&str; 1] = ["bots.read_paths"];

/// What a resume may do with a folder's record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// Settings that make the run another tournament, in words.
    pub refused: Vec<String>,
    /// Settings the folder's arena did not record, taken as the run's.
    pub adopted: Vec<String>,
    /// How the bots changed.
    pub bots: BotChanges,
    /// The game program is a new version: its old and new short
    /// fingerprints. Every game is set aside and played again.
    pub game_changed: Option<(String, String)>,
}

/// How the bots of a results folder differ from the run's.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BotChanges {
    /// Bots no longer in the file, with their short fingerprint.
    pub removed: Vec<(String, String)>,
    /// Bots whose fingerprint changed: name, old and new short fingerprint.
    pub changed: Vec<(String, String, String)>,
    /// Bots recorded without a fingerprint, or with the one arena made
    /// before its fingerprints covered every file a command names, taken
    /// as the run's versions.
    pub adopted: Vec<String>,
}

impl BotChanges {
    /// The bots whose games no longer count.
    pub fn retired(&self) -> std::collections::HashSet<&str> {
        self.removed
            .iter()
            .map(|c| c.0.as_str())
            .chain(self.changed.iter().map(|c| c.0.as_str()))
            .collect()
    }
}

/// The format of a record: files without a `format` key are format 1.
fn format_of(record: &Value) -> u64 {
    record.get("format").and_then(Value::as_u64).unwrap_or(1)
}

/// Compares a folder's record (`recorded`, as read) with the run's.
pub fn resume(recorded: &Value, current: &RecordedSettings) -> Resume {
    let mut outcome = Resume::default();
    let now = serde_json::to_value(current).expect("a record serializes");
    let format = format_of(recorded);
    if format > u64::from(SETTINGS_FORMAT) {
        outcome.refused.push(format!(
            "it was written by a newer arena (tournament.json format {format}; this arena knows up to {SETTINGS_FORMAT})"
        ));
        return outcome;
    }
    let mut old = upgrade(recorded, &now, &mut outcome.adopted);
    // The bots by rules of their own (below).
    let old_bots = old.as_object_mut().and_then(|old| old.remove("bots")).unwrap_or_default();
    outcome.refused = described(differences(&old, &now, &|path| compared(path)), &old, &now);
    // The game program: another version has every game set aside; a game
    // program in place of a built-in game (or the other way) is another
    // tournament.
    match (&old["game_program"], &now["game_program"]) {
        (was, is) if was == is => {}
        (Value::Object(_), Value::Object(_)) => {
            // Named by what changed: the short fingerprint (of the command
            // and the files), else the declared version or title.
            let (was, is) = (&old["game_program"], &now["game_program"]);
            let shown = |program: &Value, key: &str| match (key, &program[key]) {
                ("fingerprint", fingerprint) => {
                    let fingerprint = fingerprint.as_str().unwrap_or_default();
                    fingerprint.get(..12).unwrap_or("(none)").to_owned()
                }
                (_, Value::Null) => format!("no {key}"),
                (_, value) => format!("{key} {value}"),
            };
            let key = ["fingerprint", "version", "title"]
                .into_iter()
                .find(|key| was[key] != is[key])
                .unwrap_or("fingerprint");
            outcome.game_changed = Some((shown(was, key), shown(is, key)));
        }
        (was, is) => outcome.refused.push(format!(
            "the game was {}, now {}",
            program_words(was),
            program_words(is)
        )),
    }
    let old_games = old["games_per_pair"].as_u64().unwrap_or(0);
    if u64::from(current.games_per_pair) < old_games {
        // An SPRT's games per pairing are its most games.
        let key = if current.sprt.is_some() { "max_games" } else { "games_per_pair" };
        outcome.refused.push(format!(
            "{key} was {old_games}, now {} (fewer would leave games out: it may only grow)",
            current.games_per_pair
        ));
    }
    for old_bot in old_bots.as_array().into_iter().flatten() {
        let name = old_bot["name"].as_str().unwrap_or_default();
        let fingerprint = old_bot["fingerprint"].as_str().unwrap_or_default();
        let short = |fingerprint: &str| fingerprint.get(..12).unwrap_or("(none)").to_owned();
        let Some(new_bot) = current.bots.iter().find(|bot| bot.name == name) else {
            outcome.bots.removed.push((name.to_owned(), short(fingerprint)));
            continue;
        };
        let new_json = serde_json::to_value(new_bot).expect("a bot serializes");
        let not_identity = |path: &str| !BOT_IDENTITY.contains(&path);
        for (path, was, is) in differences(old_bot, &new_json, &not_identity) {
            outcome.refused.push(bot_words(name, &path, was.as_ref(), is.as_ref()));
        }
        if fingerprint.is_empty()
            || (fingerprint != new_bot.fingerprint
                && format < 2
                && new_bot.earlier_fingerprint.as_deref() == Some(fingerprint))
        {
            outcome.bots.adopted.push(name.to_owned());
        } else if fingerprint != new_bot.fingerprint {
            outcome.bots.changed.push((
                name.to_owned(),
                short(fingerprint),
                new_bot.short_fingerprint().to_owned(),
            ));
        }
    }
    outcome
}

/// A recorded game program in words: its command, or a built-in game.
fn program_words(program: &Value) -> String {
    match program.get("command").and_then(Value::as_array) {
        Some(command) => {
            let words: Vec<&str> = command.iter().filter_map(Value::as_str).collect();
            format!("the game program `{}`", words.join(" "))
        }
        None => "a built-in game".to_owned(),
    }
}

/// Compares the records of two shards of `arena run --shard`: any
/// setting and any bot recorded differently keep them from being one
/// tournament. Returns what differs, and what one of them did not record
/// (taken from the other, a warning).
pub fn merge(first: &Value, other: &Value) -> (Vec<String>, Vec<String>) {
    let mut adopted = Vec::new();
    let (first, other) = match format_of(first).cmp(&format_of(other)) {
        std::cmp::Ordering::Less => (upgrade(first, other, &mut adopted), other.clone()),
        std::cmp::Ordering::Greater => (first.clone(), upgrade(other, first, &mut adopted)),
        std::cmp::Ordering::Equal => (first.clone(), other.clone()),
    };
    let settings_only =
        |path: &str| compared(path) || path == "games_per_pair" || path.starts_with("game_program");
    let mut found = described(differences(&first, &other, &settings_only), &first, &other);
    let bots = |record: &Value| record["bots"].as_array().cloned().unwrap_or_default();
    let (mine, theirs) = (bots(&first), bots(&other));
    let named = |bots: &[Value], name: &str| -> Option<Value> {
        bots.iter().find(|bot| bot["name"] == name).cloned()
    };
    for bot in &mine {
        let name = bot["name"].as_str().unwrap_or_default();
        match named(&theirs, name) {
            None => found.push(format!("bot `{name}` is only in the first")),
            Some(their) => {
                for (path, was, is) in differences(bot, &their, &|_| true) {
                    found.push(bot_words(name, &path, was.as_ref(), is.as_ref()));
                }
            }
        }
    }
    for bot in &theirs {
        let name = bot["name"].as_str().unwrap_or_default();
        if named(&mine, name).is_none() {
            found.push(format!("bot `{name}` is only in the second"));
        }
    }
    (found, adopted)
}

/// Whether a resume compares the key at `path` in the general way.
fn compared(path: &str) -> bool {
    let top = path.split('.').next().unwrap_or(path);
    !MAY_CHANGE.contains(&top) && !OWN_RULES.contains(&top) && !MAY_CHANGE_BELOW.contains(&path)
}

/// `record` in the form of `like` (a record of the current or a later
/// format): an earlier format is read as such, and what it did not record
/// is taken from `like`, each key named in `adopted` (but those that may
/// change anyway).
fn upgrade(record: &Value, like: &Value, adopted: &mut Vec<String>) -> Value {
    let format = format_of(record);
    let mut upgraded = record.clone();
    let mut take = |upgraded: &mut Value, path: &str| {
        let (Some(value), Some(slot)) = (pointer(like, path), pointer_mut(upgraded, path)) else {
            return;
        };
        *slot = value.clone();
        let top = path.split('.').next().unwrap_or(path);
        // A null taken says nothing (no game program: a built-in game).
        if !MAY_CHANGE.contains(&top) && !matches!(top, "format" | "protocol") && !value.is_null() {
            adopted.push(path.to_owned());
        }
    };
    if format < 2 {
        match RecordedSettings::from_json(record.clone()) {
            Ok(read) => upgraded = serde_json::to_value(read).expect("a record serializes"),
            // Unreadable: compared as it stands, which names what differs.
            Err(_) => return upgraded,
        }
        for key in NOT_IN_EARLIER_FORMAT {
            take(&mut upgraded, key);
        }
        // The record's own format stays: the bots' rules depend on it.
        upgraded["format"] = Value::from(format);
    }
    for &(added_in, path) in ADDED_KEYS {
        if format < u64::from(added_in) {
            take(&mut upgraded, path);
        }
    }
    upgraded
}

/// The value at a dotted `path`.
fn pointer<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    value.pointer(&format!("/{}", path.replace('.', "/")))
}

/// The place of a dotted `path`, made (as null) if its parent exists.
fn pointer_mut<'a>(value: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let (parent, key) = match path.rsplit_once('.') {
        Some((parent, key)) => (value.pointer_mut(&format!("/{}", parent.replace('.', "/")))?, key),
        None => (value, path),
    };
    Some(parent.as_object_mut()?.entry(key.to_owned()).or_insert(Value::Null))
}

/// Every leaf (a value that is not an object) that differs between `old`
/// and `new`, by dotted path, with its values on each side (none where a
/// side lacks the key); objects are walked, anything else compared whole.
/// Only the paths `keep` accepts are walked.
fn differences(
    old: &Value,
    new: &Value,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<(String, Option<Value>, Option<Value>)> {
    let mut found = Vec::new();
    walk(Some(old), Some(new), "", keep, &mut found);
    found
}

fn walk(
    old: Option<&Value>,
    new: Option<&Value>,
    path: &str,
    keep: &dyn Fn(&str) -> bool,
    found: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    if let (Some(Value::Object(old)), Some(Value::Object(new))) = (old, new) {
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for key in keys {
            let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            if keep(&child) {
                walk(old.get(key), new.get(key), &child, keep, found);
            }
        }
    } else if old != new {
        found.push((path.to_owned(), old.cloned(), new.cloned()));
    }
}

/// A value as a message shows it: strings bare, a missing key as such.
fn shown(value: Option<&Value>) -> String {
    match value {
        // A parameter one game has and the other has not, most often.
        None => "not set".to_owned(),
        Some(Value::Null) => "none".to_owned(),
        Some(Value::String(text)) if text.is_empty() => "not recorded".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// One difference in words; the time control is said once, whole, by
/// [`merge_time_control`].
fn words(path: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    let millis = |value: Option<&Value>| match value.and_then(Value::as_u64) {
        Some(ms) => format!("{ms}ms"),
        None => shown(value),
    };
    let read = |value: Option<&Value>| value.cloned().unwrap_or(Value::Null);
    match path {
        "startup_timeout_ms" => {
            format!("startup_timeout was {}, now {}", millis(old), millis(new))
        }
        "time_margin_ms" => format!("time_margin was {}, now {}", millis(old), millis(new)),
        "no_time_limit" => {
            let limit = |value: Option<&Value>| match value.and_then(Value::as_bool) {
                Some(true) => "off (--no-time-limit)",
                _ => "on",
            };
            format!("time limit was {}, now {}", limit(old), limit(new))
        }
        "challengers" => {
            let names = |value: Option<&Value>| {
                let names: Vec<String> = serde_json::from_value(read(value)).unwrap_or_default();
                match names.is_empty() {
                    true => "none (a round robin)".to_owned(),
                    false => names.join(", "),
                }
            };
            format!("challengers was {}, now {}", names(old), names(new))
        }
        "sprt" => {
            let test = |value: Option<&Value>| match serde_json::from_value::<Option<SprtSettings>>(
                read(value),
            ) {
                Ok(Some(test)) => format!(
                    "elo0 {}, elo1 {}, alpha {}, beta {}",
                    test.elo0, test.elo1, test.alpha, test.beta
                ),
                _ => "none".to_owned(),
            };
            format!("sprt was {}, now {}", test(old), test(new))
        }
        "seed_key" => format!(
            "the seat-seed key was another (its fingerprint was {}, now {}; resume under the key the folder was played with: the same ARENA_SEED_KEY or --seed-key-file, or neither for a folder that keeps its own key)",
            shown(old),
            shown(new)
        ),
        _ => format!("{path} was {}, now {}", shown(old), shown(new)),
    }
}

/// The differences `found` between `old` and `new` in words: the game
/// clock and the limit per move said as one time control, the openings
/// file as one file.
fn described(
    found: Vec<(String, Option<Value>, Option<Value>)>,
    old: &Value,
    new: &Value,
) -> Vec<String> {
    let mut said = Vec::new();
    let (mut time_said, mut openings_said) = (false, false);
    for (path, was, is) in found {
        match path.split('.').next().unwrap_or_default() {
            "move_timeout_ms" | "clock" if !time_said => {
                time_said = true;
                said.push(format!("time control was {}, now {}", control(old), control(new)));
            }
            "openings" if !openings_said => {
                openings_said = true;
                let describe = |record: &Value| {
                    serde_json::from_value::<Option<RecordedOpenings>>(record["openings"].clone())
                        .ok()
                        .flatten()
                        .map_or("none".to_owned(), |openings| openings.describe())
                };
                said.push(format!("openings was {}, now {}", describe(old), describe(new)));
            }
            "move_timeout_ms" | "clock" | "openings" => {}
            _ => said.push(words(&path, was.as_ref(), is.as_ref())),
        }
    }
    said
}

/// The time control a record gives every bot without one of its own.
fn control(record: &Value) -> String {
    let clock = serde_json::from_value(record["clock"].clone()).ok().flatten();
    match (clock, record["move_timeout_ms"].as_u64()) {
        (Some(clock), _) => TimeControl::Clock(clock),
        (None, Some(ms)) => TimeControl::PerMove { limit: std::time::Duration::from_millis(ms) },
        (None, None) => TimeControl::default(),
    }
    .to_string()
}

/// A difference of bot `name` in words.
fn bot_words(name: &str, path: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    if path == "time_control" {
        let own = |value: Option<&Value>| {
            value
                .cloned()
                .and_then(|value| serde_json::from_value::<Option<TimeControl>>(value).ok())
                .flatten()
                .map_or_else(|| "the tournament's".to_owned(), |control| control.to_string())
        };
        return format!("bot `{name}`'s time control was {}, now {}", own(old), own(new));
    }
    if path == "fingerprint" {
        let short = |value: Option<&Value>| {
            let text = shown(value);
            text.get(..12).map_or(text.clone(), str::to_owned)
        };
        return format!(
            "bot `{name}`: files (fingerprint) were {}, now {}",
            short(old),
            short(new)
        );
    }
    format!("bot `{name}`: {path} was {}, now {}", shown(old), shown(new))
}

/// A recorded bot as JSON, for tests.
#[cfg(test)]
fn bot_json(bot: &super::settings::RecordedBot) -> Value {
    serde_json::to_value(bot).unwrap()
}

#[cfg(test)]
mod tests;
