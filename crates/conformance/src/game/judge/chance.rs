//! Whether a game that says its chance is public (`private_chance: false`)
//! deals nothing one seat sees and the other not: arena keeps seat-swapped
//! pairs of the same deal for such a game, which a private deal would hand
//! to the bot that saw it.

use serde_json::Value;

use super::super::gather::Evidence;
use super::{Item, Status, item};

pub(super) const CHANCE: &str = "deals in the open as it declares";

/// Game 1's moves played again from another seed: a field of a seat's
/// view that changed with the seed is public when the other seat is shown
/// the same field with the same value, under both seeds (dice rolled in the
/// open); one the other seat is not shown alike was dealt to that seat
/// alone (a hand).
pub(super) fn public_chance(evidence: &Evidence) -> Item {
    let (Some(first), Some(reseeded)) = (evidence.games.first(), &evidence.reseeded) else {
        return item(
            CHANCE,
            Status::Skip,
            "not judged: no game was played again from another seed",
        );
    };
    for (at, (one, other)) in first.steps.iter().zip(&reseeded.steps).enumerate() {
        let read = |step: &arena_protocol::game::Step| {
            step.views
                .clone()
                .map(|view| serde_json::from_str::<Value>(view.as_str()).unwrap_or(Value::Null))
        };
        let (one, other) = (read(one), read(other));
        for seat in 0..2 {
            let Some(field) = private_field(&one, &other, seat) else { continue };
            let when = match at {
                0 => "after `init`".to_owned(),
                turn => format!("after turn {turn}"),
            };
            return Item {
                hint: Some(
                    "leave `private_chance` out (or say `true`) when a seat sees what was dealt to it alone: the game then gets a setup of its own every game".to_owned(),
                ),
                ..item(
                    CHANCE,
                    Status::Fail,
                    format!(
                        "it declares `private_chance: false`, but game 1's moves played again from seed {} change seat {}'s `{field}` {when} (against seed {}), and seat {} is not shown the same: the seed dealt something only seat {} sees",
                        reseeded.seed,
                        seat + 1,
                        first.seed,
                        2 - seat,
                        seat + 1
                    ),
                )
            };
        }
    }
    item(
        CHANCE,
        Status::Pass,
        format!(
            "game 1's moves from seeds {} and {} changed only what both seats are shown alike (public chance)",
            first.seed, reseeded.seed
        ),
    )
}

/// The first field of seat `seat`'s view (a view that is no object is one
/// field, `view`) that differs between the two seeds' views (`one`,
/// `other`) and that the other seat is not shown with the same value under
/// both.
fn private_field(one: &[Value; 2], other: &[Value; 2], seat: usize) -> Option<String> {
    let fields = |view: &Value| -> Vec<String> {
        match view {
            Value::Object(fields) => fields.keys().cloned().collect(),
            _ => vec![String::new()],
        }
    };
    let field_of = |view: &Value, name: &str| -> Value {
        match (view, name) {
            (_, "") => view.clone(),
            (Value::Object(fields), name) => fields.get(name).cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        }
    };
    let mut names = fields(&one[seat]);
    names.extend(fields(&other[seat]));
    names
        .into_iter()
        .find(|name| {
            let (mine_one, mine_other) = (field_of(&one[seat], name), field_of(&other[seat], name));
            mine_one != mine_other
                && (field_of(&one[1 - seat], name) != mine_one
                    || field_of(&other[1 - seat], name) != mine_other)
        })
        .map(|name| if name.is_empty() { "view".to_owned() } else { format!("view.{name}") })
}
