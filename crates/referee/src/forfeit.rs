//! Why a bot forfeited, as values: the request it failed, the limit that
//! applied, how its process ended and what it last wrote to stderr. The
//! detail in words that games.csv, transcripts and `over` carry is written
//! from these values here, in one place; `arena check` reads the values,
//! never the words.

use std::borrow::Cow;
use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use super::Forfeit;
use arena_base::printable::printable;
use arena_base::units::show_duration;
use arena_protocol::{BadReply, BadReplyKind, ForfeitReason, ReplyKind};

/// A request a bot was to answer: `start` or `move`, its id, and for a
/// move request the turn of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The answer it asks for: `Ready` for a `start`, `Move` for a `move`.
    pub answer: ReplyKind,
    /// The request's id.
    pub id: u64,
    /// The game's turn, counted from 1 (both seats of a Number Warriors
    /// turn share it); `None` for a `start`.
    pub turn: Option<u32>,
}

impl Request {
    /// The `start` request `id`.
    pub fn start(id: u64) -> Request {
        Request { answer: ReplyKind::Ready, id, turn: None }
    }

    /// The `move` request `id`, asked in `turn`.
    pub fn move_in_turn(id: u64, turn: u32) -> Request {
        Request { answer: ReplyKind::Move, id, turn: Some(turn) }
    }

    /// Whether this is a `start`.
    pub fn is_start(&self) -> bool {
        self.answer == ReplyKind::Ready
    }
}

impl fmt::Display for Request {
    /// "start request 1", "move request 7 (turn 4)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.is_start() { "start" } else { "move" };
        write!(f, "{name} request {}", self.id)?;
        match self.turn {
            Some(turn) => write!(f, " (turn {turn})"),
            None => Ok(()),
        }
    }
}

/// What went wrong, as values to match on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// No complete reply in time, or the request could not be written.
    Timeout(Timeout),
    /// The bot's process ended or closed a pipe.
    Crash(Crash),
    /// The reply line was refused, for this reason (a move of the wrong
    /// shape is among them, as [`BadReplyKind::NotAMove`]).
    BadReply(BadReplyKind),
    /// The reply line was refused for this reason, and it came first after
    /// a message that needs no answer: it answers that message.
    AnsweredNotice {
        /// The message that needs no answer.
        notice: Notice,
        /// Why the line was refused.
        kind: BadReplyKind,
    },
    /// In place of the `ready` to a game's `start`, the reply to the `move`
    /// request sent with it: the bot skipped the `start`.
    SkippedStart,
    /// A well-formed move that is not one of the legal moves.
    IllegalMove,
    /// A line longer than `limit` bytes.
    LineTooLong {
        /// The line limit, in bytes without the newline.
        limit: usize,
    },
    /// No game: the bot was withdrawn from the run before it.
    Withdrawn,
}

/// A message that needs no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The `over` that ends a game.
    Over,
    /// The `reveal` of a simultaneous turn.
    Reveal,
    /// One of a type bots do not know (`arena check`'s probe).
    Unknown,
}

impl Notice {
    /// Whether a refusal of `kind` is what an answer to a notice earns: a
    /// line that is a reply in form, but for no request (the wrong type or
    /// id). Stray output and a bad move to the right id are not.
    fn answered_by(kind: BadReplyKind) -> bool {
        matches!(
            kind,
            BadReplyKind::NoType
                | BadReplyKind::WrongType
                | BadReplyKind::NoId
                | BadReplyKind::IdNotANumber
                | BadReplyKind::WrongId
                | BadReplyKind::NoMove
        )
    }

    /// What the bot should have done, after the refusal's detail.
    fn explained(self, request: &Request) -> String {
        let (what, next) = match self {
            Notice::Over => ("the `over`", "the next game's `start`, or the end of input"),
            Notice::Reveal => ("the `reveal`", "the next request"),
            Notice::Unknown => ("the message of a type it does not know", "the next request"),
        };
        format!(
            "it answers {what} sent before {request}, which needs no answer: keep reading, the next line is {next} (protocol.md §2)"
        )
    }
}

/// A reply that did not come in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// The time the bot had for the request: the limit that applied.
    pub allowed: Duration,
    /// Set when `allowed` was all that was left of a game clock's bank.
    pub bank: Option<BankLeft>,
    /// Where the exchange stalled.
    pub stall: Stall,
}

/// A reply whose time was the rest of the bank: the bank the game began
/// with, and the game's move number the reply was for (both seats' moves
/// counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankLeft {
    /// The bank the game began with.
    pub bank: Duration,
    /// The game's move number the reply was for, counted from 1.
    pub move_number: usize,
}

/// Where a timed-out exchange stalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// The request went out; no complete line came back, and
    /// `partial_bytes` bytes arrived without a newline (more than 0: the
    /// reply is written but not ended or not flushed).
    NoLine {
        /// Bytes that arrived without a newline.
        partial_bytes: usize,
        /// What the process was doing when its time ran out.
        bot_was: Activity,
    },
    /// The request could not be written: the bot does not read its input.
    InputNotRead,
    /// Judged before the deadline ([`super::Settings::stuck_start_after`]):
    /// no complete line came back (`partial_bytes` arrived without a
    /// newline), and the bot sat waiting to read its input for `waited`,
    /// so its reply is stuck in its output buffer.
    Stuck {
        /// How long the bot sat waiting to read its input.
        waited: Duration,
        /// Bytes that arrived without a newline.
        partial_bytes: usize,
    },
}

impl Stall {
    /// Whether the answer was seen to be written but held back: part of a
    /// line arrived, or the process sat waiting to read its input. More
    /// time would not bring it; a flush would.
    pub fn output_stuck(&self) -> bool {
        match self {
            Stall::NoLine { partial_bytes, bot_was } => {
                *partial_bytes > 0 || *bot_was == Activity::WaitingForInput
            }
            Stall::Stuck { .. } => true,
            Stall::InputNotRead => false,
        }
    }
}

/// What a bot's process was doing when its time ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// Blocked reading its input: it had nothing left to do, so a reply
    /// it wrote is stuck in its output buffer.
    WaitingForInput,
    /// Computing, sleeping or in some other call: still at work.
    Busy,
    /// It had written this game's whole stderr cap (`cap` bytes), past
    /// which arena reads none of it: a write to stderr then waits.
    StderrFull {
        /// The stderr cap of one game, in bytes.
        cap: u64,
    },
    /// The system did not say (another platform, or the process is gone).
    Unknown,
}

/// How a bot's process came to an end in the middle of an exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    /// What the referee saw end first.
    pub ending: Ending,
    /// Its exit status (with the signal that killed it), once known.
    pub status: Option<ExitStatus>,
    /// The sandbox limit it most likely ran into.
    pub limit: Option<String>,
    /// The last lines it wrote to stderr, oldest first, each made
    /// printable and cut to [`STDERR_LINE_CHARS`]; at most
    /// [`STDERR_LINES_QUOTED`].
    pub stderr_tail: Vec<String>,
    /// Whether a stack trace after `stderr_tail` was left out.
    pub stack_trace_left_out: bool,
}

/// What the referee saw end first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// There was no process to send the request to.
    NotRunning,
    /// Its input closed: the request could not be written.
    ClosedInput,
    /// Its output closed before a complete reply.
    ClosedOutput,
    /// The process exited (or was killed) while its reply was awaited.
    Exited,
    /// Its output could not be read, for this reason.
    OutputUnreadable(String),
}

/// Lines of a crashed bot's stderr quoted in its forfeit: a traceback's
/// last frame and its error, typically.
pub const STDERR_LINES_QUOTED: usize = 3;

/// Longest stderr line quoted, in characters.
pub const STDERR_LINE_CHARS: usize = 200;

impl Timeout {
    /// The detail in words, e.g. "no reply to move request 7 (turn 4)
    /// within 200 ms; 12 bytes arrived without a newline: is your output
    /// buffered? (protocol.md §8)".
    fn detail(&self, request: &Request) -> String {
        let mut within = format!("within {} ms", self.allowed.as_millis());
        if let Some(BankLeft { bank, move_number }) = self.bank {
            within.push_str(&format!(
                ": the bank of {} used up on move {move_number}",
                show_duration(bank)
            ));
        }
        match self.stall {
            Stall::InputNotRead => {
                format!("{request} could not be written {within}: the bot does not read its input")
            }
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::WaitingForInput } => format!(
                "no reply to {request} {within}; nothing arrived, and the bot was waiting to read its input: its reply is stuck in its output buffer (flush after every line, protocol.md §8), or it skipped the request (each `start` and `move` needs one reply, protocol.md §2)"
            ),
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::Busy } => format!(
                "no reply to {request} {within}; nothing arrived, and the bot was still at work (not waiting for input): a slow bot"
            ),
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::StderrFull { cap } } => format!(
                "no reply to {request} {within}; nothing arrived, and the bot had written {} to stderr in this game, its cap: arena reads no more of it until the next game, so a bot that writes more waits (log less, or raise `stderr_cap`)",
                bytes(cap as usize)
            ),
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::Unknown } => format!(
                "no reply to {request} {within}; nothing arrived: a slow bot, or is your output buffered? (protocol.md §8)"
            ),
            Stall::NoLine { partial_bytes, .. } => format!(
                "no reply to {request} {within}; {} arrived without a newline: is your output buffered? (protocol.md §8)",
                bytes(partial_bytes)
            ),
            Stall::Stuck { waited, partial_bytes } => format!(
                "no reply to {request} (judged after {} ms of the {} ms allowed); {}, and the bot sat waiting to read its input all that time: its reply is stuck in its output buffer (flush after every line, protocol.md §8), or it skipped the request (each `start` and `move` needs one reply, protocol.md §2)",
                waited.as_millis(),
                self.allowed.as_millis(),
                match partial_bytes {
                    0 => "nothing arrived".to_owned(),
                    _ => format!("{} arrived without a newline", bytes(partial_bytes)),
                }
            ),
        }
    }
}

impl Crash {
    /// The detail in words: how it ended, instead of which request, the
    /// limit it ran into, and (if `quote_stderr`) its last stderr lines.
    pub fn detail(&self, request: &dyn fmt::Display, quote_stderr: bool) -> String {
        // A pipe closes because its process ended: the exit says more,
        // and which of the bot's pipes the referee saw close first is a race.
        let mut detail = match (&self.ending, self.status) {
            (Ending::NotRunning, _) => "was not running".to_owned(),
            (_, Some(status)) => exit_words(status),
            (Ending::Exited, None) => "exited".to_owned(),
            (Ending::ClosedInput, None) => "closed its input".to_owned(),
            (Ending::ClosedOutput, None) => "closed its output".to_owned(),
            (Ending::OutputUnreadable(error), None) => {
                format!("its output could not be read ({error})")
            }
        };
        detail.push_str(&format!(" instead of answering {request}"));
        if let Some(limit) = &self.limit {
            detail.push_str(&format!(": {limit}"));
        }
        if quote_stderr && !self.stderr_tail.is_empty() {
            let lines = self.stderr_tail.len();
            let before_trace = if self.stack_trace_left_out { " before a stack trace" } else { "" };
            detail.push_str(&match lines {
                1 => format!("; the last line it wrote to stderr{before_trace}: "),
                _ => format!("; the last {lines} lines it wrote to stderr{before_trace}: "),
            });
            detail.push_str(&self.stderr_tail.join("\n"));
        }
        detail
    }
}

/// "1 byte", "12 bytes".
fn bytes(count: usize) -> String {
    format!("{count} byte{}", if count == 1 { "" } else { "s" })
}

/// `detail` without the quote of what the bot wrote to stderr that a
/// crash's detail ends with (see `Crash::detail`); other details as they are.
pub fn without_stderr(detail: &str) -> &str {
    for quote in [" wrote to stderr: ", " wrote to stderr before a stack trace: "] {
        let Some(at) = detail.find(quote) else { continue };
        let before = &detail[..at];
        if let Some(start) = before.rfind("; the last ")
            && before[start..].ends_with(" it")
        {
            return &detail[..start];
        }
    }
    detail
}

/// "exited with status 3", "was killed by signal 9 (SIGKILL)".
fn exit_words(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => {
            format!("was killed by signal {signal} ({})", arena_system::os::signal_name(signal))
        }
        (None, None) => "exited".to_owned(),
    }
}

/// The last `STDERR_LINES_QUOTED` non-empty lines of `tail` (the end of
/// what a bot wrote to stderr) but those that only mark a column, trimmed,
/// cut and made printable. When
/// `cut_at_start`, the tail's first line may be the end of a longer one
/// and is left out, unless it is the only one.
///
/// A stack trace that follows its error's message (JavaScript, Java, Go)
/// is left out, so that the quoted lines end with the message rather than
/// with frames: Python puts its message last already. Returns the lines,
/// and whether a stack trace was left out.
pub fn last_stderr_lines(tail: &[u8], cut_at_start: bool) -> (Vec<String>, bool) {
    let text = String::from_utf8_lossy(tail);
    let mut lines: Vec<&str> = text.lines().collect();
    if cut_at_start && lines.len() > 1 {
        lines.remove(0);
    }
    let trace = trace_start(&lines);
    if let Some(trace) = trace {
        lines.truncate(trace);
    }
    // Column marks are left out only beside words: a stderr of nothing
    // else (`~~~~` separators) is still quoted, not called empty.
    let marks_only = lines.iter().all(|line| marks_a_column(line.trim()));
    let mut kept: Vec<String> = lines
        .into_iter()
        .rev()
        .map(str::trim)
        .filter(|line| !line.is_empty() && (marks_only || !marks_a_column(line)))
        .take(STDERR_LINES_QUOTED)
        .map(|line| {
            let cut: String = line.chars().take(STDERR_LINE_CHARS).collect();
            printable(&cut).into_owned()
        })
        .collect();
    kept.reverse();
    (kept, trace.is_some())
}

/// Whether `line` (trimmed) only points at a column of the line above it:
/// Node's `^` under the failing code, Python's `~~^^~~` (3.11 on). Quoted,
/// it would push out the line that says where: the file and line number.
fn marks_a_column(line: &str) -> bool {
    line.chars().all(|mark| matches!(mark, '^' | '~' | ' '))
}

/// Where the stack trace after an error's message begins in `lines`, when
/// a message comes before it: the first frame (`at f (file:line)` in
/// JavaScript, `at Class.method(File.java:12)` in Java; Node's error
/// properties and version line follow the frames), or Go's `goroutine N
/// [running]:`.
fn trace_start(lines: &[&str]) -> Option<usize> {
    let frame = |line: &str| {
        line.trim().strip_prefix("at ").is_some_and(|place| {
            place.contains(':')
                && (place.contains('(') || !place.trim_end_matches(" {").contains(' '))
        })
    };
    let go = |line: &str| line.starts_with("goroutine ") && line.ends_with("]:");
    let start = lines.iter().position(|line| frame(line) || go(line))?;
    // Frames alone (no message before them) are quoted as they are.
    lines[..start].iter().any(|line| !line.trim().is_empty()).then_some(start)
}

impl Forfeit {
    /// A reply that did not come in time.
    pub(super) fn timed_out(request: Request, timeout: Timeout, line: Option<String>) -> Forfeit {
        Forfeit {
            reason: ForfeitReason::Timeout,
            detail: timeout.detail(&request),
            line,
            request,
            cause: Cause::Timeout(timeout),
        }
    }

    /// A bot whose process ended or closed a pipe.
    pub(super) fn crashed(request: Request, crash: Crash, line: Option<String>) -> Forfeit {
        Forfeit {
            reason: ForfeitReason::Crash,
            detail: crash.detail(&request, true),
            line,
            request,
            cause: Cause::Crash(crash),
        }
    }

    /// A reply line refused by the parser. `after` is the message that
    /// needs no answer the bot was sent last before `request`, if no line
    /// came from it since: a line that could answer it is named so.
    pub(super) fn refused(
        request: Request,
        bad: BadReply,
        line: String,
        after: Option<Notice>,
    ) -> Forfeit {
        match after.filter(|_| Notice::answered_by(bad.kind)) {
            Some(notice) => Forfeit {
                reason: bad.kind.forfeit_reason(),
                detail: format!("{}: {}", bad.detail, notice.explained(&request)),
                line: Some(line),
                request,
                cause: Cause::AnsweredNotice { notice, kind: bad.kind },
            },
            None => Forfeit {
                reason: bad.kind.forfeit_reason(),
                detail: bad.detail,
                line: Some(line),
                request,
                cause: Cause::BadReply(bad.kind),
            },
        }
    }

    /// The reply to `answered`, the request sent with the `start`
    /// `request`, read where the `ready` was due.
    pub(super) fn skipped_start(
        request: Request,
        answered: Request,
        line: Option<String>,
    ) -> Forfeit {
        Forfeit {
            reason: BadReplyKind::WrongType.forfeit_reason(),
            detail: format!(
                "expected a `ready` reply to {request}, got the reply to {answered}, sent after it: the bot skipped the `start` (every game begins with one, also after the first, and its `ready` comes before the first move; protocol.md §2)"
            ),
            line,
            request,
            cause: Cause::SkippedStart,
        }
    }

    /// A well-formed move, `shown` as JSON, that is not legal.
    pub(super) fn illegal(request: Request, shown: &str, line: Option<String>) -> Forfeit {
        Forfeit {
            reason: ForfeitReason::IllegalMove,
            detail: format!("{shown} is not one of the legal moves"),
            line,
            request,
            cause: Cause::IllegalMove,
        }
    }

    /// A line longer than `limit` bytes.
    pub(super) fn overlong(request: Request, limit: usize, line: Option<String>) -> Forfeit {
        Forfeit {
            reason: ForfeitReason::LineTooLong,
            detail: format!("sent a line longer than {limit} bytes in reply to {request}"),
            line,
            request,
            cause: Cause::LineTooLong { limit },
        }
    }

    /// A game not played: the bot was withdrawn from the run, as `detail`
    /// says.
    pub fn withdrawn(detail: String) -> Forfeit {
        Forfeit {
            reason: ForfeitReason::Withdrawn,
            detail,
            line: None,
            request: Request::start(0),
            cause: Cause::Withdrawn,
        }
    }

    /// The detail as the bots are told it in `over`: what a crashed bot
    /// wrote to stderr stays out of it (stderr is never shown to the
    /// opponent; games.csv and the transcript quote it).
    pub fn detail_for_bots(&self) -> Cow<'_, str> {
        match &self.cause {
            Cause::Crash(crash) if !crash.stderr_tail.is_empty() => {
                Cow::Owned(printable(&crash.detail(&self.request, false)).into_owned())
            }
            _ => Cow::Borrowed(&self.detail),
        }
    }
}

#[cfg(test)]
mod tests;
