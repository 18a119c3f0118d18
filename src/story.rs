//! A game told from its transcript, turn by turn, as the rule books tell a
//! game: what `arena replay` prints and the leaderboard page steps through.
//!
//! The game is rebuilt from the header's game, seed and parameters (and
//! checked against the header's initial state), then every `move` line is
//! played onto it and told, followed by the forfeits and the result.
//! Nothing is told unless the whole transcript replays, so a bad one gives
//! just an error naming the line.

use std::fmt::Display;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::games::narrate::{Narrate, player, tell_turns};
use crate::games::{GameId, Seat, parse_params};
use crate::printable::printable;
use crate::protocol::{ForfeitReason, PROTOCOL_VERSION, Played, ResultReason};
use crate::referee::{GameOutcome, TimeControl};
use crate::units::show_duration;

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
    seed: u64,
    params: Map<String, Value>,
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

#[derive(Deserialize)]
struct ResultEntry {
    winner: Option<Seat>,
    outcome: GameOutcome,
    reason: ResultReason,
    scores: [i64; 2],
}

/// The whole story of the transcript `text`, line by line.
pub fn tell(text: &str) -> Result<Vec<String>, LineError> {
    let lines = json_lines(text)?;
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
    let header: Header = first.parse("header")?;
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
    let game: GameId = header.game.parse().map_err(|error| LineError::new(first.number, error))?;
    crate::with_game!(game, G => Replay::<G>::new(first.number, header)?.tell(rest))
}

/// The non-blank lines of `text`, each parsed as JSON.
fn json_lines(text: &str) -> Result<Vec<Line>, LineError> {
    (1..)
        .zip(text.lines())
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            serde_json::from_str(line)
                .map(|value| Line { number, value })
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
    result: Option<(usize, ResultEntry)>,
}

impl<M: DeserializeOwned> Entries<M> {
    fn sort(lines: &[Line], game: GameId) -> Result<Entries<M>, LineError> {
        let mut entries = Entries {
            moves: Vec::new(),
            move_lines: Vec::new(),
            move_times: Vec::new(),
            forfeits: Vec::new(),
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
struct Replay<G> {
    game: G,
    seed: u64,
    /// The parameters in full, as JSON.
    params: String,
    names: [String; 2],
    /// How the seats were timed, in words, if the header says.
    time: Option<String>,
}

impl<G: Narrate> Replay<G> {
    /// The game the header describes, checked against the header's state.
    fn new(line: usize, header: Header) -> Result<Replay<G>, LineError> {
        let params: G::Params = parse_params(header.params)
            .map_err(|error| LineError::new(line, format!("parameters: {error}")))?;
        let game = G::new(&params, header.seed);
        let state = serde_json::to_value(&game).expect("game states serialize");
        if state != header.state {
            let theirs = header.arena.map_or("no version".to_owned(), |v| format!("arena {v}"));
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
        let names = Seat::BOTH.map(|seat| {
            header.bots.iter().find(|bot| bot.seat == seat).map(|bot| bot.name.clone())
        });
        let [Some(first), Some(second)] = names else {
            return Err(LineError::new(line, "the header does not name a bot for each seat"));
        };
        let params = serde_json::to_string(&params).expect("parameters serialize");
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
        Ok(Replay { game, seed: header.seed, params, names: [first, second], time })
    }

    fn tell(mut self, lines: &[Line]) -> Result<Vec<String>, LineError> {
        let entries = Entries::<G::Move>::sort(lines, G::ID)?;
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
        story.extend(self.unplayed(&entries.moves[applied..], &entries.move_lines[applied..])?);
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
                G::ID.title(),
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
        moves: &[Played<G::Move>],
        lines: &[usize],
    ) -> Result<Vec<String>, LineError> {
        if moves.is_empty() {
            return Ok(Vec::new());
        }
        let legal = |played: &Played<G::Move>| self.game.is_legal(played.seat, &played.mv);
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

    /// Which of `moves` the rules refuse first, played one after the other
    /// from the current position, and why.
    fn first_refused(&self, moves: &[Played<G::Move>]) -> (usize, String) {
        let mut game = self.game.clone();
        for (at, Played { seat, mv }) in moves.iter().enumerate() {
            let who = player(*seat);
            if game.to_move().is_empty() {
                return (at, format!("{who}'s move {} comes after the end of the game", show(mv)));
            }
            if !game.is_legal(*seat, mv) {
                return (
                    at,
                    format!("{who}'s move {} is not a legal move at this point", show(mv)),
                );
            }
            game.apply(*seat, mv);
        }
        // Each move is legal after the one before: the seats are out of order.
        let Played { seat, mv } = &moves[0];
        (0, format!("{}'s move {} is out of turn", player(*seat), show(mv)))
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
mod tests {
    use serde_json::json;

    use super::*;

    /// A header line for `game` with `params`, whose state is the real one.
    fn header(game: GameId, params: Value) -> String {
        let state = crate::with_game!(game, G => {
            use crate::games::Game;
            let params: <G as Game>::Params = serde_json::from_value(params.clone()).unwrap();
            serde_json::to_value(G::new(&params, 5)).unwrap()
        });
        let bots = json!([{"seat": 1, "name": "ann", "command": ["a"]}, {"seat": 2, "name": "bob", "command": ["b"]}]);
        json!({"type": "header", "arena": "0.1.0", "protocol": 1, "game": game, "seed": 5,
               "params": params, "bots": bots, "state": state})
        .to_string()
    }

    fn snatch_header() -> String {
        // Three numbers out of three: the list is [1, 2, 3] whatever the seed.
        header(GameId::NumberSnatch, json!({"count": 3, "max": 3}))
    }

    fn moved(seat: u8, mv: Value) -> String {
        json!({"type": "move", "seat": seat, "move": mv, "think_us": 10}).to_string()
    }

    fn result(winner: Option<u8>, outcome: &str, reason: &str, scores: [i64; 2]) -> String {
        json!({"type": "result", "winner": winner, "outcome": outcome, "reason": reason,
               "scores": scores, "plies": 0, "duration_us": 1, "state": {}})
        .to_string()
    }

    fn transcript(lines: &[String]) -> String {
        lines.iter().map(|line| format!("{line}\n")).collect()
    }

    fn error(lines: &[String]) -> String {
        tell(&transcript(lines)).unwrap_err().to_string()
    }

    #[test]
    fn a_whole_game_is_told_from_title_to_result() {
        let story = tell(&transcript(&[
            snatch_header(),
            r#"{"type":"send","t_us":1,"seat":1,"msg":{"type":"move"}}"#.to_owned(),
            moved(1, json!(2)),
            moved(2, json!(1)),
            moved(1, json!(3)),
            result(Some(1), "seat1", "normal", [6, 0]),
        ]))
        .unwrap();
        assert_eq!(story[0], "Number Snatch — seed 5 — Player 1: ann, Player 2: bob");
        assert_eq!(story[1], r#"Parameters: {"count":3,"max":3}"#);
        assert_eq!(
            story[3..6],
            ["Available Numbers: [1, 2, 3]", "Player 1 Score: 0", "Player 2 Score: 0"]
        );
        assert_eq!(story[6..8], ["", "Player 1 selects 2."]);
        assert!(story.contains(&"Player 2 selects 1.".to_owned()), "{story:#?}");
        assert!(
            story.contains(&"Snatch! 3 is a multiple of Player 2's last number (1).".to_owned())
        );
        assert_eq!(
            story[story.len() - 4..],
            [
                "",
                "Final scores: Player 1 (ann) 6, Player 2 (bob) 0",
                "Winner: Player 1 (ann)",
                "Reason: normal"
            ]
        );
    }

    #[test]
    fn a_clock_game_tells_the_time_controls_and_the_bank_after_each_move() {
        let mut header: Value = serde_json::from_str(&snatch_header()).unwrap();
        header["time_controls"] = json!([
            {"kind": "clock", "bank_ms": 2000, "increment_ms": 100},
            {"kind": "per-move", "move_ms": 500},
        ]);
        header["time_margin_ms"] = json!(50);
        let clocked = |seat: u8, mv: u32, think_us: u64, bank_us: Option<u64>| {
            let mut line = json!({"type": "move", "seat": seat, "move": mv, "think_us": think_us});
            if let Some(bank_us) = bank_us {
                line["bank_us"] = json!(bank_us);
            }
            line.to_string()
        };
        let story = tell(&transcript(&[
            header.to_string(),
            clocked(1, 2, 250_000, Some(1_850_000)),
            clocked(2, 1, 40_000, None),
            clocked(1, 3, 1_900_000, Some(100_000)),
            result(Some(1), "seat1", "normal", [6, 0]),
        ]))
        .unwrap();
        assert_eq!(
            story[2],
            "Time: Player 1 clock 2s + 100ms per move, Player 2 500ms per move (the referee waited 50ms more)"
        );
        // Each turn's lines, from its blank line to the next.
        let turns: Vec<&[String]> = story.split(String::is_empty).skip(2).collect();
        assert!(turns[0].contains(&"Player 1 selects 2.".to_owned()), "{story:#?}");
        assert_eq!(turns[0].last().unwrap(), "Player 1's clock: 1s 850ms left (thought 250ms)");
        assert!(!turns[1].iter().any(|line| line.contains("clock")), "{story:#?}");
        assert_eq!(turns[2].last().unwrap(), "Player 1's clock: 100ms left (thought 1s 900ms)");
    }

    #[test]
    fn forfeits_and_double_forfeits_are_told() {
        let forfeit = json!({"type": "forfeit", "seat": 2, "reason": "illegal_move",
                             "detail": "7 is not one of the legal moves", "line": "{\"move\": 7}"});
        let story = tell(&transcript(&[
            snatch_header(),
            moved(1, json!(2)),
            forfeit.to_string(),
            result(Some(1), "seat1", "illegal_move", [2, 0]),
        ]))
        .unwrap();
        let at = story.iter().position(|line| line.starts_with("Player 2 (bob) forfeits")).unwrap();
        assert_eq!(
            story[at],
            "Player 2 (bob) forfeits: illegal_move — 7 is not one of the legal moves"
        );
        assert_eq!(story[at + 1], r#"Offending line: {"move": 7}"#);
        assert!(
            story.ends_with(&[
                "Winner: Player 1 (ann)".to_owned(),
                "Reason: illegal_move".to_owned()
            ])
        );

        let timeout = |seat| {
            json!({"type": "forfeit", "seat": seat, "reason": "timeout", "detail": "late"})
                .to_string()
        };
        let story = tell(&transcript(&[
            header(GameId::NumberWarriors, json!({})),
            timeout(1),
            timeout(2),
            result(None, "both_lost", "double_forfeit", [15, 15]),
        ]))
        .unwrap();
        assert!(
            story.contains(&"Player 1 (ann) forfeits: timeout — late".to_owned()),
            "{story:#?}"
        );
        assert!(!story.iter().any(|line| line.starts_with("Offending line")));
        assert!(story.contains(&"Both players lose (double forfeit)".to_owned()));
    }

    #[test]
    fn a_choice_in_a_turn_a_forfeit_stopped_is_listed_not_played() {
        let story = tell(&transcript(&[
            header(GameId::NumberWarriors, json!({})),
            moved(2, json!(7)),
            json!({"type": "forfeit", "seat": 1, "reason": "timeout", "detail": "late"})
                .to_string(),
            result(Some(2), "seat2", "timeout", [15, 15]),
        ]))
        .unwrap();
        assert!(
            story.contains(&"Player 2 had chosen 7; the turn was not played.".to_owned()),
            "{story:#?}"
        );
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        let not_json = error(&[snatch_header(), String::new(), "{oops".to_owned()]);
        assert!(not_json.starts_with("3: not JSON"), "{not_json}");

        let no_header = error(&[moved(1, json!(2))]);
        assert_eq!(no_header, "1: expected the header, found a `move` line");
        assert_eq!(tell("\n").unwrap_err().to_string(), "1: the transcript is empty: no header");

        let unknown = snatch_header().replace("number-snatch", "chess");
        let unknown = error(&[unknown]);
        assert!(
            unknown.starts_with("1: unknown game `chess`") && unknown.contains("number-duel"),
            "{unknown}"
        );

        let bad_move = error(&[snatch_header(), moved(1, json!("L"))]);
        assert!(bad_move.starts_with("2: not a valid number-snatch move"), "{bad_move}");
    }

    #[test]
    fn moves_the_rules_refuse_are_named_by_line() {
        let taken = error(&[snatch_header(), moved(1, json!(2)), moved(2, json!(2))]);
        assert_eq!(taken, "3: Player 2's move 2 is not a legal move at this point");

        let after_the_end = error(&[
            snatch_header(),
            moved(1, json!(1)),
            moved(2, json!(2)),
            moved(1, json!(3)),
            moved(2, json!(3)),
        ]);
        assert_eq!(after_the_end, "5: Player 2's move 3 comes after the end of the game");

        let warriors = header(GameId::NumberWarriors, json!({}));
        let twice = error(&[warriors.clone(), moved(1, json!(5)), moved(1, json!(6))]);
        assert_eq!(twice, "3: Player 1's move 6 is not a legal move at this point");
        let swapped = error(&[warriors, moved(2, json!(5)), moved(1, json!(6))]);
        assert_eq!(swapped, "2: Player 2's move 5 is out of turn");
    }

    #[test]
    fn a_transcript_of_other_rules_or_an_inconsistent_one_is_refused() {
        let other_rules = snatch_header().replace(r#""numbers":[1,2,3]"#, r#""numbers":[1,2,4]"#);
        let mismatch = error(&[other_rules]);
        assert!(mismatch.starts_with("1: the initial state does not match"), "{mismatch}");

        let bad_params = error(&[snatch_header().replace(r#""max":3"#, r#""max":2"#)]);
        assert!(
            bad_params.starts_with("1: parameters:") && bad_params.contains("max"),
            "{bad_params}"
        );

        let no_result = error(&[snatch_header(), moved(1, json!(2))]);
        assert_eq!(no_result, "2: the transcript ends without a result");

        let wrong_scores = error(&[snatch_header(), result(Some(1), "seat1", "normal", [9, 9])]);
        assert!(wrong_scores.starts_with("2: the result's scores [9, 9]"), "{wrong_scores}");
    }
}
