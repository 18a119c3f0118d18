//! Resource limits of a bot process: what they are, how they are written in
//! tournament files and on the command line, and how a bot over one is told.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use arena_base::units::show_size;

/// The resource limits of every bot process. Each applies to the whole box
/// where a cgroup keeps it, else per process (see [`super::Protections`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Bytes of memory: of the whole box, every kind (a cgroup), or else
    /// private writable memory per process (RLIMIT_DATA) and the box's
    /// resident memory (the watchdog). Address space merely reserved is not
    /// counted, so V8 and the JVM start under it.
    pub memory: u64,
    /// Processes and threads the bot may run at once (its cgroup, or
    /// RLIMIT_NPROC in its user namespace).
    pub processes: u64,
    /// CPU time of each process, over its whole life (RLIMIT_CPU).
    #[serde(serialize_with = "seconds", deserialize_with = "from_seconds")]
    pub cpu_time: Duration,
    /// Open files at once (RLIMIT_NOFILE).
    pub open_files: u64,
    /// Largest file the bot may write (RLIMIT_FSIZE).
    pub file_size: u64,
    /// Size of the box's private tmpfs (its /tmp, HOME and TMPDIR), and of
    /// its /dev/shm. Kept in memory, so counted as memory where a cgroup
    /// counts it.
    pub scratch: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory: 1 << 30,
            processes: 128,
            cpu_time: Duration::from_secs(600),
            open_files: 512,
            file_size: 64 << 20,
            scratch: 64 << 20,
        }
    }
}

impl Limits {
    /// The limits of a bot's build: these, raised where a compiler needs
    /// more than a game does (memory, processes, open files, file sizes,
    /// scratch), and CPU for as long as the build may run.
    pub fn for_builds(&self, timeout: Duration) -> Limits {
        Limits {
            memory: self.memory.max(4 << 30),
            processes: self.processes.max(512),
            cpu_time: self.cpu_time.max(timeout),
            open_files: self.open_files.max(4096),
            file_size: self.file_size.max(1 << 30),
            scratch: self.scratch.max(1 << 30),
        }
    }
}

fn seconds<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(duration.as_secs())
}

fn from_seconds<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    u64::deserialize(deserializer).map(Duration::from_secs)
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memory {}, {} processes, CPU {}, {} open files, files up to {}, scratch {}, no core dumps",
            show_size(self.memory),
            self.processes,
            humantime::format_duration(self.cpu_time),
            self.open_files,
            show_size(self.file_size),
            show_size(self.scratch)
        )
    }
}

/// A limit the box itself saw a bot reach: a cgroup's count of what it
/// refused or killed, or the memory watchdog.
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitReached {
    /// The memory limit: the cgroup killed for it, or the watchdog did.
    Memory,
    /// The process limit: the cgroup refused a new process.
    Processes,
    /// The CPU time limit: the kernel's signal for it killed the process
    /// (`os::limit_of_signal` tells it).
    CpuTime,
    /// The file size limit: the kernel's signal for it killed the process.
    FileSize,
}

/// A limit a dead bot ran into (`reached`, when the box or the signal that
/// killed it says so) or most likely ran into (by what it last wrote to
/// stderr), named for its forfeit detail.
pub fn limit_hit(
    limits: &Limits,
    reached: Option<LimitReached>,
    stderr_tail: &[u8],
) -> Option<String> {
    match reached {
        Some(LimitReached::Memory) => {
            return Some(format!("over its memory limit ({})", show_size(limits.memory)));
        }
        Some(LimitReached::Processes) => {
            return Some(format!("at its process limit ({} processes)", limits.processes));
        }
        Some(LimitReached::CpuTime) => {
            return Some(format!(
                "over its CPU time limit ({})",
                humantime::format_duration(limits.cpu_time)
            ));
        }
        Some(LimitReached::FileSize) => {
            return Some(format!(
                "wrote a file over its file size limit ({})",
                show_size(limits.file_size)
            ));
        }
        None => {}
    }
    let tail = String::from_utf8_lossy(stderr_tail);
    let said = |words: &[&str]| words.iter().any(|word| tail.contains(word));
    if said(&["MemoryError", "out of memory", "Cannot allocate memory", "memory allocation of"]) {
        Some(format!("probably over its memory limit ({})", show_size(limits.memory)))
    } else if said(&["can't start new thread", "fork: retry", "unable to create native thread"])
        // EAGAIN, which a non-blocking read or lock gives too: only where
        // a process or thread was being made (Python's `os.fork`, Rust's
        // "failed to spawn thread", Node's "spawn EAGAIN" and its workers'
        // `startThread`, Go's "fork/exec", C++'s `std::thread` throwing a
        // `std::system_error`).
        || said(&["Resource temporarily unavailable", "resource temporarily unavailable", "EAGAIN"])
            && said(&["fork", "spawn", "Popen", "startThread", "std::system_error"])
    {
        Some(format!("probably over its process limit ({} processes)", limits.processes))
    } else if said(&["Too many open files"]) {
        Some(format!("probably over its open files limit ({})", limits.open_files))
    } else if said(&["File too large"]) {
        // Where SIGXFSZ is ignored (Python), the write fails with EFBIG.
        Some(format!(
            "probably wrote a file over its file size limit ({})",
            show_size(limits.file_size)
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_hit_is_named() {
        let limits = Limits::default();
        assert!(limit_hit(&limits, Some(LimitReached::CpuTime), b"").unwrap().contains("CPU"));
        assert!(limit_hit(&limits, Some(LimitReached::FileSize), b"").unwrap().contains("64 MiB"));
        assert!(limit_hit(&limits, None, b"...\nMemoryError\n").unwrap().contains("1 GiB"));
        // EAGAIN names the process limit only where a process was made.
        let forked =
            b"    pid = os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n";
        assert!(limit_hit(&limits, None, forked).unwrap().contains("process limit"));
        let locked = b"    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n";
        assert_eq!(limit_hit(&limits, None, locked), None);
        let panicked = b"thread 'main' panicked at src/main.rs:9:5:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 11, kind: WouldBlock, message: \"Resource temporarily unavailable\" }\n";
        assert_eq!(limit_hit(&limits, None, panicked), None);
        let spawned = b"thread 'main' panicked at src/main.rs:9:5:\nfailed to spawn thread: Os { code: 11, kind: WouldBlock, message: \"Resource temporarily unavailable\" }\n";
        assert!(limit_hit(&limits, None, spawned).unwrap().contains("process limit"));
        let thread = b"terminate called after throwing an instance of 'std::system_error'\n  what():  Resource temporarily unavailable\n";
        assert!(limit_hit(&limits, None, thread).unwrap().contains("process limit"));
        let too_large = b"    f.write(data)\nOSError: [Errno 27] File too large\n";
        assert!(limit_hit(&limits, None, too_large).unwrap().contains("file size limit"));
        assert_eq!(limit_hit(&limits, None, b"ok"), None);
        let killed = limit_hit(&limits, Some(LimitReached::Memory), b"").unwrap();
        assert_eq!(killed, "over its memory limit (1 GiB)");
    }
}
