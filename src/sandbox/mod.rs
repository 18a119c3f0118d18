//! The sandbox every bot process starts in: its settings and what it
//! promises. The system calls that enforce it are in the OS layer
//! (`crate::os::sandbox`), re-exported here.
//!
//! Settings go in ([`SandboxSettings`]); [`Sandbox::new`] probes once per run
//! what this machine can enforce ([`Protections`]); [`Sandbox::for_bot`]
//! works out what one bot may read; and [`BotSandbox::prepare`] readies a
//! command to start sandboxed. Per process that is:
//!
//! - its own Landlock domain: read and execute on system folders, its
//!   interpreter's installation and the folders of its own files (less the
//!   results, the tournament file, `.git` and other bots' files); read and
//!   write in a scratch folder of its own (its HOME and TMPDIR, removed
//!   afterwards); no TCP; no signals to, and no ptrace, /proc fd, mem or
//!   environ access of, any process outside it;
//! - its own session, so no terminal and no way into the arena's group;
//! - a clean environment (PATH, locale, HOME, TMPDIR, its own `env`) and no
//!   file descriptor but 0, 1 and 2;
//! - resource limits ([`Limits`]); a user namespace of its own (or, under
//!   root, a user id of its own) so that the process limit counts it alone;
//! - a seccomp filter for what Landlock does not cover.
//!
//! Nothing is added per move: all of it happens when a process starts.

// Only the Linux sandbox grants files; the stub leaves most of this unused.
#[cfg_attr(any(not(target_os = "linux"), arena_os_stub), allow(dead_code))]
pub(crate) mod files;
mod limits;

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use files::{CommandFiles, in_system_folder};
pub use limits::{Limits, limit_hit, parse_size, show_size};
// The sandbox itself makes system calls: it lives in the OS layer.
pub use crate::os::sandbox::{BotSandbox, Sandbox, ScratchFolder};

/// Whether bots run sandboxed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No sandbox: bots run as the arena's user, with its environment.
    Off,
    /// Every protection this machine offers; what it lacks is said once.
    #[default]
    On,
    /// Refuse to run unless Landlock and seccomp are both available.
    Required,
}

/// How bots are sandboxed, as a tournament file or `arena match` sets it.
/// A results folder records it whole (tournament.json): every field is
/// part of what a resume or a merge compares. Fields missing from a record
/// read as their defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxSettings {
    pub mode: SandboxMode,
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
    #[error(
        "the sandbox is required (`sandbox = \"required\"`) but this machine lacks {0}; run on Linux 5.13 or later with Landlock enabled, or set `sandbox = true` to run with what there is"
    )]
    Required(String),
    #[error(
        "arena sandboxes bots on Linux only; on this system run with `sandbox = false` (or `--sandbox off`)"
    )]
    #[cfg_attr(
        all(target_os = "linux", not(arena_os_stub)),
        expect(dead_code, reason = "made by the OS layer's stub only")
    )]
    Unsupported,
    #[error("cannot set up the bot sandbox: {0}")]
    Setup(String),
    #[error("cannot make a scratch folder for a bot in {path}: {source}")]
    Scratch {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What this machine lets the sandbox enforce, probed once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Protections {
    /// The kernel's Landlock ABI, when Landlock is enabled.
    pub landlock_abi: Option<u32>,
    pub seccomp: bool,
    /// Each bot in a user namespace of its own (arena not root).
    pub user_namespace: bool,
    /// Arena runs as root: each bot gets a user id of its own.
    pub as_root: bool,
}

impl Protections {
    /// What a full sandbox needs and this machine lacks.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        match self.landlock_abi {
            None => missing.push("Landlock (Linux 5.13+, enabled at boot)"),
            Some(abi) if abi < 4 => missing.push("Landlock TCP rules (Linux 6.7+)"),
            Some(abi) if abi < 6 => missing.push("Landlock signal scoping (Linux 6.12+)"),
            Some(_) => {}
        }
        if !self.seccomp {
            missing.push("seccomp");
        }
        if !self.as_root && !self.user_namespace {
            missing.push("unprivileged user namespaces (so no process limit)");
        }
        missing
    }
}

impl fmt::Display for Protections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.landlock_abi {
            Some(abi) => {
                write!(f, "landlock ABI {abi} (files")?;
                if abi >= 4 {
                    write!(f, ", TCP")?;
                }
                if abi >= 6 {
                    write!(f, ", signals")?;
                }
                write!(f, ")")?;
            }
            None => write!(f, "no landlock")?,
        }
        write!(f, ", {}", if self.seccomp { "seccomp" } else { "no seccomp" })?;
        if self.as_root {
            write!(f, ", a user id per bot (arena runs as root; capabilities dropped)")
        } else if self.user_namespace {
            write!(f, ", a user namespace per bot")
        } else {
            write!(f, ", no user namespace")
        }
    }
}
