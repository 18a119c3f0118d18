//! The secrecy items of `arena check-game`: a seat's view never changes
//! when only the other seat's hidden choice does, and a value only one
//! seat may see never appears in what the other is shown (its view, its
//! legal moves, what it learns of a hidden move).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::super::gather::Evidence;
use super::super::json_path::{first_difference, pointer_token, shown, written};
use super::{HIDDEN, Item, PRIVATE, Status, item};
use arena_base::json::WriteJson;
use arena_games::program::{JsonMove, Moves};
use arena_games::{Played, Seat};
use arena_protocol::game::Step;
use arena_referee::game_program::quote;

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
        let learned = |step: &arena_protocol::game::Step| {
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
                    "game {} (seed {}), turn {}: seat {} played {} or {:?} and seat {seat} learned the same of it ({}), but seat {seat}'s view differs{}",
                    probe.game + 1,
                    record.seed,
                    probe.turn + 1,
                    probe.seat,
                    played.unwrap_or_default(),
                    probe.mv,
                    learned(original).map_or("nothing".to_owned(), |learned| learned.to_string()),
                    where_shown_differs(original, changed, seat),
                ),
                request: None,
                answer: Some(format!(
                    "{}\n        then: {}",
                    quote(original.views[seat.index()].as_str().as_bytes()),
                    quote(changed.views[seat.index()].as_str().as_bytes())
                )),
                stderr: None,
                hint: Some("a seat's view may show of the other seat's hidden move only what `learned` tells it".to_owned()),
            };
        }
    }
    let replayed = evidence.probes.iter().filter(|probe| probe.step.is_some()).count();
    match (evidence.probes.len(), replayed, compared) {
        (0, ..) => item(
            HIDDEN,
            Status::Skip,
            match super::no_turn_played(evidence) {
                Some(why) => format!("not judged: {why} (see above)"),
                None => "not judged: in the first turns of the first games no seat had another legal move to try".to_owned(),
            },
        ),
        (_, 0, _) => item(
            HIDDEN,
            Status::Skip,
            match evidence.first_fault() {
                Some((index, _)) => format!(
                    "not judged: no game with a move changed came as far as the changed turn with the same answers; game {} stopped at a fault (see above)",
                    index + 1
                ),
                None => "not judged: no game with a move changed answered as before up to the changed turn (the determinism items say why)".to_owned(),
            },
        ),
        (_, _, 0) => item(
            HIDDEN,
            Status::Skip,
            "not judged: each changed move changed what the other seat learned (`learned`), which lets its view change too; nothing to fix",
        ),
        _ => item(
            HIDDEN,
            Status::Pass,
            format!(
                "{compared} probes changed one seat's move: the other's view changed only with what it learned"
            ),
        ),
    }
}

/// Where what `seat` is shown first differs between two steps, in words
/// (" at `view.last`: 3, then 1"): in its view, or else in its legal moves.
fn where_shown_differs(one: &Step, other: &Step, seat: Seat) -> String {
    let (Some(one), Some(other)) = (Shown::of(one, None), Shown::of(other, None)) else {
        return String::new();
    };
    let i = seat.index();
    let found = first_difference(&one.views[i], &other.views[i], "view".to_owned())
        .or_else(|| first_difference(&one.legal[i], &other.legal[i], "legal_moves".to_owned()));
    match found {
        Some((path, mine, theirs)) => {
            format!(" at `{path}`: {}, then {}", shown(mine), shown(theirs))
        }
        None => String::new(),
    }
}

/// The places in `value` (JSON pointers, RFC 6901) that hold a value to
/// probe ([`probed`]).
fn probed_places(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    visit(value, String::new(), &mut |place, part| {
        if probed(part) {
            found.push(place.to_owned());
        }
        true
    });
    found
}

/// The places (JSON pointers) where `needle` is in `value`.
fn find(value: &Value, needle: &Value) -> Vec<String> {
    let mut found = Vec::new();
    visit(value, String::new(), &mut |place, part| {
        let here = part == needle;
        if here {
            found.push(place.to_owned());
        }
        !here
    });
    found
}

/// Calls `each` on `value` and its parts, each with its place (a JSON
/// pointer); a part's own parts only while `each` returns true.
fn visit(value: &Value, place: String, each: &mut dyn FnMut(&str, &Value) -> bool) {
    if !each(&place, value) {
        return;
    }
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                visit(item, format!("{place}/{index}"), each);
            }
        }
        Value::Object(fields) => {
            for (key, field) in fields {
                visit(field, format!("{place}/{}", pointer_token(key)), each);
            }
        }
        _ => {}
    }
}

/// What a seat is shown at one step of a game: its view, its legal moves
/// and what it learned of the other seat's hidden move in the turn just
/// played, as JSON, and as the game wrote them (quoted in a fail: a
/// `Value` would show an object's keys sorted, not in the game's order);
/// and each seat's move in that turn.
struct Shown {
    views: [Value; 2],
    legal: [Value; 2],
    learned: [Option<Value>; 2],
    moved: [Option<Value>; 2],
    written_views: [String; 2],
    written_legal: [String; 2],
    written_learned: [Option<String>; 2],
}

impl Shown {
    /// `step`, answered to `turn` (none for `init`).
    fn of(step: &Step, turn: Option<&[Played<JsonMove>]>) -> Option<Shown> {
        let parse = |seat: Seat| serde_json::from_str(step.views[seat.index()].as_str()).ok();
        let learned = |seat: Seat| {
            let learned = step.learned.as_ref()?;
            serde_json::from_str(learned[seat.index()].as_str()).ok()
        };
        let moved = |seat: Seat| {
            let played = turn?.iter().find(|played| played.seat == seat)?;
            serde_json::from_str(played.mv.raw().as_str()).ok()
        };
        let legal = |seat: Seat| {
            step.legal_moves[seat.index()]
                .iter()
                .map(|mv| serde_json::from_str(mv.raw().as_str()).unwrap_or(Value::Null))
                .collect()
        };
        // Written as a bot is sent them.
        let written_legal = |seat: Seat| {
            let mut list = Vec::new();
            step.legal_moves[seat.index()].write_json(&mut list);
            String::from_utf8(list).expect("moves are JSON text")
        };
        Some(Shown {
            views: [parse(Seat::One)?, parse(Seat::Two)?],
            legal: [legal(Seat::One), legal(Seat::Two)],
            learned: Seat::BOTH.map(learned),
            moved: Seat::BOTH.map(moved),
            written_views: Seat::BOTH.map(|seat| step.views[seat.index()].as_str().to_owned()),
            written_legal: Seat::BOTH.map(written_legal),
            written_learned: Seat::BOTH.map(|seat| {
                step.learned.as_ref().map(|learned| learned[seat.index()].as_str().to_owned())
            }),
        })
    }

    /// The places where `value` is shown to `seat` but not to the other
    /// seat alike: in its view where the other's view holds something else
    /// (cards turned up for both to see are no leak, once `turned_up` may
    /// be: not as the game is set up, before anything could turn them up),
    /// and inside its legal moves (a whole move may equal a value by
    /// chance: a bid of two numbers and two dice). Places in the view are
    /// JSON pointers after `view`, in the moves after `moves/INDEX`.
    fn private_places(&self, seat: Seat, value: &Value, turned_up: bool) -> BTreeSet<String> {
        let owner = &self.views[seat.other().index()];
        let mut places: BTreeSet<String> = find(&self.views[seat.index()], value)
            .into_iter()
            .filter(|place| !turned_up || owner.pointer(place) != Some(value))
            .map(|place| format!("view{place}"))
            .collect();
        for (index, mv) in self.legal[seat.index()].as_array().into_iter().flatten().enumerate() {
            places.extend(
                find(mv, value)
                    .into_iter()
                    .filter(|place| !place.is_empty())
                    .map(|place| format!("moves/{index}{place}")),
            );
        }
        places
    }
}

/// Whether `seat`'s view showed, at `place` (a place of
/// [`Shown::private_places`]) and at one of the `earlier` steps, another
/// value of `value`'s shape: a text of its length, a list of its length, an
/// object of its keys.
fn took_shape(earlier: &[Shown], seat: Seat, place: &str, value: &Value) -> bool {
    let Some(pointer) = place.strip_prefix("view") else { return false };
    let same_shape = |before: &Value| match (before, value) {
        (Value::String(one), Value::String(other)) => one.chars().count() == other.chars().count(),
        (Value::Array(one), Value::Array(other)) => one.len() == other.len(),
        (Value::Object(one), Value::Object(other)) => one.keys().eq(other.keys()),
        _ => false,
    };
    earlier.iter().any(|step| {
        step.views[seat.index()]
            .pointer(pointer)
            .is_some_and(|before| before != value && same_shape(before))
    })
}

/// Whether a value is one to probe: one that seldom recurs by chance
/// (arrays and objects of two or more elements, texts of four characters
/// or more).
fn probed(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.len() >= 2,
        Value::Object(fields) => fields.len() >= 2,
        Value::String(text) => text.chars().count() >= 4,
        _ => false,
    }
}

/// A seat's private values are found at `init`: places in its view whose
/// value changes with the seed and where, in most games (a random
/// deal may give both seats the same by chance), the other seat's view holds
/// something else. Each such place is then followed through every step of
/// the games while they go on: a leak is its value shown to the other seat
/// (in its view or inside its legal moves) at the same place and step of
/// every game where the two differ. At the end of a game the hands may be turned up:
/// a finished game's last step is not judged. As the game is set up, a
/// private value shown to both seats alike counts as shown to the other (a
/// whole deal copied into both views): a card dealt face up must then be
/// shown only where both views show it, not also in the seat's own field.
pub(super) fn private(evidence: &Evidence) -> Item {
    let games: Vec<(u64, Vec<Shown>)> = evidence
        .games
        .iter()
        .map(|record| {
            let going = record.steps.iter().take_while(|step| !step.to_move.is_empty());
            let turns =
                std::iter::once(None).chain(record.turns.iter().map(|turn| Some(&turn[..])));
            let shown = going.zip(turns).map_while(|(step, turn)| Shown::of(step, turn));
            (record.seed, shown.collect())
        })
        .collect();
    let dealt: Vec<(usize, &Shown)> = games
        .iter()
        .enumerate()
        .filter_map(|(game, (_, steps))| Some((game, steps.first()?)))
        .collect();
    // A leak must show in three games at least (fewer may all agree by
    // chance).
    if dealt.len() < 3 {
        return item(PRIVATE, Status::Skip, "not judged: fewer than three games were set up");
    }
    let mut private = Vec::new();
    for seat in Seat::BOTH {
        let other = seat.other();
        let mut paths = BTreeSet::new();
        for (_, shown) in &dealt {
            paths.extend(probed_places(&shown.views[seat.index()]));
        }
        for path in paths {
            // The view as a whole is its seat's by definition.
            if path.is_empty() {
                continue;
            }
            let values: Vec<(&Value, Option<&Value>)> = dealt
                .iter()
                .filter_map(|(_, shown)| {
                    let own = shown.views[seat.index()].pointer(&path)?;
                    Some((own, shown.views[other.index()].pointer(&path)))
                })
                .collect();
            let varies = values.iter().any(|(value, _)| *value != values[0].0);
            let differ = values.iter().filter(|(own, theirs)| Some(*own) != *theirs).count();
            if values.len() >= 2 && varies && 2 * differ > values.len() {
                private.push((seat, path));
            }
        }
    }
    let longest = games.iter().map(|(_, steps)| steps.len()).max().unwrap_or(0);
    for at in 0..longest {
        // The value at this step, and the value dealt (as the game was set
        // up), which is no less the seat's own once it has changed.
        for as_dealt in [false, true] {
            if as_dealt && at == 0 {
                continue;
            }
            for (seat, path) in &private {
                if let Some(leak) = leak(&games, *seat, path, at, as_dealt) {
                    return leak;
                }
            }
        }
    }
    // Bots are sent `learned` only where moves are hidden.
    let declared = evidence.declared.as_ref().or(evidence.hello.as_ref().ok());
    if declared.is_some_and(|declaration| declaration.moves == Moves::Hidden) {
        for (seat, path) in &private {
            if let Some(leak) = leak_through_learned(&games, *seat, path) {
                return leak;
            }
        }
    }
    match private.len() {
        0 => item(
            PRIVATE,
            Status::Skip,
            "not judged: no view holds a list, an object or a text of 4 characters or more that changes with the seed and that the other seat is not shown at the same place (a single number or a short word is not probed: it recurs by chance)",
        ),
        count => item(
            PRIVATE,
            Status::Pass,
            format!(
                "{count} values only one seat sees (dealt in {} games) were never shown to the other, at any step of the games while they went on",
                dealt.len()
            ),
        ),
    }
}

/// The steps of a game at which each place (a JSON pointer) of what a
/// seat learned showed a value.
type LearnedAt = BTreeMap<String, Vec<usize>>;

/// A fail if seat `seat`'s value at `path` (as dealt, or as it is at the
/// step) is in what the other seat learns of its moves (`learned`, where
/// the move does not hold it) at the same place, after two turns or more,
/// in every game where it is one to probe and the other seat has
/// something else at its place. A move may turn a secret up (a card
/// flipped): that is learned once; a secret copied into what is learned
/// shows again and again.
fn leak_through_learned(games: &[(u64, Vec<Shown>)], seat: Seat, path: &str) -> Option<Item> {
    let other = seat.other();
    // Each game compared: its index, the value as dealt, and the steps at
    // which each place of what the other seat learned showed the value.
    let mut compared: Vec<(usize, &Value, LearnedAt)> = Vec::new();
    for (game, (_, steps)) in games.iter().enumerate() {
        let Some(first) = steps.first() else { continue };
        let Some(dealt) = first.views[seat.index()].pointer(path) else { continue };
        if !probed(dealt) || first.views[other.index()].pointer(path) == Some(dealt) {
            continue;
        }
        let mut shown_at = LearnedAt::new();
        for (at, shown) in steps.iter().enumerate().skip(1) {
            let (Some(mv), Some(learned)) =
                (&shown.moved[seat.index()], &shown.learned[other.index()])
            else {
                continue;
            };
            let now = shown.views[seat.index()].pointer(path);
            for value in [Some(dealt), now].into_iter().flatten() {
                if !probed(value) || !find(mv, value).is_empty() {
                    continue;
                }
                for place in find(learned, value) {
                    let at_steps = shown_at.entry(place).or_default();
                    if at_steps.last() != Some(&at) {
                        at_steps.push(at);
                    }
                }
            }
        }
        compared.push((game, dealt, shown_at));
    }
    if compared.len() < 3 || 2 * compared.len() < games.len() {
        return None;
    }
    let repeated = |shown_at: &LearnedAt| -> BTreeSet<String> {
        shown_at.iter().filter(|(_, at)| at.len() >= 2).map(|(place, _)| place.clone()).collect()
    };
    let mut places = compared.iter().map(|(_, _, shown_at)| repeated(shown_at));
    let first = places.next()?;
    let everywhere: BTreeSet<String> =
        places.fold(first, |common, places| common.intersection(&places).cloned().collect());
    let place = everywhere.first()?;
    let (game, dealt, shown_at) = &compared[0];
    let (seed, steps) = &games[*game];
    let at = &shown_at[place];
    let turns = at.iter().map(|turn| turn.to_string()).collect::<Vec<_>>().join(", ");
    Some(Item {
        title: PRIVATE,
        status: Status::Fail,
        evidence: format!(
            "seat {other} learns seat {seat}'s private value of its moves again and again, in `learned` at `{}` (after turns {turns}), in all {} games: seat {seat}'s `{}`, which changes with the seed and where seat {other} has something else (seed {seed}: {dealt})",
            written(place),
            compared.len(),
            written(path),
        ),
        request: None,
        answer: Some(format!(
            "after turn {}, what seat {other} learned: {}",
            at[0],
            steps[at[0]].written_learned[other.index()]
                .as_deref()
                .map_or("nothing".to_owned(), |learned| quote(learned.as_bytes()))
        )),
        stderr: None,
        hint: Some(format!(
            "`learned` tells seat {other} what it learns of seat {seat}'s move in that turn, and only that: seat {seat}'s private values go there only as the move turns them up (a value turned up for both to see goes in both views alike)"
        )),
    })
}

/// A fail if seat `seat`'s value at `path` (at step `at` of each game, or
/// as it was dealt) is shown to the other seat at step `at` of every game
/// where it is one to probe and the other seat has something else at its
/// place.
fn leak(
    games: &[(u64, Vec<Shown>)],
    seat: Seat,
    path: &str,
    at: usize,
    dealt: bool,
) -> Option<Item> {
    let other = seat.other();
    let compared: Vec<(u64, &[Shown], &Shown, &Value)> = games
        .iter()
        .filter_map(|(seed, steps)| {
            let shown = steps.get(at)?;
            let owner = if dealt { steps.first()? } else { shown };
            let value = owner.views[seat.index()].pointer(path)?;
            let theirs = owner.views[other.index()].pointer(path);
            (probed(value) && theirs != Some(value)).then_some((*seed, &steps[..at], shown, value))
        })
        .collect();
    // A few long games may all show one value by chance late in play.
    if compared.len() < 3 || 2 * compared.len() < games.len() {
        return None;
    }
    // Shown at the same place in every game: a list of every bid or every
    // square holds each game's value too, but each at a place of its own.
    // A value the other seat's view came to show through play, at a place
    // that showed another of its shape before (a row of a board, masked
    // until the shots land), was turned up, not leaked.
    let mut places = compared.iter().map(|(_, earlier, shown, value)| {
        let mut places = shown.private_places(other, value, at > 0);
        places.retain(|place| !took_shape(earlier, other, place, value));
        places
    });
    let first = places.next()?;
    let everywhere: BTreeSet<String> =
        places.fold(first, |common, places| common.intersection(&places).cloned().collect());
    let place = everywhere.first()?;
    // The field that leaked comes first: it is what the game must mend.
    let place = match place.strip_prefix("view") {
        Some(pointer) => format!("in its view at `{}`", written(pointer)),
        None => format!("inside its legal moves at `{}`", written(&place["moves".len()..])),
    };
    let (seed, _, shown, value) = compared[0];
    let what = if dealt { "value as dealt" } else { "value" };
    let when = match at {
        0 => "as the game is set up".to_owned(),
        turn => format!("after turn {turn}"),
    };
    Some(Item {
        title: PRIVATE,
        status: Status::Fail,
        evidence: format!(
            "seat {other} is shown seat {seat}'s private {what} {place}, {when}, in all {} games{}: seat {seat}'s `{}`, which changes with the seed and where seat {other} has something else (seed {seed}: {value})",
            compared.len(),
            if at == 0 { "" } else { " that last that long" },
            written(path),
        ),
        request: None,
        answer: Some(format!(
            "seat {other}'s view: {}; its legal moves: {}",
            quote(shown.written_views[other.index()].as_bytes()),
            quote(shown.written_legal[other.index()].as_bytes())
        )),
        stderr: None,
        hint: Some(match at {
            // Shown alike to both as the game is set up: a deal copied into
            // both views, or a card dealt face up that is also in the seat's
            // own field, which the check cannot tell apart.
            0 => format!(
                "build each seat's view and legal moves from what that seat may know: seat {other} must not be shown seat {seat}'s private values; a value dealt face up for both to see goes only where both views show it alike, not also in a field of the seat's own (`{}`)",
                written(path)
            ),
            _ => format!(
                "build each seat's view and legal moves from what that seat may know: seat {other} must not be shown seat {seat}'s private values"
            ),
        }),
    })
}
