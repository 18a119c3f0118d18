//! The items that play games again and compare the answers: in fresh
//! processes, after other games in another order, and from other seeds.

use super::super::gather::{Ending, Evidence, Record};
use super::{AGAIN, FRESH, Item, SEEDS, Status, item};

const FRESH_HINT: &str = "a fresh process must answer as the last one did: nothing may depend on the process (Python's hash() of a str is salted per process; Python's `random` module unless seeded, Math.random, the time and the pid differ in each): draw only from a generator seeded by `init`'s seed, e.g. Python's `random.Random(seed)`";

/// Fails `title` when two records of one game differ, quoting the
/// request and both answers.
fn differ(
    title: &'static str,
    what: &str,
    first: &Record,
    second: &Record,
    hint: &str,
) -> Option<Item> {
    let (at, why) = first.difference(second)?;
    let answer_of =
        |record: &Record| record.exchanges.get(at).map(|exchange| exchange.answer_line.clone());
    Some(Item {
        title,
        status: Status::Fail,
        evidence: format!("{what}: answer {} differs: {why}", at + 1),
        request: first.exchanges.get(at).map(|exchange| exchange.request_line.clone()),
        answer: match (answer_of(first), answer_of(second)) {
            (Some(one), Some(other)) => Some(format!("{one}\n        then: {other}")),
            (one, other) => one.or(other),
        },
        stderr: None,
        hint: Some(hint.to_owned()),
    })
}

pub(super) fn fresh(evidence: &Evidence) -> Item {
    let (Some(game), [first, others @ ..]) = (evidence.games.first(), &evidence.fresh[..]) else {
        return item(FRESH, Status::Skip, "not judged: no game was played");
    };
    // The new processes are compared with each other, not with game 1: its
    // process had answered other requests first (the parameters').
    for (index, other) in others.iter().enumerate() {
        if let Some(failed) = differ(
            FRESH,
            &format!("game 1, played in new processes 1 and {} (seed {})", index + 2, first.seed),
            first,
            other,
            FRESH_HINT,
        ) {
            return failed;
        }
    }
    // The same answers up to the same fault say little: judged only on a
    // game played to its end.
    match (&first.ending, &game.ending) {
        (Ending::Over, _) => item(
            FRESH,
            Status::Pass,
            format!("game 1 got the same answers in {} new processes", evidence.fresh.len()),
        ),
        (_, Ending::Over) => item(
            FRESH,
            Status::Skip,
            "not judged: replayed in new processes, game 1 went another way than in the first process (the next item judges state kept between games)",
        ),
        _ => item(FRESH, Status::Skip, "not judged: game 1 did not reach its end (see above)"),
    }
}

pub(super) fn again(evidence: &Evidence) -> Item {
    for (index, (first, again)) in evidence.games.iter().zip(&evidence.again).enumerate() {
        if let Some(item) = differ(
            AGAIN,
            &format!(
                "game {}, played again after the other games (seed {})",
                index + 1,
                first.seed
            ),
            first,
            again,
            "reset everything in `init`: keep no state from one game to the next, and draw randomness only from a generator seeded by `init`'s seed",
        ) {
            return item;
        }
    }
    // Only games played to their end both times are evidence: two games
    // that stopped at the same fault compared only up to it.
    let ended = evidence
        .games
        .iter()
        .zip(&evidence.again)
        .filter(|(first, again)| {
            matches!((&first.ending, &again.ending), (Ending::Over, Ending::Over))
        })
        .count();
    match (evidence.again.len(), ended) {
        (0, _) => item(AGAIN, Status::Skip, "not judged: no game was played again"),
        (_, 0) => item(
            AGAIN,
            Status::Skip,
            "not judged: no game played again reached its end (see above)",
        ),
        (games, ended) if ended == games => item(
            AGAIN,
            Status::Pass,
            format!("the {games} games, played again in reverse order, got the same answers"),
        ),
        (games, ended) => item(
            AGAIN,
            Status::Pass,
            format!(
                "the {ended} of {games} games that reached their end, played again in reverse order, got the same answers"
            ),
        ),
    }
}

pub(super) fn seeds(evidence: &Evidence, random: bool) -> Item {
    let inits: Vec<(u64, &arena_protocol::game::Step)> = evidence
        .games
        .iter()
        .filter_map(|record| Some((record.seed, record.steps.first()?)))
        .collect();
    if inits.len() < 2 {
        return item(SEEDS, Status::Skip, "not judged: fewer than two games were set up");
    }
    let mut distinct: Vec<(u64, &arena_protocol::game::Step)> = Vec::new();
    for (seed, step) in &inits {
        if distinct.iter().all(|(_, other)| other.difference(step).is_some()) {
            distinct.push((*seed, step));
        }
    }
    // Chance may come during play (dice rolled later, a shot that strays):
    // a random game whose seeds set up alike is judged by game 1's moves
    // played again from another seed.
    let replayed_otherwise = match (evidence.games.first(), &evidence.reseeded) {
        (Some(first), Some(reseeded)) if !reseeded.timed_out() => {
            first.difference(reseeded).map(|(at, _)| (reseeded.seed, first.seed, at))
        }
        _ => None,
    };
    match (random, distinct.len()) {
        (true, 1) => match replayed_otherwise {
            Some((other_seed, seed, at)) => item(
                SEEDS,
                Status::Pass,
                format!(
                    "{} seeds set up the same game, and game 1's moves played again from seed {other_seed} answer otherwise than from seed {seed} (from answer {}): random during play",
                    inits.len(),
                    at + 1
                ),
            ),
            None => Item {
                hint: Some("draw the game's chance, at set-up or during play, from a generator seeded by `init`'s `seed` (Python's `random.Random(seed)`), or declare `random: false`".to_owned()),
                ..item(
                    SEEDS,
                    Status::Fail,
                    format!(
                        "it declares `random: true`, but seeds {} and {} set up the same game, and game 1's moves played again from seed {} give the same answers throughout",
                        inits[0].0, inits[1].0, inits[1].0
                    ),
                )
            },
        },
        (false, count) if count > 1 => Item {
            hint: Some(match setups_vary_by_chance(evidence) {
                // Declaring it random would hide the fault, not mend it.
                true => "the same seed set up different games too (the items above on a fresh process and other games show where): something besides the parameters and `init`'s seed goes into the setup, such as a generator the seed does not seed (Python's `random` module, Math.random) or state kept from an earlier game; draw only from a generator seeded by `seed` (Python's `random.Random(seed)`), set everything up afresh in `init`, and declare `random: true` only if the game is meant to be random".to_owned(),
                false => "declare `random: true`, or set up the game from the parameters alone"
                    .to_owned(),
            }),
            ..item(
                SEEDS,
                Status::Fail,
                format!(
                    "it declares `random: false`, but seeds {} and {} set up different games",
                    distinct[0].0, distinct[1].0
                ),
            )
        },
        (true, count) => item(
            SEEDS,
            Status::Pass,
            format!(
                "{} seeds set up {count} different games (random; compared as set up, before any move)",
                inits.len()
            ),
        ),
        (false, _) => {
            // A replay that ran out of time is judged by the time item.
            if let (Some(first), Some(reseeded)) = (evidence.games.first(), &evidence.reseeded)
                && !reseeded.timed_out()
                && let Some(failed) = differ(
                    SEEDS,
                    &format!(
                        "it declares `random: false`, but game 1's moves played again from seed {} answer otherwise than from seed {}",
                        reseeded.seed, first.seed
                    ),
                    first,
                    reseeded,
                    "declare `random: true` if anything the game shows comes from the seed at any turn (dice, a draw), or draw nothing from it",
                )
            {
                return failed;
            }
            item(
                SEEDS,
                Status::Pass,
                match &evidence.reseeded {
                    Some(_) => format!(
                        "{} seeds set up the same game, and game 1's moves from another seed give the same answers throughout (not random)",
                        inits.len()
                    ),
                    None => format!("{} seeds set up the same game (not random)", inits.len()),
                },
            )
        }
    }
}

/// Whether one seed set up two different games: played again, or in two
/// fresh processes.
fn setups_vary_by_chance(evidence: &Evidence) -> bool {
    let differs = |one: &Record, other: &Record| one.set_up_otherwise(other) == Some(true);
    evidence.games.iter().zip(&evidence.again).any(|(first, again)| differs(first, again))
        || evidence.fresh.iter().skip(1).any(|other| differs(&evidence.fresh[0], other))
}
