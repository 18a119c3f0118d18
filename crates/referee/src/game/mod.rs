//! Playing one game between two bots, through the [`Table`] of its rules
//! (a built-in game or a game program: one referee for both): the game's
//! loop, from set-up and handshake to each turn's requests and moves.
//! `replies` runs a step's exchanges and records what came back,
//! `messages` writes the lines bots are sent and queues the notices that
//! need no answer, `history` keeps the moves each seat is shown, and
//! `finish` closes the game and makes its report.

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::clock::Clock;
use super::exchange::{Answer, Exchange, Phase, Start};
use super::forfeit::{BankLeft, Notice, Request};
use super::game_program::GameFault;
use super::reply::TimeLimit;
use super::reply::cut;
use super::table::{Rules, Table, ViewOf};
use super::transcript::{GameSeeds, Transcript, TranscriptBot, TranscriptTime};
use super::{Bot, CommandError, Forfeit, GameFiles, GameReport, Settings};
use arena_base::json::{JsonText, WriteJson};
use arena_games::{GameSetup, MoveValue, Seat};
use arena_protocol::{History, PROTOCOL_VERSION, ToBot};
use arena_protocol::{HistoryMode, Played, Ready, Reply};

mod finish;
mod history;
use history::WrittenHistory;
mod messages;
mod replies;

/// Plays one game of `setup` (its rules set up by `rules`) between `bots`
/// (seat 1 first) and reports it. `seed` is the setup's, `round` its
/// number in the pairing: each seat's seed is keyed by both and by who sits
/// where, so no bot ever holds a seed another bot held (the seats of a
/// setup's second game are its first game's, swapped).
///
/// Bots that are not running are started. A bot whose forfeit leaves it in
/// doubt (see [`ForfeitReason::leaves_bot_in_doubt`]) is stopped before this
/// returns; so are both when the game program fails, which voids the game
/// ([`GameReport::void`]). Fails only when a bot cannot be started at all.
///
/// [`ForfeitReason::leaves_bot_in_doubt`]: arena_protocol::ForfeitReason::leaves_bot_in_doubt
pub async fn play_game<R: Rules>(
    rules: &mut R,
    setup: &GameSetup,
    bots: [&mut Bot; 2],
    seed: u64,
    round: u64,
    settings: &Settings,
    files: &GameFiles,
) -> Result<GameReport, CommandError> {
    let [first, second] = bots;
    let mut bots = [first, second];
    Bot::ensure_both_running(&mut bots, settings).await?;
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
        history_json: WrittenHistory::default(),
        seat_histories: None,
        new_history: [false; 2],
        history_sent: [0; 2],
        forfeits: [None, None],
        void: None,
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
    let names = [bots[0].name.as_str(), bots[1].name.as_str()];
    let seat_seeds = Seat::BOTH.map(|seat| settings.seed_key.seat_seed(seed, round, names, seat));
    let rules_seed = rules.seed_for(seed, &settings.seed_key);
    let seeds = GameSeeds { setup: seed, rules: rules_seed, seats: seat_seeds };
    let header = |referee: &mut Referee<'_, R::Move>, state: &serde_json::value::RawValue| {
        referee.transcript.header(
            setup,
            seeds,
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
    let mut report = match rules.set_up(setup, rules_seed).await {
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
                referee.seat_histories = Some(Default::default());
            }
            referee.new_history = [game.history_mode() == HistoryMode::New; 2];
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
    if let Some(keeper) = &files.transcript
        && let Some(transcript) = referee.transcript.bytes()
        && let Err(error) = keeper.keep(transcript)
    {
        // Whoever records the game decides: a tournament stops rather than
        // keep a result whose transcript is missing.
        report.unsaved_transcript = Some(error);
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
    history_json: WrittenHistory,
    /// In a game with hidden moves, each seat's own history (its moves,
    /// and what it learned of the other's), instead of `history_json`.
    seat_histories: Option<[WrittenHistory; 2]>,
    /// The seats whose `ready` asked for the new moves only.
    new_history: [bool; 2],
    /// The entries of its history each seat has been sent in this game.
    history_sent: [usize; 2],
    forfeits: [Option<Forfeit>; 2],
    /// The game program's fault that voids the game.
    void: Option<Box<GameFault>>,
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

#[derive(Serialize, WriteJson)]
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

impl<M: MoveValue> Referee<'_, M> {
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
            let start: ToBot<'_, _, (), ()> = ToBot::Start {
                id,
                protocol: PROTOCOL_VERSION,
                game: setup.game().name(),
                params: &JsonText(setup.params_json()),
                seat,
                seed: seeds[seat.index()],
                limits,
            };
            let line = self.line(&start);
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
            if let Phase::Answered(Answer { reply: Ok(Reply::Ready(ready)), .. }) = exchange.phase {
                self.ready(bots, exchange.seat, ready);
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
    fn ready(&mut self, bots: &mut [&mut Bot; 2], seat: Seat, ready: Ready) {
        bots[seat.index()].answered_start(ready.name.as_deref());
        self.reported_names[seat.index()] = ready.name;
        self.answered_start[seat.index()] = true;
        // A bot's own word over its game's.
        if let Some(history) = ready.history {
            self.new_history[seat.index()] = history == HistoryMode::New;
        }
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
                let history_from = self.history_from(seat);
                let clock = &self.clocks[seat.index()];
                let request: ToBot<'_, (), _, _> = ToBot::Move {
                    id,
                    state: ViewOf(game, seat),
                    history: History::Written(
                        self.history_of(seat).since(history_from.unwrap_or(0)),
                    ),
                    history_from: history_from.map(|from| from as u64),
                    legal_moves: &legal[seat.index()],
                    time_ms: limit.allowed.as_millis() as u64,
                    bank_ms: clock.bank_left().map(|bank| bank.as_millis() as u64),
                };
                let asked = Request::move_in_turn(id, self.turn);
                let mut exchange = Exchange::new(seat, asked, self.line(&request), limit);
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
            if let Some((_, _, ready)) = answer.ready {
                self.ready(bots, seat, ready);
            }
            match answer.reply.map(|reply| match reply {
                Reply::Move(mv) => Reply::Move(game.accept(seat, mv)),
                Reply::Ready(ready) => Reply::Ready(ready),
            }) {
                Ok(Reply::Move(Ok(mv))) => {
                    self.moves_accepted[seat.index()] += 1;
                    let slowest = &mut self.slowest_move[seat.index()];
                    *slowest = (*slowest).max(think);
                    let clock = &mut self.clocks[seat.index()];
                    clock.charge(think);
                    self.transcript.write(&MoveLine {
                        kind: "move",
                        seat,
                        mv: &mv,
                        think_us: think.as_micros(),
                        bank_us: clock.bank_left().map(|bank| bank.as_micros()),
                    });
                    chosen[seat.index()] = Some(mv);
                }
                Ok(Reply::Move(Err(mv))) => {
                    if let Some(fault) = game.blame_for_illegal(seat, &mv).await {
                        self.void = Some(Box::new(fault));
                        return;
                    }
                    let mut shown = serde_json::to_string(&mv).unwrap_or_default();
                    if let Some(kinds) = other_kind(&mv, &game.legal_moves(seat)) {
                        shown.push_str(&kinds);
                    }
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

    /// Keeps a game program's first answer in the transcript (a built-in
    /// game has none: replays rebuild it from the rules).
    fn step<T: Table<Move = M>>(&mut self, game: &T) {
        if let Some(answer) = game.answer() {
            self.transcript.step(0, answer);
        }
    }
}

/// " (a string, where the legal moves are numbers)" when `mv` is of another
/// JSON kind than every legal move (a move echoed in the wrong form). Only
/// kinds are named: the moves themselves may be the seat's secret, and a
/// forfeit's detail goes to both seats.
fn other_kind<M: serde::Serialize>(mv: &M, legal: &[M]) -> Option<String> {
    fn kind(value: &serde_json::Value) -> (&'static str, &'static str) {
        match value {
            serde_json::Value::Null => ("null", "null"),
            serde_json::Value::Bool(_) => ("a boolean", "booleans"),
            serde_json::Value::Number(_) => ("a number", "numbers"),
            serde_json::Value::String(_) => ("a string", "strings"),
            serde_json::Value::Array(_) => ("a list", "lists"),
            serde_json::Value::Object(_) => ("an object", "objects"),
        }
    }
    let sent = kind(&serde_json::to_value(mv).ok()?);
    let mut legal_kinds: Vec<&str> = Vec::new();
    for legal in legal {
        let legal = kind(&serde_json::to_value(legal).ok()?);
        if legal == sent {
            return None;
        }
        if !legal_kinds.contains(&legal.1) {
            legal_kinds.push(legal.1);
        }
    }
    (!legal_kinds.is_empty())
        .then(|| format!(" ({}, where the legal moves are {})", sent.0, legal_kinds.join(" or ")))
}
