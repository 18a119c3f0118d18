//! One step's exchanges with the bots: the requests written, the replies
//! read (by `reply`) under their deadlines, and what each came to (a
//! reply, or the forfeit that stands for it).

use std::time::Duration;

use tokio::time::Instant;

use super::forfeit::{Activity, Crash, Ending, Request};
use super::reply::{Asked, TimeLimit, forfeit_from, read_reply};
use super::{Bot, Forfeit};
use arena_games::Seat;
use arena_protocol::Reply;

/// One seat's part of an exchange: the request to send, and where it got to.
pub(super) struct Exchange<M> {
    pub(super) seat: Seat,
    /// What the request is (its kind, id and turn).
    pub(super) asked: Request,
    pub(super) request: Vec<u8>,
    /// The time for the reply.
    pub(super) limit: TimeLimit,
    /// This game's `start`, when it goes out just before the request; its
    /// `ready` is then read before the reply.
    pub(super) start: Option<Start>,
    pub(super) phase: Phase<M>,
}

/// Where an exchange is. It only moves forward: `Unsent`, then `Sent` and
/// `Answered`, or `Undelivered` when the request could not go out.
pub(super) enum Phase<M> {
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
pub(super) struct Answer<M> {
    pub(super) sent_at: Instant,
    /// The `ready` to a `start` sent with the request: the line as
    /// received, when, and the name it gave. The reply's clock starts at it.
    pub(super) ready: Option<(Vec<u8>, Instant, arena_protocol::Ready)>,
    /// The reply line as received, and when; none if no line came.
    pub(super) received: Option<(Vec<u8>, Instant)>,
    pub(super) reply: Result<Reply<M>, Forfeit>,
    /// Whether the first line read was accepted right after a message that
    /// needs no answer: evidence that the bot did not answer it.
    pub(super) notice_passed: bool,
}

/// A `start` line and its id.
pub(super) struct Start {
    pub(super) id: u64,
    pub(super) line: Vec<u8>,
}

impl<M> Exchange<M> {
    pub(super) fn new(
        seat: Seat,
        asked: Request,
        request: Vec<u8>,
        limit: TimeLimit,
    ) -> Exchange<M> {
        Exchange { seat, asked, request, limit, start: None, phase: Phase::Unsent }
    }

    /// The request a failure to deliver belongs to: the `start` that goes
    /// out first, if there is one.
    pub(super) fn first_request(&self) -> Request {
        self.start.as_ref().map_or(self.asked, |start| Request::start(start.id))
    }

    /// When the request went out, if it did.
    pub(super) fn sent_at(&self) -> Option<Instant> {
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
    pub(super) fn think_time(&self) -> Duration {
        let clock_from = self.ready.as_ref().map_or(self.sent_at, |(_, at, _)| *at);
        self.received.as_ref().map_or(Duration::ZERO, |(_, at)| at.duration_since(clock_from))
    }
}

/// Whether `line` is a well-formed reply to `request`.
fn answers<M: serde::de::DeserializeOwned>(line: &[u8], request: Request) -> bool {
    arena_protocol::parse_reply::<M>(trim_newline(line), request.answer, request.id).is_ok()
}

pub(super) fn trim_newline(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// Writes one exchange's request, recording when it went out or the failure.
pub(super) async fn send<M>(bot: &mut Bot, exchange: &mut Option<Exchange<M>>) {
    let Some(exchange) = exchange else { return };
    let Some(process) = bot.process() else {
        let crash = Crash {
            ending: Ending::NotRunning,
            status: None,
            limit: None,
            stderr_tail: Vec::new(),
            stack_trace_left_out: false,
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
/// [`Settings::stuck_start_after`](super::Settings::stuck_start_after) says.
pub(super) async fn receive<M: serde::de::DeserializeOwned>(
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
            (Some((line, received_at)), Ok(Reply::Ready(ready_reply))) => {
                ready = Some((line, received_at, ready_reply));
            }
            (received, reply) => {
                let reply = reply.map_err(|forfeit| match &received {
                    Some((line, _)) if answers::<M>(line, exchange.asked) => {
                        Forfeit::skipped_start(forfeit.request, exchange.asked, forfeit.line)
                    }
                    _ => forfeit,
                });
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
