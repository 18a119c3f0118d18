//! One step's exchanges run (every request written, then every reply
//! awaited against its own deadline) and what came back recorded: the
//! transcript's lines, the slowest reply, and forfeits.

use std::borrow::Cow;

use serde::Serialize;

use super::super::exchange::{Exchange, Phase, receive, send, trim_newline};
use super::super::{Bot, Forfeit};
use super::Referee;
use arena_base::printable::printable;
use arena_games::{MoveValue, Seat};

#[derive(Serialize)]
struct ForfeitLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seat: Seat,
    #[serde(flatten)]
    forfeit: &'a Forfeit,
}

impl<M: MoveValue> Referee<'_, M> {
    /// Runs the exchanges of one step: every request is written before any
    /// reply is read, then all replies are awaited together, each against
    /// its own deadline.
    pub(super) async fn exchange(
        &mut self,
        bots: &mut [&mut Bot; 2],
        exchanges: &mut [Option<Exchange<M>>; 2],
    ) {
        let [first_bot, second_bot] = bots;
        let [first, second] = exchanges;
        let startup = self.startup_limit();
        let stuck = self.settings.stuck_start_after;
        match (first.is_some(), second.is_some()) {
            // Most steps ask one seat: no joining needed.
            (true, false) => {
                send(first_bot, first).await;
                receive(first_bot, first, startup, stuck).await;
            }
            (false, true) => {
                send(second_bot, second).await;
                receive(second_bot, second, startup, stuck).await;
            }
            _ => {
                tokio::join!(send(first_bot, first), send(second_bot, second));
                tokio::join!(
                    receive(first_bot, first, startup, stuck),
                    receive(second_bot, second, startup, stuck)
                );
            }
        }
        for exchange in exchanges.iter().flatten() {
            if let Some(sent_at) = exchange.sent_at() {
                if let Some(start) = &exchange.start {
                    self.transcript.sent(
                        exchange.seat,
                        sent_at.into_std(),
                        trim_newline(&start.line),
                    );
                }
                self.transcript.sent(
                    exchange.seat,
                    sent_at.into_std(),
                    trim_newline(&exchange.request),
                );
            }
        }
        for exchange in exchanges.iter().flatten() {
            let seat = exchange.seat;
            match &exchange.phase {
                Phase::Answered(answer) => {
                    self.notices_passed[seat.index()] += u32::from(answer.notice_passed);
                    if let Some((line, received_at, _)) = &answer.ready {
                        self.transcript.received_reply(seat, received_at.into_std(), line);
                    }
                    if let Some((line, received_at)) = &answer.received {
                        if answer.reply.is_ok() {
                            self.transcript.received_reply(seat, received_at.into_std(), line);
                        } else {
                            self.transcript.received(seat, received_at.into_std(), line);
                        }
                    }
                    if let Err(forfeit) = &answer.reply {
                        self.record_forfeit(seat, forfeit.clone());
                    }
                }
                Phase::Undelivered { forfeit, .. } => self.record_forfeit(seat, forfeit.clone()),
                Phase::Unsent | Phase::Sent { .. } => {}
            }
        }
    }

    pub(super) fn in_doubt(&self, seat: Seat) -> bool {
        self.forfeits[seat.index()]
            .as_ref()
            .is_some_and(|forfeit| forfeit.reason.leaves_bot_in_doubt())
    }

    /// Records a forfeit, its words made printable: they may quote what the
    /// bot sent, and they reach terminals and CSV cells.
    pub(super) fn record_forfeit(&mut self, seat: Seat, mut forfeit: Forfeit) {
        if let Cow::Owned(shown) = printable(&forfeit.detail) {
            forfeit.detail = shown;
        }
        if let Some(Cow::Owned(shown)) = forfeit.line.as_deref().map(printable) {
            forfeit.line = Some(shown);
        }
        self.transcript.push(&ForfeitLine { kind: "forfeit", seat, forfeit: &forfeit });
        self.forfeits[seat.index()] = Some(forfeit);
    }
}
