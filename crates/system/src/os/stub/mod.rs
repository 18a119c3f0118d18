//! The OS layer where arena is not supported (anything but Linux): what
//! needs Linux does nothing or refuses, so the rest of the crate builds.
//! Bots run in a process group of their own through std; nothing kills an
//! escaped descendant, nothing is pinned, and no sandbox can be had.

pub mod sandbox;

pub use sandbox::spawn_plain;

use std::time::Duration;

use super::Usage;

/// Does nothing here: the group is not killed.
pub fn kill_group(_pid: u32) {}

/// Does nothing here.
pub fn kill_process_and_group(_pid: u32) {}

/// Does nothing here.
pub fn reap_by_pid(_pid: u32, _patience: Duration) {}

/// Refused here: no subreaper.
pub fn become_subreaper() -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The fields of /proc/PID/stat arena needs (never read here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// R, S, Z...
    pub state: char,
    /// The parent's pid.
    pub parent: u32,
    /// The process group.
    pub group: u32,
    /// The session.
    pub session: u32,
}

/// Nothing here: no /proc.
/// Unknown here.
pub fn reading_stdin(_pid: u32) -> Option<bool> {
    None
}

/// Never here: callers wait through the async reactor instead.
pub fn wait_readable(_fds: [std::os::fd::RawFd; 3], _timeout: Duration) -> Option<[bool; 3]> {
    None
}

/// Refused here: nothing waits on the thread.
pub fn pidfd_of(_pid: u32) -> std::io::Result<std::os::fd::OwnedFd> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Refused here (never called: nothing waits on the thread).
pub fn read_available(
    _fd: std::os::fd::RawFd,
    _buffer: &mut Vec<u8>,
    _most: usize,
) -> std::io::Result<usize> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Refused here: lines are written through the async reactor (the
/// caller then writes with a timer armed).
pub fn write_available(_fd: std::os::fd::RawFd, _bytes: &[u8]) -> std::io::Result<usize> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Nothing here.
pub fn read_stat(_pid: u32) -> Option<ProcStat> {
    None
}

/// Not known here: every sweep scans.
pub fn last_pid() -> Option<u32> {
    None
}

/// Nothing here: no /proc.
pub fn descendants_of(_ancestor: u32) -> Vec<(u32, ProcStat)> {
    Vec::new()
}

/// None known here, so nothing is pinned.
pub fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Does nothing here.
pub fn pin_current_thread(_cpu: usize) {}

/// Does nothing here.
pub fn keep_current_thread_on(_cpus: &[usize]) {}

/// Nothing here.
pub fn run_current_thread_when_idle() {}

/// Does nothing here.
pub fn start_programs_here(_here: bool) {}

/// Never here.
pub fn starts_programs_here() -> bool {
    false
}

/// Zero here.
pub fn own_usage() -> Usage {
    Usage::default()
}

/// Echo stays on here.
pub struct EchoOff;

impl EchoOff {
    /// Always `None` here.
    pub fn on_stdin() -> Option<EchoOff> {
        None
    }
}
