//! The operating system layer: everything arena asks of the kernel beyond
//! what std offers portably.
//!
//! - processes: killing a bot's process group, becoming the subreaper of
//!   escaped descendants, reaping them by pid, reading /proc;
//! - CPUs: the CPUs arena may use, pinning a worker thread (and the bots it
//!   starts) to one, the short time slice asked for every program arena
//!   starts, arena's own CPU time and peak memory;
//! - pipes: waiting for one on the calling thread, and reading it, without
//!   the async reactor (the game program's answer); writing a line that
//!   fits in one call;
//! - the terminal: echo off while a person types a secret choice;
//! - the sandbox's machinery ([`sandbox`]): Landlock, seccomp, namespaces,
//!   resource limits, and the clone-and-exec that applies them.
//!
//! Linux is the platform arena supports. Elsewhere (and on Linux when built
//! with `RUSTFLAGS="--cfg arena_os_stub"`, which is how the test suite checks
//! that the rest of the crate needs nothing more) a stub stands in: bots run
//! unsandboxed in their own process group, nothing is pinned, and a sandbox
//! that is asked for is refused with [`crate::sandbox::SandboxError::Unsupported`].
//! No code outside this module calls `libc` (a test checks it).

#[cfg(all(target_os = "linux", not(arena_os_stub)))]
mod linux;
#[cfg(all(target_os = "linux", not(arena_os_stub)))]
use linux as platform;

#[cfg(any(not(target_os = "linux"), arena_os_stub))]
mod stub;
#[cfg(any(not(target_os = "linux"), arena_os_stub))]
use stub as platform;

pub use platform::sandbox;
pub use platform::{
    EchoOff, ProcStat, allowed_cpus, become_subreaper, descendants_of, keep_current_thread_on,
    kill_group, kill_process_and_group, last_pid, own_usage, pidfd_of, pin_current_thread,
    read_available, read_stat, reading_stdin, reap_by_pid, run_current_thread_when_idle,
    spawn_plain, start_programs_here, starts_programs_here, wait_readable, write_available,
};

/// CPU time and peak memory of this process (all threads, no children).
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    /// CPU time in user mode.
    pub user_seconds: f64,
    /// CPU time in the kernel.
    pub system_seconds: f64,
    /// Peak resident memory.
    pub peak_rss_kib: u64,
}

/// The signal a process gets when it exceeds its CPU time limit.
pub const SIGNAL_CPU_LIMIT: i32 = libc::SIGXCPU;
/// The signal a process gets when it writes past its file size limit.
pub const SIGNAL_FILE_SIZE_LIMIT: i32 = libc::SIGXFSZ;

/// The limit a process killed by `signal` ran into, if the signal is the
/// kernel's for one.
pub fn limit_of_signal(signal: i32) -> Option<crate::sandbox::LimitReached> {
    match signal {
        SIGNAL_CPU_LIMIT => Some(crate::sandbox::LimitReached::CpuTime),
        SIGNAL_FILE_SIZE_LIMIT => Some(crate::sandbox::LimitReached::FileSize),
        _ => None,
    }
}

/// The name of a signal that commonly ends a bot ("SIGKILL"), or "another signal".
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGHUP => "SIGHUP",
        libc::SIGILL => "SIGILL",
        libc::SIGINT => "SIGINT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => "another signal",
    }
}
