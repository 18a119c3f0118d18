//! The secrecy items of `arena check-game`: a seat's view never changes
//! when only the other seat's hidden choice does, and a value only one
//! seat may see never appears in the other's view.

use std::collections::BTreeSet;

use serde_json::Value;

use super::super::gather::Evidence;
use super::{HIDDEN, Item, PRIVATE, Status, item};
use crate::games::Seat;
use crate::games::program::Moves;
use crate::referee::game_program::quote;

pub(super) fn hidden(evidence: &Evidence, moves: Moves) -> Item {
    if moves == Moves::Public {
        return item(HIDDEN, Status::Skip, "not judged: its moves are public");
    }
    let mut compared = 0;
    for probe in &evidence.probes {
        let Some(changed) = &probe.step else { continue };
        let record = &evidence.games[probe.game];
        let Some(original) = record.steps.get(probe.turn + 1) else { continue };
        let seat = probe.seat.other();
        let learned = |step: &crate::protocol::game::Step| {
            step.learned.as_ref().map(|learned| learned[seat.index()].clone())
        };
        if learned(original) != learned(changed) {
            continue;
        }
        compared += 1;
        let played = record.turns[probe.turn]
            .iter()
            .find(|played| played.seat == probe.seat)
            .map(|played| format!("{:?}", played.mv));
        let same = original.views[seat.index()] == changed.views[seat.index()]
            && original.legal_moves[seat.index()] == changed.legal_moves[seat.index()];
        if !same {
            return Item {
                title: HIDDEN,
                status: Status::Fail,
                evidence: format!(
                    "game {} (seed {}), turn {}: seat {} played {} or {:?} and seat {seat} learned the same of it ({}), but seat {seat}'s view differs",
                    probe.game + 1,
                    record.seed,
                    probe.turn + 1,
                    probe.seat,
                    played.unwrap_or_default(),
                    probe.mv,
                    learned(original).map_or("nothing".to_owned(), |learned| learned.to_string()),
                ),
                request: None,
                answer: Some(format!(
                    "{}\n        then: {}",
                    quote(original.views[seat.index()].as_str().as_bytes()),
                    quote(changed.views[seat.index()].as_str().as_bytes())
                )),
                hint: Some("a seat's view may show of the other seat's hidden move only what `learned` tells it".to_owned()),
            };
        }
    }
    match compared {
        0 => item(HIDDEN, Status::Skip, "not judged: no probe left a seat learning the same"),
        _ => item(
            HIDDEN,
            Status::Pass,
            format!(
                "{compared} probes changed one seat's move: the other's view changed only with what it learned"
            ),
        ),
    }
}

/// Composite parts of `value` (arrays and objects of two or more
/// elements, strings of four or more characters) by path.
fn parts(value: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Array(items) => {
            if items.len() >= 2 {
                out.push((path.clone(), value.clone()));
            }
            for (index, item) in items.iter().enumerate() {
                parts(item, format!("{path}[{index}]"), out);
            }
        }
        Value::Object(fields) => {
            if fields.len() >= 2 {
                out.push((path.clone(), value.clone()));
            }
            for (key, field) in fields {
                parts(field, format!("{path}.{key}"), out);
            }
        }
        Value::String(text) if text.chars().count() >= 4 => out.push((path, value.clone())),
        _ => {}
    }
}

pub(super) fn private(evidence: &Evidence) -> Item {
    let views: Vec<(u64, [Value; 2])> = evidence
        .games
        .iter()
        .filter_map(|record| {
            let step = record.steps.first()?;
            let parse = |seat: Seat| serde_json::from_str(step.views[seat.index()].as_str()).ok();
            Some((record.seed, [parse(Seat::One)?, parse(Seat::Two)?]))
        })
        .collect();
    if views.len() < 2 {
        return item(PRIVATE, Status::Skip, "not judged: fewer than two games were set up");
    }
    let mut candidates = 0;
    for seat in Seat::BOTH {
        let other = seat.other();
        let by_game: Vec<Vec<(String, Value)>> = views
            .iter()
            .map(|(_, views)| {
                let mut found = Vec::new();
                parts(&views[seat.index()], String::new(), &mut found);
                found
            })
            .collect();
        let paths: BTreeSet<&String> = by_game.iter().flatten().map(|(path, _)| path).collect();
        for path in paths {
            let values: Vec<(usize, &Value)> = by_game
                .iter()
                .enumerate()
                .filter_map(|(game, found)| {
                    found.iter().find(|(p, _)| p == path).map(|(_, value)| (game, value))
                })
                .collect();
            let varies = values.iter().any(|(_, value)| *value != values[0].1);
            // Private: it changes with the seed, and the other seat's view
            // has something else at that place.
            let own = values
                .iter()
                .all(|(game, value)| pointer(&views[*game].1[other.index()], path) != Some(value));
            // The view as a whole is its seat's by definition.
            if path.is_empty() || values.len() < 2 || !varies || !own {
                continue;
            }
            candidates += 1;
            let shown: Vec<usize> = values
                .iter()
                .filter(|(game, value)| contains(&views[*game].1[other.index()], value))
                .map(|(game, _)| *game)
                .collect();
            if shown.len() >= 2 && shown.len() == values.len() {
                let (game, value) = values[0];
                return Item {
                    title: PRIVATE,
                    status: Status::Fail,
                    evidence: format!(
                        "seat {seat}'s `{}` changes with the seed and seat {other} has something else there, yet its value appears in seat {other}'s view (in all {} setups; seed {}: {value})",
                        path.trim_start_matches('.'),
                        shown.len(),
                        views[game].0
                    ),
                    request: None,
                    answer: Some(format!(
                        "seat {other}'s view: {}",
                        quote(views[game].1[other.index()].to_string().as_bytes())
                    )),
                    hint: Some(format!(
                        "build each seat's view from what that seat may know: seat {other} must not be shown seat {seat}'s private values"
                    )),
                };
            }
        }
    }
    match candidates {
        0 => item(
            PRIVATE,
            Status::Skip,
            "not judged: no view holds a list, an object or a text of 4 characters or more that only its seat sees (a single number or a short word is not probed: it recurs by chance)",
        ),
        _ => item(
            PRIVATE,
            Status::Pass,
            format!(
                "{candidates} values only one seat sees (in {} setups) never appeared in the other's view",
                views.len()
            ),
        ),
    }
}

/// The part of `value` at `path` (as [`parts`] writes paths).
fn pointer<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = value;
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            current = current.get(after[..end].parse::<usize>().ok()?)?;
            rest = &after[end + 1..];
        } else {
            let after = rest.strip_prefix('.')?;
            let end = after.find(['.', '[']).unwrap_or(after.len());
            current = current.get(&after[..end])?;
            rest = &after[end..];
        }
    }
    Some(current)
}

/// Whether `needle` is `value` or a part of it.
fn contains(value: &Value, needle: &Value) -> bool {
    value == needle
        || match value {
            Value::Array(items) => items.iter().any(|item| contains(item, needle)),
            Value::Object(fields) => fields.values().any(|field| contains(field, needle)),
            _ => false,
        }
}
