use super::*;
use crate::results::store::settings::tests::{EARLIER, settings};
use crate::results::store::settings::{RecordedBot, RecordedGameProgram};
use arena_referee::GameClock;
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
        setups: vec![crate::config::openings::RecordedOpening {
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
    loosened.bots[1].time_control = Some(TimeControl::PerMove { limit: Duration::from_secs(2) });
    assert_eq!(
        resume(&json(&clocked), &loosened).refused,
        [
            "time limit was on, now off (--no-time-limit)",
            "time_margin was 0ms, now 50ms",
            "bot `b`'s time control was the tournament's, now 2s per move",
        ]
    );
}

#[test]
fn a_new_game_program_sets_games_aside_and_a_built_in_game_in_its_place_is_refused() {
    let program = |fingerprint: &str| RecordedGameProgram {
        command: vec!["python3".into(), "game.py".into()],
        title: "Tiny".into(),
        version: Some("1".into()),
        fingerprint: fingerprint.into(),
        deals_privately: false,
        payoffs: None,
    };
    let mut old = settings();
    old.game = "tiny".into();
    old.game_program = Some(program(&"a".repeat(64)));
    assert_eq!(resume(&json(&old), &old), Resume::default());

    let mut new = old.clone();
    new.game_program = Some(program(&"b".repeat(64)));
    let outcome = resume(&json(&old), &new);
    assert_eq!(outcome.game_changed, Some(("a".repeat(12), "b".repeat(12))));
    assert!(outcome.refused.is_empty(), "{:?}", outcome.refused);
    // The same files, another declared version: the change is named.
    let mut declared = old.clone();
    declared.game_program.as_mut().unwrap().version = Some("2".into());
    let outcome = resume(&json(&old), &declared);
    let named = ("version \"1\"".to_owned(), "version \"2\"".to_owned());
    assert_eq!(outcome.game_changed, Some(named));
    declared.game_program.as_mut().unwrap().version = None;
    let outcome = resume(&json(&old), &declared);
    let named = ("version \"1\"".to_owned(), "no version".to_owned());
    assert_eq!(outcome.game_changed, Some(named));
    // Shards of one tournament play one version.
    assert_eq!(merge(&json(&old), &json(&new)).0.len(), 1);

    let mut built_in = old.clone();
    built_in.game_program = None;
    assert_eq!(
        resume(&json(&old), &built_in).refused,
        ["the game was the game program `python3 game.py`, now a built-in game"]
    );
    assert_eq!(
        resume(&json(&built_in), &old).refused,
        ["the game was a built-in game, now the game program `python3 game.py`"]
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
    full.openings =
        Some(RecordedOpenings { file: "o.jsonl".into(), sha256: "aa".into(), setups: Vec::new() });
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
    full.bots[1].read_paths = vec!["data".into()];
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
    known.extend(WRITTEN_WHEN_SET);
    let unknown: Vec<&String> =
        paths.iter().filter(|path| !known.contains(&path.as_str())).collect();
    assert!(
        unknown.is_empty(),
        "keys not in FORMAT_2_KEYS, ADDED_KEYS nor WRITTEN_WHEN_SET: {unknown:?}; raise SETTINGS_FORMAT and list them in ADDED_KEYS with it (or write the key only when set)"
    );
    assert!(ADDED_KEYS.iter().all(|(format, _)| *format <= SETTINGS_FORMAT));
}

/// Another game's parameters are named on each side, a parameter one game
/// has and the other has not as not set.
#[test]
fn a_parameter_only_one_side_sets_is_named_as_not_set() {
    let mut old = settings();
    old.game = "tic-tac-toe".into();
    old.params = serde_json::Map::from_iter([("size".to_owned(), Value::from(3))]);
    let mut new = old.clone();
    new.game = "goofspiel".into();
    new.params = serde_json::Map::new();
    assert_eq!(
        resume(&json(&old), &new).refused,
        ["game was tic-tac-toe, now goofspiel", "params.size was 3, now not set"]
    );
}
