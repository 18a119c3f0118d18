//! The evidence `arena check-game` judges: the game program's description,
//! its answers to good and bad parameters, random self-play games, the same
//! games played again (in fresh processes, and after other games in reverse
//! order in the same process), and probes that vary one seat's hidden
//! choice. Every request is timed.

use std::time::Duration;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

use arena_base::json::RawJson;
use arena_games::GameSetup;
use arena_games::program::{Declaration, JsonMove, ParamSpec, ParamType};
use arena_games::{Played, Seat};
use arena_protocol::game::{Answer, BadAnswerKind, GameRequestKind, Refusal, Step};
use arena_referee::game_program::{Exchanged, FaultCause, GameRequest, quote};
use arena_referee::seeds::derive_seed;
use arena_referee::{BotCommand, GameFault, GameProgram, ProgramSettings, Stopped};

/// New processes the first game is played in, each compared with the
/// first: a game that depends on its process by chance (a coin for who
/// begins) passes four processes once in eight, two once in two.
pub const FRESH_PROCESSES: usize = 4;

/// Everything the checks look at.
pub struct Evidence {
    /// What `hello` came to.
    pub hello: Result<Declaration, GameFault>,
    /// The declaration the games were played by: `hello`'s, with what the
    /// answer to `init` declares for the games' parameters.
    pub declared: Option<Declaration>,
    /// The answer to `init` with the defaults.
    pub defaults: Option<Result<Answer, GameFault>>,
    /// Each parameter's bad value and what `init` answered.
    pub bad_params: Vec<BadParam>,
    /// The self-play games, in the order played.
    pub games: Vec<Record>,
    /// The same games again in the same process, after all of them, in
    /// reverse order (the same order as `games`).
    pub again: Vec<Record>,
    /// The first game in `FRESH_PROCESSES` fresh processes.
    pub fresh: Vec<Record>,
    /// For a game that declares itself not random, or whose chance is
    /// public, or whose first two seeds set up the same game: the first
    /// game's moves played again from the second game's seed.
    pub reseeded: Option<Record>,
    /// Games with one seat's move changed.
    pub probes: Vec<Probe>,
    /// How long each request took, by kind.
    pub timings: Vec<(GameRequestKind, Duration)>,
    /// How the first process ended once its input closed.
    pub stopped: Option<Stopped>,
}

impl Evidence {
    /// The first self-play game that stopped at a fault: its index, and
    /// the fault.
    pub fn first_fault(&self) -> Option<(usize, &GameFault)> {
        self.games.iter().enumerate().find_map(|(index, record)| match &record.ending {
            Ending::Fault(fault) => Some((index, &**fault)),
            _ => None,
        })
    }
}

/// A parameter sent a value it does not allow.
pub struct BadParam {
    pub name: String,
    pub value: Value,
    pub answer: Result<Answer, GameFault>,
}

/// One game: its seed, the moves sent, and what came back.
#[derive(Clone)]
pub struct Record {
    pub seed: u64,
    /// The moves of each turn, as sent.
    pub turns: Vec<Vec<Played<JsonMove>>>,
    /// The steps answered (to `init`, then to each turn).
    pub steps: Vec<Step>,
    /// The exchange each step came from, as quoted.
    pub exchanges: Vec<Quoted>,
    pub ending: Ending,
}

/// An exchange as a check quotes it: its request, and its lines cut to a
/// readable length. A game's whole lines are not kept: the parsed steps
/// are all the checks compare, and a game may answer 256 MiB.
#[derive(Clone)]
pub struct Quoted {
    pub request: GameRequest,
    pub request_line: String,
    pub answer_line: String,
}

impl Quoted {
    /// The quoted exchange and the step it answered with, if it did.
    fn of(exchanged: Exchanged) -> (Quoted, Option<Step>) {
        let quoted = Quoted {
            request: exchanged.request,
            request_line: quote(&exchanged.request_line),
            answer_line: quote(&exchanged.line),
        };
        match exchanged.answer {
            Answer::Step(step) => (quoted, Some(*step)),
            _ => (quoted, None),
        }
    }
}

/// How a game ended.
#[derive(Clone)]
pub enum Ending {
    /// With a result.
    Over,
    /// Still going after the turns the game declares as its most.
    TooLong,
    /// The moves to replay ran out before the game ended (a replay that
    /// went another way).
    Unfinished,
    /// At a fault.
    Fault(Box<GameFault>),
}

impl Record {
    /// Whether a request went unanswered in time.
    pub fn timed_out(&self) -> bool {
        matches!(&self.ending, Ending::Fault(fault) if fault.timed_out())
    }

    /// Whether every further game would fail the same costly way: wait
    /// as long for an answer, or fill as much memory before its fault.
    fn ends_the_check(&self) -> bool {
        self.timed_out()
            || matches!(&self.ending,
                Ending::Fault(fault) if matches!(fault.cause, FaultCause::TooMuchOutput { .. }))
    }

    /// Whether `self` and `other` set up different games (their answers to
    /// `init`); `None` where either has no set-up.
    pub fn set_up_otherwise(&self, other: &Record) -> Option<bool> {
        Some(self.steps.first()?.difference(other.steps.first()?).is_some())
    }

    /// The first answer in which `self` and `other` differ: its place and
    /// what differs. Faults compare by what they say, without request ids.
    pub fn difference(&self, other: &Record) -> Option<(usize, String)> {
        for (index, (mine, theirs)) in self.steps.iter().zip(&other.steps).enumerate() {
            if let Some(field) = mine.difference(theirs) {
                let why = match same_values(mine, theirs, field) {
                    true => format!(
                        "`{field}` differs in its keys' order alone (the same answers means the same text: write keys in an order of your own, not a hash table's)"
                    ),
                    false => match super::json_path::where_differs(mine, theirs, field) {
                        Some(place) => format!("`{field}` differs {place}"),
                        None => format!("`{field}` differs"),
                    },
                };
                return Some((index, why));
            }
        }
        let common = self.steps.len().min(other.steps.len());
        fn failed(record: &Record) -> Option<&FaultCause> {
            match &record.ending {
                Ending::Fault(fault) => Some(&fault.cause),
                _ => None,
            }
        }
        match (failed(self), failed(other)) {
            (Some(mine), Some(theirs))
                if same_fault(mine, theirs) && self.steps.len() == other.steps.len() =>
            {
                None
            }
            (Some(mine), Some(theirs)) if !same_fault(mine, theirs) => Some((
                common,
                format!("the game program failed differently: {mine}; then: {theirs}"),
            )),
            (Some(why), _) | (_, Some(why)) => {
                Some((common, format!("the game program failed once, not the other time: {why}")))
            }
            (None, None) if self.steps.len() != other.steps.len() => {
                Some((common, "one of them has no answer here".to_owned()))
            }
            (None, None) => None,
        }
    }
}

/// Whether `field` of two steps holds the same JSON values (written with
/// an object's keys in another order).
fn same_values(mine: &Step, theirs: &Step, field: &str) -> bool {
    let value = |raw: &RawJson| serde_json::from_str::<Value>(raw.as_str()).ok();
    let same =
        |one: &RawJson, other: &RawJson| value(one).is_some_and(|one| Some(one) == value(other));
    match field {
        "views" => mine.views.iter().zip(&theirs.views).all(|(one, other)| same(one, other)),
        "learned" => match (&mine.learned, &theirs.learned) {
            (Some(one), Some(other)) => one.iter().zip(other).all(|(one, other)| same(one, other)),
            _ => false,
        },
        "state" => match (&mine.state, &theirs.state) {
            (Some(one), Some(other)) => same(one, other),
            _ => false,
        },
        _ => false,
    }
}

/// Whether two faults are the same failure: the same kind, and for a
/// crash the same exit (what it wrote to stderr may differ).
fn same_fault(one: &FaultCause, other: &FaultCause) -> bool {
    match (one, other) {
        // A wrong id names the request's, which depends on what the
        // process was asked before: the same mistake wherever it is made.
        (FaultCause::BadAnswer(one), FaultCause::BadAnswer(other))
            if one.kind == BadAnswerKind::WrongId && other.kind == BadAnswerKind::WrongId =>
        {
            true
        }
        (FaultCause::Crash(one), FaultCause::Crash(other)) => one.status == other.status,
        (FaultCause::Timeout { stall: one, .. }, FaultCause::Timeout { stall: other, .. }) => {
            std::mem::discriminant(one) == std::mem::discriminant(other)
        }
        (one, other) => one == other,
    }
}

/// One seat's move changed: the game `game` (an index into the games) up
/// to turn `turn`, where `seat`'s move was replaced by `mv`.
pub struct Probe {
    pub game: usize,
    pub turn: usize,
    pub seat: Seat,
    pub mv: JsonMove,
    /// The step after the changed turn, if the replay came that far with
    /// the same answers as the game.
    pub step: Option<Step>,
}

/// How the evidence is gathered.
pub struct Plan<'a> {
    /// What runs the game program.
    pub command: &'a BotCommand,
    /// How long each answer is waited for, and the program's grace.
    pub settings: ProgramSettings,
    /// The parameters given on the command line, checked (`None`: the
    /// program's defaults).
    pub setup: Option<&'a GameSetup>,
    /// Random games to play, and to play again.
    pub games: u64,
    /// The seed of the games and of their random moves.
    pub seed: u64,
}

/// A program and the timings of all requests to it.
struct Sessions<'a> {
    plan: &'a Plan<'a>,
    timings: Vec<(GameRequestKind, Duration)>,
}

impl Sessions<'_> {
    fn process(&self) -> GameProgram {
        GameProgram::new(self.plan.command.clone(), self.plan.settings.clone())
    }

    fn timed(&mut self, result: &Result<Exchanged, GameFault>) {
        if let Ok(exchanged) = result {
            self.timings.push((exchanged.request.kind, exchanged.took));
        }
    }

    async fn hello(&mut self, program: &mut GameProgram) -> Result<Declaration, GameFault> {
        let started = tokio::time::Instant::now();
        let result = program.hello().await;
        if result.is_ok() {
            self.timings.push((GameRequestKind::Hello, started.elapsed()));
        }
        result
    }

    async fn init(
        &mut self,
        program: &mut GameProgram,
        params: &str,
        seed: u64,
    ) -> Result<Exchanged, GameFault> {
        let result = program.init(params, seed).await;
        self.timed(&result);
        result
    }

    async fn apply(
        &mut self,
        program: &mut GameProgram,
        moves: &[Played<JsonMove>],
        turn: u32,
    ) -> Result<Exchanged, GameFault> {
        let result = program.apply(moves, turn).await;
        self.timed(&result);
        result
    }

    /// Plays a game from `seed`: the moves of `turns` (a replay), or
    /// random legal moves from `rng` (self-play) until the game ends or
    /// passes `max_turns`.
    async fn play(
        &mut self,
        program: &mut GameProgram,
        params: &str,
        seed: u64,
        turns: Option<&[Vec<Played<JsonMove>>]>,
        rng: &mut ChaCha8Rng,
        max_turns: u32,
    ) -> Record {
        let mut record = Record {
            seed,
            turns: Vec::new(),
            steps: Vec::new(),
            exchanges: Vec::new(),
            ending: Ending::Over,
        };
        let first = match self.init(program, params, seed).await {
            Ok(exchanged) => Quoted::of(exchanged),
            Err(fault) => {
                record.ending = Ending::Fault(Box::new(fault));
                return record;
            }
        };
        let (quoted, Some(step)) = first else {
            record.ending = Ending::Unfinished;
            return record;
        };
        record.steps.push(step);
        record.exchanges.push(quoted);
        loop {
            let step = record.steps.last().expect("one step at least");
            if step.to_move.is_empty() {
                record.ending = Ending::Over;
                return record;
            }
            let turn = record.turns.len();
            if turn as u32 >= max_turns {
                record.ending = Ending::TooLong;
                return record;
            }
            let moves: Vec<Played<JsonMove>> = match turns {
                Some(turns) => match turns.get(turn) {
                    Some(moves) => moves.clone(),
                    None => {
                        record.ending = Ending::Unfinished;
                        return record;
                    }
                },
                None => step
                    .to_move
                    .iter()
                    .map(|&seat| {
                        let legal = &step.legal_moves[seat.index()];
                        Played { seat, mv: legal[rng.random_range(0..legal.len())].clone() }
                    })
                    .collect(),
            };
            let answered = self.apply(program, &moves, turn as u32 + 1).await;
            record.turns.push(moves);
            match answered {
                Ok(exchanged) => {
                    let (quoted, Some(step)) = Quoted::of(exchanged) else {
                        unreachable!("an apply is answered with a step")
                    };
                    record.steps.push(step);
                    record.exchanges.push(quoted);
                }
                Err(fault) => {
                    record.ending = Ending::Fault(Box::new(fault));
                    return record;
                }
            }
        }
    }
}

/// Gathers the evidence (see the module's description).
pub async fn gather(plan: &Plan<'_>) -> Evidence {
    let mut sessions = Sessions { plan, timings: Vec::new() };
    let mut main = sessions.process();
    let mut evidence = Evidence {
        hello: sessions.hello(&mut main).await,
        defaults: None,
        bad_params: Vec::new(),
        games: Vec::new(),
        again: Vec::new(),
        fresh: Vec::new(),
        declared: None,
        reseeded: None,
        probes: Vec::new(),
        timings: Vec::new(),
        stopped: None,
    };
    let Ok(declaration) = evidence.hello.clone() else {
        main.stop().await;
        evidence.timings = sessions.timings;
        return evidence;
    };
    let defaults = arena_games::program::ParamValues(
        declaration.params.iter().map(|spec| (spec.name.clone(), spec.default.clone())).collect(),
    );
    let defaults_json = serde_json::to_string(&defaults).expect("parameters serialize");
    evidence.defaults = Some(
        sessions.init(&mut main, &defaults_json, plan.seed).await.map(|exchanged| exchanged.answer),
    );
    for spec in &declaration.params {
        let value = bad_value(spec);
        let params = serde_json::to_string(&defaults.with(&spec.name, value.clone()))
            .expect("parameters serialize");
        let answer =
            sessions.init(&mut main, &params, plan.seed).await.map(|exchanged| exchanged.answer);
        evidence.bad_params.push(BadParam { name: spec.name.clone(), value, answer });
    }
    let params = plan.setup.map_or(defaults_json, |setup| setup.params_json().to_owned());
    // What the answer to `init` declares for these parameters holds for
    // every game of them, as in a run (a fault here shows in game 1).
    let declaration = match sessions.init(&mut main, &params, plan.seed).await {
        Ok(_) => match main.declares() {
            Some(declares) => declaration.with(declares).unwrap_or(declaration),
            None => declaration,
        },
        Err(_) => declaration,
    };
    evidence.declared = Some(declaration.clone());
    let max = declaration.max_turns;
    let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
    for index in 0..plan.games {
        let seed = derive_seed(plan.seed, index);
        let record = sessions.play(&mut main, &params, seed, None, &mut rng, max).await;
        let enough = record.ends_the_check();
        evidence.games.push(record);
        // Enough is known, and more games would only cost.
        if enough {
            main.stop().await;
            evidence.timings = sessions.timings;
            return evidence;
        }
    }
    let mut again = Vec::new();
    for record in evidence.games.iter().rev() {
        again.push(
            sessions
                .play(&mut main, &params, record.seed, Some(&record.turns), &mut rng, max)
                .await,
        );
    }
    again.reverse();
    evidence.again = again;
    if let Some(first) = evidence.games.first() {
        for _ in 0..FRESH_PROCESSES {
            let mut fresh = sessions.process();
            // As a tournament's process: described once, then games.
            let _ = sessions.hello(&mut fresh).await;
            let record = sessions
                .play(&mut fresh, &params, first.seed, Some(&first.turns), &mut rng, max)
                .await;
            fresh.stop().await;
            evidence.fresh.push(record);
        }
    }
    // A game that is not random deals nothing from the seed at any turn
    // (dice rolled later count as much as a deal at `init`); one whose
    // chance is public deals both seats' views alike; and a random game
    // whose seeds set up the same game may draw its chance during play.
    if let [first, second, ..] = &evidence.games[..]
        && (!declaration.random
            || declaration.private_chance == Some(false)
            || first.set_up_otherwise(second) == Some(false))
    {
        evidence.reseeded = Some(
            sessions.play(&mut main, &params, second.seed, Some(&first.turns), &mut rng, max).await,
        );
    }
    if declaration.moves == arena_games::program::Moves::Hidden {
        evidence.probes =
            probe(&mut sessions, &mut main, &params, &evidence.games, &mut rng, max).await;
    }
    evidence.stopped = main.stop().await;
    evidence.timings = sessions.timings;
    evidence
}

/// Games with one seat's move changed, at the first turns of the first
/// games: the step after, to compare with the game's.
async fn probe(
    sessions: &mut Sessions<'_>,
    program: &mut GameProgram,
    params: &str,
    games: &[Record],
    rng: &mut ChaCha8Rng,
    max: u32,
) -> Vec<Probe> {
    let mut probes = Vec::new();
    for (game, record) in games.iter().enumerate().take(3) {
        for turn in 0..record.turns.len().min(4) {
            let Some(step) = record.steps.get(turn) else { break };
            for played in &record.turns[turn] {
                let legal = &step.legal_moves[played.seat.index()];
                let Some(other) = legal.iter().find(|mv| **mv != played.mv) else { continue };
                let mut turns = record.turns[..=turn].to_vec();
                for changed in &mut turns[turn] {
                    if changed.seat == played.seat {
                        changed.mv = other.clone();
                    }
                }
                let replay =
                    sessions.play(program, params, record.seed, Some(&turns), rng, max).await;
                // Only a replay that answered as the game did up to the
                // changed turn tells anything.
                let same_before = replay.steps.len() > turn + 1
                    && replay.steps[..=turn]
                        .iter()
                        .zip(&record.steps)
                        .all(|(a, b)| a.difference(b).is_none());
                probes.push(Probe {
                    game,
                    turn,
                    seat: played.seat,
                    mv: other.clone(),
                    step: same_before.then(|| replay.steps[turn + 1].clone()),
                });
            }
        }
    }
    probes
}

/// A value `spec` does not allow: just past a bound, or of another type.
pub fn bad_value(spec: &ParamSpec) -> Value {
    match spec.kind {
        ParamType::Integer => match (&spec.max, &spec.min) {
            (Some(max), _) if max.as_i64().is_some_and(|max| max < i64::MAX) => {
                Value::from(max.as_i64().unwrap_or(0) + 1)
            }
            (_, Some(min)) if min.as_i64().is_some_and(|min| min > i64::MIN) => {
                Value::from(min.as_i64().unwrap_or(0) - 1)
            }
            _ => Value::from("x"),
        },
        ParamType::Number => match (&spec.max, &spec.min) {
            (Some(max), _) => Value::from(max.as_f64().unwrap_or(0.0) + 1.0),
            (_, Some(min)) => Value::from(min.as_f64().unwrap_or(0.0) - 1.0),
            _ => Value::from("x"),
        },
        ParamType::Boolean => Value::from("x"),
        ParamType::String => match &spec.choices {
            Some(choices) => Value::from(format!("not-{}", choices.join("-"))),
            None => Value::from(7),
        },
    }
}

/// What `init` answered to a bad parameter: its refusal, if it refused.
pub fn refusal(answer: &Result<Answer, GameFault>) -> Option<&Refusal> {
    match answer {
        Ok(Answer::Refuse(refusal)) => Some(refusal),
        _ => None,
    }
}
