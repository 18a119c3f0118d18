//! The sandbox's machinery on Linux: probing what the kernel offers, and
//! starting each bot process in a box of its own ([`boxed`]) or, where no
//! box can be made, in the fallback ([`fallback`]). What the sandbox
//! promises is told in `crate::sandbox`.

mod boxed;
mod bpf;
mod cgroup;
mod fallback;
mod fallback_child;
mod landlock;
mod seccomp;
mod spawn;
mod watchdog;

use std::ffi::CString;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ::landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope,
};

pub use spawn::{Spawned, wait_exited};

use crate::sandbox::files::{self, Grant, real_path};
use crate::sandbox::layout::Layout;
use crate::sandbox::{
    CommandFiles, LimitReached, Limits, Protections, SandboxError, SandboxMode, SandboxSettings,
};
use boxed::{BoxPlan, BoxStart};
use fallback_child::{ChildSetup, Identity};
use landlock::InBoxRuleset;
use seccomp::Filter;

/// The kernel's Landlock ABI version, if Landlock is enabled.
fn landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute and this flag the call only returns the
    // version.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(version).ok().filter(|&version| version > 0)
}

/// Whether this process can make a user namespace (Ubuntu's AppArmor
/// default, for one, forbids it): a child tries and reports.
fn user_namespaces_work() -> bool {
    // SAFETY: the child makes system calls only and exits; the parent
    // waits for it by pid.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let works = libc::unshare(libc::CLONE_NEWUSER) == 0;
            libc::_exit(if works { 0 } else { 1 });
        }
        if pid < 0 {
            return false;
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0) == pid
            && libc::WIFEXITED(status)
            && libc::WEXITSTATUS(status) == 0
    }
}

/// Whether arena runs as root with user ids to hand out: root of the
/// host, or of a user namespace whose map holds the ids boxes get
/// ([`boxed::ROOT_BOX_UID_BASE`] and up). Root of a namespace that maps
/// itself alone (`unshare -r`) is an unprivileged user here.
fn as_root() -> bool {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return false;
    }
    let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    let wanted =
        u64::from(boxed::ROOT_BOX_UID_BASE)..u64::from(boxed::ROOT_BOX_UID_BASE) + (1 << 23);
    map.lines().any(|line| {
        let numbers: Vec<u64> = line.split_ascii_whitespace().filter_map(|n| n.parse().ok()).collect();
        matches!(numbers[..], [inside, _, count] if inside <= wanted.start && wanted.end <= inside + count)
    })
}

/// Resource limits a bot gets, checked against arena's own hard limits: a
/// box's processes cannot raise a hard limit (their privileges end at
/// their namespace), so a bot limit above arena's own would fail every
/// start. Root raises its own hard limit to the bot's; anyone else is told
/// which limit to lower or raise.
fn check_own_limits(limits: &Limits) -> Result<(), SandboxError> {
    let checks = [
        (libc::RLIMIT_NOFILE, limits.open_files, "open files", "open_files_limit", 'n'),
        (libc::RLIMIT_FSIZE, limits.file_size, "file size", "file_size_limit", 'f'),
        (libc::RLIMIT_DATA, limits.memory, "memory", "memory_limit", 'd'),
        (libc::RLIMIT_CPU, limits.cpu_time.as_secs().max(1) + 1, "CPU time", "cpu_limit", 't'),
        (libc::RLIMIT_NPROC, limits.processes, "process", "process_limit", 'u'),
    ];
    for (resource, value, limit, key, flag) in checks {
        let mut own = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit fills the value on the stack.
        if unsafe { libc::getrlimit(resource, &mut own) } != 0
            || own.rlim_max == libc::RLIM_INFINITY
        {
            continue;
        }
        if value <= own.rlim_max {
            continue;
        }
        let raised = libc::rlimit { rlim_cur: own.rlim_cur, rlim_max: value };
        // SAFETY: setrlimit on this process with a value on the stack.
        if as_root() && unsafe { libc::setrlimit(resource, &raised) } == 0 {
            continue;
        }
        return Err(SandboxError::AboveOwnLimit {
            limit,
            key,
            flag,
            value: value.to_string(),
            hard: own.rlim_max.to_string(),
        });
    }
    Ok(())
}

/// A run's sandbox: the settings, what the machine enforces, the seccomp
/// filter, and the run's cgroups or fallback scratch folders.
pub struct Sandbox {
    settings: SandboxSettings,
    protections: Protections,
    /// Why no box could be made, when none can.
    no_boxes: Option<String>,
    filter: Option<Arc<Filter>>,
    /// Paths no bot may read: the results folder, the tournament file.
    protected: Vec<PathBuf>,
    cgroups: Option<Arc<cgroup::Cgroups>>,
    /// The fallback's scratch folders, on disk (a box's are its own tmpfs).
    scratch_root: Option<tempfile::TempDir>,
    scratch_count: AtomicU64,
    /// Where arena's command line lies in its memory.
    command_line: std::ops::Range<usize>,
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("settings", &self.settings)
            .field("protections", &self.protections)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// The sandbox for a run, or `None` when it is off. `protected` are the
    /// paths no bot may read (results folder, tournament file).
    pub fn new(
        settings: &SandboxSettings,
        protected: &[&Path],
    ) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        if settings.mode == SandboxMode::Off {
            return Ok(None);
        }
        check_own_limits(&settings.limits)?;
        let mut protected: Vec<PathBuf> = protected.iter().map(|path| real_path(path)).collect();
        let landlock_abi = landlock_abi();
        let no_boxes = boxed::probe(settings.network, as_root()).err();
        let boxes = no_boxes.is_none();
        let cgroups = if boxes { cgroup::Cgroups::new(&settings.limits) } else { None };
        let policy = seccomp::Policy {
            boxed: boxes,
            network: settings.network,
            memory_counted: cgroups.is_some(),
        };
        let filter = seccomp::filter(policy);
        let as_root = as_root();
        let protections = Protections {
            landlock_abi,
            seccomp: filter.is_some(),
            as_root,
            boxes,
            cgroup: cgroups.as_ref().map(|cgroups| cgroups.version()),
            user_namespace: !boxes && !as_root && user_namespaces_work(),
        };
        if settings.mode == SandboxMode::Required && !protections.complete() {
            let mut missing = protections.missing().join("; ");
            if let Some(why) = &no_boxes {
                missing.push_str(&format!(" (a box could not be made: {why})"));
            }
            return Err(SandboxError::Required(missing));
        }
        let scratch_root = if boxes {
            None
        } else {
            remove_scratch_of_dead_runs();
            let root = tempfile::Builder::new()
                .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
                .tempdir()
                .map_err(|source| SandboxError::Scratch { path: std::env::temp_dir(), source })?;
            protected.push(real_path(root.path()));
            Some(root)
        };
        Ok(Some(Arc::new(Sandbox {
            settings: settings.clone(),
            protections,
            no_boxes,
            filter: filter.map(Arc::new),
            protected,
            cgroups,
            scratch_root,
            scratch_count: AtomicU64::new(0),
            command_line: boxed::command_line(),
        })))
    }

    pub fn protections(&self) -> Protections {
        self.protections
    }

    /// Why no box can be made here, when none can.
    pub fn why_no_boxes(&self) -> Option<&str> {
        self.no_boxes.as_deref()
    }

    pub fn limits(&self) -> &Limits {
        &self.settings.limits
    }

    /// The protections in force, in one line: "a box per bot (...), cgroup
    /// v1 limits, landlock ABI 7 (...), ...; no network; memory 1 GiB, ...".
    pub fn summary(&self) -> String {
        let network = if self.settings.network { "network allowed" } else { "no network" };
        let p = &self.protections;
        let processes = if p.boxes || p.as_root || p.user_namespace {
            ""
        } else {
            " (the process limit is not enforced: no user namespace)"
        };
        format!("{}; {network}; {}{processes}", self.protections, self.settings.limits)
    }

    /// What the bot whose command names `own` may see, its files set apart
    /// from those of `others` (the other bots of the run).
    pub fn for_bot(
        self: &Arc<Sandbox>,
        own: &CommandFiles,
        others: &[CommandFiles],
    ) -> Result<Arc<BotSandbox>, SandboxError> {
        let grants = files::grants(own, others, &self.protected, &self.settings.read_paths);
        let kind = if self.protections.boxes {
            BotKind::Boxed { plan: Arc::new(BoxPlan::new(&Layout::new(&grants, &own.reached))) }
        } else {
            let read = AccessFs::from_read(ABI::V6);
            let reads = grants
                .into_iter()
                .map(|grant| match grant {
                    Grant::Whole(path) if path.is_dir() => (path, read),
                    Grant::Whole(path) => (path, AccessFs::Execute | AccessFs::ReadFile),
                    Grant::List(path) => (path, BitFlags::from(AccessFs::ReadDir)),
                })
                .collect();
            BotKind::Fallback { reads, free_scratch: Arc::default() }
        };
        Ok(Arc::new(BotSandbox { sandbox: Arc::clone(self), kind }))
    }

    /// The files `argv` names, for [`Sandbox::for_bot`]'s `others`.
    pub fn command_files(argv: &[String], dir: &Path) -> CommandFiles {
        CommandFiles::of(argv, dir, &std::env::var_os("PATH").unwrap_or_default())
    }

    fn rlimits(&self) -> Vec<(libc::c_int, u64, u64)> {
        let limits = &self.settings.limits;
        let protections = self.protections;
        let cpu = limits.cpu_time.as_secs().max(1);
        let mut rlimits = vec![
            (libc::RLIMIT_DATA as libc::c_int, limits.memory, limits.memory),
            // SIGXCPU at the limit, SIGKILL a second later: at equal limits
            // the kernel sends SIGKILL alone, and the forfeit could not say
            // which limit it was.
            (libc::RLIMIT_CPU as libc::c_int, cpu, cpu + 1),
            (libc::RLIMIT_NOFILE as libc::c_int, limits.open_files, limits.open_files),
            (libc::RLIMIT_FSIZE as libc::c_int, limits.file_size, limits.file_size),
            (libc::RLIMIT_CORE as libc::c_int, 0, 0),
        ];
        // Counted per user namespace, or per user id of its own: never
        // every process of arena's user.
        if protections.boxes || protections.as_root || protections.user_namespace {
            rlimits.push((libc::RLIMIT_NPROC as libc::c_int, limits.processes, limits.processes));
        }
        rlimits
    }
}

/// How the folder of a run's scratch folders begins, before the run's pid.
const SCRATCH_PREFIX: &str = "arena-bots-";

/// Removes the scratch folders of runs that ended without removing them
/// (killed by SIGKILL): those whose arena process is gone.
fn remove_scratch_of_dead_runs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(SCRATCH_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|pid| pid.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            remove_tree(&entry.path());
        }
    }
}

/// Removes a folder a bot wrote, whatever modes it left on it (a folder of
/// mode 0311 would stop a plain removal).
fn remove_tree(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::remove_dir_all(path).is_ok() || !path.exists() {
        return;
    }
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let _ = std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    folders.push(entry.path());
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(path);
}

/// One bot's sandbox: the run's, and what this bot may see.
pub struct BotSandbox {
    sandbox: Arc<Sandbox>,
    kind: BotKind,
}

enum BotKind {
    /// The steps that build this bot's boxes.
    Boxed { plan: Arc<BoxPlan> },
    /// The fallback: what the bot may read, with the access each path
    /// grants (opened only to build a ruleset, once per scratch folder, so
    /// a league of many bots holds no descriptors for them), and the
    /// emptied scratch folders of its ended processes with their rulesets,
    /// for its next ones (never shared with another bot, as a process that
    /// escaped its group keeps its access to its folder until it is swept).
    Fallback {
        reads: Vec<(PathBuf, BitFlags<AccessFs>)>,
        free_scratch: Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
    },
}

impl fmt::Debug for BotSandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotSandbox").finish_non_exhaustive()
    }
}

/// Variables a bot gets from the arena's environment; everything else is
/// left out (tokens and keys included).
const PASSED_VARIABLES: [&str; 3] = ["PATH", "LANG", "TZ"];

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
    /// A box: the report pipe of its first process, its cgroup and its
    /// memory watch (released once the box is gone).
    Box { report: OwnedFd, cgroup: Option<cgroup::Lease>, watch: Option<watchdog::Watch> },
    /// The fallback: the process itself, and its memory watch.
    Plain { watch: watchdog::Watch },
}

impl ProcessEnd {
    /// The bot's exit status and the limit the box saw it reach, given the
    /// status of the process arena waited for (a box's first process).
    pub fn finish(self, waited: ExitStatus) -> (ExitStatus, Option<LimitReached>) {
        match self {
            ProcessEnd::Box { report, cgroup, watch } => {
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

impl BotSandbox {
    /// The run's limits.
    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Starts `argv` (run in `dir`, with `env` added to the allowed
    /// environment) in its sandbox.
    pub fn start(
        &self,
        argv: &[String],
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Started, StartError> {
        let c_string = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| SandboxError::Setup("a NUL byte in the command".into()))
        };
        let program = program_path(argv)?;
        let argv_c: Vec<CString> =
            argv.iter().map(|word| c_string(word.as_bytes())).collect::<Result<_, _>>()?;
        match &self.kind {
            BotKind::Boxed { plan } => {
                self.start_boxed(plan, c_string(program.as_os_str().as_bytes())?, argv_c, dir, env)
            }
            BotKind::Fallback { reads, free_scratch } => self.start_fallback(
                reads,
                free_scratch,
                c_string(program.as_os_str().as_bytes())?,
                argv_c,
                dir,
                env,
            ),
        }
    }

    /// The environment: the passed variables, HOME and TMPDIR, the bot's own.
    fn environment(
        &self,
        scratch: &[u8],
        env: &[(String, String)],
    ) -> Result<Vec<CString>, SandboxError> {
        let c_string = |bytes: Vec<u8>| {
            CString::new(bytes)
                .map_err(|_| SandboxError::Setup("a NUL byte in the environment".into()))
        };
        let mut envp = Vec::new();
        for (key, value) in std::env::vars_os() {
            let passed = key
                .to_str()
                .is_some_and(|key| PASSED_VARIABLES.contains(&key) || key.starts_with("LC_"));
            if passed {
                envp.push(c_string([key.as_bytes(), b"=", value.as_bytes()].concat())?);
            }
        }
        envp.push(c_string([b"HOME=", scratch].concat())?);
        envp.push(c_string([b"TMPDIR=", scratch].concat())?);
        for (key, value) in env {
            envp.push(c_string(format!("{key}={value}").into_bytes())?);
        }
        Ok(envp)
    }

    fn start_boxed(
        &self,
        plan: &Arc<BoxPlan>,
        program: CString,
        argv: Vec<CString>,
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Started, StartError> {
        let sandbox = &self.sandbox;
        let limits = &sandbox.settings.limits;
        let workdir = match dir {
            Some(dir) => std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        };
        let cgroup = match &sandbox.cgroups {
            Some(cgroups) => Some(cgroups.lease().map_err(|error| {
                SandboxError::Setup(format!("cannot make a cgroup for a bot: {error}"))
            })?),
            None => None,
        };
        let start = BoxStart {
            plan: Arc::clone(plan),
            program,
            argv,
            envp: self.environment(b"/tmp", env)?,
            workdir: CString::new(workdir.as_os_str().as_bytes())
                .map_err(|_| SandboxError::Setup("a NUL byte in the working folder".into()))?,
            rlimits: sandbox.rlimits(),
            landlock: sandbox.protections.landlock_abi.map(|abi| {
                InBoxRuleset::new(abi, &boxed::SCRATCH, &boxed::DEVICES, sandbox.settings.network)
            }),
            filter: sandbox.filter.clone(),
            scratch_options: CString::new(format!("size={},mode=1777", limits.scratch))
                .expect("no NUL in a number"),
            command_line: sandbox.command_line.clone(),
            as_root: sandbox.protections.as_root,
            own_network: !sandbox.settings.network,
            cgroup_joins: cgroup.as_ref().map(|cgroup| cgroup.join_files()).unwrap_or_default(),
        };
        let started = boxed::spawn(&start).map_err(|failure| match failure.step {
            boxed::Failed::Exec => StartError::Exec(failure.error),
            step => StartError::Box { doing: step.doing(), error: failure.error },
        })?;
        let spawned = started.spawned;
        let watch = if cgroup.is_none() {
            let pidfd = spawned
                .pidfd
                .try_clone()
                .map_err(|error| StartError::Box { doing: "watching the box's memory", error })?;
            Some(watchdog::Watch::start(spawned.pid, pidfd, limits.memory))
        } else {
            None
        };
        let killer = spawned
            .pidfd
            .try_clone()
            .map_err(|error| StartError::Box { doing: "keeping the box's descriptor", error })?;
        Ok(Started {
            handle: Handle::Box { pidfd: killer, pid: spawned.pid },
            ending: ProcessEnd::Box { report: started.report, cgroup, watch },
            spawned,
        })
    }

    fn start_fallback(
        &self,
        reads: &[(PathBuf, BitFlags<AccessFs>)],
        free_scratch: &Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
        program: CString,
        argv: Vec<CString>,
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Started, StartError> {
        let sandbox = &self.sandbox;
        let scratch_root = sandbox.scratch_root.as_ref().expect("the fallback has a scratch root");
        let reused = free_scratch.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let (path, ruleset) = match reused {
            Some(reused) => reused,
            None => {
                let number = sandbox.scratch_count.fetch_add(1, Ordering::Relaxed);
                let path = scratch_root.path().join(number.to_string());
                std::fs::create_dir(&path)
                    .map_err(|source| SandboxError::Scratch { path: path.clone(), source })?;
                let ruleset = self.fallback_ruleset(reads, &path)?;
                (path, ruleset)
            }
        };
        let child_ruleset: Option<OwnedFd> = ruleset
            .try_clone()
            .map_err(|error| SandboxError::Setup(format!("landlock ruleset: {error}")))?
            .into();
        let scratch =
            ScratchFolder { path, ruleset: Some(ruleset), free: Arc::clone(free_scratch) };
        let setup = ChildSetup {
            identity: self.fallback_identity(&scratch.path)?,
            rlimits: sandbox.rlimits(),
            ruleset: child_ruleset,
            filter: sandbox.filter.clone(),
        };
        let mut prepared = fallback::Prepared {
            program,
            argv,
            envp: self.environment(scratch.path.as_os_str().as_bytes(), env)?,
            dir: dir
                .map(|dir| CString::new(dir.as_os_str().as_bytes()))
                .transpose()
                .map_err(|_| SandboxError::Setup("a NUL byte in the working folder".into()))?,
            setup,
        };
        let spawned = fallback::spawn(&mut prepared).map_err(StartError::Exec)?;
        let pidfd = spawned
            .pidfd
            .try_clone()
            .map_err(|error| StartError::Box { doing: "watching the bot's memory", error })?;
        let watch = watchdog::Watch::start(spawned.pid, pidfd, sandbox.settings.limits.memory);
        Ok(Started {
            handle: Handle::Group { pid: spawned.pid, scratch },
            ending: ProcessEnd::Plain { watch },
            spawned,
        })
    }

    fn fallback_identity(&self, scratch: &Path) -> Result<Identity, SandboxError> {
        let protections = self.sandbox.protections;
        if protections.as_root {
            let scratch = CString::new(scratch.as_os_str().as_bytes())
                .map_err(|_| SandboxError::Setup("a scratch path holds a NUL byte".into()))?;
            return Ok(Identity::OwnUser { scratch });
        }
        if protections.user_namespace {
            let (uid, gid) = super::user_ids();
            return Ok(Identity::UserNamespace {
                uid_map: format!("{uid} {uid} 1").into_bytes(),
                gid_map: format!("{gid} {gid} 1").into_bytes(),
            });
        }
        Ok(Identity::Same)
    }

    fn fallback_ruleset(
        &self,
        reads: &[(PathBuf, BitFlags<AccessFs>)],
        scratch: &Path,
    ) -> Result<RulesetCreated, SandboxError> {
        let fail =
            |error: ::landlock::RulesetError| SandboxError::Setup(format!("landlock: {error}"));
        let abi = ABI::V6;
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))
            .map_err(fail)?
            .scope(Scope::from_all(abi))
            .map_err(fail)?;
        if !self.sandbox.settings.network {
            ruleset = ruleset.handle_access(AccessNet::from_all(abi)).map_err(fail)?;
        }
        let mut ruleset = ruleset.create().map_err(fail)?;
        // A path that vanished since is simply not granted.
        for (path, access) in reads {
            if let Ok(fd) = PathFd::new(path) {
                ruleset = ruleset.add_rule(PathBeneath::new(fd, *access)).map_err(fail)?;
            }
        }
        let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
        for device_path in boxed::DEVICES {
            if let Ok(fd) = PathFd::new(device_path) {
                ruleset = ruleset.add_rule(PathBeneath::new(fd, device)).map_err(fail)?;
            }
        }
        let scratch =
            PathFd::new(scratch).map_err(|error| SandboxError::Setup(error.to_string()))?;
        ruleset =
            ruleset.add_rule(PathBeneath::new(scratch, AccessFs::from_all(abi))).map_err(fail)?;
        Ok(ruleset)
    }
}

/// The program to exec for `argv`, found as execvp would find it in
/// arena's PATH (which the bot gets).
fn program_path(argv: &[String]) -> Result<PathBuf, SandboxError> {
    if argv[0].contains('/') {
        return Ok(PathBuf::from(&argv[0]));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    files::find_in_path(&argv[0], &path)
        .ok_or_else(|| SandboxError::Setup(format!("program `{}` was not found in PATH", argv[0])))
}

/// A fallback process's scratch folder: its HOME and TMPDIR. Emptied on
/// drop (after the process has been killed) and kept, with its ruleset,
/// for the bot's next process.
#[derive(Debug)]
pub struct ScratchFolder {
    path: PathBuf,
    ruleset: Option<RulesetCreated>,
    free: Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
}

impl Drop for ScratchFolder {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.path) else { return };
        let mut emptied = true;
        for entry in entries.flatten() {
            let path = entry.path();
            let removed = match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    remove_tree(&path);
                    if path.exists() { Err(io::Error::other("left")) } else { Ok(()) }
                }
                _ => std::fs::remove_file(&path),
            };
            emptied &= removed.is_ok();
        }
        if emptied && let Some(ruleset) = self.ruleset.take() {
            let path = std::mem::take(&mut self.path);
            self.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((path, ruleset));
        } else {
            // Not reused; the run's scratch root goes at the end anyway.
            remove_tree(&self.path);
        }
    }
}
