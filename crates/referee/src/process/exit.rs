//! A bot's end: the task that finishes when it does, its exit status and
//! the limit its box saw it reach, what a crash left of it, and the
//! failures a read or write with it comes to.

use std::future::Future;
use std::os::unix::process::ExitStatusExt;
use std::pin::Pin;
use std::process::ExitStatus;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Runner;
use crate::forfeit::{Crash, Ending, last_stderr_lines};
use arena_system::sandbox::{LimitReached, limit_hit};

/// Why a read or write with a bot failed; the referee makes it a forfeit,
/// adding the request and the time the bot had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The deadline passed before a complete line came.
    NoLine,
    /// The request could not be written before the deadline: the bot
    /// does not read its input.
    InputNotRead,
    /// The bot's process ended or closed a pipe.
    Crash(Crash),
    /// A line longer than `limit` bytes.
    LineTooLong {
        /// The line limit, in bytes without the newline.
        limit: usize,
    },
}

/// How a bot ended: its exit status, and a limit its box saw it reach.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ended {
    pub(super) status: ExitStatus,
    pub(super) reached: Option<LimitReached>,
}

impl Ended {
    pub(super) fn plain(status: ExitStatus) -> Ended {
        Ended { status, reached: None }
    }
}

/// The end of a bot: a task that finishes when the bot does (it reaps a
/// program, or it is a local player's session), and its end once known.
///
/// Awaiting the task itself, rather than a channel it fills, keeps the
/// check for an exit that races every reply cheap.
pub(super) struct Exit {
    pub(super) task: JoinHandle<Ended>,
    ended: Option<Ended>,
}

impl Exit {
    pub(super) fn new(task: JoinHandle<Ended>) -> Exit {
        Exit { task, ended: None }
    }

    /// Waits until the bot has ended. Cancel-safe.
    pub(super) async fn wait(&mut self) -> Ended {
        if let Some(ended) = self.ended {
            return ended;
        }
        // A task that failed or was cancelled stands for a plain exit.
        let ended =
            (&mut self.task).await.unwrap_or_else(|_| Ended::plain(ExitStatus::from_raw(0)));
        self.ended = Some(ended);
        ended
    }

    /// The end, if the bot has ended already.
    pub(super) fn now(&mut self) -> Option<Ended> {
        if self.ended.is_none() && self.task.is_finished() {
            let mut context = Context::from_waker(Waker::noop());
            if let Poll::Ready(result) = Pin::new(&mut self.task).poll(&mut context) {
                self.ended = Some(result.unwrap_or_else(|_| Ended::plain(ExitStatus::from_raw(0))));
            }
        }
        self.ended
    }
}

/// Gives the exit status of a bot whose pipe just closed a moment (at most
/// until `deadline`) to arrive: a pipe closes as its process exits, usually
/// before the status is collected, and the status says what happened. A
/// box's end takes longer than a process's (everything in it is killed and
/// reaped first), the more so on a loaded machine: it gets half a second.
pub(super) async fn wait_for_exit(exit: &mut Exit, deadline: Instant) {
    let moment = deadline.min(Instant::now() + Duration::from_millis(500));
    let _ = tokio::time::timeout_at(moment, exit.wait()).await;
}

/// What `ending` left of a bot: its exit status if it is known, the
/// sandbox limit it most likely ran into, if any, and the last lines it
/// wrote to stderr (often the error itself: a traceback's last frame,
/// "can't open file").
pub(super) fn crash(exit: &mut Exit, runner: &Runner, ending: Ending) -> Crash {
    let ended = exit.now();
    let status = ended.map(|ended| ended.status);
    let reached = ended.and_then(|ended| ended.reached);
    let mut crash =
        Crash { ending, status, limit: None, stderr_tail: Vec::new(), stack_trace_left_out: false };
    if let Runner::Program { stderr_log, sandbox, .. } = runner {
        let log = stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let signal = status.and_then(|status| status.signal());
        let reached = reached.or_else(|| signal.and_then(arena_system::os::limit_of_signal));
        crash.limit = sandbox
            .as_ref()
            .and_then(|(sandbox, _)| limit_hit(sandbox.limits(), reached, &log.tail.bytes));
        (crash.stderr_tail, crash.stack_trace_left_out) =
            last_stderr_lines(&log.tail.bytes, log.tail.cut);
    }
    crash
}

/// Gives the stderr drain of a bot that is gone a moment to read what the
/// bot wrote last, for [`crash`].
pub(super) async fn let_stderr_drain(runner: &Runner) {
    if let Runner::Program { stderr_task, stderr_log, .. } = runner {
        let until = Instant::now() + Duration::from_millis(50);
        let full = || stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).full();
        while !stderr_task.is_finished() && Instant::now() < until && !full() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}
