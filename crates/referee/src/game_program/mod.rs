//! A game written as a program, played through the game protocol
//! (game-protocol.md): its process, started like a bot's and in the same
//! sandbox ([`BotCommand`], [`BotProcess`]), kept from game to game; its
//! requests and answers under a time limit; the check of its answers
//! against the last game of the same setup (`memo`); and the table over its
//! answers (`table`), through which the referee plays it as it plays a
//! built-in game.
//!
//! The program never learns which bot sits where: it is sent parameters,
//! a seed and the moves of each turn, each move its own entry of the legal
//! moves it listed. Its time is its own: no bot's clock runs while it
//! answers. Anything it gets wrong is a [`GameFault`]: the process is
//! stopped (the next game starts a fresh one) and the game is void.

mod describe;
mod memo;
mod table;

use std::time::Duration;

use tokio::time::Instant;

pub use crate::game_fault::{FaultCause, GameFault, GameRequest};
pub use describe::{DescribeError, describe_program};

use memo::Memo;

use super::process::Failure;
use super::{BotCommand, BotProcess, LogFile, PastCap, Stopped};
use arena_games::program::{Declaration, Declares, HistoryMode, JsonMove, Moves, ProgramGame};
use arena_games::{GameSetup, Played};
use arena_protocol::game::{
    Answer, BadAnswer, BadAnswerKind, GameRequestKind, Refusal, apply_request, declares_of,
    hello_request, init_request, parse_answer,
};

/// Longest line a game program may answer with: a step holds both views
/// and the legal moves, so it may be far longer than a bot's reply.
pub const GAME_LINE_LIMIT: usize = 64 << 20;

/// Most bytes a game program may answer with in one game (from its `init`
/// on): arena keeps a game's transcript (the answers, and the views they
/// give the bots) in memory until the game ends, and `check-game` keeps
/// whole games to compare, so a game whose steps keep growing would
/// otherwise grow arena without bound.
pub const GAME_OUTPUT_LIMIT: u64 = 256 << 20;

/// Longest request or answer quoted in a fault.
const QUOTED_CHARS: usize = 300;

/// How a game program is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSettings {
    /// Time for each answer (a new process's start included).
    pub timeout: Duration,
    /// Largest stderr log kept per game.
    pub stderr_cap: u64,
    /// How long the program may take to exit once its input is closed.
    pub exit_grace: Duration,
}

impl Default for ProgramSettings {
    fn default() -> ProgramSettings {
        ProgramSettings {
            timeout: Duration::from_secs(5),
            stderr_cap: 1024 * 1024,
            exit_grace: Duration::from_millis(200),
        }
    }
}

/// The command that runs `game`, as a bot's runs: the program's `argv` in
/// its `dir`, no environment of its own, not yet put in a sandbox.
pub fn command_of(game: &ProgramGame) -> BotCommand {
    BotCommand {
        argv: game.argv.clone(),
        dir: game.dir.clone(),
        declared: arena_system::sandbox::Declared {
            folder: game.folder.clone(),
            read_paths: Vec::new(),
        },
        ..BotCommand::default()
    }
}

/// One exchange with the program: the request, its answer and the time
/// it took.
#[derive(Clone, Debug)]
pub struct Exchanged {
    /// What was asked.
    pub request: GameRequest,
    /// The request as sent.
    pub request_line: Vec<u8>,
    /// The answer, read and checked.
    pub answer: Answer,
    /// The answer's line, as it came.
    pub line: Vec<u8>,
    /// From writing the request to reading the whole answer.
    pub took: Duration,
}

/// A request written, or begun: what it asks, its line, how much of it
/// went when the pipe did not take it whole, and its time.
struct Sent {
    asked: GameRequest,
    line: Vec<u8>,
    written: Option<usize>,
    started: Instant,
    deadline: Instant,
}

/// A game program: its command, what it declared, and its process
/// between requests.
pub struct GameProgram {
    command: BotCommand,
    moves: Moves,
    max_turns: u32,
    history: HistoryMode,
    settings: ProgramSettings,
    process: Option<BotProcess>,
    next_id: u64,
    /// Bytes answered since the last `init`.
    answered: u64,
    log: Option<LogFile>,
    memo: Memo,
    /// The declaration `hello` gave (or the game's), which an `init`
    /// answer's `declares` changes for its parameters.
    declaration: Option<Declaration>,
    /// The parameters of the last `init` answered, and what that answer
    /// declared for them: every later `init` with them must declare the same.
    declared_for: Option<(String, Option<Declares>)>,
}

impl GameProgram {
    /// The program `command` runs, not yet asked anything (for `hello`).
    pub fn new(command: BotCommand, settings: ProgramSettings) -> GameProgram {
        GameProgram {
            command,
            moves: Moves::Public,
            max_turns: arena_games::program::MAX_TURNS,
            history: HistoryMode::Full,
            settings,
            process: None,
            next_id: 1,
            answered: 0,
            log: None,
            memo: Memo::default(),
            declaration: None,
            declared_for: None,
        }
    }

    /// The program of `game` (whose declaration it made), run by `command`.
    pub fn of(game: &ProgramGame, command: BotCommand, settings: ProgramSettings) -> GameProgram {
        let mut program = GameProgram::new(command, settings);
        program.declared(&game.declaration);
        program
    }

    fn declared(&mut self, declaration: &Declaration) {
        self.moves = declaration.moves;
        self.max_turns = declaration.max_turns;
        self.history = declaration.history;
        self.declaration = Some(declaration.clone());
    }

    /// What the last `init` answered declared for its parameters, if it
    /// declared anything (game-protocol.md, section 4).
    pub fn declares(&self) -> Option<&Declares> {
        self.declared_for.as_ref()?.1.as_ref()
    }

    /// The command as a user would type it.
    pub fn display(&self) -> String {
        self.command.display()
    }

    /// Sends the program's stderr to `log` from now on (`None`: discard).
    pub fn log_stderr_to(&mut self, log: Option<LogFile>) {
        if let Some(process) = &self.process {
            process.log_stderr_to(log.as_ref());
        }
        self.log = log;
    }

    /// Asks the program to describe itself.
    pub async fn hello(&mut self) -> Result<Declaration, GameFault> {
        let exchanged = self.exchange(GameRequestKind::Hello, None, hello_request).await?;
        match exchanged.answer {
            Answer::Game(declaration) => {
                self.declared(&declaration);
                Ok(*declaration)
            }
            _ => unreachable!("a `hello` is answered with `game` or refused by the parser"),
        }
    }

    /// Sets up a game: its first step, or the program's refusal of the
    /// parameters (as the exchange's answer).
    pub async fn init(&mut self, params_json: &str, seed: u64) -> Result<Exchanged, GameFault> {
        let exchanged = self
            .exchange(GameRequestKind::Init, None, |id| init_request(id, params_json, seed))
            .await?;
        if matches!(exchanged.answer, Answer::Step(_))
            && let Err(cause) = self.take_declares(params_json, &exchanged.line)
        {
            let fault = self.fault(
                exchanged.request,
                &exchanged.request_line,
                cause,
                Some(&exchanged.line),
            );
            self.stop().await;
            return Err(fault);
        }
        Ok(exchanged)
    }

    /// Reads what an `init` answer declares for `params_json` and plays
    /// the game by it: moves hidden or public, its most turns.
    fn take_declares(&mut self, params_json: &str, line: &[u8]) -> Result<(), FaultCause> {
        let bad = |kind, detail: String| FaultCause::BadAnswer(BadAnswer::new(kind, detail));
        let declares = declares_of(line).map_err(FaultCause::BadAnswer)?;
        if let Some((params, first)) = &self.declared_for
            && params == params_json
            && *first != declares
        {
            let said = |declares: &Option<Declares>| match declares {
                Some(declares) => serde_json::to_string(declares).expect("declares serialize"),
                None => "nothing".to_owned(),
            };
            return Err(bad(
                BadAnswerKind::Contradiction,
                format!(
                    "it declares {} for these parameters, where its first answer to `init` with them declared {}",
                    said(&declares),
                    said(first)
                ),
            ));
        }
        if let Some(declaration) = &self.declaration {
            (self.moves, self.max_turns) = match &declares {
                Some(declares) => {
                    let declared = declaration.with(declares).map_err(|why| {
                        bad(BadAnswerKind::Malformed, format!("`declares`: {why}"))
                    })?;
                    (declared.moves, declared.max_turns)
                }
                None => (declaration.moves, declaration.max_turns),
            };
        }
        // Kept once per parameter set: most runs have one, and every game's
        // `init` compares with it.
        if self.declared_for.as_ref().is_none_or(|(params, _)| params != params_json) {
            self.declared_for = Some((params_json.to_owned(), declares));
        }
        Ok(())
    }

    /// Whether the program sets up a game of `setup` (from seed 0): its
    /// refusal of the parameters, if it refuses them. What arena checks
    /// once where parameters are read, so that a run never starts with
    /// parameters its game will refuse.
    pub async fn refusal(&mut self, setup: &GameSetup) -> Result<Option<Refusal>, GameFault> {
        let exchanged = self.init(setup.params_json(), 0).await?;
        Ok(match exchanged.answer {
            Answer::Refuse(refusal) => Some(refusal),
            _ => None,
        })
    }

    /// Plays turn `turn` (from 1): `moves` in seat order.
    pub async fn apply(
        &mut self,
        moves: &[Played<JsonMove>],
        turn: u32,
    ) -> Result<Exchanged, GameFault> {
        self.exchange(GameRequestKind::Apply, Some(turn), |id| apply_request(id, moves)).await
    }

    /// Sends one request (made by `request` from its id) and reads its
    /// answer, under the time limit. Any failure stops the process.
    async fn exchange(
        &mut self,
        kind: GameRequestKind,
        turn: Option<u32>,
        request: impl FnOnce(u64) -> Vec<u8>,
    ) -> Result<Exchanged, GameFault> {
        // Mostly the request is written and answered on this thread. The
        // rest of the way is boxed: every turn's future holds this one, and
        // stays small.
        let rest = match self.exchange_on_thread(kind, turn, request) {
            Ok(Ok(exchanged)) => return Ok(exchanged),
            Ok(Err(fault)) => Err(fault),
            Err(sent) => Ok(sent),
        };
        Box::pin(self.finish_exchange(rest)).await
    }

    /// Starts the process if needed and sends the request, then takes its
    /// answer if it comes on this thread; otherwise the request as far as
    /// it went, for [`GameProgram::finish_exchange`].
    fn exchange_on_thread(
        &mut self,
        kind: GameRequestKind,
        turn: Option<u32>,
        request: impl FnOnce(u64) -> Vec<u8>,
    ) -> Result<Result<Exchanged, GameFault>, Sent> {
        if self.process.is_none() {
            let spawned = BotProcess::spawn(
                &self.command,
                GAME_LINE_LIMIT,
                self.settings.stderr_cap,
                PastCap::Dropped,
            );
            let mut process = match spawned {
                Ok(process) => process,
                Err(error) => {
                    let asked = GameRequest { kind, id: self.next_id, turn };
                    let cause = FaultCause::NotStarted(error.to_string());
                    return Ok(Err(self.fault(asked, &[], cause, None)));
                }
            };
            process.log_stderr_to(self.log.as_ref());
            // Its answers are awaited on the worker's thread.
            process.watch_exit();
            self.process = Some(process);
            self.next_id = 1;
        }
        let id = self.next_id;
        self.next_id += 1;
        let line = request(id);
        let started = Instant::now();
        let mut sent = Sent {
            asked: GameRequest { kind, id, turn },
            line,
            written: None,
            started,
            deadline: started + self.settings.timeout,
        };
        let process = self.process.as_mut().expect("started above");
        if let Err(written) = process.send_now(&sent.line) {
            sent.written = Some(written);
            return Err(sent);
        }
        let received = match process.line_on_thread(sent.deadline) {
            Some(received) => received.map(<[u8]>::to_vec),
            None => return Err(sent),
        };
        Ok(self.answered(sent, received))
    }

    /// Writes what is left of a request that [`GameProgram::exchange_on_thread`]
    /// began and waits for its answer through the reactor (`Ok`), or has
    /// a fault already (`Err`); stops the process after a fault.
    async fn finish_exchange(
        &mut self,
        rest: Result<Sent, GameFault>,
    ) -> Result<Exchanged, GameFault> {
        let result = match rest {
            Ok(sent) => self.finish_sent(sent).await,
            Err(fault) => Err(fault),
        };
        match result {
            Ok(exchanged) => Ok(exchanged),
            Err(fault) => {
                self.stop().await;
                Err(fault)
            }
        }
    }

    /// The rest of the way for a request begun on the thread: what the pipe
    /// did not take, then the answer (on the thread while it may come
    /// there); or, for a request sent whole whose answer the thread gave up
    /// on, the answer through the reactor.
    async fn finish_sent(&mut self, sent: Sent) -> Result<Exchanged, GameFault> {
        let process = self.process.as_mut().expect("started for the request");
        let received = match sent.written {
            Some(written) => match process.send_rest(&sent.line, written, sent.deadline).await {
                Ok(()) => process.receive_on_thread(sent.deadline).await,
                Err(failure) => Err(failure),
            },
            None => process.receive(sent.deadline).await,
        };
        let received = received.map(<[u8]>::to_vec);
        self.answered(sent, received)
    }

    /// What the request `sent` came to: its answer read, or the fault (as
    /// large as every exchange's, which the async callers return alike).
    #[allow(clippy::result_large_err)]
    fn answered(
        &mut self,
        sent: Sent,
        received: Result<Vec<u8>, Failure>,
    ) -> Result<Exchanged, GameFault> {
        let Sent { asked, line, started, .. } = sent;
        let took = started.elapsed();
        let limit = self.settings.timeout;
        let answer_line = match received {
            Ok(answer) => {
                // A game's answers count from its `init`.
                let before = if asked.kind == GameRequestKind::Init { 0 } else { self.answered };
                self.answered = before + answer.len() as u64;
                if self.answered > GAME_OUTPUT_LIMIT {
                    let cause = FaultCause::TooMuchOutput { limit: GAME_OUTPUT_LIMIT };
                    return Err(self.fault(asked, &line, cause, Some(&answer)));
                }
                answer
            }
            Err(failure) => {
                let process = self.process.as_ref().expect("started for the request");
                let partial = process.partial_line().to_vec();
                let bot_was = process.activity();
                let cause = match failure {
                    Failure::NoLine => FaultCause::Timeout {
                        limit,
                        stall: super::Stall::NoLine { partial_bytes: partial.len(), bot_was },
                    },
                    Failure::InputNotRead => {
                        FaultCause::Timeout { limit, stall: super::Stall::InputNotRead }
                    }
                    Failure::Crash(crash) => FaultCause::Crash(crash),
                    Failure::LineTooLong { limit } => FaultCause::LineTooLong { limit },
                };
                let partial = (!partial.is_empty()).then_some(partial);
                return Err(self.fault(asked, &line, cause, partial.as_deref()));
            }
        };
        match parse_answer(&answer_line, asked.kind, asked.id, self.moves) {
            Ok(Answer::Refuse(refusal)) if asked.kind == GameRequestKind::Apply => {
                Err(self.fault(asked, &line, FaultCause::Refused(refusal), Some(&answer_line)))
            }
            Ok(answer) => Ok(Exchanged {
                request: asked,
                request_line: line,
                answer,
                line: answer_line,
                took,
            }),
            Err(bad) => {
                Err(self.fault(asked, &line, FaultCause::BadAnswer(bad), Some(&answer_line)))
            }
        }
    }

    /// A fault of this program.
    fn fault(
        &self,
        request: GameRequest,
        request_line: &[u8],
        cause: FaultCause,
        answer: Option<&[u8]>,
    ) -> GameFault {
        GameFault {
            program: self.display(),
            request,
            cause,
            request_line: quote(request_line),
            answer: answer.map(quote),
            stderr_log: self.process.as_ref().and_then(BotProcess::stderr_log_file),
        }
    }

    /// Ends the process (input closed, a grace period, then killed). The
    /// next request starts a new one.
    pub async fn stop(&mut self) -> Option<Stopped> {
        let process = self.process.take()?;
        // Boxed: every turn's future may stop the program, and a process's
        // stop is a large future to hold there.
        Some(Box::pin(process.stop(self.settings.exit_grace)).await)
    }
}

/// A request or answer made printable and cut to a readable length.
pub fn quote(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let text = arena_base::printable::printable(&text);
    if text.chars().count() <= QUOTED_CHARS {
        return text.into_owned();
    }
    let kept: String = text.chars().take(QUOTED_CHARS).collect();
    format!("{kept}… ({} bytes in all)", line.len())
}
