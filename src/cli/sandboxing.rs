//! The sandbox options every command that starts bots takes, and starting
//! the sandbox with a line that says what is in force.

use super::reporters::warn;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arena_base::units::{parse_duration, parse_size};
use arena_referee::seeds::{SEED_KEY_VARIABLE, SeedKey};
use arena_system::os::sandbox::Sandbox;
use arena_system::sandbox::{SandboxMode, SandboxSettings};

/// Sandbox options of `arena match`, `check`, `check-game` and `play` (a
/// tournament file has the same settings as keys). A game program runs in
/// a box of its own with the same settings as the bots'.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SandboxArgs {
    /// Run bots and the game program without the sandbox: as arena's own
    /// user, with its environment, files and network. For debugging your
    /// own program only.
    #[arg(long, conflicts_with = "require_sandbox")]
    no_sandbox: bool,
    /// Refuse to run unless every protection is in force (a box per program,
    /// cgroup limits, Landlock and seccomp), instead of warning and running
    /// with the protections there are.
    #[arg(long)]
    require_sandbox: bool,
    /// Memory of each bot's (and the game program's) process (heap and
    /// anonymous mappings; address space only reserved is not counted)
    /// [default: 1GiB].
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    memory_limit: Option<u64>,
    /// Processes and threads of each bot (and of the game program) at once
    /// [default: 128].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    process_limit: Option<u64>,
    /// CPU time of each bot's (and the game program's) process over its
    /// whole life [default: 10m].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    cpu_limit: Option<Duration>,
    /// Files each bot's (and the game program's) process may hold open
    /// [default: 512].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    open_files_limit: Option<u64>,
    /// Largest file a bot (or the game program) may write [default: 64MiB].
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    file_size_limit: Option<u64>,
    /// Size of each bot's (and the game program's) scratch folder: its /tmp
    /// (HOME and TMPDIR) and its /dev/shm, each a private tmpfs of this size
    /// [default: 64MiB].
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    scratch_limit: Option<u64>,
    /// Let bots and the game program use the network (TCP, UDP and unix
    /// sockets of the host).
    #[arg(long)]
    allow_network: bool,
    /// A file or folder bots and the game program may also read
    /// (repeatable).
    #[arg(long = "allow-read", value_name = "PATH")]
    read_paths: Vec<PathBuf>,
}

impl SandboxArgs {
    pub fn settings(&self) -> SandboxSettings {
        let mut settings = SandboxSettings::default();
        self.apply_to(&mut settings);
        settings
    }

    /// Changes what these flags set in `settings` (a tournament file's, or
    /// the defaults), and nothing else.
    pub fn apply_to(&self, settings: &mut SandboxSettings) {
        if self.no_sandbox {
            settings.mode = SandboxMode::Off;
        } else if self.require_sandbox {
            settings.mode = SandboxMode::Required;
        }
        let limits = &mut settings.limits;
        for (flag, limit) in [
            (self.memory_limit, &mut limits.memory),
            (self.process_limit, &mut limits.processes),
            (self.open_files_limit, &mut limits.open_files),
            (self.file_size_limit, &mut limits.file_size),
            (self.scratch_limit, &mut limits.scratch),
        ] {
            if let Some(value) = flag {
                *limit = value;
            }
        }
        if let Some(cpu_time) = self.cpu_limit {
            limits.cpu_time = cpu_time;
        }
        settings.network |= self.allow_network;
        settings.read_paths.extend(self.read_paths.iter().cloned());
    }
}

/// Starts the sandbox of `arena check` or `play` and says what it
/// enforces (or that there is none) on one line, with how seat seeds are
/// keyed there; warns on stderr about protections the machine lacks.
/// `protected` are paths no bot may read. Returns the sandbox and its line.
pub fn start_sandbox(
    settings: &SandboxSettings,
    protected: &[&Path],
) -> anyhow::Result<(Option<Arc<Sandbox>>, String)> {
    let (sandbox, line) = prepare_sandbox(settings, protected)?;
    say_sandbox(&line);
    Ok((sandbox, line))
}

/// Says what a sandbox's `line` holds, and how seat seeds are keyed.
pub fn say_sandbox(line: &str) {
    let seeds = if SeedKey::from_environment().is_secret() {
        format!("seat seeds keyed by {SEED_KEY_VARIABLE}")
    } else {
        "seat seeds keyed by the public default (no results folder keeps a key of its own here)"
            .to_owned()
    };
    crate::say!("{line}; {seeds}");
}

/// [`start_sandbox`] without the saying: the sandbox and its line.
pub fn prepare_sandbox(
    settings: &SandboxSettings,
    protected: &[&Path],
) -> anyhow::Result<(Option<Arc<Sandbox>>, String)> {
    let sandbox = Sandbox::new(settings, protected)?;
    let line = sandbox_line(sandbox.as_ref(), "bots and game programs");
    Ok((sandbox, line))
}

/// The sandbox of `arena build` (a box per build, its folder writable) and
/// its line, warning of protections the machine lacks.
pub fn prepare_build_sandbox(
    settings: &SandboxSettings,
    protected: &[&Path],
) -> anyhow::Result<(Option<Arc<Sandbox>>, String)> {
    let sandbox = Sandbox::for_builds(settings, protected)?;
    let line = sandbox_line(sandbox.as_ref(), "builds");
    Ok((sandbox, line))
}

/// The line that says what `sandbox` enforces; warns of what is missing.
/// `programs` names what runs in it, for the warning that it is off.
fn sandbox_line(sandbox: Option<&Arc<Sandbox>>, programs: &str) -> String {
    match sandbox {
        None => {
            warn(&format!(
                "the sandbox is off: {programs} run as arena's user, with its environment, files and network, and can see and disturb each other"
            ));
            "sandbox: off".to_owned()
        }
        Some(sandbox) => {
            let missing = sandbox.protections().missing();
            if !missing.is_empty() {
                let why = sandbox
                    .why_no_boxes()
                    .map(|why| format!(" (a box could not be made: {why})"))
                    .unwrap_or_default();
                warn(&format!(
                    "this machine lacks {}{why}; programs run with the other protections",
                    missing.join("; ")
                ));
            }
            format!("sandbox: {}", sandbox.summary())
        }
    }
}
