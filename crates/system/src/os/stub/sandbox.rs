//! No sandbox here: [`Sandbox::new`] refuses any mode but off, so none of
//! these types is ever made.

use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;

use crate::sandbox::{
    LimitReached, Limits, Protections, SandboxError, SandboxMode, SandboxSettings, View,
};

/// Never made here.
#[derive(Debug)]
pub enum Sandbox {}

/// Never made here.
#[derive(Debug)]
pub enum BotSandbox {}

/// A started process (never made here).
pub struct Spawned {
    /// Its pid.
    pub pid: u32,
    /// A descriptor to wait on.
    pub pidfd: OwnedFd,
    /// Arena's end of its stdin.
    pub stdin: OwnedFd,
    /// Arena's end of its stdout.
    pub stdout: OwnedFd,
    /// Arena's end of its stderr.
    pub stderr: OwnedFd,
}

/// A sandboxed process just started (never made here).
pub struct Started {
    /// Its pid, pidfd and pipes.
    pub spawned: Spawned,
    /// What kills it.
    pub handle: Handle,
    /// How its end is read.
    pub ending: ProcessEnd,
}

/// Never made here.
pub enum Handle {}

impl Handle {
    /// Never called.
    pub fn kill(&self) {
        match *self {}
    }

    /// Never called.
    pub fn bot_pid(&self) -> Option<u32> {
        match *self {}
    }

    /// Never called.
    pub fn may_leave_orphans(&self) -> bool {
        match *self {}
    }
}

/// Never made here.
pub enum ProcessEnd {}

impl ProcessEnd {
    /// Never called.
    pub fn signal(&self, _pidfd: &OwnedFd) -> io::Result<OwnedFd> {
        match *self {}
    }

    /// Never called.
    pub fn poll(&mut self, _signal: &OwnedFd, _block: bool) -> io::Result<Option<ExitStatus>> {
        match *self {}
    }

    /// Never called.
    pub fn finish(self, _waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        match self {}
    }
}

/// Why a sandboxed process did not start (only `Sandbox` is made here).
#[allow(dead_code)]
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The sandbox refused the process before it started.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The program could not be run (exec failed).
    #[error(transparent)]
    Exec(io::Error),
    /// A step of making the process's box failed.
    #[error("{doing}: {error}")]
    Box {
        /// The step that failed.
        doing: &'static str,
        /// Why it failed.
        error: io::Error,
    },
}

impl Sandbox {
    /// `None` when off; refused otherwise.
    pub fn new(
        settings: &SandboxSettings,
        _protected: &[&Path],
    ) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        match settings.mode {
            SandboxMode::Off => Ok(None),
            SandboxMode::On | SandboxMode::Required => Err(SandboxError::Unsupported),
        }
    }

    /// As [`Sandbox::new`]: `None` when off; refused otherwise.
    pub fn for_builds(
        settings: &SandboxSettings,
        protected: &[&Path],
    ) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        Sandbox::new(settings, protected)
    }

    /// Never called.
    pub fn protections(&self) -> Protections {
        match *self {}
    }

    /// Never called.
    pub fn why_no_boxes(&self) -> Option<&str> {
        match *self {}
    }

    /// Never called.
    pub fn limits(&self) -> &Limits {
        match *self {}
    }

    /// Never called.
    pub fn summary(&self) -> String {
        match *self {}
    }

    /// Never called.
    pub fn for_bot(
        self: &Arc<Sandbox>,
        _command: &str,
        _view: &View,
        _others: &[&View],
    ) -> Result<Arc<BotSandbox>, SandboxError> {
        match **self {}
    }

    /// Never called.
    pub fn read_paths(&self) -> Vec<std::path::PathBuf> {
        match *self {}
    }

    /// Never called.
    pub fn protected(&self) -> &[std::path::PathBuf] {
        match *self {}
    }
}

impl BotSandbox {
    /// Never called.
    pub fn limits(&self) -> &Limits {
        match *self {}
    }

    /// Never called.
    pub fn start(
        &self,
        _program: Option<&Path>,
        _argv: &[String],
        _dir: Option<&Path>,
        _env: &[(String, String)],
    ) -> Result<Started, StartError> {
        match *self {}
    }
}

/// The exit status of a program [`crate::os::spawn_plain`] started, whose
/// `pidfd` here is a pipe that ends when it exits: `None` while it runs
/// and `block` is false.
pub fn wait_exited(pidfd: &OwnedFd, block: bool) -> io::Result<Option<ExitStatus>> {
    use std::os::fd::AsRawFd;
    let ended = || ENDED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if block {
        // The pipe ends once the status is stored.
        let mut byte = [0u8; 1];
        let mut pipe = std::fs::File::from(pidfd.try_clone()?);
        while io::Read::read(&mut pipe, &mut byte)? > 0 {}
    }
    Ok(ended().remove(&pidfd.as_raw_fd()))
}

/// Statuses of exited programs, by their pipe's descriptor.
static ENDED: std::sync::Mutex<std::collections::BTreeMap<i32, ExitStatus>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Starts a program through std, with a thread that waits for it and then
/// ends the pipe handed back as its `pidfd`.
pub fn spawn_plain(
    program: Option<&Path>,
    argv: &[String],
    dir: Option<&Path>,
    env: &[(String, String)],
) -> io::Result<Spawned> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut command = Command::new(program.map_or(Path::new(&argv[0]), |program| program));
    command.arg0(&argv[0]);
    command
        .args(&argv[1..])
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn()?;
    let (ended_read, ended_write) = std::io::pipe()?;
    let ended_read = OwnedFd::from(ended_read);
    let key = ended_read.as_raw_fd();
    let stdin = OwnedFd::from(child.stdin.take().expect("piped"));
    let stdout = OwnedFd::from(child.stdout.take().expect("piped"));
    let stderr = OwnedFd::from(child.stderr.take().expect("piped"));
    let pid = child.id();
    std::thread::spawn(move || {
        let status =
            child.wait().unwrap_or_else(|_| std::os::unix::process::ExitStatusExt::from_raw(0));
        ENDED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(key, status);
        drop(ended_write);
    });
    Ok(Spawned { pid, pidfd: ended_read, stdin, stdout, stderr })
}

/// Nothing to clean here: no sandbox is ever made.
pub fn clean_after(_pid: u32) {}
