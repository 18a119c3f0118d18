//! The sandbox's machinery on Linux: probing what the kernel offers,
//! building each bot's Landlock ruleset and seccomp filter, and starting
//! the process with them ([`spawn`]). What the sandbox promises is told in
//! `crate::sandbox`.

mod child;
mod seccomp;
mod spawn;

use std::ffi::CString;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope,
};
use seccompiler::BpfProgram;

pub use spawn::{Prepared, spawn, wait_exited};

use crate::sandbox::files::{self, Grant};
use crate::sandbox::{
    CommandFiles, Limits, Protections, SandboxError, SandboxMode, SandboxSettings,
};
use child::{ChildSetup, Identity};

/// What this machine lets the sandbox enforce; `filter` says whether a
/// seccomp filter could be built.
fn probe(filter: bool) -> Protections {
    // SAFETY: geteuid cannot fail.
    let as_root = unsafe { libc::geteuid() } == 0;
    Protections {
        landlock_abi: landlock_abi(),
        seccomp: filter,
        user_namespace: !as_root && user_namespaces_work(),
        as_root,
    }
}

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

/// A run's sandbox: the settings, what the machine enforces, the seccomp
/// filter and the folder that holds the bots' scratch folders.
pub struct Sandbox {
    settings: SandboxSettings,
    protections: Protections,
    filter: Option<Arc<BpfProgram>>,
    /// Paths no bot may read: the results folder, the tournament file.
    protected: Vec<PathBuf>,
    scratch_root: tempfile::TempDir,
    scratch_count: AtomicU64,
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
        let filter = seccomp::filter(settings.network)
            .map_err(|error| SandboxError::Setup(format!("seccomp filter: {error}")))?;
        let protections = probe(filter.is_some());
        if settings.mode == SandboxMode::Required
            && (protections.landlock_abi.is_none() || !protections.seccomp)
        {
            return Err(SandboxError::Required(protections.missing().join(", ")));
        }
        remove_scratch_of_dead_runs();
        let scratch_root = tempfile::Builder::new()
            .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|source| SandboxError::Scratch { path: std::env::temp_dir(), source })?;
        let mut protected: Vec<PathBuf> = protected.iter().map(|path| real_path(path)).collect();
        protected.push(real_path(scratch_root.path()));
        Ok(Some(Arc::new(Sandbox {
            settings: settings.clone(),
            protections,
            filter: filter.map(Arc::new),
            protected,
            scratch_root,
            scratch_count: AtomicU64::new(0),
        })))
    }

    pub fn protections(&self) -> Protections {
        self.protections
    }

    pub fn limits(&self) -> &Limits {
        &self.settings.limits
    }

    /// The protections in force, in one line: "landlock ABI 7 (files, TCP,
    /// signals), seccomp, ...; no network; memory 1 GiB, ...".
    pub fn summary(&self) -> String {
        let network = if self.settings.network { "network allowed" } else { "no network" };
        let processes = if self.protections.as_root || self.protections.user_namespace {
            String::new()
        } else {
            " (the process limit is not enforced: no user namespace)".to_owned()
        };
        format!("{}; {network}; {}{processes}", self.protections, self.settings.limits)
    }

    /// What the bot whose command names `own` may read, its files set apart
    /// from those of `others` (the other bots of the run).
    pub fn for_bot(
        self: &Arc<Sandbox>,
        own: &CommandFiles,
        others: &[CommandFiles],
    ) -> Result<Arc<BotSandbox>, SandboxError> {
        let mut excluded = self.protected.clone();
        for other in others.iter().filter(|other| *other != own) {
            excluded.extend(other.own.iter().filter(|file| !own.own.contains(file)).cloned());
            // Another bot's folder, unless this bot's own files are in it.
            let own_folders = own.folders();
            excluded.extend(other.folders().into_iter().filter(|folder| {
                !own.own.iter().any(|file| file.starts_with(folder))
                    && !own_folders.iter().any(|mine| mine.starts_with(folder))
            }));
        }
        // Only what exists needs keeping out, and a folder is split into
        // its entries only around something that does.
        excluded.retain(|path| path.exists());
        let mut grants: Vec<Grant> = files::system_paths().into_iter().map(Grant::Whole).collect();
        grants.extend(own.installations.iter().cloned().map(Grant::Whole));
        for folder in own.folders() {
            let git = folder.join(".git");
            let mut excluded = excluded.clone();
            if git.exists() {
                excluded.push(git);
            }
            grants.extend(files::tree_without(&folder, &excluded));
        }
        grants.extend(self.settings.read_paths.iter().map(|path| Grant::Whole(real_path(path))));
        grants.sort();
        grants.dedup();
        let read = AccessFs::from_read(ABI::V6);
        let reads = grants
            .into_iter()
            .map(|grant| match grant {
                Grant::Whole(path) if path.is_dir() => (path, read),
                Grant::Whole(path) => (path, AccessFs::Execute | AccessFs::ReadFile),
                Grant::List(path) => (path, BitFlags::from(AccessFs::ReadDir)),
            })
            .collect();
        Ok(Arc::new(BotSandbox { sandbox: Arc::clone(self), reads, free_scratch: Arc::default() }))
    }

    /// The filter a new bot process must load itself, if any. The calling
    /// thread loads the filter on itself first, so that every process it
    /// starts inherits it at fork: the kernel compiles a filter each time
    /// one is loaded, which costs more than the rest of a start's sandbox
    /// together. The filter refuses nothing the referee does (see
    /// [`seccomp`]); only if loading it here fails does the child load it.
    fn filter_for_child(&self) -> Option<Arc<BpfProgram>> {
        let filter = self.filter.as_ref()?;
        thread_local! {
            static CARRIES_FILTER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        if CARRIES_FILTER.get() {
            return None;
        }
        if child::load_filter(filter).is_ok() {
            CARRIES_FILTER.set(true);
            return None;
        }
        Some(Arc::clone(filter))
    }

    /// The files `argv` names, for [`Sandbox::for_bot`]'s `others`.
    pub fn command_files(argv: &[String], dir: &Path) -> CommandFiles {
        CommandFiles::of(argv, dir, &std::env::var_os("PATH").unwrap_or_default())
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
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The path with links resolved; for a path that does not exist yet, its
/// parent's resolved path and its name.
fn real_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(real) = absolute.canonicalize() {
        return real;
    }
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => real_path(parent).join(name),
        _ => absolute,
    }
}

/// One bot's sandbox: the run's, and the paths this bot may read.
pub struct BotSandbox {
    sandbox: Arc<Sandbox>,
    /// What the bot may read, with the access each path grants. Opened
    /// only to build a ruleset (once per scratch folder), so a league of
    /// many bots holds no descriptors for them.
    reads: Vec<(PathBuf, BitFlags<AccessFs>)>,
    /// Emptied scratch folders of this bot's ended processes, with their
    /// rulesets, for its next ones: making and removing a folder costs a
    /// fifth of a millisecond on a journaled disk and a ruleset tens of
    /// microseconds, while checking that a folder is empty takes a few.
    /// Never shared with another bot, as a process that escaped its group
    /// keeps its access to its folder until it is swept.
    free_scratch: Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
}

impl fmt::Debug for BotSandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotSandbox").field("reads", &self.reads.len()).finish_non_exhaustive()
    }
}

/// Variables a bot gets from the arena's environment; everything else is
/// left out (tokens and keys included).
const PASSED_VARIABLES: [&str; 3] = ["PATH", "LANG", "TZ"];

impl BotSandbox {
    /// The run's limits.
    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Prepares `argv` (run in `dir`, with `env` added to the allowed
    /// environment) to start sandboxed with [`spawn`]. Returns it with the
    /// process's scratch folder, which is emptied and kept for the bot's
    /// next process when dropped (after the process has been killed).
    pub fn prepare(
        &self,
        argv: &[String],
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<(Prepared, ScratchFolder), SandboxError> {
        let sandbox = &self.sandbox;
        let reused =
            self.free_scratch.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let (path, ruleset) = match reused {
            Some(reused) => reused,
            None => {
                let number = sandbox.scratch_count.fetch_add(1, Ordering::Relaxed);
                let path = sandbox.scratch_root.path().join(number.to_string());
                std::fs::create_dir(&path)
                    .map_err(|source| SandboxError::Scratch { path: path.clone(), source })?;
                let ruleset = self.ruleset(&path)?;
                (path, ruleset)
            }
        };
        let child_ruleset = ruleset
            .try_clone()
            .map_err(|error| SandboxError::Setup(format!("landlock ruleset: {error}")))?;
        let scratch =
            ScratchFolder { path, ruleset: Some(ruleset), free: Arc::clone(&self.free_scratch) };

        let setup = ChildSetup {
            identity: self.identity(&scratch.path)?,
            rlimits: self.rlimits(),
            ruleset: Some(child_ruleset),
            filter: sandbox.filter_for_child(),
        };
        let c_string = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| SandboxError::Setup("a NUL byte in the command".into()))
        };
        let mut envp = Vec::new();
        for (key, value) in std::env::vars_os() {
            let passed = key
                .to_str()
                .is_some_and(|key| PASSED_VARIABLES.contains(&key) || key.starts_with("LC_"));
            if passed {
                envp.push(c_string(&[key.as_bytes(), b"=", value.as_bytes()].concat())?);
            }
        }
        let scratch_bytes = scratch.path.as_os_str().as_bytes();
        envp.push(c_string(&[b"HOME=", scratch_bytes].concat())?);
        envp.push(c_string(&[b"TMPDIR=", scratch_bytes].concat())?);
        for (key, value) in env {
            envp.push(c_string(format!("{key}={value}").as_bytes())?);
        }
        // As execvp finds a program, in arena's PATH (which the bot gets).
        let program = if argv[0].contains('/') {
            PathBuf::from(&argv[0])
        } else {
            let path = std::env::var_os("PATH").unwrap_or_default();
            files::find_in_path(&argv[0], &path).ok_or_else(|| {
                SandboxError::Setup(format!("program `{}` was not found in PATH", argv[0]))
            })?
        };
        let prepared = Prepared {
            program: c_string(program.as_os_str().as_bytes())?,
            argv: argv.iter().map(|word| c_string(word.as_bytes())).collect::<Result<_, _>>()?,
            envp,
            dir: dir.map(|dir| c_string(dir.as_os_str().as_bytes())).transpose()?,
            setup,
        };
        Ok((prepared, scratch))
    }

    fn identity(&self, scratch: &Path) -> Result<Identity, SandboxError> {
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

    fn rlimits(&self) -> Vec<(libc::c_int, u64, u64)> {
        let limits = &self.sandbox.settings.limits;
        let protections = self.sandbox.protections;
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
        // Without a user id or namespace of its own, the count would
        // include every process of the user.
        if protections.as_root || protections.user_namespace {
            rlimits.push((libc::RLIMIT_NPROC as libc::c_int, limits.processes, limits.processes));
        }
        rlimits
    }

    fn ruleset(&self, scratch: &Path) -> Result<RulesetCreated, SandboxError> {
        let fail =
            |error: landlock::RulesetError| SandboxError::Setup(format!("landlock: {error}"));
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
        for (path, access) in &self.reads {
            if let Ok(fd) = PathFd::new(path) {
                ruleset = ruleset.add_rule(PathBeneath::new(fd, *access)).map_err(fail)?;
            }
        }
        let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
        for device_path in files::DEVICES {
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

/// A bot process's scratch folder: its HOME and TMPDIR. Emptied on drop
/// (after the process has been killed) and kept, with its ruleset, for the
/// bot's next process.
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
                Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
            emptied &= removed.is_ok();
        }
        if emptied && let Some(ruleset) = self.ruleset.take() {
            let path = std::mem::take(&mut self.path);
            self.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((path, ruleset));
        } else {
            // Not reused; the run's scratch root goes at the end anyway.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
