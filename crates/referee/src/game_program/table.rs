//! A game program played as the referee plays any game: [`Rules`] for the
//! program, and a [`ProgramTable`] over its last step.

use arena_base::score::Score;
use std::borrow::Cow;

use serde_json::value::RawValue;

use super::memo::{hash, without_id};
use super::{FaultCause, GameFault, GameProgram, GameRequest};
use crate::LogFile;
use crate::seeds::SeedKey;
use crate::table::{Rules, Table};
use arena_games::exact_numbers::exact_numbers_advice;
use arena_games::program::inexact_words;
use arena_games::program::{HistoryMode, JsonMove, Moves};
use arena_games::{GameSetup, Outcome, Played, Seat};
use arena_protocol::game::{Answer, BadAnswer, BadAnswerKind, Step};

impl Rules for GameProgram {
    type Move = JsonMove;
    type Table<'r> = ProgramTable<'r>;

    fn log_stderr_to(&mut self, log: Option<&LogFile>) {
        GameProgram::log_stderr_to(self, log.cloned());
    }

    async fn stop(&mut self) {
        GameProgram::stop(self).await;
    }

    fn seed_for(&self, setup_seed: u64, key: &SeedKey) -> u64 {
        key.game_seed(setup_seed)
    }

    async fn set_up<'r>(
        &'r mut self,
        setup: &GameSetup,
        seed: u64,
    ) -> Result<ProgramTable<'r>, GameFault> {
        self.memo.begin(hash((setup.params_json(), seed)));
        let exchanged = self.init(setup.params_json(), seed).await?;
        let step = match exchanged.answer {
            Answer::Step(step) => step,
            Answer::Refuse(refusal) => {
                let fault = self.fault(
                    exchanged.request,
                    &exchanged.request_line,
                    FaultCause::Refused(refusal),
                    Some(&exchanged.line),
                );
                self.stop().await;
                return Err(fault);
            }
            Answer::Game(_) => unreachable!("an `init` is not answered with `game`"),
        };
        let mut table = ProgramTable {
            program: self,
            step,
            answer: Vec::new(),
            request: exchanged.request,
            request_line: Vec::new(),
            turn: 0,
        };
        table.took(exchanged.request, exchanged.request_line, exchanged.line).await?;
        Ok(table)
    }
}

/// A game program's game in play: its last step.
pub struct ProgramTable<'r> {
    program: &'r mut GameProgram,
    step: Box<Step>,
    /// The answer that made the step, as it came, and its request.
    answer: Vec<u8>,
    request: GameRequest,
    request_line: Vec<u8>,
    /// Turns played.
    turn: u32,
}

impl ProgramTable<'_> {
    /// Takes the step just answered: checks it against the earlier game of
    /// the same setup and the declared length, and keeps its answer.
    async fn took(
        &mut self,
        request: GameRequest,
        request_line: Vec<u8>,
        answer: Vec<u8>,
    ) -> Result<(), GameFault> {
        let program = &mut *self.program;
        let cause = match program.memo.note(without_id(&request_line), &self.step) {
            Some(field) => Some(FaultCause::Inconsistent { field }),
            None if self.turn >= program.max_turns && !self.step.to_move.is_empty() => {
                Some(FaultCause::TooLong { max_turns: program.max_turns })
            }
            None => None,
        };
        if let Some(cause) = cause {
            let fault = program.fault(request, &request_line, cause, Some(&answer));
            program.stop().await;
            return Err(fault);
        }
        self.answer = answer;
        self.request = request;
        self.request_line = request_line;
        Ok(())
    }
}

impl Table for ProgramTable<'_> {
    type Move = JsonMove;

    fn to_move(&self) -> &'static [Seat] {
        self.step.to_move
    }

    fn legal_moves(&self, seat: Seat) -> Cow<'_, [JsonMove]> {
        Cow::Borrowed(&self.step.legal_moves[seat.index()])
    }

    fn accept(&self, seat: Seat, mv: JsonMove) -> Result<JsonMove, JsonMove> {
        match self.step.legal_moves[seat.index()].iter().find(|legal| **legal == mv) {
            Some(entry) => Ok(entry.clone()),
            None => Err(mv),
        }
    }

    async fn blame_for_illegal(&mut self, seat: Seat, sent: &JsonMove) -> Option<GameFault> {
        // The game's only when the move is such a move echoed: any other
        // illegal move stays the bot's.
        let (mv, number) = self.step.legal_moves[seat.index()].iter().find_map(|legal| {
            let number = legal.inexact_number()?;
            legal.echoed_as(sent).then_some((legal, number))
        })?;
        let detail = format!(
            "{}: its bot sent {}; {}",
            inexact_words(seat, mv, &number),
            sent.raw().as_str(),
            exact_numbers_advice()
        );
        let cause = FaultCause::BadAnswer(BadAnswer::new(BadAnswerKind::Malformed, detail));
        let program = &mut *self.program;
        let fault = program.fault(self.request, &self.request_line, cause, Some(&self.answer));
        program.stop().await;
        Some(fault)
    }

    fn write_view(&self, seat: Seat, out: &mut Vec<u8>) {
        out.extend_from_slice(self.step.views[seat.index()].as_str().as_bytes());
    }

    fn hidden_moves(&self) -> bool {
        self.program.moves == Moves::Hidden
    }

    fn history_mode(&self) -> HistoryMode {
        self.program.history
    }

    fn write_learned(&self, seat: Seat, out: &mut Vec<u8>) {
        match &self.step.learned {
            Some(learned) => out.extend_from_slice(learned[seat.index()].as_str().as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
    }

    async fn apply(&mut self, moves: &[Played<JsonMove>]) -> Result<(), GameFault> {
        let turn = self.turn + 1;
        let exchanged = self.program.apply(moves, turn).await?;
        let Answer::Step(step) = exchanged.answer else {
            unreachable!("an `apply` is answered with a step or refused by the parser")
        };
        self.step = step;
        self.turn = turn;
        self.took(exchanged.request, exchanged.request_line, exchanged.line).await
    }

    fn outcome(&self) -> Option<Outcome> {
        self.step.result
    }

    fn scores(&self) -> [Score; 2] {
        self.step.scores
    }

    fn state(&self) -> Box<RawValue> {
        let state = self.step.state.as_ref().map_or("null", |state| state.as_str());
        RawValue::from_string(state.to_owned()).expect("a step's state is JSON")
    }

    fn answer(&self) -> Option<&[u8]> {
        Some(&self.answer)
    }
}
