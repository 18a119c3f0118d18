//! A game told from its transcript, turn by turn, as the rule books tell a
//! game: what `arena replay` prints and the leaderboard page steps through.
//!
//! The game is played again through the same [`Table`] interface the
//! referee played it through: a built-in game is rebuilt from the header's
//! game, seed and parameters (and checked against the header's initial
//! state); a game program's is read from the steps the transcript kept of
//! its answers (`recorded`), so no program is run. Every `move` line is
//! played onto it and told (by the rules' narration, or by the program's
//! own words, or as a readable view), followed by the forfeits and the
//! result. Nothing is told unless the whole transcript replays, so a bad
//! one gives just an error naming the line.

mod recorded;
mod sent;

use arena_base::score::Score;
use std::fmt::Display;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::table::{Builtin, Table};
use crate::{GameOutcome, TimeControl};
use arena_base::printable::printable;
use arena_base::units::show_duration;
use arena_games::narrate::{Narrate, player};
use arena_games::{Game, GameId, Seat, parse_params};
use arena_protocol::{ForfeitReason, PROTOCOL_VERSION, Played, ResultReason};
use recorded::Recorded;
pub use sent::sent_to;

/// What is wrong with a transcript, and on which line (from 1).
#[derive(Debug)]
pub struct LineError {
    line: usize,
    message: String,
}

impl LineError {
    fn new(line: usize, message: impl Display) -> LineError {
        LineError { line, message: message.to_string() }
    }
}

impl Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

/// A JSON line of the transcript with its line number.
struct Line {
    number: usize,
    value: Value,
    /// The line as written: what keeps the order of an object's keys.
    text: String,
}

impl Line {
    /// The line's `type`.
    fn kind(&self) -> Result<&str, LineError> {
        self.value
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| LineError::new(self.number, "the line has no `type`"))
    }

    /// The line as a `T`, or an error naming what it should have been.
    fn parse<T: DeserializeOwned>(&self, what: &str) -> Result<T, LineError> {
        T::deserialize(&self.value)
            .map_err(|error| LineError::new(self.number, format!("not a valid {what}: {error}")))
    }
}

#[derive(Deserialize)]
struct Header {
    /// The version of arena that wrote the transcript.
    arena: Option<String>,
    /// The protocol version its messages follow.
    protocol: Option<Value>,
    game: String,
    /// The game program, for a game that is one.
    game_program: Option<HeaderProgram>,
    seed: u64,
    params: Box<serde_json::value::RawValue>,
    bots: Vec<HeaderBot>,
    /// Each seat's time control (absent in transcripts of earlier arenas).
    time_controls: Option<[TimeControl; 2]>,
    #[serde(default)]
    time_margin_ms: u64,
    #[serde(default)]
    no_time_limit: bool,
    state: Value,
}

/// The time a `move` line records besides the move.
#[derive(Deserialize)]
struct MoveTime {
    think_us: Option<u64>,
    /// Under a game clock, the bank left after the move.
    bank_us: Option<u64>,
}

#[derive(Deserialize)]
struct HeaderProgram {
    title: String,
    moves: arena_games::program::Moves,
}

#[derive(Deserialize)]
struct HeaderBot {
    seat: Seat,
    name: String,
}

#[derive(Deserialize)]
struct ForfeitEntry {
    seat: Seat,
    reason: ForfeitReason,
    detail: String,
    line: Option<String>,
}

/// The game program's fault that voided the game.
#[derive(Deserialize)]
struct VoidEntry {
    detail: String,
}

#[derive(Deserialize)]
struct ResultEntry {
    winner: Option<Seat>,
    outcome: GameOutcome,
    reason: ResultReason,
    scores: [Score; 2],
}

/// The whole story of the transcript `text`, line by line.
pub fn tell(text: &str) -> Result<Vec<String>, LineError> {
    let lines = json_lines(text)?;
    let (first, header, rest) = with_header(&lines)?;
    if let Some(program) = &header.game_program {
        let recorded = Recorded::read(program, &header.game, rest)?;
        let params = arena_base::json::compact(header.params.get()).into_owned();
        return Replay::new(first.number, header, recorded, params)?.tell(rest);
    }
    let game: GameId = header.game.parse().map_err(|error| LineError::new(first.number, error))?;
    arena_games::with_game!(game, G => {
        let (table, params) = built::<G>(first.number, &header)?;
        Replay::new(first.number, header, table, params)?.tell(rest)
    })
}

/// The transcript's header (its first line, checked: a header of this
/// arena's protocol), its line, and the lines after it.
fn with_header(lines: &[Line]) -> Result<(&Line, Header, &[Line]), LineError> {
    let Some((first, rest)) = lines.split_first() else {
        return Err(LineError::new(1, "the transcript is empty: no header"));
    };
    let kind = first.kind()?;
    if kind != "header" {
        return Err(LineError::new(
            first.number,
            format!("expected the header, found a `{kind}` line"),
        ));
    }
    let header: Header = serde_json::from_str(&first.text)
        .map_err(|error| LineError::new(first.number, format!("not a valid header: {error}")))?;
    if header.protocol != Some(Value::from(PROTOCOL_VERSION)) {
        let theirs =
            header.protocol.as_ref().map_or("no protocol".to_owned(), |v| format!("protocol {v}"));
        return Err(LineError::new(
            first.number,
            format!(
                "the transcript is of {theirs}; this arena reads protocol {PROTOCOL_VERSION} transcripts"
            ),
        ));
    }
    Ok((first, header, rest))
}

/// A built-in game as the header sets it up, checked against the header's
/// initial state, and its parameters in full.
fn built<G: Game>(line: usize, header: &Header) -> Result<(Builtin<G>, String), LineError> {
    let given = serde_json::from_str(header.params.get())
        .map_err(|error| LineError::new(line, format!("parameters: {error}")))?;
    let params: G::Params = parse_params(given)
        .map_err(|error| LineError::new(line, format!("parameters: {error}")))?;
    let game = G::new(&params, header.seed);
    let state = serde_json::to_value(&game).expect("game states serialize");
    if state != header.state {
        let theirs =
            header.arena.as_ref().map_or("no version".to_owned(), |v| format!("arena {v}"));
        return Err(LineError::new(
            line,
            format!(
                "the initial state does not match the one this arena (version {}) sets up \
                 for this game, seed and parameters: the transcript was written under other \
                 rules or by another version (it names {theirs})",
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    let params = serde_json::to_string(&params).expect("parameters serialize");
    Ok((Builtin(game), params))
}

/// A game a replay can tell: played through the [`Table`] interface, and
/// told in words.
pub(crate) trait Told: Table + Clone {
    /// The name people read.
    fn title(&self) -> String;

    /// The position in words.
    fn board(&self) -> Vec<String>;

    /// What one turn did, from `before` to `after`.
    fn tell_turn(before: &Self, moves: &[Played<Self::Move>], after: &Self) -> Vec<String>;
}

impl<G: Narrate> Told for Builtin<G> {
    fn title(&self) -> String {
        G::ID.title().to_owned()
    }

    fn board(&self) -> Vec<String> {
        self.0.board()
    }

    fn tell_turn(before: &Self, moves: &[Played<G::Move>], after: &Self) -> Vec<String> {
        G::narrate_turn(&before.0, moves, &after.0)
    }
}

/// The result of a future that never waits: a recorded or built-in game
/// answers at once.
fn at_once<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => unreachable!("a replayed game answers at once"),
    }
}

/// Plays `moves` onto `game` turn by turn, calling `told` with each turn's
/// place in `moves` and its lines. A turn is one move of each seat to move
/// at its start, in seat order. Returns how many moves were applied; a
/// trailing incomplete or refused turn is left unapplied.
pub(crate) fn tell_turns<T: Told>(
    game: &mut T,
    moves: &[Played<T::Move>],
    mut told: impl FnMut(std::ops::Range<usize>, Vec<String>),
) -> usize {
    let mut applied = 0;
    while applied < moves.len() {
        let size = game.to_move().len();
        if size == 0 || applied + size > moves.len() {
            break;
        }
        let turn = &moves[applied..applied + size];
        let seats_in_turn =
            turn.iter().map(|played| played.seat).eq(game.to_move().iter().copied());
        let accepted: Option<Vec<Played<T::Move>>> = turn
            .iter()
            .map(|played| {
                let mv = game.accept(played.seat, played.mv.clone()).ok()?;
                Some(Played { seat: played.seat, mv })
            })
            .collect();
        let (true, Some(accepted)) = (seats_in_turn, accepted) else { break };
        let before = game.clone();
        if at_once(game.apply(&accepted)).is_err() {
            break;
        }
        told(applied..applied + size, T::tell_turn(&before, &accepted, game));
        applied += size;
    }
    applied
}

/// The non-blank lines of `text`, each parsed as JSON.
fn json_lines(text: &str) -> Result<Vec<Line>, LineError> {
    (1..)
        .zip(text.lines())
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            serde_json::from_str(line)
                .map(|value| Line { number, value, text: line.to_owned() })
                .map_err(|error| LineError::new(number, format!("not JSON: {error}")))
        })
        .collect()
}

/// The lines after the header, sorted by what they say.
struct Entries<M> {
    moves: Vec<Played<M>>,
    /// The line number of each of `moves`.
    move_lines: Vec<usize>,
    /// The time each of `moves` took, and left.
    move_times: Vec<MoveTime>,
    forfeits: Vec<ForfeitEntry>,
    /// The game program's fault, when it voided the game.
    void: Option<VoidEntry>,
    result: Option<(usize, ResultEntry)>,
}

impl<M: DeserializeOwned> Entries<M> {
    fn sort(lines: &[Line], game: &str) -> Result<Entries<M>, LineError> {
        let mut entries = Entries {
            moves: Vec::new(),
            move_lines: Vec::new(),
            move_times: Vec::new(),
            forfeits: Vec::new(),
            void: None,
            result: None,
        };
        for line in lines {
            match line.kind()? {
                "move" => {
                    entries.moves.push(line.parse(&format!("{game} move"))?);
                    entries.move_lines.push(line.number);
                    entries.move_times.push(line.parse("move")?);
                }
                "forfeit" => entries.forfeits.push(line.parse("forfeit")?),
                "void" => entries.void = Some(line.parse("void")?),
                "result" if entries.result.is_some() => {
                    return Err(LineError::new(line.number, "a second result"));
                }
                "result" => entries.result = Some((line.number, line.parse("result")?)),
                "header" => return Err(LineError::new(line.number, "a second header")),
                // `send` and `recv` (and anything newer) tell nothing here.
                _ => {}
            }
        }
        Ok(entries)
    }
}

/// One game being replayed.
struct Replay<T> {
    game: T,
    /// The game's id.
    id: String,
    seed: u64,
    /// The parameters in full, as JSON.
    params: String,
    names: [String; 2],
    /// How the seats were timed, in words, if the header says.
    time: Option<String>,
}

impl<T: Told> Replay<T> {
    /// The game the header describes, set up as `game`; `params` are its
    /// parameters as the opening shows them.
    fn new(line: usize, header: Header, game: T, params: String) -> Result<Replay<T>, LineError> {
        let names = Seat::BOTH.map(|seat| {
            header.bots.iter().find(|bot| bot.seat == seat).map(|bot| bot.name.clone())
        });
        let [Some(first), Some(second)] = names else {
            return Err(LineError::new(line, "the header does not name a bot for each seat"));
        };
        let time = header.time_controls.map(|controls| {
            let mut time = match controls {
                [first, second] if first == second => format!("Time: {first}"),
                [first, second] => format!("Time: Player 1 {first}, Player 2 {second}"),
            };
            if header.time_margin_ms > 0 {
                let margin = show_duration(std::time::Duration::from_millis(header.time_margin_ms));
                time.push_str(&format!(" (the referee waited {margin} more)"));
            }
            if header.no_time_limit {
                time.push_str(" (not enforced: --no-time-limit)");
            }
            time
        });
        Ok(Replay {
            game,
            seed: header.seed,
            params,
            names: [first, second],
            time,
            id: header.game,
        })
    }

    fn tell(mut self, lines: &[Line]) -> Result<Vec<String>, LineError> {
        let entries = Entries::<T::Move>::sort(lines, &self.id)?;
        let mut story = self.opening();
        let applied = tell_turns(&mut self.game, &entries.moves, |moves, turn| {
            story.push(String::new());
            story.extend(turn);
            for (played, time) in
                entries.moves[moves.clone()].iter().zip(&entries.move_times[moves])
            {
                story.extend(clock_line(played.seat, time));
            }
        });
        let unplayed = &entries.moves[applied..];
        if let Some(void) = &entries.void {
            // The game program failed: the moves it was not given are told
            // as chosen, and no result stands.
            story.push(String::new());
            for played in unplayed {
                story.push(format!("{} had chosen {}.", player(played.seat), show(&played.mv)));
            }
            story.push(format!("The game is void: {}", printable(&void.detail)));
            return Ok(story);
        }
        story.extend(self.unplayed(unplayed, &entries.move_lines[applied..])?);
        for forfeit in &entries.forfeits {
            story.push(String::new());
            story.extend(self.forfeit(forfeit));
        }
        let last_line = lines.last().map_or(1, |line| line.number);
        let (line, result) = entries
            .result
            .ok_or_else(|| LineError::new(last_line, "the transcript ends without a result"))?;
        self.check_result(line, &result, entries.forfeits.is_empty())?;
        story.push(String::new());
        story.extend(self.result(&result));
        Ok(story)
    }

    /// The title, the parameters and the initial board.
    fn opening(&self) -> Vec<String> {
        let [first, second] = &self.names;
        let mut lines = vec![
            format!(
                "{} — seed {} — Player 1: {first}, Player 2: {second}",
                self.game.title(),
                self.seed
            ),
            format!("Parameters: {}", self.params),
        ];
        lines.extend(self.time.clone());
        lines.push(String::new());
        lines.extend(self.game.board());
        lines
    }

    /// The moves after the last whole turn: the choices of a simultaneous
    /// turn that a forfeit stopped, or else a move the rules refuse.
    fn unplayed(
        &self,
        moves: &[Played<T::Move>],
        lines: &[usize],
    ) -> Result<Vec<String>, LineError> {
        if moves.is_empty() {
            return Ok(Vec::new());
        }
        let legal =
            |played: &Played<T::Move>| self.game.accept(played.seat, played.mv.clone()).is_ok();
        if moves.len() < self.game.to_move().len() && moves.iter().all(legal) {
            let told = moves.iter().map(|played| {
                format!(
                    "{} had chosen {}; the turn was not played.",
                    player(played.seat),
                    show(&played.mv)
                )
            });
            return Ok(std::iter::once(String::new()).chain(told).collect());
        }
        let (at, why) = self.first_refused(moves);
        Err(LineError::new(lines[at], why))
    }

    /// Which of `moves` the rules refuse first, played turn by turn from
    /// the current position, and why.
    fn first_refused(&self, moves: &[Played<T::Move>]) -> (usize, String) {
        let mut game = self.game.clone();
        let mut at = 0;
        while at < moves.len() {
            let seats = game.to_move();
            if seats.is_empty() {
                let Played { seat, mv } = &moves[at];
                let who = player(*seat);
                return (at, format!("{who}'s move {} comes after the end of the game", show(mv)));
            }
            let mut turn = Vec::new();
            for (offset, seat) in seats.iter().enumerate() {
                let Some(Played { seat: mover, mv }) = moves.get(at + offset) else { break };
                let who = player(*mover);
                if mover != seat {
                    return (at + offset, format!("{who}'s move {} is out of turn", show(mv)));
                }
                match game.accept(*seat, mv.clone()) {
                    Ok(mv) => turn.push(Played { seat: *seat, mv }),
                    Err(_) => {
                        return (
                            at + offset,
                            format!("{who}'s move {} is not a legal move at this point", show(mv)),
                        );
                    }
                }
            }
            if turn.len() < seats.len() || at_once(game.apply(&turn)).is_err() {
                break;
            }
            at += seats.len();
        }
        let Played { seat, mv } = &moves[at.min(moves.len() - 1)];
        (at.min(moves.len() - 1), format!("{}'s move {} is out of turn", player(*seat), show(mv)))
    }

    fn name(&self, seat: Seat) -> String {
        format!("{} ({})", player(seat), printable(&self.names[seat.index()]))
    }

    fn forfeit(&self, forfeit: &ForfeitEntry) -> Vec<String> {
        let mut lines = vec![format!(
            "{} forfeits: {} — {}",
            self.name(forfeit.seat),
            forfeit.reason,
            printable(&forfeit.detail)
        )];
        lines.extend(
            forfeit.line.as_ref().map(|line| format!("Offending line: {}", printable(line))),
        );
        lines
    }

    /// Checks that the result is what the replayed game came to.
    fn check_result(
        &self,
        line: usize,
        result: &ResultEntry,
        no_forfeits: bool,
    ) -> Result<(), LineError> {
        let scores = self.game.scores();
        if result.scores != scores {
            return Err(LineError::new(
                line,
                format!(
                    "the result's scores {:?} are not the replayed game's {scores:?}",
                    result.scores
                ),
            ));
        }
        if no_forfeits && self.game.outcome().map(|outcome| outcome.winner) != Some(result.winner) {
            return Err(LineError::new(line, "the result does not follow from the moves"));
        }
        Ok(())
    }

    fn result(&self, result: &ResultEntry) -> Vec<String> {
        let [first, second] = result.scores;
        let verdict = match result.winner {
            _ if result.outcome == GameOutcome::BothLost => {
                "Both players lose (double forfeit)".to_owned()
            }
            Some(seat) => format!("Winner: {}", self.name(seat)),
            None => "Draw".to_owned(),
        };
        vec![
            format!(
                "Final scores: {} {first}, {} {second}",
                self.name(Seat::One),
                self.name(Seat::Two)
            ),
            verdict,
            format!("Reason: {}", result.reason),
        ]
    }
}

/// What a move took and left on its seat's clock, under a game clock:
/// "Player 1's clock: 9s 214ms left (thought 786ms)".
fn clock_line(seat: Seat, time: &MoveTime) -> Option<String> {
    let left = show_duration(std::time::Duration::from_micros(time.bank_us?));
    let thought = time.think_us.map(|micros| {
        format!(" (thought {})", show_duration(std::time::Duration::from_micros(micros)))
    });
    Some(format!("{}'s clock: {left} left{}", player(seat), thought.unwrap_or_default()))
}

/// A move as its JSON, the way bots send it.
fn show<M: serde::Serialize>(mv: &M) -> String {
    serde_json::to_string(mv).expect("moves serialize")
}

#[cfg(test)]
mod tests;
