//! A game program's fault: what it failed to answer, how, and what it sent.
//! A fault voids the game it happened in and is never charged to a bot.

use std::fmt;
use std::time::Duration;

use crate::forfeit::{Activity, Crash, Stall};
use arena_protocol::game::{BadAnswer, GameRequestKind, Refusal};

/// A request to a game program: its kind, its id, and for `apply` the
/// turn it plays (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRequest {
    /// The request: `hello`, `init` or `apply`.
    pub kind: GameRequestKind,
    /// The request's id.
    pub id: u64,
    /// For `apply`, the turn it plays (from 1).
    pub turn: Option<u32>,
}

impl fmt::Display for GameRequest {
    /// "init request 2", "apply request 9 (turn 7)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} request {}", self.kind.as_str(), self.id)?;
        match self.turn {
            Some(turn) => write!(f, " (turn {turn})"),
            None => Ok(()),
        }
    }
}

/// What went wrong, as values.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultCause {
    /// The program could not be started at all.
    NotStarted(String),
    /// No answer in time, or the request could not be written.
    Timeout {
        /// The time the program had for its answer.
        limit: Duration,
        /// Where the exchange stalled.
        stall: Stall,
    },
    /// The program ended or closed a pipe.
    Crash(Crash),
    /// A line longer than `limit` bytes.
    LineTooLong {
        /// The line limit, in bytes without the newline.
        limit: usize,
    },
    /// An answer that is not one: its kind says why.
    BadAnswer(BadAnswer),
    /// `init` refused parameters arena had checked against the game's own
    /// declaration, or `apply` was answered with a refusal.
    Refused(Refusal),
    /// The game went on past the turns it declared.
    TooLong {
        /// The most turns the game declared.
        max_turns: u32,
    },
    /// The answers of one game came to more than `limit` bytes.
    TooMuchOutput {
        /// The most bytes the answers of one game may come to.
        limit: u64,
    },
    /// The same moves from the same setup got another answer than in an
    /// earlier game.
    Inconsistent {
        /// The first field that differed, as the protocol names it.
        field: &'static str,
    },
}

/// A game program that failed a request.
#[derive(Clone, Debug, PartialEq)]
pub struct GameFault {
    /// The program, as a user would type its command.
    pub program: String,
    /// The request it failed.
    pub request: GameRequest,
    /// What went wrong.
    pub cause: FaultCause,
    /// The request as sent, cut for reports.
    pub request_line: String,
    /// The answer (or the part of one) that arrived, cut for reports.
    pub answer: Option<String>,
    /// The log of what the program wrote to stderr in this game, if it
    /// wrote anything.
    pub stderr_log: Option<std::path::PathBuf>,
}

impl fmt::Display for FaultCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultCause::NotStarted(why) => write!(f, "could not be started: {why}"),
            FaultCause::Timeout { limit, stall } => {
                let within = format!("within {} ms", limit.as_millis());
                match stall {
                    Stall::InputNotRead => {
                        write!(f, "did not read its input {within}")
                    }
                    Stall::NoLine { partial_bytes: 0, bot_was: Activity::WaitingForInput } => {
                        write!(
                            f,
                            "did not answer {within}; nothing arrived, and the program was waiting to read its input: its answer is stuck in its output buffer (flush after every line, game-protocol.md section 1), or it skipped the request (every request needs one answer)"
                        )
                    }
                    Stall::NoLine { partial_bytes: 0, .. } => {
                        write!(f, "did not answer {within}")
                    }
                    Stall::NoLine { partial_bytes, .. } => write!(
                        f,
                        "did not answer {within} ({partial_bytes} bytes came without a newline: end every answer with a newline and flush after it)"
                    ),
                    // Judged of bots only; said plainly if it ever is.
                    Stall::Stuck { .. } => {
                        write!(f, "sat waiting for its input without answering {within}")
                    }
                }
            }
            // Written with its request by `GameFault`'s own words.
            FaultCause::Crash(crash) => f.write_str(&crash.detail(&"a request", true)),
            FaultCause::LineTooLong { limit } => {
                write!(f, "answered with a line longer than {limit} bytes")
            }
            FaultCause::BadAnswer(bad) => write!(f, "answered wrongly: {}", bad.detail),
            FaultCause::Refused(refusal) => write!(f, "refused: {refusal}"),
            FaultCause::TooLong { max_turns } => {
                write!(f, "went on past the {max_turns} turns it declares as its most")
            }
            FaultCause::TooMuchOutput { limit } => write!(
                f,
                "answered with more than {} MiB in one game, the most arena keeps of a game until it ends",
                limit >> 20
            ),
            FaultCause::Inconsistent { field } => write!(
                f,
                "answered the same moves from the same setup differently than in an earlier game (`{field}` differs): the game is not deterministic (set everything up again in `init`, keeping nothing from an earlier game, and draw only from a generator seeded by `init`'s seed, never Math.random, Python's hash() of a str or the time; `arena check-game` shows where two answers differ)"
            ),
        }
    }
}

impl fmt::Display for GameFault {
    /// "the game program `python3 game.py` did not answer within 5000 ms
    /// (apply request 9 (turn 7))".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the game program `{}` {}", self.program, self.what())
    }
}

impl GameFault {
    /// Whether the program ran out of its time for an answer.
    pub fn timed_out(&self) -> bool {
        matches!(self.cause, FaultCause::Timeout { .. })
    }

    /// Whether more time might have brought the answer: it ran out of time
    /// at work, not with its answer stuck in its output buffer (part of a
    /// line arrived, or it sat waiting for its input).
    pub fn may_need_more_time(&self) -> bool {
        matches!(&self.cause, FaultCause::Timeout { stall, .. } if !stall.output_stuck())
    }

    /// What the program did, with the request: "did not answer within
    /// 5000 ms (apply request 9 (turn 7))".
    pub fn what(&self) -> String {
        match &self.cause {
            FaultCause::Crash(crash) => crash.detail(&self.request, true),
            cause => format!("{cause} ({})", self.request),
        }
    }

    /// The fault in words with the request and the answer quoted, for
    /// logs and `arena check-game`.
    pub fn detail(&self) -> String {
        let mut detail = format!("{self}; request: {}", self.request_line);
        if let Some(answer) = &self.answer {
            detail.push_str(&format!("; answer: {answer}"));
        }
        detail
    }
}
