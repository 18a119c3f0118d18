//! The items of `arena check-game`, judged from the evidence gathered.
//! Each fault belongs to one item, so that one problem fails one item.

use std::time::Duration;

use super::gather::{Ending, Evidence, refusal};
use crate::StderrQuote;
use arena_base::score::Score;
use arena_games::Seat;
use arena_games::program::Payoffs;
use arena_protocol::game::{Answer, BadAnswerKind, GameRequestKind};
use arena_referee::game_program::FaultCause;
use arena_referee::{GameFault, Stall, Stopped};

mod chance;
mod replays;
mod secrecy;

use chance::public_chance;
use replays::{again, fresh, seeds};
use secrecy::{hidden, private};

/// One line of the checklist.
pub struct Item {
    /// What the item checks, as the checklist names it.
    pub title: &'static str,
    /// Whether it passed.
    pub status: Status,
    /// What was seen, in words.
    pub evidence: String,
    /// The request and the answer that are the evidence, when they are.
    pub request: Option<String>,
    /// The program's answer to `request`.
    pub answer: Option<String>,
    /// What a crashed program last wrote to stderr.
    pub stderr: Option<StderrQuote>,
    /// What to do about a failure.
    pub hint: Option<String>,
}

/// How an item of the checklist came out.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Passed, on evidence.
    Pass,
    /// Failed, with its evidence.
    Fail,
    /// Not judged: nothing to judge, or an earlier failure hid it.
    Skip,
}

impl Status {
    /// The word the checklist shows: PASS, FAIL or SKIP.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

fn item(title: &'static str, status: Status, evidence: impl Into<String>) -> Item {
    Item {
        title,
        status,
        evidence: evidence.into(),
        request: None,
        answer: None,
        stderr: None,
        hint: None,
    }
}

/// Fails `title` with `fault`: its words, request, answer and a hint.
fn fault_item(title: &'static str, context: &str, fault: &GameFault) -> Item {
    Item {
        title,
        status: Status::Fail,
        evidence: match &fault.cause {
            // Its stderr follows as lines of their own.
            FaultCause::Crash(crash) => format!("{context}: {}", crash.detail(&fault.request, false)),
            _ => format!("{context}: {}", fault.what()),
        },
        // A program that did not start was sent nothing.
        request: (!fault.request_line.is_empty()).then(|| fault.request_line.clone()),
        answer: fault.answer.clone(),
        stderr: match &fault.cause {
            FaultCause::Crash(crash) => StderrQuote::of(crash),
            _ => None,
        },
        hint: Some(match (&fault.cause, fault.request.kind) {
            (FaultCause::BadAnswer(bad), GameRequestKind::Hello)
                if bad.kind == BadAnswerKind::Malformed =>
            {
                "answer `hello` with {\"type\":\"game\",\"id\":ID,\"name\":...,\"seats\":2,\"moves\":\"public\" or \"hidden\",\"random\":...,\"max_turns\":...,\"params\":[...]} (game-protocol.md)".to_owned()
            }
            (cause, _) => hint(cause),
        }),
    }
}

/// What an author can do about a fault, by its cause.
fn hint(cause: &FaultCause) -> String {
    match cause {
        FaultCause::NotStarted(_) => "check the command: the program must start from the folder arena runs in (a script needs a #! line and chmod +x, or its interpreter named first)".to_owned(),
        // The answer was written, and waits unflushed: time is not the cure.
        FaultCause::Timeout { stall: Stall::NoLine { partial_bytes: 1.., .. }, .. } => "end every answer with a newline and flush stdout after it (game-protocol.md shows how)".to_owned(),
        FaultCause::Timeout { stall, .. } if stall.output_stuck() => "flush stdout after every line (game-protocol.md shows how): the program sat waiting for its next request while its answer waited in its output buffer".to_owned(),
        FaultCause::Timeout { .. } => "answer each request at once, and flush stdout after every line (game-protocol.md shows how); a new process's start counts in its first answer's time (a JVM's, or a compile at start: build beforehand), else allow more with --timeout".to_owned(),
        FaultCause::Crash(crash) if crash.stderr_tail.is_empty() => "the program stopped and wrote nothing to stderr".to_owned(),
        FaultCause::Crash(_) => "the program stopped: what it wrote to stderr (above) says why".to_owned(),
        FaultCause::LineTooLong { .. } => "write one JSON object per line; debug output goes to stderr".to_owned(),
        FaultCause::BadAnswer(bad) => match bad.kind {
            BadAnswerKind::NotJson => "write exactly one JSON object per line on stdout, flushed; debug output goes to stderr".to_owned(),
            BadAnswerKind::WrongId => "copy the request's `id` into the answer".to_owned(),
            BadAnswerKind::WrongType => "answer `hello` with {\"type\":\"game\",...}, `init` and `apply` with {\"type\":\"step\",...} (`init` may answer {\"type\":\"refuse\",...})".to_owned(),
            BadAnswerKind::Malformed => "a step has `to_move`, `legal_moves`, `views` (one per seat) and `scores`, and a `result` once over (with hidden moves, `learned` after each `apply`); game-protocol.md lists every field".to_owned(),
            BadAnswerKind::Contradiction => "a seat in `to_move` has at least one legal move and a seat not in it has none; a finished game has nobody to move and a `result`".to_owned(),
        },
        FaultCause::Refused(_) => "never refuse `apply`: arena sends only moves from your own `legal_moves`".to_owned(),
        FaultCause::TooLong { .. } => "end every game within `max_turns`, or declare more".to_owned(),
        FaultCause::TooMuchOutput { .. } => "keep steps small: a `state`, `text` or views that grow every turn add up".to_owned(),
        FaultCause::Inconsistent { .. } => "answer the same requests the same: keep no state between games, and draw randomness only from a generator seeded by `init`'s seed".to_owned(),
    }
}

const DESCRIBES: &str = "describes itself";
const PARAMS: &str = "sets up games and refuses bad parameters by name";
const TO_END: &str = "plays to the end within its declared turns";
const SOUND: &str = "answers every request with a sound step";
const PAYOFFS: &str = "ends with scores within its declared payoffs";
const FRESH: &str = "answers the same in a fresh process";
const AGAIN: &str = "answers the same after other games and in another order";
const SEEDS: &str = "seeds change the game as it declares";
const HIDDEN: &str = "views do not show hidden choices";
const PRIVATE: &str = "keeps a seat's private values from the other seat";
const TIME: &str = "answers in time";
const EXITS: &str = "exits when its input closes";

/// The checklist, in order.
pub fn checklist(evidence: &Evidence, limit: Duration) -> Vec<Item> {
    let declaration = match &evidence.hello {
        Ok(declaration) => declaration,
        Err(fault) => {
            let mut items = vec![fault_item(DESCRIBES, "`hello`", fault)];
            for title in [PARAMS, TO_END, SOUND, FRESH, AGAIN, SEEDS, HIDDEN, PRIVATE, TIME, EXITS]
            {
                items.push(item(
                    title,
                    Status::Skip,
                    "not judged: the game did not describe itself",
                ));
            }
            return items;
        }
    };
    let mut items = vec![item(
        DESCRIBES,
        Status::Pass,
        format!(
            "`{}`, two seats, {} parameter{} with valid defaults{}",
            declaration.name,
            declaration.params.len(),
            if declaration.params.len() == 1 { "" } else { "s" },
            declaration
                .params
                .iter()
                .enumerate()
                .map(|(index, spec)| format!(
                    "{} {} = {} ({}{})",
                    if index == 0 { ":" } else { ";" },
                    spec.name,
                    spec.default,
                    spec.describe(),
                    spec.doc.as_ref().map_or(String::new(), |doc| format!(": {doc}"))
                ))
                .collect::<String>()
        ),
    )];
    items.push(params(evidence));
    // The games were played by what `init` declared for their parameters.
    let declaration = evidence.declared.as_ref().unwrap_or(declaration);
    let first_fault = evidence.first_fault();
    let faulted = first_fault.map(|(index, _)| index);
    items.push(to_end(evidence, declaration.max_turns, faulted));
    if let Some(payoffs) = declaration.payoffs {
        items.push(within_payoffs(evidence, payoffs, faulted));
    }
    items.push(sound(evidence, first_fault));
    items.push(fresh(evidence));
    items.push(again(evidence));
    items.push(seeds(evidence, declaration.random));
    if declaration.random && declaration.private_chance == Some(false) {
        items.push(public_chance(evidence));
    }
    items.push(hidden(evidence, declaration.moves));
    items.push(private(evidence));
    items.push(time(evidence, limit));
    items.push(match evidence.stopped {
        Some(Stopped { exited_in_grace: true }) => item(EXITS, Status::Pass, "exited within 1 s"),
        Some(Stopped { exited_in_grace: false }) => Item {
            hint: Some(
                "end the read loop and exit when reading stdin returns end of file".to_owned(),
            ),
            ..item(EXITS, Status::Fail, "still running 1 s after its stdin closed; it was killed")
        },
        None => item(EXITS, Status::Skip, "not judged: the process had already ended at a fault"),
    });
    items
}

fn params(evidence: &Evidence) -> Item {
    match &evidence.defaults {
        Some(Ok(Answer::Step(_))) => {}
        Some(Ok(Answer::Refuse(refusal))) => {
            return Item {
                hint: Some("a game's declared defaults must set up a game".to_owned()),
                ..item(PARAMS, Status::Fail, format!("it refused its own defaults: {refusal}"))
            };
        }
        Some(Err(fault)) => return fault_item(PARAMS, "`init` with the defaults", fault),
        Some(Ok(Answer::Game(_))) | None => {
            return item(PARAMS, Status::Skip, "not judged: no game was set up");
        }
    }
    for bad in &evidence.bad_params {
        let shown = format!("`{}` = {}", bad.name, bad.value);
        let problem = match (&bad.answer, refusal(&bad.answer)) {
            (_, Some(refusal)) if refusal.param.as_deref() == Some(bad.name.as_str()) => continue,
            (_, Some(refusal)) => {
                format!("it refused {shown} without naming `{}`: {refusal}", bad.name)
            }
            (Ok(_), None) => {
                format!("it set up a game with {shown}, a value its declaration does not allow")
            }
            (Err(fault), None) => {
                return fault_item(PARAMS, &format!("`init` with {shown}"), fault);
            }
        };
        return Item {
            hint: Some(format!(
                "check every parameter in `init` and answer {{\"type\":\"refuse\",\"param\":\"{}\",\"message\":...}} for a value you cannot play with",
                bad.name
            )),
            ..item(PARAMS, Status::Fail, problem)
        };
    }
    let refused: Vec<String> =
        evidence.bad_params.iter().map(|bad| format!("{} = {}", bad.name, bad.value)).collect();
    item(
        PARAMS,
        Status::Pass,
        match refused.is_empty() {
            true => "set up a game with its defaults (it has no parameters)".to_owned(),
            false => {
                format!("set up a game with its defaults, refused by name {}", refused.join(", "))
            }
        },
    )
}

fn to_end(evidence: &Evidence, max_turns: u32, faulted: Option<usize>) -> Item {
    if let Some((index, record)) = evidence
        .games
        .iter()
        .enumerate()
        .find(|(_, record)| matches!(record.ending, Ending::TooLong))
    {
        return Item {
            hint: Some("end every game within `max_turns`, or declare more".to_owned()),
            ..item(
                TO_END,
                Status::Fail,
                format!(
                    "game {} (seed {}) was still going after {} turns, the most it declares",
                    index + 1,
                    record.seed,
                    record.turns.len()
                ),
            )
        };
    }
    if let Some(index) = faulted {
        return item(
            TO_END,
            Status::Skip,
            format!("not judged: game {} stopped at a fault (see below)", index + 1),
        );
    }
    if let Some(why) = no_turn_played(evidence) {
        return item(TO_END, Status::Skip, format!("not judged: {why} (see above)"));
    }
    let turns: Vec<usize> = evidence.games.iter().map(|record| record.turns.len()).collect();
    item(
        TO_END,
        Status::Pass,
        format!(
            "{} random games ended, in {} to {} turns (at most {max_turns} declared){}",
            turns.len(),
            turns.iter().min().unwrap_or(&0),
            turns.iter().max().unwrap_or(&0),
            lower_score_won(evidence).unwrap_or_default()
        ),
    )
}

/// Whether every game ended with scores within the payoffs declared: else
/// standings would average a payoff the game says cannot be, and a
/// forfeit would be charged less than a loss.
fn within_payoffs(evidence: &Evidence, payoffs: Payoffs, faulted: Option<usize>) -> Item {
    if let Some(index) = faulted {
        return item(
            PAYOFFS,
            Status::Skip,
            format!("not judged: game {} stopped at a fault (see below)", index + 1),
        );
    }
    let outside = evidence.games.iter().enumerate().find_map(|(index, record)| {
        let last = record.steps.last().filter(|last| last.result.is_some())?;
        let (seat, score) = last
            .scores
            .iter()
            .enumerate()
            .find(|(_, score)| **score < payoffs.min || **score > payoffs.max)?;
        Some(Item {
            hint: Some(
                "declare `payoffs` with a `min` and `max` that hold every score a game can end with"
                    .to_owned(),
            ),
            ..item(
                PAYOFFS,
                Status::Fail,
                format!(
                    "game {} (seed {}) ended with seat {}'s score {score}, outside the payoffs it declares ({} to {})",
                    index + 1,
                    record.seed,
                    seat + 1,
                    payoffs.min,
                    payoffs.max
                ),
            )
        })
    });
    outside.unwrap_or_else(|| {
        let ended = evidence.games.iter().filter_map(|record| record.steps.last());
        let ended = ended.filter(|last| last.result.is_some());
        let scores: Vec<Score> = ended.flat_map(|last| last.scores).collect();
        let (least, most) = (scores.iter().min(), scores.iter().max());
        let range = match (least, most) {
            (Some(least), Some(most)) => format!(", from {least} to {most}"),
            _ => String::new(),
        };
        item(
            PAYOFFS,
            Status::Pass,
            format!(
                "{} games ended with payoffs within the {} to {} declared{range}",
                evidence.games.len(),
                payoffs.min,
                payoffs.max
            ),
        )
    })
}

/// A note when every game won on different scores was won by the lower
/// score: a game where lower wins (golf) means it, but most often
/// `winner` names the wrong seat (0 and 1 for seats 1 and 2, or the two
/// swapped), which no single answer shows.
fn lower_score_won(evidence: &Evidence) -> Option<String> {
    let mut won = 0;
    for record in &evidence.games {
        let Some(last) = record.steps.last() else { continue };
        let Some(winner) = last.result.and_then(|outcome| outcome.winner) else { continue };
        let [mine, theirs] = [last.scores[winner.index()], last.scores[winner.other().index()]];
        if mine > theirs {
            return None;
        }
        if mine < theirs {
            won += 1;
        }
    }
    (won >= 2).then(|| {
        format!(
            "; note: in each of the {won} games won on different scores the lower score won: if the higher should, check that `winner` is the winning seat's number, 1 or 2"
        )
    })
}

fn sound(evidence: &Evidence, fault: Option<(usize, &GameFault)>) -> Item {
    if let Some((index, fault)) = fault
        && !fault.timed_out()
    {
        return fault_item(SOUND, &format!("game {}", index + 1), fault);
    }
    let mut steps = 0;
    for (index, record) in evidence.games.iter().enumerate() {
        for (at, step) in record.steps.iter().enumerate() {
            steps += 1;
            // This step's answer fails the item for `why`.
            let fails = |why: String, hint: String| {
                let exchange = &record.exchanges[at];
                Item {
                    title: SOUND,
                    status: Status::Fail,
                    evidence: format!("game {}, {}: {why}", index + 1, exchange.request),
                    request: Some(exchange.request_line.clone()),
                    answer: Some(exchange.answer_line.clone()),
                    stderr: None,
                    hint: Some(hint),
                }
            };
            for seat in Seat::BOTH {
                let legal = &step.legal_moves[seat.index()];
                if let Some(twice) = legal
                    .iter()
                    .enumerate()
                    .find_map(|(n, mv)| legal[..n].contains(mv).then_some(mv))
                {
                    return fails(
                        format!("seat {seat}'s legal moves list {twice:?} twice"),
                        "list each legal move once".to_owned(),
                    );
                }
                if let Some((mv, number)) = arena_games::program::first_inexact(legal) {
                    return fails(
                        arena_games::program::inexact_words(seat, mv, &number),
                        arena_games::exact_numbers::exact_numbers_advice(),
                    );
                }
            }
        }
    }
    if steps == 0
        && let Some(why) = no_turn_played(evidence)
    {
        return item(SOUND, Status::Skip, format!("not judged: {why} (see above)"));
    }
    item(
        SOUND,
        Status::Pass,
        format!("all {steps} steps of the random games were well formed and consistent"),
    )
}

/// Why no random game played a turn, when none did and one should have:
/// a game stopped at a fault first, or none was set up (the game refused
/// its own defaults). The items that judge games played then say so,
/// rather than pass on nothing. `None` also when the games ended at once.
pub(super) fn no_turn_played(evidence: &Evidence) -> Option<String> {
    if evidence.games.is_empty() || evidence.games.iter().any(|record| !record.turns.is_empty()) {
        return None;
    }
    if let Some((index, _)) = evidence.first_fault() {
        return Some(format!("no game played a turn: game {} stopped at a fault", index + 1));
    }
    evidence
        .games
        .iter()
        .all(|record| record.steps.is_empty())
        .then(|| "no game was set up: it refused its own defaults".to_owned())
}

fn time(evidence: &Evidence, limit: Duration) -> Item {
    let timed_out = [
        ("game", evidence.games.as_slice()),
        ("game played again", &evidence.again),
        ("game in a fresh process", &evidence.fresh),
        ("game played again from another seed", evidence.reseeded.as_slice()),
    ]
    .into_iter()
    .flat_map(|(what, records)| {
        records.iter().enumerate().map(move |(index, record)| (what, index, record))
    })
    .find_map(|(what, index, record)| match &record.ending {
        Ending::Fault(fault) if fault.timed_out() => Some((what, index, &**fault)),
        _ => None,
    });
    if let Some((what, index, fault)) = timed_out {
        return fault_item(TIME, &format!("{what} {}", index + 1), fault);
    }
    let ms = |duration: Duration| duration.as_secs_f64() * 1e3;
    let mut summary = Vec::new();
    for kind in [GameRequestKind::Hello, GameRequestKind::Init, GameRequestKind::Apply] {
        let took: Vec<Duration> =
            evidence.timings.iter().filter(|(k, _)| *k == kind).map(|(_, took)| *took).collect();
        let Some(slowest) = took.iter().max() else { continue };
        if *slowest > limit {
            return Item {
                hint: Some("answer faster: a tournament voids the game of an answer that takes longer (its game_timeout); a new process's start counts in its first answer's time (a JVM's, or a compile at start: build beforehand)".to_owned()),
                ..item(
                    TIME,
                    Status::Fail,
                    format!("an answer to `{}` took {:.0} ms, more than the {} ms allowed", kind.as_str(), ms(*slowest), limit.as_millis()),
                )
            };
        }
        let mean = took.iter().sum::<Duration>() / took.len() as u32;
        summary.push(format!(
            "{} mean {:.2} ms (slowest {:.2} ms)",
            kind.as_str(),
            ms(mean),
            ms(*slowest)
        ));
    }
    if summary.is_empty() {
        return item(TIME, Status::Skip, "not judged: nothing was answered");
    }
    item(
        TIME,
        Status::Pass,
        format!("{} of the {} ms allowed", summary.join("; "), limit.as_millis()),
    )
}
