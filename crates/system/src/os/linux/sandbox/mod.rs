//! The sandbox's machinery on Linux: probing what the kernel offers, and
//! starting each bot process in a box of its own (`boxed`) or, where no
//! box can be made, in the fallback (`fallback`). What the sandbox
//! promises is told in `crate::sandbox`.

mod bot;
mod bot_boxes;
mod box_filter;
mod boxed;
mod bpf;
mod cgroup;
pub(super) mod child;
mod cleaner;
mod fallback;
mod ids;
mod landlock;
mod seccomp;
mod spawn;
mod started;
pub(super) mod vfork;
mod watchdog;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

pub use bot::BotSandbox;
pub use cleaner::clean_after;
pub use spawn::{Spawned, wait_exited};
pub use started::{Handle, ProcessEnd, StartError, Started};

use crate::sandbox::files::{self, real_path};
use crate::sandbox::layout::Layout;
use crate::sandbox::{Limits, Protections, SandboxError, SandboxMode, SandboxSettings, View};
use bot::BotKind;
use bot_boxes::BotBoxes;
use boxed::BoxPlan;
use fallback::{SCRATCH_PREFIX, remove_scratch_of_dead_runs};
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

/// The supplementary groups of this process, other than its own group.
fn supplementary_groups() -> Vec<libc::gid_t> {
    // SAFETY: getgroups with a zero size returns the count; then fills a
    // buffer of that size.
    unsafe {
        let count = libc::getgroups(0, std::ptr::null_mut());
        if count <= 0 {
            return Vec::new();
        }
        let mut groups = vec![0; count as usize];
        let filled = libc::getgroups(count, groups.as_mut_ptr());
        groups.truncate(filled.max(0) as usize);
        let own = libc::getegid();
        groups.retain(|&group| group != own);
        groups
    }
}

/// Resource limits a bot gets, checked against arena's own hard limits: a
/// box's processes cannot raise a hard limit (their privileges end at
/// their namespace), so a bot limit above arena's own would fail every
/// start. Root raises its own hard limit to the bot's; anyone else is told
/// which limit to lower or raise.
fn check_own_limits(limits: &Limits, as_root: bool) -> Result<(), SandboxError> {
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
        if as_root && unsafe { libc::setrlimit(resource, &raised) } == 0 {
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
    /// The same filter in two halves for boxes (see `box_filter`).
    box_filters: Option<Arc<box_filter::BoxFilters>>,
    /// Paths no bot may read: the results folder, the tournament file.
    protected: Vec<PathBuf>,
    cgroups: Option<Arc<cgroup::Cgroups>>,
    /// The fallback's scratch folders, on disk (a box's are its own tmpfs).
    scratch_root: Option<tempfile::TempDir>,
    scratch_count: AtomicU64,
    /// Where arena's command line lies in its memory.
    command_line: std::ops::Range<usize>,
    /// Who each box is on the host.
    ids: ids::BoxIds,
    /// What removes the cgroups and scratch folders were arena killed.
    #[expect(dead_code, reason = "held while the sandbox lives, for its Drop")]
    cleaner: Option<cleaner::Cleaner>,
    /// What its boxes are for.
    purpose: Purpose,
}

/// What a sandbox's boxes are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// Bots and game programs playing.
    Play,
    /// Bots' builds (`arena build`).
    Build,
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
        Sandbox::with_purpose(settings, protected, Purpose::Play)
    }

    /// The sandbox of `arena build`, or `None` when it is off: a box per
    /// bot's build, its own folder read-write, locks allowed, the network
    /// only as `settings` say (`build_network`), its processes the owner of
    /// its folder (so that it writes there as a build outside would).
    pub fn for_builds(
        settings: &SandboxSettings,
        protected: &[&Path],
    ) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        Sandbox::with_purpose(settings, protected, Purpose::Build)
    }

    fn with_purpose(
        settings: &SandboxSettings,
        protected: &[&Path],
        purpose: Purpose,
    ) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        if settings.mode == SandboxMode::Off {
            return Ok(None);
        }
        let as_root = as_root();
        check_own_limits(&settings.limits, as_root)?;
        let mut protected: Vec<PathBuf> = protected.iter().map(|path| real_path(path)).collect();
        let landlock_abi = landlock_abi();
        // Ids of its own for each box: root's, else the user's subordinate
        // ids where they work, else arena's own.
        let subordinate = (!as_root)
            .then(ids::Subordinate::of_this_user)
            .flatten()
            .map(ids::BoxIds::Subordinate)
            .filter(|ids| boxed::probe(settings.network, ids).is_ok());
        let ids = match subordinate {
            Some(ids) => ids,
            None if as_root => ids::BoxIds::Root,
            None => ids::BoxIds::Shared,
        };
        let no_boxes = boxed::probe(settings.network, &ids).err();
        let boxes = no_boxes.is_none();
        // Programs that are arena's user on the host: unprivileged, without
        // a box of ids of its own.
        let shares_user = !(as_root || boxes && ids.own());
        let cgroups = if boxes { cgroup::Cgroups::new(&settings.limits) } else { None };
        let policy = seccomp::Policy {
            boxed: boxes,
            network: settings.network,
            memory_counted: cgroups.is_some(),
            locks: purpose == Purpose::Build,
        };
        let filter = seccomp::filter(policy);
        let protections = Protections {
            landlock_abi,
            seccomp: filter.is_some(),
            as_root,
            boxes,
            cgroup: cgroups.as_ref().map(|cgroups| cgroups.version()),
            cgroup_cpu: cgroups.as_ref().is_some_and(|cgroups| cgroups.shares_cpu()),
            user_namespace: !boxes && !as_root && user_namespaces_work(),
            subordinate_ids: boxes && matches!(ids, ids::BoxIds::Subordinate(_)),
            // A box of arena's own id cannot drop them (setgroups is denied
            // there); a program outside a box keeps them too.
            groups_kept: shares_user && !supplementary_groups().is_empty(),
            shares_user,
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
                .map_err(|error| SandboxError::Scratch { path: std::env::temp_dir(), error })?;
            protected.push(real_path(root.path()));
            Some(root)
        };
        let cleaner = (cgroups.is_some() || scratch_root.is_some()).then(cleaner::Cleaner::start);
        Ok(Some(Arc::new(Sandbox {
            settings: settings.clone(),
            protections,
            no_boxes,
            filter: filter.map(Arc::new),
            box_filters: boxes.then(|| box_filter::box_filters(policy)).flatten().map(Arc::new),
            protected,
            cgroups,
            scratch_root,
            scratch_count: AtomicU64::new(0),
            command_line: boxed::command_line(),
            ids,
            cleaner,
            purpose,
        })))
    }

    /// What this machine lets the sandbox enforce.
    pub fn protections(&self) -> Protections {
        self.protections
    }

    /// Why no box can be made here, when none can.
    pub fn why_no_boxes(&self) -> Option<&str> {
        self.no_boxes.as_deref()
    }

    /// The resource limits of every bot process.
    pub fn limits(&self) -> &Limits {
        &self.settings.limits
    }

    /// The protections in force, in one line: "a box per program (...), cgroup
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

    /// The box of the program whose view is `view`, its own folder set
    /// apart from those of `others` (the run's other programs).
    pub fn for_bot(
        self: &Arc<Sandbox>,
        command: &str,
        view: &View,
        others: &[&View],
    ) -> Result<Arc<BotSandbox>, SandboxError> {
        let mut shown = files::shown(view, others, &self.protected, &self.settings.read_paths);
        let mut ids = self.ids.clone();
        // Under root, who a build runs as: its folder's owner.
        let mut owner = None;
        if self.purpose == Purpose::Build
            && let Some(own) = view.own.as_ref().filter(|own| own.is_dir())
        {
            // A build writes its own folder as a build outside would: as
            // its owner (under root), or as arena's user.
            shown.writable.push(own.clone());
            if self.protections.as_root {
                use std::os::unix::fs::MetadataExt;
                let meta = std::fs::metadata(own)
                    .map_err(|error| SandboxError::Setup(format!("{}: {error}", own.display())))?;
                owner = Some((meta.uid(), meta.gid()));
                ids = ids::BoxIds::Owner { uid: meta.uid(), gid: meta.gid() };
            } else {
                ids = ids::BoxIds::Shared;
            }
        }
        let kind = if self.protections.boxes {
            let plan = BoxPlan::new(&Layout::new(&shown, &view.reached));
            // (A build's processes run as its folder's owner, whose rights
            // are the owner's, not others'.)
            if ids.own() && owner.is_none() {
                // Said before the first game rather than as a crash in each.
                let needed = view
                    .reached
                    .iter()
                    .chain(view.named.iter().map(|named| &named.real))
                    .chain(&view.installations)
                    .chain(&view.program);
                // The program may be reached through a link.
                let is_program = |path: &Path| {
                    view.program.as_ref().is_some_and(|program| {
                        path == program || path.canonicalize().is_ok_and(|real| real == *program)
                    })
                };
                if let Some((path, mode)) =
                    needed.filter_map(|path| plan.closed_to_others(path, is_program(path))).next()
                {
                    return Err(SandboxError::ClosedToOthers {
                        command: command.to_owned(),
                        path,
                        mode,
                    });
                }
            }
            BotKind::Boxed(Arc::new(BotBoxes::new(Arc::clone(self), plan, ids)))
        } else {
            BotKind::Fallback(fallback::Fallback::new(shown.grants(), &shown.writable, owner))
        };
        Ok(Arc::new(BotSandbox { sandbox: Arc::clone(self), kind }))
    }

    /// The paths every program may read (`read_paths`, a setting).
    pub fn read_paths(&self) -> Vec<PathBuf> {
        self.settings.read_paths.clone()
    }

    /// What no program may read: the results folder, the tournament file,
    /// what the setups are made from, the seat-seed key's file.
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
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
            // No real-time scheduling and no raising of its priority, where
            // arena's own limits would allow them.
            (libc::RLIMIT_RTPRIO as libc::c_int, 0, 0),
            (libc::RLIMIT_NICE as libc::c_int, 0, 0),
        ];
        // Counted per user namespace, or per user id of its own: never
        // every process of arena's user.
        if protections.boxes || protections.as_root || protections.user_namespace {
            rlimits.push((libc::RLIMIT_NPROC as libc::c_int, limits.processes, limits.processes));
        }
        rlimits
    }
}
