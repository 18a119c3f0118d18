//! A sandboxed process once started: what kills it, and how its end is
//! read.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};

use super::fallback::ScratchFolder;
use super::spawn::{self, Spawned};
use super::{boxed, cgroup, watchdog};
use crate::sandbox::{LimitReached, SandboxError};

/// A sandboxed process just started.
pub struct Started {
    /// The process's pid, pidfd and pipes.
    pub spawned: Spawned,
    /// What stays with the process while it runs (kills it).
    pub handle: Handle,
    /// How it ended, once its pid has exited (moved to whatever reaps it).
    pub ending: ProcessEnd,
}

/// What kills a sandboxed process and everything it started.
pub enum Handle {
    /// A box: a duplicate of its first process's pidfd. Killing that
    /// process ends the box; once the box is given back for its bot's next
    /// process (see `life`), the handle kills nothing.
    Box {
        /// The duplicate of the first process's pidfd.
        pidfd: OwnedFd,
        /// The first process's pid.
        pid: u32,
        /// Whether the box was killed or given back, shared with its end.
        life: Arc<Mutex<BoxLife>>,
    },
    /// The fallback: the process group (escapees are swept), and the
    /// scratch folder, emptied and kept for the bot's next process once
    /// this handle is dropped (after the process has been killed).
    Group {
        /// The process's pid, which leads its process group.
        pid: u32,
        /// Held until the process is gone, for its Drop.
        scratch: ScratchFolder,
    },
}

impl Handle {
    /// Kills the process and, in a box, everything in it.
    pub fn kill(&self) {
        match self {
            Handle::Box { pidfd, life, .. } => {
                // Under the lock: a box is either killed or given back.
                let mut life = lock(life);
                if !life.given_back {
                    life.killed = true;
                    spawn::kill_pidfd(pidfd);
                }
            }
            Handle::Group { pid, .. } => crate::os::kill_group(*pid),
        }
    }

    /// The pid of the bot's own process (in a box, the first process's
    /// child), for reading what it is doing.
    pub fn bot_pid(&self) -> Option<u32> {
        match self {
            Handle::Box { pid, life, .. } => {
                if lock(life).given_back {
                    return None;
                }
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

/// What became of a box whose bot a [`Handle`] was given for.
#[derive(Debug, Default)]
pub struct BoxLife {
    /// The handle killed it: it serves no other process.
    killed: bool,
    /// Its bot ended and the box went back to serve the bot's next process.
    given_back: bool,
}

fn lock(life: &Mutex<BoxLife>) -> MutexGuard<'_, BoxLife> {
    life.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A box given back after its bot's end, with what it holds.
pub struct Returned {
    pub process: boxed::BoxProcess,
    pub cgroup: Option<cgroup::Lease>,
    /// Its network namespace, where arena keeps one.
    pub network: Option<OwnedFd>,
}

/// Where a box goes once its bot has ended: back to its bot's boxes, or
/// (`None`: it ended too) nowhere.
pub trait Recycler: Send {
    fn give_back(self: Box<Self>, returned: Option<Returned>);
}

/// How a sandboxed process's end is read.
pub enum ProcessEnd {
    /// A box: its first process reports the bot's end.
    Box(BoxEnd),
    /// The fallback: the process itself, and its memory watch.
    Plain {
        /// The watch on the process's memory.
        watch: watchdog::Watch,
    },
}

/// A box's end: its first process (whose report tells the bot's end), its
/// cgroup, its memory watch and its network namespace (with its bot's free
/// ones, where it goes when the box ends).
pub struct BoxEnd {
    pub(super) process: boxed::BoxProcess,
    pub(super) cgroup: Option<cgroup::Lease>,
    pub(super) watch: Option<watchdog::Watch>,
    pub(super) network: Option<(OwnedFd, Arc<Mutex<Vec<OwnedFd>>>)>,
    pub(super) life: Arc<Mutex<BoxLife>>,
    pub(super) home: Box<dyn Recycler>,
    /// Whether it may serve again: made on a thread that lives as long as
    /// arena (a box dies with the thread that made it), with ids of its
    /// own.
    pub(super) lasting: bool,
    /// The bot's status, once its first process has told it.
    pub(super) bot_status: Option<ExitStatus>,
}

impl ProcessEnd {
    /// What becomes readable when the end may be read: a box's report
    /// pipe, or else the process's own `pidfd`.
    pub fn signal(&self, pidfd: &OwnedFd) -> io::Result<OwnedFd> {
        match self {
            ProcessEnd::Box(end) => end.process.report(),
            ProcessEnd::Plain { .. } => pidfd.try_clone(),
        }
    }

    /// The status of the process arena waits for once it has ended (`None`
    /// while it runs, unless `block`): a box's bot, as its first process
    /// reports it, or the first process's own when the box ended.
    pub fn poll(&mut self, signal: &OwnedFd, block: bool) -> io::Result<Option<ExitStatus>> {
        match self {
            ProcessEnd::Box(end) => Ok(match end.process.bot_end(block) {
                boxed::BotEnd::Running => None,
                boxed::BotEnd::Ended(status) => {
                    end.bot_status = Some(status);
                    Some(status)
                }
                boxed::BotEnd::BoxEnded(status) => {
                    Some(status.unwrap_or_else(|| ExitStatus::from_raw(libc::SIGKILL)))
                }
            }),
            ProcessEnd::Plain { .. } => spawn::wait_exited(signal, block),
        }
    }

    /// The bot's exit status and the limit the box saw it reach, given the
    /// status [`ProcessEnd::poll`] read; a box whose bot ended and that may
    /// serve again goes back to its bot's boxes, any other is ended.
    pub fn finish(self, waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        match self {
            ProcessEnd::Box(end) => end.finish(waited),
            ProcessEnd::Plain { watch } => {
                (waited, watch.killed_for_memory().then_some(LimitReached::Memory))
            }
        }
    }
}

impl BoxEnd {
    fn finish(self, waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        let BoxEnd { process, mut cgroup, watch, network, life, home, lasting, bot_status } = self;
        let reached = if watch.as_ref().is_some_and(|watch| watch.killed_for_memory()) {
            Some(LimitReached::Memory)
        } else {
            cgroup.as_mut().and_then(|cgroup| cgroup.reached())
        };
        // No watch may see the box's next process as this one's.
        drop(watch);
        let again = lasting && bot_status.is_some() && {
            let mut life = lock(&life);
            life.given_back = !life.killed;
            life.given_back
        };
        if again {
            let network = network.map(|(namespace, _)| namespace);
            home.give_back(Some(Returned { process, cgroup, network }));
        } else {
            // Gone before its namespace goes back, and its cgroup.
            process.end();
            if let Some((namespace, free)) = network {
                free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(namespace);
            }
            drop(cgroup);
            home.give_back(None);
        }
        (bot_status.unwrap_or(waited), reached)
    }
}

/// Why a sandboxed process did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The sandbox refused the process before it started.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The program could not be run (exec failed): missing, not executable.
    #[error(transparent)]
    Exec(io::Error),
    /// A step of making the box, or of starting the process in it, failed.
    #[error("{doing}: {error}")]
    Box {
        /// The step that failed ("watching the box's memory").
        doing: &'static str,
        /// Why it failed.
        error: io::Error,
    },
}
