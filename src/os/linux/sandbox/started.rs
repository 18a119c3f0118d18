//! A sandboxed process once started: what kills it, and how its end is
//! read.

use std::io;
use std::os::fd::OwnedFd;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};

use super::fallback::ScratchFolder;
use super::spawn::{self, Spawned};
use super::{boxed, cgroup, watchdog};
use crate::sandbox::{LimitReached, SandboxError};

/// A sandboxed process just started.
pub struct Started {
    pub spawned: Spawned,
    /// What stays with the process while it runs (kills it).
    pub handle: Handle,
    /// How it ended, once its pid has exited (moved to whatever reaps it).
    pub ending: ProcessEnd,
}

/// What kills a sandboxed process and everything it started.
pub enum Handle {
    /// A box: a duplicate of its first process's pidfd. Killing that
    /// process ends the box.
    Box { pidfd: OwnedFd, pid: u32 },
    /// The fallback: the process group (escapees are swept), and the
    /// scratch folder, emptied and kept for the bot's next process once
    /// this handle is dropped (after the process has been killed).
    Group {
        pid: u32,
        #[expect(dead_code, reason = "held until the process is gone, for its Drop")]
        scratch: ScratchFolder,
    },
}

impl Handle {
    /// Kills the process and, in a box, everything in it.
    pub fn kill(&self) {
        match self {
            Handle::Box { pidfd, .. } => spawn::kill_pidfd(pidfd),
            Handle::Group { pid, .. } => crate::os::kill_group(*pid),
        }
    }

    /// The pid of the bot's own process (in a box, the first process's
    /// child), for reading what it is doing.
    pub fn bot_pid(&self) -> Option<u32> {
        match self {
            Handle::Box { pid, .. } => {
                std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                    .ok()?
                    .split_ascii_whitespace()
                    .next()?
                    .parse()
                    .ok()
            }
            Handle::Group { pid, .. } => Some(*pid),
        }
    }

    /// Whether processes it started may outlive it unless swept: true
    /// outside a box.
    pub fn may_leave_orphans(&self) -> bool {
        matches!(self, Handle::Group { .. })
    }
}

/// How a sandboxed process's end is read.
pub enum ProcessEnd {
    /// A box: the report pipe of its first process, its cgroup, its
    /// memory watch and its network namespace (with its bot's free ones,
    /// where it goes back), all released once the box is gone.
    Box {
        report: OwnedFd,
        cgroup: Option<cgroup::Lease>,
        watch: Option<watchdog::Watch>,
        network: Option<(OwnedFd, Arc<Mutex<Vec<OwnedFd>>>)>,
        /// Its subordinate ids, given back once it is gone.
        #[expect(dead_code, reason = "held until the box is gone, for its Drop")]
        ids: Option<super::ids::IdLease>,
    },
    /// The fallback: the process itself, and its memory watch.
    Plain { watch: watchdog::Watch },
}

impl ProcessEnd {
    /// The bot's exit status and the limit the box saw it reach, given the
    /// status of the process arena waited for (a box's first process).
    pub fn finish(self, waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        match self {
            ProcessEnd::Box { report, cgroup, watch, network, ids: _ } => {
                if let Some((namespace, free)) = network {
                    free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(namespace);
                }
                let status = boxed::bot_status(&report).unwrap_or(waited);
                let reached = if watch.as_ref().is_some_and(|watch| watch.killed_for_memory()) {
                    Some(LimitReached::Memory)
                } else {
                    cgroup.as_ref().and_then(|cgroup| cgroup.reached())
                };
                (status, reached)
            }
            ProcessEnd::Plain { watch } => {
                (waited, watch.killed_for_memory().then_some(LimitReached::Memory))
            }
        }
    }
}

/// Why a sandboxed process did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The program could not be run (exec failed): missing, not executable.
    #[error(transparent)]
    Exec(io::Error),
    #[error("{doing}: {error}")]
    Box { doing: &'static str, error: io::Error },
}
