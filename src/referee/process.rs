//! One running bot program: its pipes, its stderr log, its exit, and the
//! killing of its whole process group.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::process::Command;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::deadline::Deadline;
use super::forfeit::{Activity, Crash, Ending, last_stderr_lines};
use super::lines::{LineError, LineReader};
use super::{LogPath, reaper};
use crate::os::sandbox::{Handle, StartError};
use crate::sandbox::{BotSandbox, CommandFiles, LimitReached, Sandbox, SandboxError, limit_hit};

/// How to start a bot.
#[derive(Clone, Debug)]
pub struct BotCommand {
    /// Program and arguments; no shell is involved.
    pub argv: Vec<String>,
    /// Working directory; the arena's own when `None`.
    pub dir: Option<PathBuf>,
    /// Variables added to the environment: to the sandbox's allowed few,
    /// or to the arena's own when there is no sandbox.
    pub env: Vec<(String, String)>,
    /// The sandbox its processes start in; `None` runs them as they are.
    pub sandbox: Option<Arc<BotSandbox>>,
}

impl BotCommand {
    /// Splits a command line the way a POSIX shell would split words
    /// (quotes and backslashes), without running a shell.
    pub fn parse(command_line: &str) -> Result<BotCommand, CommandError> {
        let argv = shell_words::split(command_line).map_err(|error| CommandError::Split {
            command: command_line.to_owned(),
            message: error.to_string(),
        })?;
        BotCommand::from_argv(argv)
    }

    pub fn from_argv(argv: Vec<String>) -> Result<BotCommand, CommandError> {
        if argv.first().is_none_or(|program| program.is_empty()) {
            return Err(CommandError::Empty);
        }
        Ok(BotCommand { argv, dir: None, env: Vec::new(), sandbox: None })
    }

    /// Checks that a bot's program can be found and run, so a typo is reported
    /// before any game starts instead of as a forfeit.
    pub fn check_program(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let program = Path::new(&self.argv[0]);
        let executable = |path: &Path| {
            path.metadata()
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        };
        if program.components().count() > 1 {
            let path = self.in_dir(program);
            return match path.metadata() {
                Err(_) => Err(format!(
                    "program `{}` does not exist{}",
                    path.display(),
                    Self::looked_from(&path)
                )),
                Ok(_) if !executable(&path) => Err(format!(
                    "program `{}` is not an executable file (a script needs `chmod +x` and a #! line, or name its interpreter first)",
                    path.display()
                )),
                Ok(_) if !runnable_format(&path) => Err(format!(
                    "program `{}` is neither a compiled program nor a script with a #! line (add one, such as `#!/usr/bin/env python3`, or name its interpreter first: `python3 {}`)",
                    path.display(),
                    self.argv[0]
                )),
                Ok(_) => missing_interpreter(&path).map_or(Ok(()), Err),
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        match std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|path| executable(path))
        {
            Some(found) => missing_interpreter(&found).map_or(Ok(()), Err),
            None => Err(format!("program `{}` was not found in PATH", program.display())),
        }
    }

    /// Puts each of `commands` in `sandbox`, each bot's files set apart
    /// from the others' (no bot may read another's program or script).
    pub fn sandbox_all(
        commands: &mut [BotCommand],
        sandbox: &Arc<Sandbox>,
    ) -> Result<(), SandboxError> {
        let here = std::env::current_dir().unwrap_or_default();
        let files: Vec<CommandFiles> = commands
            .iter()
            .map(|command| {
                Sandbox::command_files(&command.argv, command.dir.as_deref().unwrap_or(&here))
            })
            .collect();
        for (index, command) in commands.iter_mut().enumerate() {
            let others: Vec<CommandFiles> = files
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .map(|(_, files)| files.clone())
                .collect();
            command.sandbox = Some(sandbox.for_bot(&command.display(), &files[index], &others)?);
        }
        Ok(())
    }

    /// Where a path the command names lies: as typed (relative to arena's
    /// working directory) without a `dir`, else in `dir`, without the
    /// `./` that would show as `dir/./bot` in messages.
    pub(super) fn in_dir(&self, file: &Path) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(file.strip_prefix(".").unwrap_or(file)),
            None => file.to_owned(),
        }
    }

    /// Where a relative `path` was looked for, for a message saying it is
    /// missing: " (from /home/me/league)"; nothing for an absolute one.
    pub(super) fn looked_from(path: &Path) -> String {
        match std::env::current_dir() {
            Ok(here) if path.is_relative() => format!(" (from {})", here.display()),
            _ => String::new(),
        }
    }

    /// The command as a user would type it, for messages.
    pub fn display(&self) -> String {
        shell_words::join(&self.argv)
    }
}

/// What is wrong with the interpreter `script`'s #! line names, if it
/// names one that is not there (the kernel's error would blame the script).
fn missing_interpreter(script: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let count = std::fs::File::open(script).and_then(|mut file| file.read(&mut head)).ok()?;
    let line = head[..count].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&byte| byte == b'\n').unwrap_or(line.len())];
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_ascii_whitespace();
    let interpreter = words.next()?;
    let runs = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if !runs(Path::new(interpreter)) {
        return Some(format!(
            "program `{}` names the interpreter `{interpreter}` in its #! line, and there is no such program (install it, or correct the #! line)",
            script.display()
        ));
    }
    // `#!/usr/bin/env python3` finds its program in PATH.
    let name =
        words.find(|word| !word.starts_with('-')).filter(|_| interpreter.ends_with("/env"))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|folder| runs(&folder.join(name))) {
        return None;
    }
    Some(format!(
        "program `{}` runs `{name}` through `{interpreter}` (its #! line), and `{name}` was not found in PATH (install it, or correct the #! line)",
        script.display()
    ))
}

/// Whether the kernel can run `path` itself: an ELF program or a script
/// with a `#!` line (a script without one fails at exec, after the run has
/// begun).
fn runnable_format(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut file| file.read(&mut head));
    match read {
        Ok(count) => head[..count].starts_with(b"#!") || head[..count] == *b"\x7fELF",
        // Unreadable here: let exec have its say.
        Err(_) => true,
    }
}

/// A bot command that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("the bot command is empty")]
    Empty,
    #[error("cannot split the command `{command}`: {message}")]
    Split { command: String, message: String },
    // The cause is part of the message, not a source of its own: a chain
    // printed in full would say it twice.
    #[error("cannot start `{command}`: {error}")]
    Spawn { command: String, error: std::io::Error },
    #[error("cannot start `{command}`: {error}")]
    Sandbox { command: String, error: SandboxError },
}

/// Where a bot's stderr goes: the current game's log file, capped in size.
/// The file is created on the first byte, so silent bots cost no file.
#[derive(Debug)]
struct StderrLog {
    path: Option<LogPath>,
    file: Option<File>,
    written: u64,
    cap: u64,
    tail: StderrTail,
    /// Why logging stopped in this game, until someone takes it to tell.
    lost: Option<String>,
}

/// The last [`STDERR_TAIL`] bytes a bot wrote to stderr, logged or not:
/// what a crash report quotes and looks at to name a limit the bot ran
/// into. It is kept in memory as the bytes pass rather than read back from
/// the log, which may not exist (no results folder, nothing asked), may
/// have stopped at its cap or failed to be written, and belongs to a game
/// rather than to the process.
#[derive(Debug, Default)]
struct StderrTail {
    bytes: Vec<u8>,
    /// Whether bytes before the kept ones were dropped (the first kept
    /// line may then be the end of a longer one).
    cut: bool,
}

/// Bytes of stderr kept in a [`StderrTail`].
const STDERR_TAIL: usize = 2048;

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(STDERR_TAIL);
        self.cut |= keep < bytes.len();
        self.bytes.extend_from_slice(&bytes[bytes.len() - keep..]);
        if self.bytes.len() > STDERR_TAIL {
            self.cut = true;
            self.bytes.drain(..self.bytes.len() - STDERR_TAIL);
        }
    }
}

/// Creates a game's stderr log at `path`, or beside it as `NAME.2.log`,
/// `NAME.3.log`... when an earlier game has that name: games are numbered
/// anew when a league gains or loses bots or plays more games per pair,
/// and one game's log never runs on into another's.
fn create_log(path: &Path) -> std::io::Result<File> {
    let create = |path: &Path| File::options().write(true).create_new(true).open(path);
    match create(path) {
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        other => return other,
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let stem = name.strip_suffix(".log").unwrap_or(&name);
    for copy in 2.. {
        match create(&path.with_file_name(format!("{stem}.{copy}.log"))) {
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && copy < 1000 => {}
            other => return other,
        }
    }
    unreachable!("the loop returns by its 1000th name")
}

impl StderrLog {
    fn new(cap: u64) -> StderrLog {
        StderrLog {
            path: None,
            file: None,
            written: 0,
            cap,
            tail: StderrTail::default(),
            lost: None,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        self.tail.push(bytes);
        let Some(path) = &self.path else { return };
        if self.written >= self.cap {
            return;
        }
        if self.file.is_none() {
            let path = path.path();
            match create_log(&path) {
                Ok(file) => self.file = Some(file),
                Err(error) => return self.give_up(&path, &error),
            }
        }
        let Some(file) = &mut self.file else { return };
        let room = (self.cap - self.written) as usize;
        let kept = &bytes[..bytes.len().min(room)];
        // A log that cannot be written is not worth failing a game over,
        // but it is said, with its path.
        if let Err(error) = file.write_all(kept) {
            let path = path.path();
            return self.give_up(&path, &error);
        }
        self.written += kept.len() as u64;
        if self.written >= self.cap {
            let _ = writeln!(
                file,
                "\n[arena: stderr cut at {} bytes; the rest was discarded]",
                self.cap
            );
        }
    }

    /// Stops logging this game, saying why once.
    fn give_up(&mut self, path: &Path, error: &std::io::Error) {
        self.lost.get_or_insert(format!(
            "cannot write {}: {error}; the rest of this bot's stderr in this game is dropped",
            path.display()
        ));
        self.file = None;
        self.path = None;
    }

    fn switch_to(&mut self, path: Option<LogPath>) {
        self.file = None;
        self.written = 0;
        self.path = path;
    }
}

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
    LineTooLong { limit: usize },
}

/// The referee's end of a bot's input.
type BotInput = Box<dyn AsyncWrite + Send + Unpin>;
/// The referee's end of a bot's output.
type BotOutput = Box<dyn AsyncRead + Send + Unpin>;

/// A player that runs inside arena (a person at the terminal, the built-in
/// random player) and speaks the protocol over an in-memory pipe, so the
/// referee treats it exactly as it treats a bot program.
#[derive(Clone)]
pub struct LocalPlayer {
    /// Shown where a command would be, e.g. `arena:human`.
    pub label: String,
    start: Arc<dyn Fn(LocalIo) -> LocalSession + Send + Sync>,
}

/// A local player's session: runs until the player is done.
type LocalSession = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A local player's ends of the pipe: it reads requests from `requests` and
/// writes replies to `replies`. Its session ends when `requests` closes.
pub struct LocalIo {
    pub requests: Box<dyn AsyncRead + Send + Unpin>,
    pub replies: Box<dyn AsyncWrite + Send + Unpin>,
}

impl LocalPlayer {
    /// `start` is called for each session with the player's ends of the
    /// pipe; the session lasts as long as the future it returns.
    pub fn new<F, Fut>(label: impl Into<String>, start: F) -> LocalPlayer
    where
        F: Fn(LocalIo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        LocalPlayer { label: label.into(), start: Arc::new(move |io| Box::pin(start(io))) }
    }
}

impl std::fmt::Debug for LocalPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalPlayer").field("label", &self.label).finish_non_exhaustive()
    }
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
            Runner::Program { pid, sandbox: None, .. } => crate::os::kill_group(*pid),
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

/// How a bot ended: its exit status, and a limit its box saw it reach.
#[derive(Clone, Copy, Debug)]
struct Ended {
    status: ExitStatus,
    reached: Option<LimitReached>,
}

impl Ended {
    fn plain(status: ExitStatus) -> Ended {
        Ended { status, reached: None }
    }
}

/// The end of a bot: a task that finishes when the bot does (it reaps a
/// program, or it is a local player's session), and its end once known.
///
/// Awaiting the task itself, rather than a channel it fills, keeps the
/// check for an exit that races every reply cheap.
struct Exit {
    task: JoinHandle<Ended>,
    ended: Option<Ended>,
}

impl Exit {
    fn new(task: JoinHandle<Ended>) -> Exit {
        Exit { task, ended: None }
    }

    /// Waits until the bot has ended. Cancel-safe.
    async fn wait(&mut self) -> Ended {
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
    fn now(&mut self) -> Option<Ended> {
        if self.ended.is_none() && self.task.is_finished() {
            let mut context = Context::from_waker(Waker::noop());
            if let Poll::Ready(result) = Pin::new(&mut self.task).poll(&mut context) {
                self.ended = Some(result.unwrap_or_else(|_| Ended::plain(ExitStatus::from_raw(0))));
            }
        }
        self.ended
    }
}

/// A running bot: a program in its own process group, or a local player.
pub struct BotProcess {
    runner: Runner,
    stdin: Option<BotInput>,
    /// Lines that need no answer, written together with the next request
    /// (or when the session ends): one write and one wake-up of the bot.
    pending: Vec<u8>,
    stdout: LineReader<BotOutput>,
    /// The descriptors behind `stdout` and stderr's drain, for a program
    /// (a local player has none): what [`BotProcess::receive_on_thread`]
    /// waits on. They stay open as long as the process value lives.
    output_fds: Option<[RawFd; 2]>,
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
    ) -> Result<BotProcess, CommandError> {
        // Registered before a sweep may look: it must never take the new
        // bot for an escaped process.
        let spawning = reaper::Spawning::start();
        let started = match &command.sandbox {
            Some(sandbox) => start_sandboxed(command, sandbox)?,
            None => start_plain(command)?,
        };
        spawning.register(started.pid);
        drop(spawning);

        let Started { pid, stdin, stdout, mut stderr, output_fds, exit, sandbox } = started;
        let stderr_log = Arc::new(Mutex::new(StderrLog::new(stderr_cap)));
        let sink = Arc::clone(&stderr_log);
        let stderr_task = tokio::spawn(async move {
            let mut chunk = vec![0u8; 16 * 1024];
            // Drained to the end even past the cap, so a chatty bot never
            // blocks on a full stderr pipe.
            while let Ok(count @ 1..) = stderr.read(&mut chunk).await {
                sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).write(&chunk[..count]);
            }
        });

        let mut process = BotProcess::with(
            Runner::Program { pid, stderr_log, stderr_task, sandbox },
            stdin,
            LineReader::new(stdout, max_line_bytes),
            exit,
        );
        process.output_fds = Some(output_fds);
        Ok(process)
    }

    /// Starts a session of a local player.
    pub fn local(player: &LocalPlayer, max_line_bytes: usize) -> BotProcess {
        let (referee_end, player_end) = tokio::io::duplex(64 * 1024);
        let (from_player, to_player) = tokio::io::split(referee_end);
        let (requests, replies) = tokio::io::split(player_end);
        let session =
            (player.start)(LocalIo { requests: Box::new(requests), replies: Box::new(replies) });
        let exit = Exit::new(tokio::spawn(async move {
            session.await;
            Ended::plain(ExitStatus::from_raw(0))
        }));
        BotProcess::with(
            Runner::Local,
            Box::new(to_player),
            LineReader::new(Box::new(from_player), max_line_bytes),
            exit,
        )
    }

    /// A session that has sent and received nothing yet.
    fn with(
        runner: Runner,
        stdin: BotInput,
        stdout: LineReader<BotOutput>,
        exit: Exit,
    ) -> BotProcess {
        BotProcess {
            runner,
            stdin: Some(stdin),
            pending: Vec::new(),
            stdout,
            output_fds: None,
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

    /// Sends the bot's stderr to `path` from now on (`None`: discard). A
    /// local player has no stderr.
    pub fn log_stderr_to(&self, path: Option<&LogPath>) {
        if let Runner::Program { stderr_log, .. } = &self.runner {
            stderr_log
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .switch_to(path.cloned());
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
        let Some(stdin) = &mut self.stdin else {
            return Err(Failure::Crash(crash(&mut self.exit, &self.runner, Ending::ClosedInput)));
        };
        let bytes = if self.pending.is_empty() {
            line
        } else {
            self.pending.extend_from_slice(line);
            &self.pending
        };
        // A line mostly fits in the pipe at once: try that before arming a
        // timer. Whatever goes wrong here shows again in the write below.
        let mut context = Context::from_waker(Waker::noop());
        let done = match Pin::new(&mut *stdin).poll_write(&mut context, bytes) {
            Poll::Ready(Ok(count)) => count,
            _ => 0,
        };
        let written = if done == bytes.len() {
            Ok(Ok(()))
        } else {
            tokio::time::timeout_at(deadline, stdin.write_all(&bytes[done..])).await
        };
        self.pending.clear();
        match written {
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

    /// Reads the next line before `deadline` as [`BotProcess::receive`]
    /// does, but waits for it on this thread, outside the async reactor,
    /// while only the line arrives: cheaper for each line, and for an
    /// answer nothing else on the thread needs to run meanwhile (other
    /// programs' stderr waits in its pipe). When the program writes to
    /// stderr, closes its output, runs out of time, or has no descriptors
    /// (a local player), the wait goes on through the reactor, which
    /// drains stderr and tells what happened.
    pub async fn receive_on_thread(&mut self, deadline: Instant) -> Result<&[u8], Failure> {
        if self.wait_on_thread(deadline) {
            return match self.stdout.buffered_line() {
                Some(Ok(line)) => Ok(line),
                Some(Err(LineError::TooLong { limit })) => Err(Failure::LineTooLong { limit }),
                _ => unreachable!("a line is buffered: it was just seen"),
            };
        }
        self.receive(deadline).await
    }

    /// Waits on this thread until a whole line (or a line too long) is in
    /// `stdout`'s buffer, then true; false as soon as anything else is to
    /// be seen to.
    fn wait_on_thread(&mut self, deadline: Instant) -> bool {
        let Some(fds) = self.output_fds else { return false };
        loop {
            if self.stdout.has_line() {
                return true;
            }
            match self
                .stdout
                .read_with(|buffer, most| crate::os::read_available(fds[0], buffer, most))
            {
                Ok(1..) => continue,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                // Closed, or unreadable: the reactor's path says which.
                _ => return false,
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match crate::os::wait_readable(fds, left) {
                Some([true, false]) => continue,
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
        let bot_pid = match &self.runner {
            Runner::Program { sandbox: Some((_, handle)), .. } => handle.bot_pid(),
            Runner::Program { pid, .. } => Some(*pid),
            Runner::Local => None,
        };
        match bot_pid.and_then(crate::os::reading_stdin) {
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
        if let Some(stdin) = &mut self.stdin
            && !self.pending.is_empty()
        {
            // The last `over`; a bot that does not read it gets no more.
            let _ = tokio::time::timeout(grace, stdin.write_all(&self.pending)).await;
        }
        // End of input: a pipe closes when dropped, but a local player's
        // half of an in-memory pipe only when shut down (the other half
        // keeps it open).
        if let Some(mut stdin) = self.stdin.take() {
            let _ = tokio::time::timeout(grace, stdin.shutdown()).await;
        }
        let exited_in_grace = tokio::time::timeout(grace, self.exit.wait()).await.is_ok();
        // Also when the bot exited by itself: its children may live on and
        // hold the pipes open.
        self.runner.kill();
        let leaves_orphans = self.runner.may_leave_orphans();
        match &mut self.runner {
            Runner::Program { stderr_task, .. } => {
                self.exit.wait().await;
                // stderr ends once every writer is gone; one that escaped the
                // group is killed by the sweep, so do not wait for it here.
                if tokio::time::timeout(Duration::from_millis(50), &mut *stderr_task).await.is_err()
                {
                    stderr_task.abort();
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

/// A program just started: its pid, pipes, the task that waits for its
/// exit, and its sandbox.
struct Started {
    pid: u32,
    stdin: BotInput,
    stdout: BotOutput,
    stderr: BotOutput,
    /// The descriptors of `stdout` and `stderr`.
    output_fds: [RawFd; 2],
    exit: Exit,
    sandbox: Option<(Arc<BotSandbox>, Handle)>,
}

/// Starts `command` without a sandbox, through tokio, in a process group of
/// its own.
fn start_plain(command: &BotCommand) -> Result<Started, CommandError> {
    let mut builder = Command::new(&command.argv[0]);
    builder
        .args(&command.argv[1..])
        .envs(command.env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &command.dir {
        builder.current_dir(dir);
    }
    let mut child = builder
        .spawn()
        .map_err(|source| CommandError::Spawn { command: command.display(), error: source })?;
    let pid = child.id().expect("a just-spawned child has a pid");
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let output_fds = [stdout.as_raw_fd(), stderr.as_raw_fd()];
    let exit = Exit::new(tokio::spawn(async move {
        let status = child.wait().await;
        reaper::unregister(pid);
        // Waiting only fails if the child was already reaped elsewhere;
        // report that as a plain exit.
        Ended::plain(status.unwrap_or_else(|_| ExitStatus::from_raw(0)))
    }));
    Ok(Started {
        pid,
        stdin: Box::new(stdin),
        stdout: Box::new(stdout),
        stderr: Box::new(stderr),
        output_fds,
        exit,
        sandbox: None,
    })
}

/// Starts `command` in `sandbox`, its exit watched through a pidfd.
fn start_sandboxed(
    command: &BotCommand,
    sandbox: &Arc<BotSandbox>,
) -> Result<Started, CommandError> {
    let started =
        sandbox.start(&command.argv, command.dir.as_deref(), &command.env).map_err(|error| {
            match error {
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
            }
        })?;
    let crate::os::sandbox::Started { spawned, handle, ending } = started;
    let pid = spawned.pid;
    let spawn_error = |source| CommandError::Spawn { command: command.display(), error: source };
    let crate::os::sandbox::Spawned { stdin, stdout, stderr, pidfd, .. } = spawned;
    // Past this point a failure kills and reaps the process it started.
    let abandon = |pidfd: &std::os::fd::OwnedFd, error| {
        handle.kill();
        let _ = crate::os::sandbox::wait_exited(pidfd, true);
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
    let output_fds = [stdout.as_raw_fd(), stderr.as_raw_fd()];
    // SAFETY: an OwnedFd keeps its descriptor open and the same until it is
    // dropped, with the AsyncFd.
    let pidfd = match unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) } {
        Ok(pidfd) => pidfd,
        Err(error) => {
            let (pidfd, error) = error.into_parts();
            return Err(abandon(&pidfd, error));
        }
    };
    let exit = Exit::new(tokio::spawn(async move {
        let status = loop {
            let Ok(mut ready) = pidfd.readable().await else {
                break crate::os::sandbox::wait_exited(pidfd.get_ref(), true).ok().flatten();
            };
            match crate::os::sandbox::wait_exited(pidfd.get_ref(), false) {
                Ok(None) => ready.clear_ready(),
                Ok(Some(status)) => break Some(status),
                Err(_) => break None,
            }
        };
        reaper::unregister(pid);
        let (status, reached) = ending.finish(status.unwrap_or_else(|| ExitStatus::from_raw(0)));
        Ended { status, reached }
    }));
    Ok(Started {
        pid,
        stdin: Box::new(stdin),
        stdout: Box::new(stdout),
        stderr: Box::new(stderr),
        output_fds,
        exit,
        sandbox: Some((Arc::clone(sandbox), handle)),
    })
}

/// Gives the exit status of a bot whose pipe just closed a moment (at most
/// until `deadline`) to arrive: a pipe closes as its process exits, usually
/// before the status is collected, and the status says what happened. A
/// box's end takes longer than a process's (everything in it is killed and
/// reaped first), the more so on a loaded machine: it gets half a second.
async fn wait_for_exit(exit: &mut Exit, deadline: Instant) {
    let moment = deadline.min(Instant::now() + Duration::from_millis(500));
    let _ = tokio::time::timeout_at(moment, exit.wait()).await;
}

/// What `ending` left of a bot: its exit status if it is known, the
/// sandbox limit it most likely ran into, if any, and the last lines it
/// wrote to stderr (often the error itself: a traceback's last frame,
/// "can't open file").
fn crash(exit: &mut Exit, runner: &Runner, ending: Ending) -> Crash {
    let ended = exit.now();
    let status = ended.map(|ended| ended.status);
    let reached = ended.and_then(|ended| ended.reached);
    let mut crash = Crash { ending, status, limit: None, stderr_tail: Vec::new() };
    if let Runner::Program { stderr_log, sandbox, .. } = runner {
        let log = stderr_log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let signal = status.and_then(|status| status.signal());
        crash.limit = sandbox
            .as_ref()
            .and_then(|(sandbox, _)| limit_hit(sandbox.limits(), reached, signal, &log.tail.bytes));
        crash.stderr_tail = last_stderr_lines(&log.tail.bytes, log.tail.cut);
    }
    crash
}

/// Gives the stderr drain of a bot that is gone a moment to read what the
/// bot wrote last, for [`crash`].
async fn let_stderr_drain(runner: &Runner) {
    if let Runner::Program { stderr_task, .. } = runner {
        let until = Instant::now() + Duration::from_millis(50);
        while !stderr_task.is_finished() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_never_runs_on_into_an_earlier_games_log() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("game-000003-seat1-my.bot.log");
        std::fs::write(&path, "an earlier game\n").unwrap();
        create_log(&path).unwrap().write_all(b"this game\n").unwrap();
        create_log(&path).unwrap().write_all(b"and the next\n").unwrap();
        let read = |name: &str| std::fs::read_to_string(folder.path().join(name)).unwrap();
        assert_eq!(read("game-000003-seat1-my.bot.log"), "an earlier game\n");
        assert_eq!(read("game-000003-seat1-my.bot.2.log"), "this game\n");
        assert_eq!(read("game-000003-seat1-my.bot.3.log"), "and the next\n");
    }
}
