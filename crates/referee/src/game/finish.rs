//! The end of a game: its result decided and told the bots (or the game
//! voided by its game program's fault), the transcript closed, and the
//! game's report.

use arena_base::score::Score;
use serde::Serialize;
use tokio::time::Instant;

use super::super::forfeit::Notice;
use super::super::table::{Table, ViewOf};
use super::super::{Bot, GameOutcome, GameReport};
use super::Referee;
use arena_games::{MoveValue, Seat};
use arena_protocol::{ForfeitNotice, ResultReason};
use arena_protocol::{History, ToBot};

#[derive(Serialize)]
struct VoidLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// The game program, as its command is typed.
    program: &'a str,
    request: String,
    detail: String,
    request_line: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a str>,
}

#[derive(Serialize)]
struct ResultLine<'a, S: ?Sized> {
    #[serde(rename = "type")]
    kind: &'static str,
    winner: Option<Seat>,
    outcome: GameOutcome,
    reason: ResultReason,
    scores: [Score; 2],
    plies: u32,
    duration_us: u128,
    state: &'a S,
}

impl<M: MoveValue> Referee<'_, M> {
    /// Decides the result, tells the bots, and closes the transcript.
    pub(super) fn finish<T: Table<Move = M>>(
        &mut self,
        bots: &mut [&mut Bot; 2],
        game: &T,
        seed: u64,
        started: Instant,
    ) -> GameReport {
        let winner = match &self.forfeits {
            [None, None] => game.outcome().expect("a game without forfeits runs to its end").winner,
            [Some(_), None] => Some(Seat::Two),
            [None, Some(_)] => Some(Seat::One),
            [Some(_), Some(_)] => None,
        };
        let mut report = self.report(seed, started);
        report.winner = winner;
        report.scores = game.scores();
        let notices: Vec<ForfeitNotice> = Seat::BOTH
            .into_iter()
            .filter_map(|seat| {
                let forfeit = self.forfeits[seat.index()].as_ref()?;
                Some(ForfeitNotice {
                    seat,
                    reason: forfeit.reason,
                    detail: forfeit.detail_for_bots().into_owned(),
                })
            })
            .collect();
        for seat in Seat::BOTH {
            // A seat whose `start` never went out has not heard of this game;
            // its id is given back so the bot's ids still count up by one.
            if let Some(start) = self.unsent_starts[seat.index()].take() {
                bots[seat.index()].give_back_id(start.id);
                continue;
            }
            let history_from = self.history_from(seat);
            let over: ToBot<'_, (), _, T::Move> = ToBot::Over {
                winner,
                reason: report.reason(),
                forfeits: &notices,
                scores: report.scores,
                state: ViewOf(game, seat),
                history: History::Written(self.history_of(seat).since(history_from.unwrap_or(0))),
                history_from: history_from.map(|from| from as u64),
            };
            let line = self.line(&over);
            self.notify(bots, seat, &line, Notice::Over);
        }
        if self.transcript.is_enabled() {
            self.transcript.push(&ResultLine {
                kind: "result",
                winner,
                outcome: report.outcome(),
                reason: report.reason(),
                scores: report.scores,
                plies: report.plies,
                duration_us: report.duration.as_micros(),
                state: &game.state(),
            });
        }
        report
    }

    /// Closes the game the game program's fault voided: no result, no
    /// `over` (its bots are stopped instead), a `void` line in the
    /// transcript.
    pub(super) fn finish_void(&mut self, seed: u64, started: Instant) -> GameReport {
        let mut report = self.report(seed, started);
        let fault = self.void.clone().expect("a void game has its fault");
        self.transcript.push(&VoidLine {
            kind: "void",
            program: &fault.program,
            request: fault.request.to_string(),
            detail: fault.to_string(),
            request_line: &fault.request_line,
            answer: fault.answer.as_deref(),
        });
        report.void = Some(fault);
        report
    }

    /// The report of the game so far, its result left to the caller.
    pub(super) fn report(&self, seed: u64, started: Instant) -> GameReport {
        GameReport {
            seed,
            winner: None,
            forfeits: self.forfeits.clone(),
            scores: [Score::ZERO; 2],
            plies: self.history.len() as u32,
            duration: started.elapsed(),
            moves_accepted: self.moves_accepted,
            slowest_move: self.slowest_move,
            notices_passed: self.notices_passed,
            reported_names: self.reported_names.clone(),
            answered_start: self.answered_start,
            void: None,
            unsaved_transcript: None,
            transcript: None,
            warnings: Vec::new(),
        }
    }
}
