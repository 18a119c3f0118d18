//! Starting a bot's program: in its sandbox, or plain in a process group
//! of its own; either way the OS layer clones it and its exit is awaited
//! through its pidfd.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Arc;

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest};
use tokio::net::unix::pipe;

use super::super::reaper;
use super::{BotCommand, BotInput, BotOutput, CommandError, Ended, Exit, RawFd};
use arena_system::os::sandbox::BotSandbox;
use arena_system::os::sandbox::{Handle, ProcessEnd, Spawned, StartError};
use arena_system::sandbox::SandboxError;

/// A program just started: its pid, pipes, the task that waits for its
/// exit, and its sandbox.
pub(super) struct Started {
    pub(super) pid: u32,
    pub(super) stdin: BotInput,
    pub(super) stdout: BotOutput,
    pub(super) stderr: BotOutput,
    /// The descriptors of `stdin`, `stdout` and `stderr`.
    pub(super) fds: [RawFd; 3],
    pub(super) exit: Exit,
    pub(super) sandbox: Option<(Arc<BotSandbox>, Handle)>,
}

impl Started {
    fn new<Input, Output, Errors>(
        pid: u32,
        (stdin, stdout, stderr): (Input, Output, Errors),
        exit: Exit,
        sandbox: Option<(Arc<BotSandbox>, Handle)>,
    ) -> Started
    where
        Input: AsyncWrite + AsRawFd + Send + Unpin + 'static,
        Output: AsyncRead + AsRawFd + Send + Unpin + 'static,
        Errors: AsyncRead + AsRawFd + Send + Unpin + 'static,
    {
        Started {
            pid,
            fds: [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()],
            stdin: Box::new(stdin),
            stdout: Box::new(stdout),
            stderr: Box::new(stderr),
            exit,
            sandbox,
        }
    }
}

/// Starts `command`: in its sandbox, or else plain. Registered with the
/// reaper before a sweep may look: it must never take the new program for
/// an escaped process.
pub(super) fn start(command: &BotCommand) -> Result<Started, CommandError> {
    let spawning = reaper::Spawning::start();
    let started = match &command.sandbox {
        Some(sandbox) => start_sandboxed(command, sandbox)?,
        None => start_plain(command)?,
    };
    spawning.register(started.pid);
    Ok(started)
}

/// Starts `command` without a sandbox, in a process group of its own.
fn start_plain(command: &BotCommand) -> Result<Started, CommandError> {
    let spawned = arena_system::os::spawn_plain(
        command.program.as_deref(),
        &command.argv,
        command.dir.as_deref(),
        &command.env,
    )
    .map_err(|error| CommandError::Spawn { command: command.display(), error })?;
    watched(command, spawned, PlainEnd, None)
}

/// Starts `command` in `sandbox`, its exit watched through a pidfd.
fn start_sandboxed(
    command: &BotCommand,
    sandbox: &Arc<BotSandbox>,
) -> Result<Started, CommandError> {
    let started = sandbox
        .start(command.program.as_deref(), &command.argv, command.dir.as_deref(), &command.env)
        .map_err(|error| match error {
            StartError::Exec(source) => {
                CommandError::Spawn { command: command.display(), error: source }
            }
            StartError::Sandbox(source) => {
                CommandError::Sandbox { command: command.display(), error: source }
            }
            StartError::Box { doing, error } => CommandError::Sandbox {
                command: command.display(),
                error: SandboxError::Setup(format!("{doing}: {error}")),
            },
        })?;
    let arena_system::os::sandbox::Started { spawned, handle, ending } = started;
    let sandbox = Some((Arc::clone(sandbox), handle));
    watched(command, spawned, ending, sandbox)
}

/// How a started program's end is read: what becomes readable when it may
/// be, and the end made from it.
trait EndWatch: Send + 'static {
    /// What becomes readable when the end may be read, given the
    /// program's pidfd.
    fn signal(&self, pidfd: &OwnedFd) -> std::io::Result<OwnedFd>;
    /// The status once the program has ended (`None` while it runs,
    /// unless `block`).
    fn poll(&mut self, signal: &OwnedFd, block: bool) -> std::io::Result<Option<ExitStatus>>;
    fn ended(self, status: ExitStatus) -> Ended;
}

/// A program without a sandbox: its own pidfd.
struct PlainEnd;

impl EndWatch for PlainEnd {
    fn signal(&self, pidfd: &OwnedFd) -> std::io::Result<OwnedFd> {
        pidfd.try_clone()
    }

    fn poll(&mut self, signal: &OwnedFd, block: bool) -> std::io::Result<Option<ExitStatus>> {
        arena_system::os::sandbox::wait_exited(signal, block)
    }

    fn ended(self, status: ExitStatus) -> Ended {
        Ended::plain(status)
    }
}

impl EndWatch for ProcessEnd {
    fn signal(&self, pidfd: &OwnedFd) -> std::io::Result<OwnedFd> {
        ProcessEnd::signal(self, pidfd)
    }

    fn poll(&mut self, signal: &OwnedFd, block: bool) -> std::io::Result<Option<ExitStatus>> {
        ProcessEnd::poll(self, signal, block)
    }

    fn ended(self, status: ExitStatus) -> Ended {
        let (status, reached) = self.finish(status);
        Ended { status, reached }
    }
}

/// A program just spawned, its pipes made async and its end awaited by a
/// task that makes the [`Ended`] with `end`.
fn watched(
    command: &BotCommand,
    spawned: Spawned,
    mut end: impl EndWatch,
    sandbox: Option<(Arc<BotSandbox>, Handle)>,
) -> Result<Started, CommandError> {
    let pid = spawned.pid;
    let spawn_error = |source| CommandError::Spawn { command: command.display(), error: source };
    let Spawned { stdin, stdout, stderr, pidfd, .. } = spawned;
    // Past this point a failure kills and reaps the process it started.
    let abandon = |pidfd: &std::os::fd::OwnedFd, error| {
        match &sandbox {
            Some((_, handle)) => handle.kill(),
            None => arena_system::os::kill_group(pid),
        }
        let _ = arena_system::os::sandbox::wait_exited(pidfd, true);
        spawn_error(error)
    };
    let pipes = (|| {
        Ok::<_, std::io::Error>((
            pipe::Sender::from_owned_fd(stdin)?,
            pipe::Receiver::from_owned_fd(stdout)?,
            pipe::Receiver::from_owned_fd(stderr)?,
        ))
    })();
    let (stdin, stdout, stderr) = match pipes {
        Ok(pipes) => pipes,
        Err(error) => return Err(abandon(&pidfd, error)),
    };
    let signal = match end.signal(&pidfd) {
        Ok(signal) => signal,
        Err(error) => return Err(abandon(&pidfd, error)),
    };
    // SAFETY: an OwnedFd keeps its descriptor open and the same until it is
    // dropped, with the AsyncFd.
    let signal = match unsafe { AsyncFd::register_with_interest(signal, Interest::READABLE) } {
        Ok(signal) => signal,
        Err(error) => return Err(abandon(&pidfd, error.into_parts().1)),
    };
    drop(pidfd);
    let exit = Exit::new(tokio::spawn(async move {
        let status = loop {
            let Ok(mut ready) = signal.readable().await else {
                break end.poll(signal.get_ref(), true).ok().flatten();
            };
            match end.poll(signal.get_ref(), false) {
                Ok(None) => ready.clear_ready(),
                Ok(Some(status)) => break Some(status),
                Err(_) => break None,
            }
        };
        drop(signal);
        reaper::unregister(pid);
        // Waiting only fails if the process was already reaped elsewhere:
        // a plain exit.
        end.ended(status.unwrap_or_else(|| ExitStatus::from_raw(0)))
    }));
    Ok(Started::new(pid, (stdin, stdout, stderr), exit, sandbox))
}
