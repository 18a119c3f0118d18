//! Playing one game between two bots.

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::clock::Clock;
use super::forfeit::{Activity, BankLeft, Crash, Ending, Notice, Request};
use super::process::BotProcess;
use super::reply::{Asked, cut, forfeit_from, read_reply};
use super::transcript::{Transcript, TranscriptBot, TranscriptTime};
use super::{Bot, CommandError, Forfeit, GameFiles, GameOutcome, GameReport, Settings};
use crate::games::{Game, Seat};
use crate::printable::printable;
use crate::protocol::encode::{
    OverMessage, StartMessage, append_played, message_line, move_request,
};
use crate::protocol::{ForfeitNotice, Played, Reply, ResultReason, ToBot};

/// The wait without a time limit: longer than any game or debugging
/// session, and short enough that no clock overflows.
const NO_LIMIT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// One seat's part of an exchange: the request to send, and where it got to.
struct Exchange<M> {
    seat: Seat,
    /// What the request is (its kind, id and turn).
    asked: Request,
    request: Vec<u8>,
    /// The time for the reply.
    limit: TimeLimit,
    /// This game's `start`, when it goes out just before the request; its
    /// `ready` is then read before the reply.
    start: Option<Start>,
    phase: Phase<M>,
}

/// Where an exchange is. It only moves forward: `Unsent`, then `Sent` and
/// `Answered`, or `Undelivered` when the request could not go out.
enum Phase<M> {
    /// The request has not been written yet.
    Unsent,
    /// The request went out at `sent_at`; its reply is awaited.
    Sent { sent_at: Instant },
    /// The bot was not running (no `sent_at`) or its input failed: no reply
    /// is read.
    Undelivered { sent_at: Option<Instant>, forfeit: Forfeit },
    /// The reply came, or what stands for it (a timeout, a crash).
    Answered(Answer<M>),
}

/// What an exchange whose request went out came to.
struct Answer<M> {
    sent_at: Instant,
    /// The `ready` to a `start` sent with the request: the line as
    /// received, when, and the name it gave. The reply's clock starts at it.
    ready: Option<(Vec<u8>, Instant, Option<String>)>,
    /// The reply line as received, and when; none if no line came.
    received: Option<(Vec<u8>, Instant)>,
    reply: Result<Reply<M>, Forfeit>,
    /// Whether the first line read was accepted right after a message that
    /// needs no answer: evidence that the bot did not answer it.
    notice_passed: bool,
}

/// A `start` line and its id.
struct Start {
    id: u64,
    line: Vec<u8>,
}

/// The time a bot has for one reply.
#[derive(Clone, Copy)]
pub(super) struct TimeLimit {
    /// What the bot is told it has.
    pub(super) allowed: Duration,
    /// How long the referee waits: `allowed` and the leeway (`None`: no
    /// limit).
    wait: Option<Duration>,
    /// When `allowed` is all that is left of a game clock's bank.
    pub(super) bank: Option<BankLeft>,
}

impl TimeLimit {
    /// The moment the referee stops waiting, counted from `from`.
    fn deadline(&self, from: Instant) -> Instant {
        from + self.wait.unwrap_or(NO_LIMIT)
    }
}

/// Plays one game of `G` between `bots` (seat 1 first) and reports it.
///
/// Bots that are not running are started. A bot whose forfeit leaves it in
/// doubt (see [`ForfeitReason::leaves_bot_in_doubt`]) is stopped before this
/// returns. Fails only when a bot cannot be started at all.
pub async fn play_game<G: Game>(
    bots: [&mut Bot; 2],
    params: &G::Params,
    seed: u64,
    settings: &Settings,
    files: &GameFiles,
) -> Result<GameReport, CommandError> {
    let [first, second] = bots;
    let mut bots = [first, second];
    for (bot, log) in bots.iter_mut().zip(&files.stderr_logs) {
        bot.ensure_running(settings)?.log_stderr_to(log.as_ref());
    }
    let mut game = G::new(params, seed);
    let started = Instant::now();
    let controls = [0, 1].map(|index| settings.time_control_of(bots[index]));
    let mut referee = Referee::<G> {
        transcript: if files.transcript.is_some() || files.keep_transcript {
            Transcript::new(started.into_std())
        } else {
            Transcript::disabled(started.into_std())
        },
        history: Vec::new(),
        history_json: Vec::new(),
        forfeits: [None, None],
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
    referee.transcript.header(
        G::ID,
        seed,
        seat_seeds,
        &settings.sandbox_line,
        params,
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
        &game,
    );

    referee.handshake(&mut bots, params, seat_seeds).await;
    while referee.forfeits == [None, None] {
        let seats = game.to_move();
        if seats.is_empty() {
            break;
        }
        referee.play_turn(&mut bots, &mut game, seats).await;
    }
    let mut report = referee.finish(&mut bots, &game, seed, started).await;
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
    for (seat, bot) in Seat::BOTH.into_iter().zip(bots) {
        report.warnings.extend(bot.process().and_then(BotProcess::take_log_warning));
        if let Some(forfeit) = &report.forfeits[seat.index()]
            && forfeit.reason.leaves_bot_in_doubt()
        {
            bot.stop(settings).await;
        }
    }
    Ok(report)
}

/// The state of one game in progress, apart from the game itself.
struct Referee<'s, G: Game> {
    transcript: Transcript,
    history: Vec<Played<G::Move>>,
    /// `history` as JSON, without its brackets: it only grows, so each
    /// request copies it instead of serializing every move again.
    history_json: Vec<u8>,
    forfeits: [Option<Forfeit>; 2],
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
struct ResultLine<'a, S> {
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

impl<G: Game> Referee<'_, G> {
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
    async fn handshake(&mut self, bots: &mut [&mut Bot; 2], params: &G::Params, seeds: [u64; 2]) {
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
                StartMessage { id, game: G::ID, params, seat, seed: seeds[seat.index()], limits }
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
    async fn play_turn(&mut self, bots: &mut [&mut Bot; 2], game: &mut G, seats: &[Seat]) {
        self.turn += 1;
        // Every view and legal move list is taken before any move is applied,
        // so in a simultaneous turn no request can reflect the other choice.
        let legal: [Vec<G::Move>; 2] = Seat::BOTH
            .map(|seat| if seats.contains(&seat) { game.legal_moves(seat) } else { Vec::new() });
        let mut exchanges = Seat::BOTH.map(|seat| {
            if !seats.contains(&seat) {
                return None;
            }
            let id = bots[seat.index()].take_id();
            // Seats of a simultaneous turn are applied in seat order.
            let move_number = self.history.len() + 1 + seats.iter().filter(|s| **s < seat).count();
            let limit = self.move_limit(seat, move_number);
            let clock = &self.clocks[seat.index()];
            let request = move_request(
                id,
                &game.view(seat),
                &self.history_json,
                &legal[seat.index()],
                limit.allowed.as_millis() as u64,
                clock.bank_left().map(|bank| bank.as_millis() as u64),
            );
            let asked = Request::move_in_turn(id, self.turn);
            let mut exchange = Exchange::new(seat, asked, self.probed(request), limit);
            exchange.start = self.unsent_starts[seat.index()].take();
            Some(exchange)
        });
        self.exchange(bots, &mut exchanges).await;

        let mut chosen: [Option<G::Move>; 2] = [None, None];
        for exchange in exchanges.into_iter().flatten() {
            let seat = exchange.seat;
            let asked = exchange.asked;
            // Other phases carry a forfeit, recorded by the exchange.
            let Phase::Answered(answer) = exchange.phase else { continue };
            let think = answer.think_time();
            if let Some((_, _, name)) = answer.ready {
                self.ready(bots, seat, name);
            }
            match answer.reply {
                Ok(Reply::Move(mv)) if game.is_legal(seat, &mv) => {
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
                Ok(Reply::Move(mv)) => {
                    let shown = serde_json::to_string(&mv).unwrap_or_default();
                    let line = answer.received.as_ref().map(|(line, _)| cut(line));
                    self.record_forfeit(seat, Forfeit::illegal(asked, &shown, line));
                }
                // A forfeit, recorded by the exchange; a `ready` is refused
                // by the parser where a move is asked.
                Ok(Reply::Ready { .. }) | Err(_) => {}
            }
        }
        if seats.len() > 1 {
            self.reveal(bots, [chosen[0].as_ref(), chosen[1].as_ref()]);
        }
        if self.forfeits != [None, None] {
            return;
        }
        for seat in seats {
            let mv = chosen[seat.index()].take().expect("every seat to move chose");
            game.apply(*seat, &mv);
            append_played(&mut self.history_json, *seat, &mv);
            self.history.push(Played { seat: *seat, mv });
        }
    }

    /// Tells both seats the choices of a simultaneous turn.
    fn reveal(&mut self, bots: &mut [&mut Bot; 2], moves: [Option<&G::Move>; 2]) {
        let message: ToBot<'_, G::Params, G::View, G::Move> = ToBot::Reveal { moves };
        let line = self.line(&message);
        for seat in Seat::BOTH {
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
        exchanges: &mut [Option<Exchange<G::Move>>; 2],
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
    async fn finish(
        &mut self,
        bots: &mut [&mut Bot; 2],
        game: &G,
        seed: u64,
        started: Instant,
    ) -> GameReport {
        let winner = match &self.forfeits {
            [None, None] => game.outcome().expect("a game without forfeits runs to its end").winner,
            [Some(_), None] => Some(Seat::Two),
            [None, Some(_)] => Some(Seat::One),
            [Some(_), Some(_)] => None,
        };
        let report = GameReport {
            seed,
            winner,
            forfeits: self.forfeits.clone(),
            scores: game.scores(),
            plies: self.history.len() as u32,
            duration: started.elapsed(),
            slowest_reply: self.slowest_reply,
            moves_accepted: self.moves_accepted,
            slowest_move: self.slowest_move,
            notices_passed: self.notices_passed,
            reported_names: self.reported_names.clone(),
            answered_start: self.answered_start,
            unsaved_transcript: None,
            transcript: None,
            warnings: Vec::new(),
        };
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
                state: &game.view(seat),
                history_json: &self.history_json,
            };
            let line = self.probed(over.line());
            self.notify(bots, seat, &line, Notice::Over);
        }
        self.transcript.push(&ResultLine {
            kind: "result",
            winner,
            outcome: report.outcome(),
            reason: report.reason(),
            scores: report.scores,
            plies: report.plies,
            duration_us: report.duration.as_micros(),
            state: game,
        });
        report
    }
}

impl<M> Exchange<M> {
    fn new(seat: Seat, asked: Request, request: Vec<u8>, limit: TimeLimit) -> Exchange<M> {
        Exchange { seat, asked, request, limit, start: None, phase: Phase::Unsent }
    }

    /// The request a failure to deliver belongs to: the `start` that goes
    /// out first, if there is one.
    fn first_request(&self) -> Request {
        self.start.as_ref().map_or(self.asked, |start| Request::start(start.id))
    }

    /// When the request went out, if it did.
    fn sent_at(&self) -> Option<Instant> {
        match &self.phase {
            Phase::Unsent => None,
            Phase::Sent { sent_at } => Some(*sent_at),
            Phase::Undelivered { sent_at, .. } => *sent_at,
            Phase::Answered(answer) => Some(answer.sent_at),
        }
    }
}

impl<M> Answer<M> {
    /// From the reply's clock starting (the request going out, or the
    /// `ready` coming in if a `start` went with it) to the reply coming in.
    fn think_time(&self) -> Duration {
        let clock_from = self.ready.as_ref().map_or(self.sent_at, |(_, at, _)| *at);
        self.received.as_ref().map_or(Duration::ZERO, |(_, at)| at.duration_since(clock_from))
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// Writes one exchange's request, recording when it went out or the failure.
async fn send<M>(bot: &mut Bot, exchange: &mut Option<Exchange<M>>) {
    let Some(exchange) = exchange else { return };
    let Some(process) = bot.process() else {
        let crash = Crash {
            ending: Ending::NotRunning,
            status: None,
            limit: None,
            stderr_tail: Vec::new(),
        };
        exchange.phase = Phase::Undelivered {
            sent_at: None,
            forfeit: Forfeit::crashed(exchange.first_request(), crash, None),
        };
        return;
    };
    let sent_at = Instant::now();
    if let Some(start) = &exchange.start {
        process.queue(&start.line);
    }
    exchange.phase = match process.send(&exchange.request, exchange.limit.deadline(sent_at)).await {
        Ok(()) => Phase::Sent { sent_at },
        Err(failure) => Phase::Undelivered {
            sent_at: Some(sent_at),
            forfeit: forfeit_from(
                failure,
                exchange.first_request(),
                exchange.limit,
                &[],
                Activity::Unknown,
            ),
        },
    };
}

/// Reads one exchange's reply (if its request went out) and parses it;
/// first the `ready` to a `start` sent with the request, if there was one
/// (with `startup` for it). A `start` is judged early as
/// [`Settings::stuck_start_after`] says.
async fn receive<M: serde::de::DeserializeOwned>(
    bot: &mut Bot,
    exchange: &mut Option<Exchange<M>>,
    startup: TimeLimit,
    stuck: Option<Duration>,
) {
    let Some(exchange) = exchange else { return };
    let Phase::Sent { sent_at } = exchange.phase else { return };
    // Only the first line after a notice can be an answer to it.
    let mut after = bot.unanswered_notice.take();
    let noticed = after.is_some();
    let process = bot.process().expect("a bot that was sent a request runs");
    let mut ready = None;
    if let Some(start) = &exchange.start {
        let deadline = startup.deadline(sent_at);
        let asked = Asked { request: Request::start(start.id), limit: startup };
        match read_reply::<M>(process, deadline, asked, stuck, after.take()).await {
            (Some((line, received_at)), Ok(Reply::Ready { name })) => {
                ready = Some((line, received_at, name));
            }
            (received, reply) => {
                let notice_passed = false;
                exchange.phase =
                    Phase::Answered(Answer { sent_at, ready, received, reply, notice_passed });
                return;
            }
        }
    }
    let clock_from = ready.as_ref().map_or(sent_at, |(_, received_at, _)| *received_at);
    let asked = Asked { request: exchange.asked, limit: exchange.limit };
    let deadline = exchange.limit.deadline(clock_from);
    let (received, reply) = read_reply(process, deadline, asked, stuck, after).await;
    let notice_passed = noticed && (ready.is_some() || reply.is_ok());
    exchange.phase = Phase::Answered(Answer { sent_at, ready, received, reply, notice_passed });
}
