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
use crate::referee::TimeControl;
use crate::tournament::openings::RecordedOpenings;
use crate::tournament::sprt::SprtSettings;

/// Keys that may differ between runs of one tournament: how many games at
/// once and on which CPUs, where transcripts and how much stderr go, and
/// the protections the machine gave. None of them changes a game.
pub const MAY_CHANGE: [&str; 5] =
    ["concurrency", "pin", "transcripts", "stderr_cap", "protections"];

/// Keys below the top that may differ: where the openings file is (the
/// same content elsewhere plays the same games; its content is compared).
const MAY_CHANGE_BELOW: [&str; 1] = ["openings.file"];

/// Keys compared by rules of their own: the record's format, the bots (by
/// name; see [`BOT_IDENTITY`]) and games per pairing (a resume may raise
/// it, a merge needs it equal).
pub const OWN_RULES: [&str; 3] = ["format", "bots", "games_per_pair"];

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
pub const ADDED_KEYS: &[(u32, &str)] = &[];

/// What a resume may do with a folder's record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// Settings that make the run another tournament, in words.
    pub refused: Vec<String>,
    /// Settings the folder's arena did not record, taken as the run's.
    pub adopted: Vec<String>,
    /// How the bots changed.
    pub bots: BotChanges,
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
    let settings_only = |path: &str| compared(path) || path == "games_per_pair";
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
        if !MAY_CHANGE.contains(&top) && !matches!(top, "format" | "protocol") {
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
        None => "not recorded".to_owned(),
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
            "the seat-seed key was {}, now {} (resume under the key the folder was played with: the same ARENA_SEED_KEY or --seed-key-file, or neither for a folder that keeps its own key)",
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
mod tests {
    use super::*;
    use crate::referee::GameClock;
    use crate::tournament::store::settings::RecordedBot;
    use crate::tournament::store::settings::tests::{EARLIER, settings};
    use std::time::Duration;

    fn json(settings: &RecordedSettings) -> Value {
        serde_json::to_value(settings).unwrap()
    }

    #[test]
    fn more_games_per_pair_resume_but_fewer_or_other_openings_do_not() {
        let old = settings();
        let mut more = old.clone();
        more.games_per_pair = 6;
        assert_eq!(resume(&json(&old), &more), Resume::default());
        let fewer = resume(&json(&more), &old).refused;
        assert_eq!(fewer.len(), 1);
        assert!(fewer[0].starts_with("games_per_pair was 6, now 2"), "{fewer:?}");
        // Shards are one tournament only with the same number.
        assert_eq!(merge(&json(&old), &json(&more)).0, ["games_per_pair was 2, now 6"]);

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
            resume(&json(&old), &with).refused,
            ["openings was none, now o.jsonl (1 setup, sha256 aa)"]
        );
        let mut moved = with.clone();
        moved.openings.as_mut().unwrap().file = "elsewhere/o.jsonl".into();
        assert_eq!(resume(&json(&with), &moved), Resume::default(), "the same content elsewhere");
        let mut changed = with.clone();
        changed.openings = Some(openings("bb"));
        assert_eq!(resume(&json(&with), &changed).refused.len(), 1);
        // The recorded seeds lay out the schedule.
        assert!(with.schedule().iter().all(|game| game.seed == 9));
    }

    #[test]
    fn time_settings_are_recorded_and_a_change_is_a_different_tournament() {
        let per_move = settings();
        let clock = GameClock {
            bank: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            move_cap: None,
        };
        let mut clocked = per_move.clone();
        clocked.move_timeout_ms = None;
        clocked.clock = Some(clock);
        let text = serde_json::to_string(&clocked).unwrap();
        assert!(text.contains(r#""clock":{"bank_ms":10000,"increment_ms":100}"#), "{text}");
        assert_eq!(
            resume(&json(&per_move), &clocked).refused,
            ["time control was 1s per move, now clock 10s + 100ms per move"]
        );

        let mut loosened = clocked.clone();
        loosened.time_margin_ms = 50;
        loosened.no_time_limit = true;
        loosened.bots[1].time_control =
            Some(TimeControl::PerMove { limit: Duration::from_secs(2) });
        assert_eq!(
            resume(&json(&clocked), &loosened).refused,
            [
                "time limit was on, now off (--no-time-limit)",
                "time_margin was 0ms, now 50ms",
                "bot `b`'s time control was the tournament's, now 2s per move",
            ]
        );
    }

    /// Every leaf of a record with every option set, by dotted path.
    fn leaves(value: &Value, path: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let child_path =
                        if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    leaves(child, &child_path, out);
                }
            }
            _ => out.push(path.to_owned()),
        }
    }

    /// `value` changed at `path` to something else of its kind.
    fn changed_at(value: &Value, path: &str) -> Value {
        let mut changed = value.clone();
        let slot = pointer_mut(&mut changed, path).unwrap();
        *slot = match slot.take() {
            Value::Null => Value::from("set"),
            Value::Bool(flag) => Value::Bool(!flag),
            Value::Number(number) => match number.as_u64() {
                Some(whole) => Value::from(whole + 1),
                None => Value::from(number.as_f64().unwrap() + 1.0),
            },
            Value::String(text) => Value::from(format!("{text}-changed")),
            Value::Array(mut items) => {
                items.push(Value::from("more"));
                Value::Array(items)
            }
            Value::Object(_) => unreachable!("leaves are not objects"),
        };
        changed
    }

    /// A record with every optional setting set, so that every key the
    /// record can hold has a leaf.
    fn full() -> RecordedSettings {
        let mut full = settings();
        full.openings = Some(RecordedOpenings {
            file: "o.jsonl".into(),
            sha256: "aa".into(),
            setups: Vec::new(),
        });
        full.sprt = Some(SprtSettings::default());
        full.clock = Some(GameClock {
            bank: Duration::from_secs(1),
            increment: Duration::ZERO,
            move_cap: Some(Duration::from_millis(200)),
        });
        full.params.insert("count".into(), 12.into());
        full.challengers = vec!["c".into()];
        full.sandbox.read_paths.push("data".into());
        full.bots[1].time_control = Some(TimeControl::PerMove { limit: Duration::from_secs(2) });
        full.bots[1].env.insert("LEVEL".into(), "3".into());
        full.bots[1].version = Some("1.0".into());
        full.bots[1].dir = Some("bots".into());
        full
    }

    /// The heart of the record: a change at any key of it is a different
    /// tournament, on resume and on merge, unless the key is one of the
    /// listed few. A key added to the record (or to the sandbox's
    /// settings, recorded whole) is a leaf here without a line of this
    /// test or of the comparison changing.
    #[test]
    fn a_change_at_any_key_is_caught_but_for_the_listed_few() {
        let record = json(&full());
        let mut paths = Vec::new();
        leaves(&record, "", &mut paths);
        assert!(paths.len() > 30, "{paths:?}");
        assert!(paths.iter().any(|path| path.starts_with("sandbox.limits.")), "{paths:?}");
        let mut typed = 0;
        for path in &paths {
            let top = path.split('.').next().unwrap();
            if path == "bots" || top == "format" {
                continue;
            }
            let changed = changed_at(&record, path);
            // A resume compares with a typed record: a value of another
            // kind (an enum's word made up) cannot be one, and is left to
            // the merge, which compares JSON as it is.
            let resumed = RecordedSettings::from_json(changed.clone())
                .ok()
                .map(|current| resume(&record, &current).refused);
            typed += usize::from(resumed.is_some());
            let resumed = resumed.unwrap_or_default();
            let merged = merge(&record, &changed).0;
            let may_change = MAY_CHANGE.contains(&top) || MAY_CHANGE_BELOW.contains(&path.as_str());
            if may_change {
                assert!(resumed.is_empty() && merged.is_empty(), "{path}: {resumed:?} {merged:?}");
            } else if path == "games_per_pair" {
                assert!(resumed.is_empty(), "more games only add games");
                assert_eq!(merged.len(), 1, "{path}: {merged:?}");
            } else {
                assert!(!merged.is_empty(), "a change of {path} merges");
                let typed_ok = RecordedSettings::from_json(changed.clone()).is_ok();
                assert!(!typed_ok || !resumed.is_empty(), "a change of {path} resumes");
            }
        }
        assert!(typed > 25, "only {typed} keys were resumed with a change");
        // The same for every key of a bot: its identity makes a new
        // version, any other key a different tournament.
        let bot = bot_json(&full().bots[1]);
        let mut bot_paths = Vec::new();
        leaves(&bot, "", &mut bot_paths);
        assert!(bot_paths.iter().any(|path| path.starts_with("time_control.")), "{bot_paths:?}");
        let mut refused_bot_keys = 0;
        for path in bot_paths {
            let mut current = full();
            let changed = changed_at(&bot, &path);
            let Ok(typed) = serde_json::from_value::<RecordedBot>(changed.clone()) else {
                continue;
            };
            current.bots[1] = typed;
            let resumed = resume(&record, &current);
            let identity = BOT_IDENTITY.iter().any(|key| path.split('.').next() == Some(key));
            if identity && path != "name" {
                assert!(resumed.refused.is_empty(), "{path}: {resumed:?}");
                if path == "fingerprint" {
                    assert_eq!(resumed.bots.changed.len(), 1, "{path}");
                }
            } else if path != "name" {
                assert!(!resumed.refused.is_empty(), "a change of bot {path} resumes");
                refused_bot_keys += 1;
            }
            let mut merged_record = record.clone();
            merged_record["bots"][1] = changed;
            assert!(!merge(&record, &merged_record).0.is_empty(), "bot {path} merges");
        }
        assert!(refused_bot_keys > 0, "no key of a bot but its identity was changed");
    }

    #[test]
    fn a_record_of_a_newer_arena_is_refused() {
        let mut newer = json(&settings());
        newer["format"] = Value::from(SETTINGS_FORMAT + 1);
        let refused = resume(&newer, &settings()).refused;
        assert!(refused[0].contains("newer arena"), "{refused:?}");
    }

    #[test]
    fn an_earlier_record_resumes_taking_what_it_did_not_record() {
        let earlier: Value = serde_json::from_str(EARLIER).unwrap();
        let mut current = settings();
        current.params.insert("count".into(), 12.into());
        current.seed = 3;
        current.games_per_pair = 4;
        current.bots.truncate(2);
        current.bots[0].fingerprint = "aa".into();
        current.bots[1].fingerprint = "b2".into();
        current.bots[1].earlier_fingerprint = Some("bb".into());
        current.bots[0].command = vec!["python3".into(), "a.py".into()];
        current.bots[1].command = vec!["python3".into(), "b.py".into()];
        let resumed = resume(&earlier, &current);
        assert!(resumed.refused.is_empty(), "{:?}", resumed.refused);
        assert_eq!(resumed.adopted, ["restart", "sandbox", "seed_key"]);
        assert_eq!(resumed.bots.adopted, ["b"], "unchanged by the earlier fingerprint");

        current.bots[1].earlier_fingerprint = Some("b3".into());
        assert_eq!(resume(&earlier, &current).bots.changed.len(), 1);
        current.seed = 4;
        assert_eq!(resume(&earlier, &current).refused, ["seed was 3, now 4"]);
    }

    /// The keys a record of format 2 holds (objects walked; bots by one).
    const FORMAT_2_KEYS: &[&str] = &[
        "challengers",
        "clock.bank_ms",
        "clock.increment_ms",
        "clock.move_cap_ms",
        "concurrency",
        "format",
        "game",
        "games_per_pair",
        "max_line_bytes",
        "move_timeout_ms",
        "no_time_limit",
        "openings.file",
        "openings.setups",
        "openings.sha256",
        "pin",
        "protections",
        "protocol",
        "restart",
        "sandbox.limits.cpu_time",
        "sandbox.limits.file_size",
        "sandbox.limits.memory",
        "sandbox.limits.open_files",
        "sandbox.limits.processes",
        "sandbox.limits.scratch",
        "sandbox.mode",
        "sandbox.network",
        "sandbox.read_paths",
        "seed",
        "seed_key",
        "sprt.alpha",
        "sprt.beta",
        "sprt.elo0",
        "sprt.elo1",
        "startup_timeout_ms",
        "stderr_cap",
        "time_margin_ms",
        "transcripts",
        "bots.command",
        "bots.dir",
        "bots.env",
        "bots.fingerprint",
        "bots.name",
        "bots.time_control.kind",
        "bots.time_control.move_ms",
        "bots.version",
    ];

    /// A key added to the record (a setting of the tournament, or a field
    /// of the sandbox's settings) must come with a new format and its line
    /// in ADDED_KEYS, so that a folder written before it resumes with the
    /// key taken as the run's rather than refused as different.
    #[test]
    fn every_key_of_the_record_belongs_to_a_format() {
        let mut record = json(&full());
        let bot = record.as_object_mut().unwrap().remove("bots").unwrap()[1].clone();
        let mut paths = Vec::new();
        leaves(&record, "", &mut paths);
        leaves(&bot, "bots", &mut paths);
        // A game's parameters and a bot's environment are the user's
        // names, not the record's.
        paths.retain(|path| !path.starts_with("params."));
        for path in &mut paths {
            if path.starts_with("bots.env.") {
                *path = "bots.env".to_owned();
            }
        }
        let mut known: Vec<&str> = FORMAT_2_KEYS.to_vec();
        known.extend(ADDED_KEYS.iter().map(|(_, path)| *path));
        let unknown: Vec<&String> =
            paths.iter().filter(|path| !known.contains(&path.as_str())).collect();
        assert!(
            unknown.is_empty(),
            "keys not in FORMAT_2_KEYS nor ADDED_KEYS: {unknown:?}; raise SETTINGS_FORMAT and list them in ADDED_KEYS with it"
        );
        assert!(ADDED_KEYS.iter().all(|(format, _)| *format <= SETTINGS_FORMAT));
    }
}
