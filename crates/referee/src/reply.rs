//! Reading a bot's reply to a request under its deadline, and the forfeit
//! that a reply refused, or none in time, makes.

use std::time::Duration;

use tokio::time::Instant;

use super::Forfeit;
use super::forfeit::{Activity, BankLeft, Notice, Request, Stall, Timeout};
use super::process::{BotProcess, Failure};
use arena_protocol::{Reply, parse_reply};

/// Longest offending line kept in a forfeit record.
const OFFENDING_LINE_CHARS: usize = 300;

/// The wait without a time limit: longer than any game or debugging
/// session, and short enough that no clock overflows.
const NO_LIMIT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The time a bot has for one reply.
#[derive(Clone, Copy)]
pub(super) struct TimeLimit {
    /// What the bot is told it has.
    pub(super) allowed: Duration,
    /// How long the referee waits: `allowed` and the leeway (`None`: no
    /// limit).
    pub(super) wait: Option<Duration>,
    /// When `allowed` is all that is left of a game clock's bank.
    pub(super) bank: Option<BankLeft>,
}

impl TimeLimit {
    /// The moment the referee stops waiting, counted from `from`.
    pub(super) fn deadline(&self, from: Instant) -> Instant {
        from + self.wait.unwrap_or(NO_LIMIT)
    }
}

/// What a reply answers, and the time the bot had for it.
#[derive(Clone, Copy)]
pub(super) struct Asked {
    pub(super) request: Request,
    pub(super) limit: TimeLimit,
}

/// Reads the reply asked for before `deadline`: the line as received and
/// when (if a line came), and the reply or the forfeit it makes. With
/// `stuck`, a `start` whose bot sits waiting for input that long is not
/// waited for further. `after` is the notice sent before the request, if
/// no line came since: a refused line may answer it.
pub(super) async fn read_reply<M: serde::de::DeserializeOwned>(
    process: &mut BotProcess,
    deadline: Instant,
    asked: Asked,
    stuck: Option<Duration>,
    after: Option<Notice>,
) -> (Option<(Vec<u8>, Instant)>, Result<Reply<M>, Forfeit>) {
    let request = asked.request;
    let accept = |line: &[u8]| {
        let received_at = Instant::now();
        let reply = parse_reply::<M>(line, request.answer, request.id)
            .map_err(|bad| Forfeit::refused(request, bad, cut(line), after));
        (Some((line.to_vec(), received_at)), reply)
    };
    let failure = match stuck.filter(|_| request.is_start() && process.pid().is_some()) {
        Some(stuck) => match receive_watching(process, deadline, stuck).await {
            Ok(line) => return accept(&line),
            Err(Watched::Failed(failure)) => failure,
            Err(Watched::Stuck(waited)) => {
                let partial = process.partial_line();
                let stall = Stall::Stuck { waited, partial_bytes: partial.len() };
                let timeout =
                    Timeout { allowed: asked.limit.allowed, bank: asked.limit.bank, stall };
                let line = (!partial.is_empty()).then(|| cut(partial));
                return (None, Err(Forfeit::timed_out(request, timeout, line)));
            }
        },
        None => match process.receive_soon(deadline).await {
            Ok(line) => return accept(line),
            Err(failure) => failure,
        },
    };
    let bot_was = process.activity();
    let forfeit = forfeit_from(failure, request, asked.limit, process.partial_line(), bot_was);
    (None, Err(forfeit))
}

/// How a watched wait for a reply ended without one.
enum Watched {
    Failed(Failure),
    /// The bot sat waiting for its input this long.
    Stuck(Duration),
}

/// Reads the next line before `deadline` as [`BotProcess::receive`] does,
/// looking every 25 ms at what the bot does meanwhile: once it has been
/// seen blocked reading its input at every look for at least `stuck`, it
/// has nothing left to do and its reply is stuck in its buffer. A bot that
/// wrote its reply and then went to read is seen only after the reply is in
/// the pipe, where the next look for a line finds it first. The line is
/// copied out, so the loop may borrow the process again.
async fn receive_watching(
    process: &mut BotProcess,
    deadline: Instant,
    stuck: Duration,
) -> Result<Vec<u8>, Watched> {
    const LOOK_EVERY: Duration = Duration::from_millis(25);
    let mut since = None;
    loop {
        let until = deadline.min(Instant::now() + LOOK_EVERY);
        match process.receive(until).await {
            Ok(line) => return Ok(line.to_vec()),
            Err(Failure::NoLine) if until < deadline => {}
            Err(failure) => return Err(Watched::Failed(failure)),
        }
        if process.activity() == Activity::WaitingForInput {
            let waited = since.get_or_insert_with(Instant::now).elapsed();
            if waited >= stuck {
                return Err(Watched::Stuck(waited));
            }
        } else {
            since = None;
        }
    }
}

/// The forfeit a failure to exchange with a bot makes: `limit` is the
/// time the bot had for `request`, `partial` what arrived of a reply
/// without its newline, `bot_was` what the bot was doing when it failed.
pub(super) fn forfeit_from(
    failure: Failure,
    request: Request,
    limit: TimeLimit,
    partial: &[u8],
    bot_was: Activity,
) -> Forfeit {
    let line = (!partial.is_empty()).then(|| cut(partial));
    let timeout = |stall| {
        let timeout = Timeout { allowed: limit.allowed, bank: limit.bank, stall };
        Forfeit::timed_out(request, timeout, line.clone())
    };
    match failure {
        Failure::NoLine => timeout(Stall::NoLine { partial_bytes: partial.len(), bot_was }),
        Failure::InputNotRead => timeout(Stall::InputNotRead),
        Failure::Crash(crash) => Forfeit::crashed(request, crash, line),
        Failure::LineTooLong { limit } => Forfeit::overlong(request, limit, line),
    }
}

/// A line cut to a readable length for reports.
pub(super) fn cut(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    if text.chars().count() <= OFFENDING_LINE_CHARS {
        return text.into_owned();
    }
    let kept: String = text.chars().take(OFFENDING_LINE_CHARS).collect();
    format!("{kept}… ({} bytes in all)", line.len())
}
