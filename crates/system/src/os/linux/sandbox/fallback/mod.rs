//! Where no box can be made: bots run on the machine's own tree behind
//! Landlock (what they may read, split around what they may not), with a
//! scratch folder on disk, a user id (under root) or user namespace of their
//! own, the seccomp allowlist and resource limits, each in its own session
//! and process group, whose escapees arena sweeps.

mod scratch;

use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ::landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope,
};

pub(super) use scratch::{
    SCRATCH_PREFIX, ScratchFolder, remove_scratch_of, remove_scratch_of_dead_runs,
};

use super::bot::environment;
use super::child::{ChildSetup, Identity, Session};
use super::spawn::wait_exited;
use super::started::{Handle, ProcessEnd, StartError, Started};
use super::vfork::{self, Prepared};
use super::{Sandbox, boxed, watchdog};
use crate::sandbox::SandboxError;
use crate::sandbox::files::Grant;

/// A bot's fallback: what it may read, with the access each path grants
/// (opened only to build a ruleset, once per scratch folder, so a league of
/// many bots holds no descriptors for them), and the emptied scratch
/// folders of its ended processes with their rulesets, for its next ones
/// (never shared with another bot, as a process that escaped its group
/// keeps its access to its folder until it is swept).
pub(super) struct Fallback {
    reads: Vec<(PathBuf, BitFlags<AccessFs>)>,
    /// Under root, who its processes run as instead of an id of their own
    /// (a build: its folder's owner).
    owner: Option<(u32, u32)>,
    free_scratch: Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
}

impl Fallback {
    /// The fallback of a bot that may read `grants`, and write those in
    /// `writable` (a build's own folder), run as `owner` under root.
    pub(super) fn new(
        grants: Vec<Grant>,
        writable: &[PathBuf],
        owner: Option<(u32, u32)>,
    ) -> Fallback {
        let read = AccessFs::from_read(ABI::V6);
        let every = AccessFs::from_all(ABI::V6);
        let reads = grants
            .into_iter()
            .map(|grant| match grant {
                Grant::Whole(path) if writable.iter().any(|folder| path.starts_with(folder)) => {
                    let access = if path.is_dir() { every } else { AccessFs::from_file(ABI::V6) };
                    (path, access)
                }
                Grant::Whole(path) if path.is_dir() => (path, read),
                Grant::Whole(path) => (path, AccessFs::Execute | AccessFs::ReadFile),
                Grant::List(path) => (path, BitFlags::from(AccessFs::ReadDir)),
            })
            .collect();
        Fallback { reads, owner, free_scratch: Arc::default() }
    }

    /// Starts `argv` (`program` found) as one of the bot's processes.
    pub(in crate::os::linux::sandbox) fn start(
        &self,
        sandbox: &Sandbox,
        program: CString,
        argv: Vec<CString>,
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Started, StartError> {
        let scratch_root = sandbox.scratch_root.as_ref().expect("the fallback has a scratch root");
        let reused =
            self.free_scratch.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let (path, ruleset) = match reused {
            Some(reused) => reused,
            None => {
                let number = sandbox.scratch_count.fetch_add(1, Ordering::Relaxed);
                let path = scratch_root.path().join(number.to_string());
                std::fs::create_dir(&path)
                    .map_err(|error| SandboxError::Scratch { path: path.clone(), error })?;
                let ruleset = self.ruleset(sandbox, &path)?;
                (path, ruleset)
            }
        };
        let child_ruleset: Option<OwnedFd> = ruleset
            .try_clone()
            .map_err(|error| SandboxError::Setup(format!("landlock ruleset: {error}")))?
            .into();
        let scratch =
            ScratchFolder { path, ruleset: Some(ruleset), free: Arc::clone(&self.free_scratch) };
        let setup = ChildSetup {
            session: Session::New,
            identity: identity(sandbox, &scratch.path, self.owner)?,
            rlimits: sandbox.rlimits(),
            ruleset: child_ruleset,
            filter: sandbox.filter.clone(),
        };
        let mut prepared = Prepared {
            program,
            argv,
            envp: environment(
                scratch.path.as_os_str().as_bytes(),
                env,
                sandbox.settings.limits.memory,
            )?,
            dir: dir
                .map(|dir| CString::new(dir.as_os_str().as_bytes()))
                .transpose()
                .map_err(|_| SandboxError::Setup("a NUL byte in the working folder".into()))?,
            setup,
        };
        let spawned = vfork::spawn(&mut prepared).map_err(StartError::Exec)?;
        let pidfd = spawned.pidfd.try_clone().map_err(|error| {
            crate::os::kill_group(spawned.pid);
            let _ = wait_exited(&spawned.pidfd, true);
            StartError::Box { doing: "watching the bot's memory", error }
        })?;
        let watch = watchdog::Watch::process(spawned.pid, pidfd, sandbox.settings.limits.memory);
        Ok(Started {
            handle: Handle::Group { pid: spawned.pid, scratch },
            ending: ProcessEnd::Plain { watch },
            spawned,
        })
    }

    /// A ruleset for a process whose scratch folder is `scratch`.
    fn ruleset(&self, sandbox: &Sandbox, scratch: &Path) -> Result<RulesetCreated, SandboxError> {
        let fail =
            |error: ::landlock::RulesetError| SandboxError::Setup(format!("landlock: {error}"));
        let abi = ABI::V6;
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))
            .map_err(fail)?
            .scope(Scope::from_all(abi))
            .map_err(fail)?;
        if !sandbox.settings.network {
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

/// Who a fallback process runs as, with scratch folder `scratch`.
fn identity(
    sandbox: &Sandbox,
    scratch: &Path,
    owner: Option<(u32, u32)>,
) -> Result<Identity, SandboxError> {
    let protections = sandbox.protections;
    if protections.as_root {
        let scratch = CString::new(scratch.as_os_str().as_bytes())
            .map_err(|_| SandboxError::Setup("a scratch path holds a NUL byte".into()))?;
        return Ok(Identity::OwnUser { scratch, ids: owner });
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
