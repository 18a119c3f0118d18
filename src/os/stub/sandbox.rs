//! No sandbox here: [`Sandbox::new`] refuses any mode but off, so none of
//! these types is ever made.

use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;

use crate::sandbox::{
    CommandFiles, LimitReached, Limits, Protections, SandboxError, SandboxMode, SandboxSettings,
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
    pub spawned: Spawned,
    pub handle: Handle,
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
    pub fn finish(self, _waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        match self {}
    }
}

/// Why a sandboxed process did not start (only `Sandbox` is made here).
#[allow(dead_code)]
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Exec(io::Error),
    #[error("{doing}: {error}")]
    Box { doing: &'static str, error: io::Error },
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
        _own: &CommandFiles,
        _others: &[CommandFiles],
    ) -> Result<Arc<BotSandbox>, SandboxError> {
        match **self {}
    }

    /// The files `argv` names.
    pub fn command_files(argv: &[String], dir: &Path) -> CommandFiles {
        CommandFiles::of(argv, dir, &std::env::var_os("PATH").unwrap_or_default())
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
        _argv: &[String],
        _dir: Option<&Path>,
        _env: &[(String, String)],
    ) -> Result<Started, StartError> {
        match *self {}
    }
}

/// Never called with a real descriptor here.
pub fn wait_exited(_pidfd: &OwnedFd, _block: bool) -> io::Result<Option<ExitStatus>> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}
