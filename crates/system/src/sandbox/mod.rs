//! The sandbox every bot process starts in: its settings and what it
//! promises, worked out without a system call beyond reading the file
//! system. The system calls that enforce it, and the `Sandbox` and
//! `BotSandbox` that make boxes, are the OS layer's (`crate::os::sandbox`),
//! which takes this module's values; this module uses nothing of the OS
//! layer.
//!
//! Settings go in ([`SandboxSettings`]); [`Sandbox::new`](crate::os::sandbox::Sandbox::new) probes once per run
//! what this machine can enforce ([`Protections`]); [`Sandbox::for_bot`](crate::os::sandbox::Sandbox::for_bot)
//! works out what one bot may see ([`files`] and [`layout`]); and
//! `BotSandbox::start` starts one of its processes. Each process gets, where
//! the machine allows it, a box of its own built as an allowlist:
//!
//! - namespaces: user (the bot is an id of the box, mapped to no host
//!   user's), PID (the box's first process is arena's; when it ends,
//!   everything in the box dies at once), IPC, network (a loopback of its
//!   own unless the network is allowed), UTS and mount: a root holding only
//!   read-only views of the system folders, the bot's own files and its
//!   interpreter's installation, a fresh /proc, a few devices, and a private
//!   size-limited tmpfs as /tmp (its HOME and TMPDIR) and /dev/shm;
//! - a cgroup where arena may make one: memory of every kind, processes,
//!   an equal CPU share per box; else resource limits, a memory watchdog and
//!   one session per box (the scheduler shares CPU by session);
//! - Landlock inside the box (writes only to scratch, no TCP, no signals
//!   or abstract sockets beyond the box) and a seccomp allowlist last.
//!
//! Where namespaces cannot be made (a container that forbids them, a
//! distribution that restricts unprivileged user namespaces), bots run in
//! the older arrangement: Landlock over the host's files with a scratch
//! folder on disk, a user id or user namespace of their own, resource
//! limits and the same seccomp allowlist; what that lacks is said once, and
//! `sandbox = "required"` refuses it.
//!
//! Nothing is added per move: all of it happens when a process starts.

// Only the Linux sandbox grants files; the stub leaves most of this unused.
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub mod command_files;
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub mod files;
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub mod layout;
mod limits;
pub mod shims;
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub mod view;

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use command_files::{CommandFiles, path_list, run_by_env};
pub use files::in_system_folder;
pub use view::{Declared, NotShown, Roots, View};

/// How the line a JVM writes first to stderr in a box begins: it notes the
/// options arena gives it (the memory limit, in `JAVA_TOOL_OPTIONS`), not
/// anything of the bot's own, so it is kept out of the bot's stderr log
/// (else every game of a Java bot kept a log of that line alone).
pub const JVM_NOTE: &[u8] = b"Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAM=";
pub use limits::{LimitReached, Limits, limit_hit};

/// Whether bots run sandboxed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No sandbox: bots run as the arena's user, with its environment.
    Off,
    /// Every protection this machine offers; what it lacks is said once.
    #[default]
    On,
    /// Refuse to run unless every protection is in force: a box per program,
    /// cgroup limits, Landlock and seccomp.
    Required,
}

/// How bots are sandboxed, as a tournament file or `arena match` sets it.
/// A results folder records it whole (tournament.json): every field is
/// part of what a resume or a merge compares. Fields missing from a record
/// read as their defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxSettings {
    /// Whether bots run sandboxed, and whether every protection is required.
    pub mode: SandboxMode,
    /// The resource limits of every bot process.
    pub limits: Limits,
    /// Let bots use the network.
    pub network: bool,
    /// More paths bots may read (and execute).
    pub read_paths: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> SandboxSettings {
        SandboxSettings {
            mode: SandboxMode::On,
            limits: Limits::default(),
            network: false,
            read_paths: Vec::new(),
        }
    }
}

/// A sandbox that cannot be set up.
#[derive(Debug, thiserror::Error)]
// Off Linux, only `Unsupported` is made.
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub enum SandboxError {
    /// The sandbox is required and this machine lacks the protections named.
    #[error(
        "the sandbox is required (`sandbox = \"required\"`, `--require-sandbox`) but this machine lacks {0}; run arena as root or where it may make namespaces and a cgroup (a systemd unit with Delegate=yes, a container with its own cgroup namespace), or set `sandbox = true` to run with what there is"
    )]
    Required(String),
    /// A bot limit above arena's own hard limit, which no box could raise.
    #[error(
        "the {limit} limit for bots ({value}) is above arena's own hard limit ({hard}), which no bot may exceed; lower `{key}` in the tournament file (or its flag), or raise arena's limit (`ulimit -H{flag}`) before starting it"
    )]
    AboveOwnLimit {
        /// What is limited, as a person says it ("open files").
        limit: &'static str,
        /// The tournament file key that sets it (`open_files_limit`).
        key: &'static str,
        /// The `ulimit` flag that raises arena's own limit (`n`).
        flag: char,
        /// The limit asked for bots.
        value: String,
        /// Arena's own hard limit.
        hard: String,
    },
    /// Not Linux, or built with the OS stub: there is no sandbox to set up.
    #[error(
        "arena sandboxes bots on Linux only; on this system run with `sandbox = false` (or `--sandbox off`)"
    )]
    Unsupported,
    /// Anything else the sandbox could not set up (a cgroup, a program not in
    /// PATH, a NUL byte in the command), as the message says.
    #[error("cannot set up the sandbox: {0}")]
    Setup(String),
    /// A program whose files a box under root, a user of its own, may not read.
    #[error(
        "`{command}` cannot run in its box: under root a box (a bot's, or a game program's) is a user of its own, with only the rights others have on host files, and `{}` (mode {mode:o}) is closed to them; open it to others (chmod o+rx for a folder or a program, o+r for a file it reads), or keep the program's files where others may read them",
        path.display()
    )]
    ClosedToOthers {
        /// The program's command, as written.
        command: String,
        /// The first path it needs that others may not read.
        path: PathBuf,
        /// That path's permission bits.
        mode: u32,
    },
    /// The scratch folder of a bot's fallback sandbox could not be made.
    // The cause is part of the message, not a source: said once.
    #[error("cannot make a scratch folder for a bot in {path}: {error}")]
    Scratch {
        /// The folder it was to be made in.
        path: PathBuf,
        /// Why it could not.
        error: std::io::Error,
    },
    /// A path a program's command names that its box would not show.
    #[error("{program}: {error}")]
    NotShown {
        /// The program, as its command names it.
        program: String,
        /// The path and why its box would not show it.
        error: Box<NotShown>,
    },
    /// A shim in PATH whose version manager could not say what it runs.
    #[error("{program}: {error}")]
    Shim {
        /// The program, as its command names it.
        program: String,
        /// The shim and what its manager said.
        error: Box<shims::Unresolved>,
    },
}

impl SandboxError {
    /// Whether the user's input is what to correct (exit status 2): the
    /// settings ask for what this machine or these limits cannot give, or
    /// a bot's files are closed to its box.
    pub fn is_input_to_correct(&self) -> bool {
        matches!(
            self,
            SandboxError::Required(_)
                | SandboxError::AboveOwnLimit { .. }
                | SandboxError::ClosedToOthers { .. }
                | SandboxError::NotShown { .. }
                | SandboxError::Shim { .. }
        )
    }
}

/// The cgroup hierarchy a box's limits are kept in.
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CgroupVersion {
    /// The v1 memory, pids and cpu controllers (writable by root).
    V1,
    /// The unified hierarchy, in a subtree delegated to arena's user.
    V2,
}

/// What this machine lets the sandbox enforce, probed once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Protections {
    /// The kernel's Landlock ABI, when Landlock is enabled.
    pub landlock_abi: Option<u32>,
    /// The kernel accepts a seccomp filter.
    pub seccomp: bool,
    /// Arena runs as root.
    pub as_root: bool,
    /// Each process in a box of namespaces of its own.
    pub boxes: bool,
    /// Where each box's limits are kept, if arena may make cgroups.
    pub cgroup: Option<CgroupVersion>,
    /// Whether the cgroup gives each box one CPU share (else each box, one
    /// session, gets the scheduler's share of a session).
    pub cgroup_cpu: bool,
    /// Without boxes: each program (a bot, a game program) in a user
    /// namespace of its own (arena not root), so that the process limit
    /// counts it alone.
    pub user_namespace: bool,
    /// Each box is ids of its own from the subordinate ids of arena's
    /// user (unprivileged).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub subordinate_ids: bool,
    /// Programs keep arena's supplementary groups (unprivileged, where the
    /// kernel lets a user namespace of arena's own id drop none): every
    /// host file or socket of those groups is theirs as it is arena's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub groups_kept: bool,
    /// Programs run as arena's own user (unprivileged, without subordinate
    /// ids): they share its per-user kernel quotas.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shares_user: bool,
}

impl Protections {
    /// What a full sandbox needs and this machine lacks.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !self.boxes {
            missing.push(
                "namespaces for a box per program (programs share the host's files, processes and IPC, behind Landlock)",
            );
        }
        if self.cgroup.is_none() {
            missing.push(
                "a cgroup arena may write (memory falls back to resource limits and a watchdog, CPU to one session per program)",
            );
        }
        match self.landlock_abi {
            None => missing.push("Landlock (Linux 5.13+, enabled at boot)"),
            Some(abi) if abi < 4 => missing.push("Landlock TCP rules (Linux 6.7+)"),
            Some(abi) if abi < 6 => missing.push("Landlock signal scoping (Linux 6.12+)"),
            Some(_) => {}
        }
        if !self.seccomp {
            missing.push("seccomp");
        }
        if !self.boxes && !self.as_root && !self.user_namespace {
            missing.push("unprivileged user namespaces (so no process limit)");
        }
        if self.shares_user {
            missing.push(if self.groups_kept {
                "user ids of their own for programs: they run as arena's user, keep its supplementary groups for every permission check on host files and sockets, and share its per-user kernel quotas (epoll watches, pending signals, message queues); give arena's user subordinate ids (/etc/subuid and /etc/subgid, with Debian's uidmap for newuidmap and newgidmap), or run arena in no supplementary group"
            } else {
                "user ids of their own for programs: they run as arena's user and share its per-user kernel quotas (epoll watches, pending signals, message queues); give arena's user subordinate ids (/etc/subuid and /etc/subgid, with Debian's uidmap for newuidmap and newgidmap)"
            });
        }
        missing
    }

    /// Whether everything `sandbox = "required"` asks for is here: boxes,
    /// cgroups, Landlock and seccomp.
    #[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
    pub fn complete(&self) -> bool {
        self.boxes
            && self.cgroup.is_some()
            && self.landlock_abi.is_some()
            && self.seccomp
            && !self.shares_user
    }
}

impl fmt::Display for Protections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.boxes {
            write!(f, "a box per program (user, PID, mount, IPC, UTS and network namespaces)")?;
        } else {
            write!(f, "no box per program")?;
        }
        let cpu = if self.cgroup_cpu { "CPU share" } else { "CPU by session" };
        match self.cgroup {
            Some(CgroupVersion::V1) => write!(f, ", cgroup v1 limits (memory, processes, {cpu})")?,
            Some(CgroupVersion::V2) => write!(f, ", cgroup v2 limits (memory, processes, {cpu})")?,
            None => {
                let per = if self.boxes { "box" } else { "program" };
                write!(f, ", no cgroup (resource limits, a memory watchdog, a session per {per})")?
            }
        }
        match self.landlock_abi {
            Some(abi) => {
                write!(f, ", landlock ABI {abi} (files")?;
                if abi >= 4 {
                    write!(f, ", TCP")?;
                }
                if abi >= 6 {
                    write!(f, ", signals")?;
                }
                write!(f, ")")?;
            }
            None => write!(f, ", no landlock")?,
        }
        write!(f, ", {}", if self.seccomp { "seccomp allowlist" } else { "no seccomp" })?;
        if self.boxes {
            if self.as_root {
                write!(f, ", user ids of its own per box")
            } else if self.subordinate_ids {
                write!(f, ", user ids of its own per box (subordinate ids of arena's user)")
            } else {
                write!(f, ", arena's user id in every box")
            }
        } else if self.as_root {
            write!(f, ", a user id per program (arena runs as root; capabilities dropped)")
        } else if self.user_namespace {
            write!(f, ", a user namespace per program")
        } else {
            write!(f, ", no user namespace")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protections() -> Protections {
        Protections {
            landlock_abi: Some(7),
            seccomp: true,
            as_root: true,
            boxes: true,
            cgroup: Some(CgroupVersion::V1),
            cgroup_cpu: true,
            user_namespace: false,
            subordinate_ids: false,
            groups_kept: false,
            shares_user: false,
        }
    }

    #[test]
    fn the_line_names_what_each_program_gets() {
        assert_eq!(
            protections().to_string(),
            "a box per program (user, PID, mount, IPC, UTS and network namespaces), cgroup v1 limits (memory, processes, CPU share), landlock ABI 7 (files, TCP, signals), seccomp allowlist, user ids of its own per box"
        );
        let unprivileged_box =
            Protections { as_root: false, user_namespace: true, ..protections() };
        assert!(unprivileged_box.to_string().ends_with(", arena's user id in every box"));
        let with_subids = Protections { subordinate_ids: true, ..unprivileged_box };
        assert!(with_subids.to_string().ends_with("(subordinate ids of arena's user)"));
        let fallback = Protections { boxes: false, cgroup: None, ..protections() };
        assert_eq!(
            fallback.to_string(),
            "no box per program, no cgroup (resource limits, a memory watchdog, a session per program), landlock ABI 7 (files, TCP, signals), seccomp allowlist, a user id per program (arena runs as root; capabilities dropped)"
        );
        let unprivileged = Protections { as_root: false, user_namespace: true, ..fallback };
        assert!(unprivileged.to_string().ends_with(", a user namespace per program"));
        assert_eq!(fallback.missing().len(), 2);
        assert!(protections().missing().is_empty());
    }
}
