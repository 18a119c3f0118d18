//! One running bot program: its pipes, its stderr log, its exit, and the
//! killing of its whole process group (or box). `command` is what starts
//! it, `start` starts it (in its sandbox or plain), `stderr_log` keeps
//! what it writes to stderr, `exit` is its end and what a crash left of
//! it, and `local` puts a player that runs inside arena behind the same
//! interface.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::deadline::Deadline;
use super::forfeit::{Activity, Ending};
use super::lines::{LineError, LineReader};
use super::{LogFile, reaper};
use arena_system::os::sandbox::BotSandbox;
use arena_system::os::sandbox::Handle;

mod alongside;
mod command;
mod exit;
mod job;
mod local;
mod start;
mod stderr_log;

pub(super) use alongside::start_alongside;
pub use command::{BotCommand, CommandError};
pub use exit::Failure;
use exit::{Ended, Exit, crash, let_stderr_drain, wait_for_exit};
pub use job::run_to_end;
pub use local::{LocalIo, LocalPlayer};
use start::Started;
pub use stderr_log::PastCap;
use stderr_log::StderrLog;

/// The referee's end of a bot's input.
type BotInput = Box<dyn AsyncWrite + Send + Unpin>;

/// A bot's input as the referee holds it: the writer, and for a program
/// the descriptor behind it, written to directly when a line fits the
/// pipe (a local player has none). Kept together, the descriptor is open
/// as long as its writer is.
struct Input {
    writer: BotInput,
    fd: Option<RawFd>,
}
/// The referee's end of a bot's output.
type BotOutput = Box<dyn AsyncRead + Send + Unpin>;

/// Most bytes of stderr read at once.
const STDERR_CHUNK: usize = 16 * 1024;

/// How long [`BotProcess::wait_on_thread`] looks for a line on the thread
/// before the reactor takes over.
#[derive(Clone, Copy)]
enum OnThread {
    /// A look, the CPU given up once, and another look.
    Glance,
    /// As long as only the line is to come, until the deadline (in `poll`,
    /// with the process's stderr and its end).
    Until(Instant),
}

/// What runs behind a bot's pipes.
enum Runner {
    /// A program: its pid, its stderr drain, and its sandbox with the
    /// handle that kills it (without one, its pid leads its process group).
    Program {
        pid: u32,
        stderr_log: Arc<Mutex<StderrLog>>,
        stderr_task: JoinHandle<()>,
        sandbox: Option<(Arc<BotSandbox>, Handle)>,
    },
    /// A local player, whose session is the [`Exit`] task.
    Local,
}

impl Runner {
    /// Kills a program and everything it started that is still with it
    /// (its box, or its process group); a local player has nothing to kill.
    fn kill(&self) {
        match self {
            Runner::Program { sandbox: Some((_, handle)), .. } => handle.kill(),
            Runner::Program { pid, sandbox: None, .. } => arena_system::os::kill_group(*pid),
            Runner::Local => {}
        }
    }

    /// Whether processes the program started may have left it, to be
    /// swept: never from a box.
    fn may_leave_orphans(&self) -> bool {
        match self {
            Runner::Program { sandbox: Some((_, handle)), .. } => handle.may_leave_orphans(),
            Runner::Program { sandbox: None, .. } => true,
            Runner::Local => false,
        }
    }
}

/// A running bot: a program in its own process group, or a local player.
pub struct BotProcess {
    runner: Runner,
    stdin: Option<Input>,
    /// Lines that need no answer, written together with the next request
    /// (or when the session ends): one write and one wake-up of the bot.
    pending: Vec<u8>,
    stdout: LineReader<BotOutput>,
    /// The descriptors behind `stdout` and behind stderr's drain, for a
    /// program (a local player has none). `stdout`'s stays open as long as
    /// the process value lives; stderr's closes when its drain reaches the
    /// end of stderr, after which its number, closed or reused, at worst
    /// sends [`BotProcess::receive_on_thread`] back to the reactor.
    output_fds: Option<[RawFd; 2]>,
    /// A pidfd of the process (or its box), readable once it has ended:
    /// opened by [`BotProcess::watch_exit`] for the processes whose
    /// answers are awaited on the thread.
    exit_fd: Option<OwnedFd>,
    exit: Exit,
    /// The deadline of the reply awaited; made at the first one.
    reply_deadline: Option<Deadline>,
    stopped: bool,
}

impl BotProcess {
    /// Starts `command` in its sandbox, or without one in a process group
    /// of its own, with piped stdin and stdout and stderr drained into a
    /// capped log.
    pub fn spawn(
        command: &BotCommand,
        max_line_bytes: usize,
        stderr_cap: u64,
        past_cap: PastCap,
    ) -> Result<BotProcess, CommandError> {
        let started = start::start(command)?;
        let Started {
            pid,
            stdin,
            stdout,
            mut stderr,
            fds: [input_fd, stdout_fd, stderr_fd],
            exit,
            sandbox,
        } = started;
        let stderr_log =
            Arc::new(Mutex::new(StderrLog::new(stderr_cap, past_cap, command.sandbox.is_some())));
        let sink = Arc::clone(&stderr_log);
        let stderr_task = tokio::spawn(async move {
            // Read into spare room: nothing to zero for a bot that is silent.
            let mut chunk = Vec::with_capacity(STDERR_CHUNK);
            loop {
                // At this game's cap the pipe is left unread until the
                // next game (see `StderrLog`).
                let full =
                    sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).wait_when_full();
                if let Some(resumed) = full {
                    resumed.notified().await;
                    continue;
                }
                match stderr.read_buf(&mut chunk).await {
                    Ok(1..) => {}
                    _ => break,
                }
                sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).write(&chunk);
                chunk.clear();
            }
        });

        let mut process = BotProcess::with(
            Runner::Program { pid, stderr_log, stderr_task, sandbox },
            Input { writer: stdin, fd: Some(input_fd) },
            LineReader::new(stdout, max_line_bytes),
            exit,
        );
        process.output_fds = Some([stdout_fd, stderr_fd]);
        Ok(process)
    }

    /// A session that has sent and received nothing yet.
    fn with(runner: Runner, stdin: Input, stdout: LineReader<BotOutput>, exit: Exit) -> BotProcess {
        BotProcess {
            runner,
            stdin: Some(stdin),
            pending: Vec::new(),
            stdout,
            output_fds: None,
            exit_fd: None,
            exit,
            reply_deadline: None,
            stopped: false,
        }
    }

    /// The program's pid; `None` for a local player.
    pub fn pid(&self) -> Option<u32> {
        match &self.runner {
            Runner::Program { pid, .. } => Some(*pid),
            Runner::Local => None,
        }
    }

    /// Sends the bot's stderr to `log` from now on (`None`: discard). A
    /// local player has no stderr.
    pub fn log_stderr_to(&self, log: Option<&LogFile>) {
        self.drain_stderr_now();
        if let Runner::Program { stderr_log, .. } = &self.runner {
            stderr_log
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .switch_to(log.cloned());
        }
    }

    /// Moves what the program has written to stderr so far into its log
    /// now, on this thread, instead of when its drain next runs: lines
    /// taken on the thread ([`BotProcess::receive_soon`]) can leave the
    /// reactor, and with it the drain, idle for many games, and what a
    /// program wrote in a game belongs in that game's log.
    fn drain_stderr_now(&self) {
        let (Runner::Program { stderr_log, stderr_task, .. }, Some([_, stderr_fd])) =
            (&self.runner, self.output_fds)
        else {
            return;
        };
        // A finished drain has closed the descriptor, whose number may be
        // another's by now. An unfinished one cannot finish meanwhile: it
        // runs on this thread.
        if stderr_task.is_finished() {
            return;
        }
        let mut chunk = Vec::new();
        loop {
            let room = stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).room();
            let most = (STDERR_CHUNK as u64).min(room) as usize;
            if most == 0 {
                break;
            }
            let Ok(1..) = arena_system::os::read_available(stderr_fd, &mut chunk, most) else {
                break;
            };
            stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).write(&chunk);
            chunk.clear();
        }
    }

    /// The stderr log file made for the current game, if the program wrote
    /// anything to stderr in it.
    pub fn stderr_log_file(&self) -> Option<std::path::PathBuf> {
        match &self.runner {
            Runner::Program { stderr_log, .. } => {
                stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).created.clone()
            }
            Runner::Local => None,
        }
    }

    /// Why stderr logging failed since the last call, if it did: a warning
    /// for the user (the game goes on without the log).
    pub fn take_log_warning(&mut self) -> Option<String> {
        match &self.runner {
            Runner::Program { stderr_log, .. } => {
                stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).lost.take()
            }
            Runner::Local => None,
        }
    }

    /// Queues a line that needs no answer (it must end in `\n`); it goes out
    /// with the next [`BotProcess::send`], or when the session ends.
    pub fn queue(&mut self, line: &[u8]) {
        self.pending.extend_from_slice(line);
    }

    /// Writes the queued lines and then `line` (which must end in `\n`)
    /// before `deadline`.
    pub async fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Failure> {
        match self.send_now(line) {
            Ok(()) => Ok(()),
            Err(written) => self.send_rest(line, written, deadline).await,
        }
    }

    /// Writes the queued lines and then `line` if the pipe takes them at
    /// once, as it mostly does: one `write` on a program's pipe, no timer
    /// armed and no future built. `Err` holds how many bytes went, for
    /// [`BotProcess::send_rest`] to write the rest (and to tell any failure,
    /// which shows again there).
    pub fn send_now(&mut self, line: &[u8]) -> Result<(), usize> {
        let Some(Input { writer: stdin, fd }) = &mut self.stdin else {
            return Err(0);
        };
        let bytes = if self.pending.is_empty() {
            line
        } else {
            self.pending.extend_from_slice(line);
            &self.pending
        };
        let written = match fd {
            Some(fd) => arena_system::os::write_available(*fd, bytes).unwrap_or(0),
            // A local player's in-memory pipe.
            None => {
                let mut context = Context::from_waker(Waker::noop());
                match Pin::new(&mut *stdin).poll_write(&mut context, bytes) {
                    Poll::Ready(Ok(count)) => count,
                    _ => 0,
                }
            }
        };
        if written < bytes.len() {
            return Err(written);
        }
        self.pending.clear();
        Ok(())
    }

    /// Writes what [`BotProcess::send_now`] left of the queued lines and
    /// `line`, `written` bytes of them gone already, before `deadline`.
    pub async fn send_rest(
        &mut self,
        line: &[u8],
        written: usize,
        deadline: Instant,
    ) -> Result<(), Failure> {
        let Some(Input { writer: stdin, .. }) = &mut self.stdin else {
            return Err(Failure::Crash(crash(&mut self.exit, &self.runner, Ending::ClosedInput)));
        };
        // `send_now` appended the line to any queued ones.
        let bytes = if self.pending.is_empty() { line } else { &self.pending };
        let result = tokio::time::timeout_at(deadline, stdin.write_all(&bytes[written..])).await;
        self.pending.clear();
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                wait_for_exit(&mut self.exit, deadline).await;
                let_stderr_drain(&self.runner).await;
                Err(Failure::Crash(crash(&mut self.exit, &self.runner, Ending::ClosedInput)))
            }
            Err(_) => Err(Failure::InputNotRead),
        }
    }

    /// Reads the next line before `deadline`.
    pub async fn receive(&mut self, deadline: Instant) -> Result<&[u8], Failure> {
        let exit = &mut self.exit;
        let reply_deadline = match &mut self.reply_deadline {
            Some(reply_deadline) => {
                reply_deadline.set(deadline);
                reply_deadline
            }
            empty => empty.insert(Deadline::new(deadline)),
        };
        let ending = tokio::select! {
            // A line already written wins over the news that the bot exited.
            biased;
            line = self.stdout.next_line() => match line {
                Ok(line) => return Ok(line),
                Err(LineError::TooLong { limit }) => return Err(Failure::LineTooLong { limit }),
                Err(LineError::Closed) => Ending::ClosedOutput,
                Err(LineError::Io(error)) => Ending::OutputUnreadable(error.to_string()),
            },
            _ = exit.wait() => Ending::Exited,
            () = std::future::poll_fn(|context| reply_deadline.poll_expired(context)) => {
                return Err(Failure::NoLine);
            }
        };
        // A closed output is more useful with the exit status, and the
        // last words on stderr.
        wait_for_exit(&mut self.exit, deadline).await;
        let_stderr_drain(&self.runner).await;
        Err(Failure::Crash(crash(&mut self.exit, &self.runner, ending)))
    }

    /// Lets [`BotProcess::receive_on_thread`] wait on the thread: it must
    /// see the process end, which the reactor would tell. Called on a
    /// program just started (not yet reaped, so its pid is its own); where
    /// no pidfd can be had (an old kernel), answers are awaited through the
    /// reactor.
    pub fn watch_exit(&mut self) {
        if let Runner::Program { pid, .. } = self.runner {
            self.exit_fd = arena_system::os::pidfd_of(pid).ok();
        }
    }

    /// Reads the next line before `deadline` as [`BotProcess::receive`]
    /// does, but waits for it on this thread, outside the async reactor,
    /// while only the line arrives: cheaper for each line, and for an
    /// answer nothing else on the thread needs to run meanwhile (other
    /// programs' stderr waits in its pipe). When the program writes to
    /// stderr, closes its output, runs out of time, or has no descriptors
    /// (a local player), the wait goes on through the reactor, which
    /// drains stderr and tells what happened.
    pub async fn receive_on_thread(&mut self, deadline: Instant) -> Result<&[u8], Failure> {
        if self.wait_on_thread(OnThread::Until(deadline)) {
            return self.buffered_line();
        }
        self.receive(deadline).await
    }

    /// The sync half of [`BotProcess::receive_on_thread`]: the line (or the
    /// line too long) once it has come on this thread, or `None` when the
    /// wait must go on through [`BotProcess::receive`].
    pub fn line_on_thread(&mut self, deadline: Instant) -> Option<Result<&[u8], Failure>> {
        self.wait_on_thread(OnThread::Until(deadline)).then(|| self.buffered_line())
    }

    /// The line [`BotProcess::wait_on_thread`] has just seen whole.
    fn buffered_line(&mut self) -> Result<&[u8], Failure> {
        match self.stdout.buffered_line() {
            Some(Ok(line)) => Ok(line),
            Some(Err(LineError::TooLong { limit })) => Err(Failure::LineTooLong { limit }),
            _ => unreachable!("a line is buffered: it was just seen"),
        }
    }

    /// Reads the next line before `deadline` as [`BotProcess::receive`]
    /// does, having first glanced for it on this thread: an instant bot's
    /// reply is mostly there once its request is written, or once arena has
    /// given up the CPU, and taking it so spares arena the reactor's
    /// `epoll_wait`, and its processes what sleeping in it costs
    /// (docs/performance.md). A bot that takes longer is awaited through
    /// the reactor, where the worker stays free to stop, and its stderr is
    /// drained.
    pub async fn receive_soon(&mut self, deadline: Instant) -> Result<&[u8], Failure> {
        // Lines taken on the thread pass tokio's cooperative budget by:
        // spent here, it still makes the worker yield now and then (to a
        // cancel, to other processes' stderr drains).
        tokio::task::consume_budget().await;
        if self.wait_on_thread(OnThread::Glance) {
            return self.buffered_line();
        }
        self.receive(deadline).await
    }

    /// Waits on this thread until a whole line (or a line too long) is in
    /// `stdout`'s buffer, then true; false as soon as anything else is to
    /// be seen to, or, for a glance, once a second look finds no line.
    fn wait_on_thread(&mut self, wait: OnThread) -> bool {
        let Some([stdout, stderr]) = self.output_fds else {
            return false;
        };
        let mut yielded = false;
        loop {
            if self.stdout.has_line() {
                return true;
            }
            match self
                .stdout
                .read_with(|buffer, most| arena_system::os::read_available(stdout, buffer, most))
            {
                Ok(1..) => continue,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                // Closed, or unreadable: the reactor's path says which.
                _ => return false,
            }
            // Not answered yet: usually the program was woken by the
            // request but not yet run, on this CPU. Giving it the CPU once
            // costs arena less than sleeping in `poll` and being woken
            // (docs/performance.md: 0.4 us a move in the median).
            if !yielded {
                yielded = true;
                std::thread::yield_now();
                continue;
            }
            let (OnThread::Until(deadline), Some(exit)) = (wait, &self.exit_fd) else {
                return false;
            };
            let left = deadline.saturating_duration_since(Instant::now());
            match arena_system::os::wait_readable([stdout, stderr, exit.as_raw_fd()], left) {
                Some([true, false, false]) => continue,
                _ => return false,
            }
        }
    }

    /// The bytes of an unfinished line, for error reports.
    pub fn partial_line(&self) -> &[u8] {
        self.stdout.partial_line()
    }

    /// What the bot's process is doing now, as far as the system tells:
    /// waiting to read its input (so any reply it wrote is stuck in its
    /// output buffer), or busy.
    pub fn activity(&self) -> Activity {
        if let Runner::Program { stderr_log, .. } = &self.runner {
            let log = stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if log.full() {
                return Activity::StderrFull { cap: log.cap() };
            }
        }
        let bot_pid = match &self.runner {
            Runner::Program { sandbox: Some((_, handle)), .. } => handle.bot_pid(),
            Runner::Program { pid, .. } => Some(*pid),
            Runner::Local => None,
        };
        match bot_pid.and_then(arena_system::os::reading_stdin) {
            Some(true) => Activity::WaitingForInput,
            Some(false) => Activity::Busy,
            None => Activity::Unknown,
        }
    }

    /// Ends the bot: closes its input and gives it `grace` to exit. Then a
    /// program's whole process group is killed and reaped; a local player's
    /// task is cancelled. Returns how the bot ended, and whether it exited
    /// by itself within the grace.
    pub async fn stop(mut self, grace: Duration) -> Stopped {
        self.stopped = true;
        if let Some(Input { writer, .. }) = &mut self.stdin
            && !self.pending.is_empty()
        {
            // The last `over`; a bot that does not read it gets no more.
            let _ = tokio::time::timeout(grace, writer.write_all(&self.pending)).await;
        }
        // End of input: a pipe closes when dropped, but a local player's
        // half of an in-memory pipe only when shut down (the other half
        // keeps it open).
        if let Some(Input { mut writer, .. }) = self.stdin.take() {
            let _ = tokio::time::timeout(grace, writer.shutdown()).await;
        }
        let exited_in_grace = tokio::time::timeout(grace, self.exit.wait()).await.is_ok();
        // Also when the bot exited by itself: its children may live on and
        // hold the pipes open.
        self.runner.kill();
        let leaves_orphans = self.runner.may_leave_orphans();
        match &mut self.runner {
            Runner::Program { stderr_task, stderr_log, .. } => {
                let (stderr_task, stderr_log) = (stderr_task, Arc::clone(stderr_log));
                self.exit.wait().await;
                // stderr ends once every writer is gone; one that escaped the
                // group is killed by the sweep, so do not wait for it here
                // (nor for a drain at its cap, which reads no more).
                let full =
                    stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).full();
                let unfinished = full
                    || tokio::time::timeout(Duration::from_millis(50), &mut *stderr_task)
                        .await
                        .is_err();
                if unfinished {
                    // What is in the pipe now is the bot's last words, which
                    // a loaded machine's drain may not have read yet.
                    self.drain_stderr_now();
                    if let Runner::Program { stderr_task, .. } = &self.runner {
                        stderr_task.abort();
                    }
                }
                if leaves_orphans {
                    reaper::request_sweep();
                }
                Stopped { exited_in_grace }
            }
            Runner::Local => {
                self.exit.task.abort();
                Stopped { exited_in_grace }
            }
        }
    }
}

/// How a bot ended when its session was stopped.
#[derive(Clone, Copy, Debug)]
pub struct Stopped {
    /// Whether it exited on its own once its input closed, within the grace.
    pub exited_in_grace: bool,
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // Dropped without `stop` (a cancelled game, a panic): still kill the
        // group, and the wait task reaps the leader; or end the local task.
        if !self.stopped {
            self.runner.kill();
            match &self.runner {
                Runner::Program { stderr_task, .. } => stderr_task.abort(),
                Runner::Local => self.exit.task.abort(),
            }
        }
    }
}
