//! Playing one game between two bots, through the [`Table`] of its rules
//! (a built-in game or a game program: one referee for both).

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::clock::Clock;
use super::exchange::{Answer, Exchange, Phase, Start, TimeLimit, receive, send, trim_newline};
use super::forfeit::{BankLeft, Notice, Request};
use super::game_program::GameFault;
use super::reply::cut;
use super::table::{Rules, Table, ViewOf};
use super::transcript::{Transcript, TranscriptBot, TranscriptTime};
use super::{Bot, CommandError, Forfeit, GameFiles, GameOutcome, GameReport, Settings};
use crate::games::{GameSetup, MoveValue, Seat};
use crate::printable::printable;
use crate::protocol::encode::{
    OverMessage, StartMessage, append_played, message_line, move_request,
};
use crate::protocol::{ForfeitNotice, Played, Reply, ResultReason, ToBot};

/// Plays one game of `setup` (its rules set up by `rules`) between `bots`
/// (seat 1 first) and reports it.
///
/// Bots that are not running are started. A bot whose forfeit leaves it in
/// doubt (see [`ForfeitReason::leaves_bot_in_doubt`]) is stopped before this
/// returns; so are both when the game program fails, which voids the game
/// ([`GameReport::void`]). Fails only when a bot cannot be started at all.
///
/// [`ForfeitReason::leaves_bot_in_doubt`]: crate::protocol::ForfeitReason::leaves_bot_in_doubt
pub async fn play_game<R: Rules>(
    rules: &mut R,
    setup: &GameSetup,
    bots: [&mut Bot; 2],
    seed: u64,
    settings: &Settings,
    files: &GameFiles,
) -> Result<GameReport, CommandError> {
    let [first, second] = bots;
    let mut bots = [first, second];
    for (bot, log) in bots.iter_mut().zip(&files.stderr_logs) {
        bot.ensure_running(settings)?.log_stderr_to(log.as_ref());
    }
    rules.log_stderr_to(files.game_log.as_ref());
    let started = Instant::now();
    let controls = [0, 1].map(|index| settings.time_control_of(bots[index]));
    let mut referee = Referee::<R::Move> {
        transcript: if files.transcript.is_some() || files.keep_transcript {
            Transcript::new(started.into_std())
        } else {
            Transcript::disabled(started.into_std())
        },
        history: Vec::new(),
        history_json: Vec::new(),
        seat_histories: None,
        forfeits: [None, None],
        void: None,
        slowest_reply: [Duration::ZERO; 2],
        moves_accepted: [0; 2],
        slowest_move: [Duration::ZERO; 2],
        notices_passed: [0; 2],
        turn: 0,
        reported_names: [None, None],
        answered_start: [false, false],
        unsent_starts: [None, None],
        clocks: controls.map(|control| Clock::new(control, settings.leeway())),
        settings,
    };
    let seat_seeds = Seat::BOTH.map(|seat| settings.seed_key.seat_seed(seed, seat));
    let header = |referee: &mut Referee<'_, R::Move>, state: &serde_json::value::RawValue| {
        referee.transcript.header(
            setup,
            seed,
            seat_seeds,
            &settings.sandbox_line,
            [0, 1].map(|index| TranscriptBot {
                seat: Seat::BOTH[index],
                name: &bots[index].name,
                command: &bots[index].command.argv,
            }),
            TranscriptTime {
                time_controls: controls,
                time_margin_ms: settings.time_margin.as_millis() as u64,
                no_time_limit: settings.no_time_limit,
            },
            state,
        );
    };
    let mut report = match rules.set_up(setup, seed).await {
        Err(fault) => {
            let null = serde_json::value::RawValue::from_string("null".into()).expect("JSON");
            header(&mut referee, &null);
            referee.void = Some(Box::new(fault));
            referee.finish_void(seed, started)
        }
        Ok(mut game) => {
            if referee.transcript.is_enabled() {
                header(&mut referee, &game.state());
            }
            referee.step(&game);
            if game.hidden_moves() {
                referee.seat_histories = Some([Vec::new(), Vec::new()]);
            }
            referee.handshake(&mut bots, setup, seat_seeds).await;
            while referee.forfeits == [None, None] && referee.void.is_none() {
                let seats = game.to_move();
                if seats.is_empty() {
                    break;
                }
                referee.play_turn(&mut bots, &mut game, seats).await;
            }
            match referee.void {
                Some(_) => referee.finish_void(seed, started),
                None => referee.finish(&mut bots, &game, seed, started),
            }
        }
    };
    if let Some(path) = &files.transcript
        && let Err(error) = referee.transcript.write_to(path)
    {
        // Whoever records the game decides: a tournament stops rather than
        // keep a result whose transcript is missing.
        report.unsaved_transcript = Some(format!("cannot write {}: {error}", path.display()));
    }
    if files.keep_transcript {
        report.transcript = referee.transcript.into_bytes();
    }
    // A void game sends no `over`: a bot that was asked anything in it is
    // stopped, so it never waits for the end of a game that has none.
    let stop_for_void = report.void.is_some() && referee.turn > 0;
    for (seat, bot) in Seat::BOTH.into_iter().zip(bots) {
        report.warnings.extend(bot.process().and_then(super::BotProcess::take_log_warning));
        let in_doubt = report.forfeits[seat.index()]
            .as_ref()
            .is_some_and(|forfeit| forfeit.reason.leaves_bot_in_doubt());
        if in_doubt || stop_for_void {
            bot.stop(settings).await;
        }
    }
    Ok(report)
}

/// The state of one game in progress, apart from the game itself. `M` is
/// the game's move.
struct Referee<'s, M> {
    transcript: Transcript,
    history: Vec<Played<M>>,
    /// `history` as JSON, without its brackets: it only grows, so each
    /// request copies it instead of serializing every move again.
    history_json: Vec<u8>,
    /// In a game with hidden moves, each seat's own history (its moves,
    /// and what it learned of the other's), instead of `history_json`.
    seat_histories: Option<[Vec<u8>; 2]>,
    forfeits: [Option<Forfeit>; 2],
    /// The game program's fault that voids the game.
    void: Option<Box<GameFault>>,
    slowest_reply: [Duration; 2],
    moves_accepted: [u32; 2],
    slowest_move: [Duration; 2],
    notices_passed: [u32; 2],
    /// The turns asked so far: the number of the turn being played.
    turn: u32,
    reported_names: [Option<String>; 2],
    answered_start: [bool; 2],
    /// The `start` of a seat whose bot answered one before in its process:
    /// it goes out with the seat's first request instead of waiting for
    /// its `ready` on its own, which saves a round trip per game.
    unsent_starts: [Option<Start>; 2],
    /// Each seat's time.
    clocks: [Clock; 2],
    settings: &'s Settings,
}

#[derive(Serialize)]
struct MoveLine<'a, M> {
    #[serde(rename = "type")]
    kind: &'static str,
    seat: Seat,
    #[serde(rename = "move")]
    mv: &'a M,
    think_us: u128,
    /// Under a game clock, what the bank holds after this move.
    #[serde(skip_serializing_if = "Option::is_none")]
    bank_us: Option<u128>,
}

#[derive(Serialize)]
struct ForfeitLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seat: Seat,
    #[serde(flatten)]
    forfeit: &'a Forfeit,
}

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
    scores: [i64; 2],
    plies: u32,
    duration_us: u128,
    state: &'a S,
}

impl<M: MoveValue> Referee<'_, M> {
    /// A message as one line, with the probe field when probing.
    fn line<T: Serialize>(&self, message: &T) -> Vec<u8> {
        self.probed(message_line(message))
    }

    /// `line` with a field bots do not know, when probing.
    fn probed(&self, line: Vec<u8>) -> Vec<u8> {
        if !self.settings.probe_unknown {
            return line;
        }
        let mut probed = br#"{"x_arena_probe":"a field bots do not know; ignore it","#.to_vec();
        probed.extend_from_slice(&line[1..]);
        probed
    }

    /// Sends `start` to the seats whose process is new and waits for their
    /// `ready`; the others get theirs with their first request.
    async fn handshake(&mut self, bots: &mut [&mut Bot; 2], setup: &GameSetup, seeds: [u64; 2]) {
        if self.settings.probe_unknown {
            let notice =
                br#"{"type":"x_arena_probe","note":"a message type bots do not know; ignore it"}
"#;
            for seat in Seat::BOTH {
                self.notify(bots, seat, notice, Notice::Unknown);
            }
        }
        let startup = self.startup_limit();
        let mut exchanges = Seat::BOTH.map(|seat| {
            let limits = self.settings.limits(self.clocks[seat.index()].control());
            let bot = &mut bots[seat.index()];
            let id = bot.take_id();
            let line = self.probed(
                StartMessage {
                    id,
                    game: setup.game().name(),
                    params_json: setup.params_json(),
                    seat,
                    seed: seeds[seat.index()],
                    limits,
                }
                .line(),
            );
            // play_game has started every bot; a new process has answered nothing.
            if bot.has_answered_a_start() {
                self.unsent_starts[seat.index()] = Some(Start { id, line });
                None
            } else {
                Some(Exchange::new(seat, Request::start(id), line, startup))
            }
        });
        if exchanges.iter().all(Option::is_none) {
            return;
        }
        self.exchange(bots, &mut exchanges).await;
        for exchange in exchanges.into_iter().flatten() {
            if let Phase::Answered(Answer { reply: Ok(Reply::Ready { name }), .. }) = exchange.phase
            {
                self.ready(bots, exchange.seat, name);
            }
        }
    }

    /// The time for a `ready`.
    fn startup_limit(&self) -> TimeLimit {
        let allowed = self.settings.startup_timeout;
        TimeLimit { allowed, wait: self.settings.leeway().wait(allowed), bank: None }
    }

    /// The time `seat` has for its next move, the `move_number`th of the
    /// game, from its clock.
    fn move_limit(&self, seat: Seat, move_number: usize) -> TimeLimit {
        let clock = &self.clocks[seat.index()];
        let out_of_time = clock.out_of_time();
        TimeLimit {
            allowed: out_of_time.allowed,
            wait: clock.deadline(),
            bank: out_of_time.bank.map(|bank| BankLeft { bank, move_number }),
        }
    }

    /// Notes a `ready` from `seat`.
    fn ready(&mut self, bots: &mut [&mut Bot; 2], seat: Seat, name: Option<String>) {
        bots[seat.index()].answered_start(name.as_deref());
        self.reported_names[seat.index()] = name;
        self.answered_start[seat.index()] = true;
    }

    /// Asks every seat in `seats` for a move, then applies the moves (in
    /// seat order) if all were legal, or records the forfeits.
    async fn play_turn<T: Table<Move = M>>(
        &mut self,
        bots: &mut [&mut Bot; 2],
        game: &mut T,
        seats: &[Seat],
    ) {
        self.turn += 1;
        // Every view and legal move list is taken before any move is applied,
        // so in a simultaneous turn no request can reflect the other choice.
        let mut exchanges = {
            let legal: [Cow<'_, [M]>; 2] = Seat::BOTH.map(|seat| {
                if seats.contains(&seat) { game.legal_moves(seat) } else { Cow::Borrowed(&[][..]) }
            });
            // Each built in its place: `Seat::BOTH.map` would move the two
            // (large) exchanges once more on every turn.
            let mut exchange_of = |seat: Seat| {
                if !seats.contains(&seat) {
                    return None;
                }
                let id = bots[seat.index()].take_id();
                // Seats of a simultaneous turn are applied in seat order.
                let move_number =
                    self.history.len() + 1 + seats.iter().filter(|s| **s < seat).count();
                let limit = self.move_limit(seat, move_number);
                let clock = &self.clocks[seat.index()];
                let request = move_request(
                    id,
                    &ViewOf(game, seat),
                    self.history_of(seat),
                    &legal[seat.index()],
                    limit.allowed.as_millis() as u64,
                    clock.bank_left().map(|bank| bank.as_millis() as u64),
                );
                let asked = Request::move_in_turn(id, self.turn);
                let mut exchange = Exchange::new(seat, asked, self.probed(request), limit);
                exchange.start = self.unsent_starts[seat.index()].take();
                Some(exchange)
            };
            [exchange_of(Seat::One), exchange_of(Seat::Two)]
        };
        self.exchange(bots, &mut exchanges).await;

        let mut chosen: [Option<M>; 2] = [None, None];
        for exchange in exchanges.into_iter().flatten() {
            let seat = exchange.seat;
            let asked = exchange.asked;
            // Other phases carry a forfeit, recorded by the exchange.
            let Phase::Answered(answer) = exchange.phase else { continue };
            let think = answer.think_time();
            if let Some((_, _, name)) = answer.ready {
                self.ready(bots, seat, name);
            }
            match answer.reply.map(|reply| match reply {
                Reply::Move(mv) => Reply::Move(game.accept(seat, mv)),
                Reply::Ready { name } => Reply::Ready { name },
            }) {
                Ok(Reply::Move(Ok(mv))) => {
                    self.moves_accepted[seat.index()] += 1;
                    let slowest = &mut self.slowest_move[seat.index()];
                    *slowest = (*slowest).max(think);
                    let clock = &mut self.clocks[seat.index()];
                    clock.charge(think);
                    self.transcript.push(&MoveLine {
                        kind: "move",
                        seat,
                        mv: &mv,
                        think_us: think.as_micros(),
                        bank_us: clock.bank_left().map(|bank| bank.as_micros()),
                    });
                    chosen[seat.index()] = Some(mv);
                }
                Ok(Reply::Move(Err(mv))) => {
                    let shown = serde_json::to_string(&mv).unwrap_or_default();
                    let line = answer.received.as_ref().map(|(line, _)| cut(line));
                    self.record_forfeit(seat, Forfeit::illegal(asked, &shown, line));
                }
                // A forfeit, recorded by the exchange; a `ready` is refused
                // by the parser where a move is asked.
                Ok(Reply::Ready { .. }) | Err(_) => {}
            }
        }
        if self.forfeits != [None, None] {
            if seats.len() > 1 {
                self.reveal(bots, game, [chosen[0].as_ref(), chosen[1].as_ref()], false);
            }
            return;
        }
        let mut played = |seat: Seat| Played {
            seat,
            mv: chosen[seat.index()].take().expect("every seat to move chose"),
        };
        // The turn's moves, in seat order, on the stack.
        match *seats {
            [seat] => {
                let turn = [played(seat)];
                if self.applied(game, &turn).await {
                    self.record_turn(game, turn);
                }
            }
            [first, second] => {
                let turn = [played(first), played(second)];
                if self.applied(game, &turn).await {
                    self.reveal(bots, game, [Some(&turn[0].mv), Some(&turn[1].mv)], true);
                    self.record_turn(game, turn);
                }
            }
            _ => unreachable!("one or two seats move in a turn"),
        }
    }

    /// Applies a turn's moves; whether the game took them (a game
    /// program's fault voids the game instead).
    async fn applied<T: Table<Move = M>>(&mut self, game: &mut T, turn: &[Played<M>]) -> bool {
        match game.apply(turn).await {
            Ok(()) => {
                if let Some(answer) = game.answer() {
                    self.transcript.step(self.turn, answer);
                }
                true
            }
            Err(fault) => {
                self.void = Some(Box::new(fault));
                false
            }
        }
    }

    /// Adds an applied turn's moves to the history, each seat's own with
    /// hidden moves.
    fn record_turn<T: Table<Move = M>, const N: usize>(&mut self, game: &T, turn: [Played<M>; N]) {
        for played in turn {
            match &mut self.seat_histories {
                None => append_played(&mut self.history_json, played.seat, &played.mv),
                Some(histories) => {
                    for (seat, history) in Seat::BOTH.into_iter().zip(histories) {
                        if seat == played.seat {
                            append_played(history, played.seat, &played.mv);
                        } else {
                            append_played(history, played.seat, &Learned(game, seat));
                        }
                    }
                }
            }
            self.history.push(played);
        }
    }

    /// The history `seat` is shown, as JSON without its brackets.
    fn history_of(&self, seat: Seat) -> &[u8] {
        match &self.seat_histories {
            None => &self.history_json,
            Some(histories) => &histories[seat.index()],
        }
    }

    /// Keeps a game program's first answer in the transcript (a built-in
    /// game has none: replays rebuild it from the rules).
    fn step<T: Table<Move = M>>(&mut self, game: &T) {
        if let Some(answer) = game.answer() {
            self.transcript.step(0, answer);
        }
    }

    /// Tells both seats the choices of a simultaneous turn, `moves` by
    /// seat (`None` for a seat that forfeited). With hidden moves, each
    /// seat is told its own choice and, of the other's, what it learned in
    /// the turn if it was `applied` (else nothing).
    fn reveal<T: Table<Move = M>>(
        &mut self,
        bots: &mut [&mut Bot; 2],
        game: &T,
        moves: [Option<&M>; 2],
        applied: bool,
    ) {
        if !game.hidden_moves() {
            let message: ToBot<'_, (), (), M> = ToBot::Reveal { moves };
            let line = self.line(&message);
            for seat in Seat::BOTH {
                self.notify(bots, seat, &line, Notice::Reveal);
            }
            return;
        }
        for seat in Seat::BOTH {
            let mut line = br#"{"type":"reveal","moves":["#.to_vec();
            for shown in Seat::BOTH {
                if shown == Seat::Two {
                    line.push(b',');
                }
                match (shown == seat, moves[shown.index()]) {
                    (true, Some(mv)) => mv.write_json(&mut line),
                    (false, Some(_)) if applied => game.write_learned(seat, &mut line),
                    _ => line.extend_from_slice(b"null"),
                }
            }
            line.extend_from_slice(b"]}\n");
            let line = self.probed(line);
            self.notify(bots, seat, &line, Notice::Reveal);
        }
    }

    /// Queues a message that needs no answer for `seat`, unless its bot is
    /// in doubt. It goes out with the bot's next request or when its session
    /// ends; a bot that cannot take it fails there.
    fn notify(&mut self, bots: &mut [&mut Bot; 2], seat: Seat, line: &[u8], notice: Notice) {
        if self.in_doubt(seat) {
            return;
        }
        let bot = &mut bots[seat.index()];
        let Some(process) = bot.process() else { return };
        self.transcript.sent(seat, Instant::now().into_std(), trim_newline(line));
        process.queue(line);
        bot.unanswered_notice = Some(notice);
    }

    /// Runs the exchanges of one step: every request is written before any
    /// reply is read, then all replies are awaited together, each against
    /// its own deadline.
    async fn exchange(
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
                    match &answer.reply {
                        Ok(_) => {
                            let slowest = &mut self.slowest_reply[seat.index()];
                            *slowest = (*slowest).max(answer.think_time());
                        }
                        Err(forfeit) => self.record_forfeit(seat, forfeit.clone()),
                    }
                }
                Phase::Undelivered { forfeit, .. } => self.record_forfeit(seat, forfeit.clone()),
                Phase::Unsent | Phase::Sent { .. } => {}
            }
        }
    }

    fn in_doubt(&self, seat: Seat) -> bool {
        self.forfeits[seat.index()]
            .as_ref()
            .is_some_and(|forfeit| forfeit.reason.leaves_bot_in_doubt())
    }

    /// Records a forfeit, its words made printable: they may quote what the
    /// bot sent, and they reach terminals and CSV cells.
    fn record_forfeit(&mut self, seat: Seat, mut forfeit: Forfeit) {
        if let Cow::Owned(shown) = printable(&forfeit.detail) {
            forfeit.detail = shown;
        }
        if let Some(Cow::Owned(shown)) = forfeit.line.as_deref().map(printable) {
            forfeit.line = Some(shown);
        }
        self.transcript.push(&ForfeitLine { kind: "forfeit", seat, forfeit: &forfeit });
        self.forfeits[seat.index()] = Some(forfeit);
    }

    /// Decides the result, tells the bots, and closes the transcript.
    fn finish<T: Table<Move = M>>(
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
            let over = OverMessage {
                winner,
                reason: report.reason(),
                forfeits: &notices,
                scores: report.scores,
                state: &ViewOf(game, seat),
                history_json: self.history_of(seat),
            };
            let line = self.probed(over.line());
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
    fn finish_void(&mut self, seed: u64, started: Instant) -> GameReport {
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
    fn report(&self, seed: u64, started: Instant) -> GameReport {
        GameReport {
            seed,
            winner: None,
            forfeits: self.forfeits.clone(),
            scores: [0, 0],
            plies: self.history.len() as u32,
            duration: started.elapsed(),
            slowest_reply: self.slowest_reply,
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

/// What a seat learned of the other seat's move in the turn just applied
/// (a game with hidden moves), as a value that writes itself.
struct Learned<'a, T>(&'a T, Seat);

impl<T: Table> crate::json::WriteJson for Learned<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.0.write_learned(self.1, out);
    }
}
