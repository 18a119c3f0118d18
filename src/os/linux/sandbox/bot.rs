//! One bot's sandbox, and the start of its processes: in a box, or in the
//! fallback.

use std::ffi::CString;
use std::fmt;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ::landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope,
};

use super::boxed::{self, BoxPlan, BoxStart};
use super::fallback_child::{ChildSetup, Identity};
use super::landlock::InBoxRuleset;
use super::scratch::ScratchFolder;
use super::started::{Handle, ProcessEnd, StartError, Started};
use super::{Sandbox, fallback, watchdog};
use crate::sandbox::files;
use crate::sandbox::{Limits, SandboxError};

/// One bot's sandbox: the run's, and what this bot may see.
pub struct BotSandbox {
    pub(super) sandbox: Arc<Sandbox>,
    pub(super) kind: BotKind,
}

pub(super) enum BotKind {
    /// The steps that build this bot's boxes, and (under root) the network
    /// namespace its first box made, which its later boxes enter: each box
    /// of the bot is alone in it while it runs, or with a box of the same
    /// bot, and a box leaves nothing in it when it ends.
    Boxed { plan: Arc<BoxPlan>, network: Mutex<Option<OwnedFd>> },
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
            BotKind::Boxed { plan, network } => {
                let program = c_string(program.as_os_str().as_bytes())?;
                self.start_boxed(plan, network, program, argv_c, dir, env)
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
        network: &Mutex<Option<OwnedFd>>,
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
            network: self.network(network),
            cgroup_joins: cgroup.as_ref().map(|cgroup| cgroup.join_files()).unwrap_or_default(),
        };
        let started = boxed::spawn(&start).map_err(|failure| match failure.step {
            boxed::Failed::Exec => StartError::Exec(failure.error),
            step => StartError::Box { doing: step.doing(), error: failure.error },
        })?;
        let spawned = started.spawned;
        if sandbox.protections.as_root && matches!(start.network, boxed::Network::Own) {
            // Kept for the bot's next boxes (see `BotKind::Boxed`).
            if let Ok(namespace) = std::fs::File::open(format!("/proc/{}/ns/net", spawned.pid)) {
                *network.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
                    Some(OwnedFd::from(namespace));
            }
        }
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

    /// The network a new box of this bot gets.
    fn network(&self, known: &Mutex<Option<OwnedFd>>) -> boxed::Network {
        use std::os::fd::AsRawFd;
        if self.sandbox.settings.network {
            return boxed::Network::Host;
        }
        let known = known.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match known.as_ref() {
            Some(namespace) if self.sandbox.protections.as_root => {
                boxed::Network::Join(namespace.as_raw_fd())
            }
            _ => boxed::Network::Own,
        }
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
                    .map_err(|error| SandboxError::Scratch { path: path.clone(), error })?;
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
            let (uid, gid) = crate::os::linux::user_ids();
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
