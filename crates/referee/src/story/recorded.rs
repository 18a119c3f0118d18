//! A game program's game as its transcript recorded it: the step the
//! program answered after setting up the game and after each turn. A
//! replay plays it through the same [`Table`] interface as a built-in
//! game, with no program to run: each turn moves on to the next recorded
//! step (after checking the moves against the legal moves recorded).
//!
//! The game is told in the program's own words (each step's `text`) when
//! it gives them, and as a readable view of its state otherwise.

use arena_base::score::Score;
use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{HeaderProgram, Line, LineError, Told};
use crate::game_program::{FaultCause, GameFault, GameRequest};
use crate::table::Table;
use arena_base::printable::printable;
use arena_games::narrate::{player, readable_json};
use arena_games::program::{JsonMove, Moves};
use arena_games::{Outcome, Played, Seat};
use arena_protocol::game::{Answer, GameRequestKind, Step, parse_answer};

/// A recorded game at one of its steps.
#[derive(Clone)]
pub(super) struct Recorded {
    title: String,
    moves: Moves,
    steps: Arc<Vec<Step>>,
    /// The step the game is at.
    at: usize,
}

#[derive(Deserialize)]
struct StepLine<'a> {
    turn: usize,
    #[serde(borrow)]
    answer: &'a RawValue,
}

impl Recorded {
    /// The game `program` (id `game`) as the `step` lines of `lines` record it.
    pub(super) fn read(
        program: &HeaderProgram,
        game: &str,
        lines: &[Line],
    ) -> Result<Recorded, LineError> {
        let mut steps = Vec::new();
        for line in lines.iter().filter(|line| line.kind().ok() == Some("step")) {
            let step: StepLine<'_> = serde_json::from_str(&line.text).map_err(|error| {
                LineError::new(line.number, format!("not a valid step: {error}"))
            })?;
            if step.turn != steps.len() {
                return Err(LineError::new(
                    line.number,
                    format!("the step of turn {} where turn {} was due", step.turn, steps.len()),
                ));
            }
            let kind = if step.turn == 0 { GameRequestKind::Init } else { GameRequestKind::Apply };
            let id = serde_json::from_str::<serde_json::Value>(step.answer.get())
                .ok()
                .and_then(|answer| answer["id"].as_u64())
                .unwrap_or(0);
            match parse_answer(step.answer.get().as_bytes(), kind, id, program.moves) {
                Ok(Answer::Step(step)) => steps.push(*step),
                Ok(_) => return Err(LineError::new(line.number, "a step that is no step")),
                Err(bad) => {
                    return Err(LineError::new(line.number, format!("a bad step: {}", bad.detail)));
                }
            }
        }
        if steps.is_empty() {
            let after = lines.first().map_or(2, |line| line.number);
            return Err(LineError::new(
                after,
                format!("the transcript of the game program `{game}` holds no step to replay"),
            ));
        }
        Ok(Recorded {
            title: program.title.clone(),
            moves: program.moves,
            steps: Arc::new(steps),
            at: 0,
        })
    }

    fn step(&self) -> &Step {
        &self.steps[self.at]
    }

    /// The position as a view people read: the state, or each seat's view.
    fn readable(&self) -> Vec<String> {
        let step = self.step();
        if let Some(state) = &step.state {
            return json_lines(state.as_str());
        }
        let mut lines = Vec::new();
        for seat in Seat::BOTH {
            lines.push(format!("{} sees:", player(seat)));
            lines.extend(
                json_lines(step.views[seat.index()].as_str())
                    .into_iter()
                    .map(|line| format!("  {line}")),
            );
        }
        lines
    }
}

/// A value the program wrote, in readable lines, each made printable (a
/// JSON string may hold a bidirectional override as it is).
fn json_lines(text: &str) -> Vec<String> {
    let lines = serde_json::from_str(text)
        .map_or_else(|_| vec![text.to_owned()], |value| readable_json(&value));
    lines.iter().map(|line| printable(line).into_owned()).collect()
}

/// The program's words (`text`), a line each, made printable.
fn shown_lines(text: &str) -> Vec<String> {
    text.lines().map(|line| printable(line).into_owned()).collect()
}

impl Table for Recorded {
    type Move = JsonMove;

    fn to_move(&self) -> &'static [Seat] {
        self.step().to_move
    }

    fn legal_moves(&self, seat: Seat) -> Cow<'_, [JsonMove]> {
        Cow::Borrowed(&self.step().legal_moves[seat.index()])
    }

    fn accept(&self, seat: Seat, mv: JsonMove) -> Result<JsonMove, JsonMove> {
        match self.step().legal_moves[seat.index()].iter().find(|legal| **legal == mv) {
            Some(entry) => Ok(entry.clone()),
            None => Err(mv),
        }
    }

    fn write_view(&self, seat: Seat, out: &mut Vec<u8>) {
        out.extend_from_slice(self.step().views[seat.index()].as_str().as_bytes());
    }

    fn hidden_moves(&self) -> bool {
        self.moves == Moves::Hidden
    }

    fn write_learned(&self, seat: Seat, out: &mut Vec<u8>) {
        match &self.step().learned {
            Some(learned) => out.extend_from_slice(learned[seat.index()].as_str().as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
    }

    fn apply(
        &mut self,
        _moves: &[Played<JsonMove>],
    ) -> impl std::future::Future<Output = Result<(), GameFault>> {
        // The turn's answer is the next step recorded; none is the game
        // program's fault that voided the game.
        let outcome = match self.at + 1 < self.steps.len() {
            true => {
                self.at += 1;
                Ok(())
            }
            false => Err(GameFault {
                program: self.title.clone(),
                request: GameRequest { kind: GameRequestKind::Apply, id: 0, turn: None },
                cause: FaultCause::NotStarted("no step recorded".to_owned()),
                request_line: String::new(),
                answer: None,
                stderr_log: None,
            }),
        };
        std::future::ready(outcome)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.step().result
    }

    fn scores(&self) -> [Score; 2] {
        self.step().scores
    }

    fn state(&self) -> Box<RawValue> {
        let state = self.step().state.as_ref().map_or("null", |state| state.as_str());
        RawValue::from_string(state.to_owned()).expect("a recorded state is JSON")
    }
}

impl Told for Recorded {
    fn title(&self) -> String {
        printable(&self.title).into_owned()
    }

    fn board(&self) -> Vec<String> {
        match &self.step().text {
            Some(text) => shown_lines(text),
            None => self.readable(),
        }
    }

    fn tell_turn(_before: &Self, moves: &[Played<JsonMove>], after: &Self) -> Vec<String> {
        if let Some(text) = &after.step().text {
            return shown_lines(text);
        }
        let mut lines: Vec<String> = moves
            .iter()
            .map(|played| {
                format!("{} plays {}.", player(played.seat), printable(played.mv.raw().as_str()))
            })
            .collect();
        lines.extend(after.readable());
        lines
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::story::tell;

    /// A game program's transcript: a header, a first step, one move and
    /// its step; the steps with `text` when `words`.
    fn transcript(words: bool, end: &str) -> String {
        let header = json!({"type": "header", "arena": "0.1.0", "protocol": 1, "game": "tiny",
            "game_program": {"command": ["tiny.py"], "title": "Tiny Game", "moves": "public"},
            "seed": 3, "params": {"size": 2, "deep": false},
            "bots": [{"seat": 1, "name": "ann", "command": ["a"]}, {"seat": 2, "name": "bob", "command": ["b"]}],
            "state": {"left": 2}});
        let step = |turn: u64, answer: serde_json::Value| json!({"type": "step", "turn": turn, "answer": answer});
        let mut first = json!({"type": "step", "id": 1, "to_move": [1], "legal_moves": [[{"take": 1}, {"take": 2}], []],
            "views": [{"left": 2}, {"left": 2}], "scores": [0, 0], "state": {"left": 2, "next": 1}});
        let mut second = json!({"type": "step", "id": 2, "to_move": [], "views": [{"left": 0}, {"left": 0}],
            "scores": [2, 0], "result": {"winner": 1}, "state": {"left": 0, "next": 2}});
        if words {
            first["text"] = json!("Two stones on the table.");
            second["text"] = json!("Player 1 takes both stones\nand wins.");
        }
        let lines = [
            header,
            step(0, first),
            json!({"type": "move", "seat": 1, "move": {"take": 2}, "think_us": 5}),
            step(1, second),
            serde_json::from_str(end).unwrap(),
        ];
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        // As a program writes them: not in the order `json!` sorts keys in.
        text.replacen(
            r#""params":{"deep":false,"size":2}"#,
            r#""params":{"size":2,"deep":false}"#,
            1,
        )
    }

    const RESULT: &str = r#"{"type":"result","winner":1,"outcome":"seat1","reason":"normal","scores":[2,0],"plies":1,"duration_us":9,"state":null}"#;

    #[test]
    fn a_game_program_is_told_in_its_own_words() {
        let story = tell(&transcript(true, RESULT)).unwrap();
        assert_eq!(story[0], "Tiny Game — seed 3 — Player 1: ann, Player 2: bob");
        assert_eq!(story[1], r#"Parameters: {"size":2,"deep":false}"#, "in the game's order");
        assert!(story.contains(&"Two stones on the table.".to_owned()), "{story:#?}");
        let turn = story.iter().position(|line| line == "Player 1 takes both stones").unwrap();
        assert_eq!(story[turn + 1], "and wins.");
        assert_eq!(story.last().unwrap(), "Reason: normal");
    }

    #[test]
    fn a_game_programs_words_reach_no_terminal_raw() {
        let hostile = transcript(true, RESULT)
            .replace("Two stones on the table.", r"Two stones\u001b[2J on the table.")
            .replace("Tiny Game", r"Tiny\u202eGame");
        let story = tell(&hostile).unwrap();
        assert!(story.iter().all(|line| !line.contains(['\u{1b}', '\u{202e}'])), "{story:#?}");
        assert!(story.contains(&r"Two stones\u{1b}[2J on the table.".to_owned()), "{story:#?}");
        assert!(story[0].starts_with(r"Tiny\u{202e}Game"), "{}", story[0]);
    }

    #[test]
    fn without_words_the_move_and_the_state_are_shown() {
        let story = tell(&transcript(false, RESULT)).unwrap();
        assert!(story.contains(&"left: 2".to_owned()), "{story:#?}");
        let turn = story.iter().position(|line| line == r#"Player 1 plays {"take":2}."#).unwrap();
        assert_eq!(story[turn + 1..turn + 3], ["left: 0", "next: 2"]);
    }

    #[test]
    fn a_recorded_game_is_checked_like_a_built_in_one() {
        let wrong = RESULT.replace("[2,0]", "[0,2]");
        let error = tell(&transcript(true, &wrong)).unwrap_err().to_string();
        assert!(error.starts_with("5: the result's scores [0, 2]"), "{error}");
        let illegal =
            transcript(true, RESULT).replace(r#""move":{"take":2}"#, r#""move":{"take":3}"#);
        let error = tell(&illegal).unwrap_err().to_string();
        assert_eq!(error, r#"3: Player 1's move {"take":3} is not a legal move at this point"#);
        let void = r#"{"type":"void","program":"tiny.py","request":"apply request 3 (turn 2)","detail":"the game program `tiny.py` did not answer within 5000 ms (apply request 3, turn 2)","request_line":"{}"}"#;
        let story = tell(&transcript(true, void)).unwrap();
        assert!(
            story
                .last()
                .unwrap()
                .starts_with("The game is void: the game program `tiny.py` did not answer"),
            "{story:#?}"
        );
    }
}
