//! A cgroup per box, where arena may make one: the box's memory of every
//! kind (heap, shared, memfd, tmpfs, stack), its processes, and one CPU
//! share per box however many processes it starts.
//!
//! A box's cgroup is a folder (`arena-PID-box-K`, `arena-PID-N-box-K` for
//! a later sandbox of the same process) right under the cgroup arena is
//! in, in each hierarchy it uses: the v1 memory, pids and cpu controllers
//! (writable by root), or the unified hierarchy where a subtree is
//! delegated to arena's user (systemd's `Delegate=yes`, a container's own
//! cgroup namespace). Not in a folder of the run's: with boxes one level
//! deeper, the programs' short slice (`os::ask_short_slice`) saved next
//! to nothing, and a move with a game program cost arena 1 us more than
//! with boxes here (docs/performance.md). On a CPU, each box weighs as
//! much as arena's own cgroup (the boxes of a run no longer share one
//! weight). Box cgroups are made as
//! needed and reused once empty (making one costs more than a box's
//! start); all are removed when the run ends, and a later run removes
//! those of runs that were killed. The cgroup crates on crates.io manage
//! whole hierarchies for container runtimes; what a box needs is a dozen
//! file writes, kept here.

use std::fs;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::sandbox::{CgroupVersion, LimitReached, Limits};

/// How a box's folder is named, before arena's pid.
const RUN_PREFIX: &str = "arena-";

/// The cgroups of one run.
pub struct Cgroups {
    version: CgroupVersion,
    /// Arena's own cgroup in each hierarchy used, by controller (v1), or
    /// its folder of the unified hierarchy: where boxes are made.
    parents: Vec<(&'static str, PathBuf)>,
    /// What the run's box folders are named before `-box-K`.
    name: String,
    limits: Limits,
    free: Mutex<Vec<BoxCgroup>>,
    made: AtomicU64,
}

/// One box's cgroup: its folder in each hierarchy, by controller, the
/// files a process joins it by, open for writing, and the files that count
/// the OOM kills and refused forks, open for reading (each start and end
/// reads them: an open of a cgroup file costs several reads).
#[derive(Debug)]
struct BoxCgroup {
    folders: Vec<(&'static str, PathBuf)>,
    joins: Vec<OwnedFd>,
    memory_events: Option<fs::File>,
    pids_events: Option<fs::File>,
}

/// A box cgroup lent to one box; back to the run's pool when dropped (after
/// the box has ended), unless it still holds a process.
pub struct Lease {
    cgroups: Arc<Cgroups>,
    cgroup: Option<BoxCgroup>,
    /// The OOM kills and refused forks counted before the box started.
    before: Counts,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    oom_kills: u64,
    forks_refused: u64,
}

impl Cgroups {
    /// The run's cgroups, if arena may make and fill one here; `None` says
    /// the limits fall back to what else there is.
    pub fn new(limits: &Limits) -> Option<Arc<Cgroups>> {
        let mounts = fs::read_to_string("/proc/self/mountinfo").ok()?;
        let own = fs::read_to_string("/proc/self/cgroup").ok()?;
        let attempt =
            v1_folders(&mounts, &own).map(|parents| (CgroupVersion::V1, parents)).or_else(|| {
                v2_folder(&mounts, &own)
                    .map(|parent| (CgroupVersion::V2, vec![("unified", parent)]))
            });
        let (version, parents) = attempt?;
        for (_, parent) in &parents {
            remove_runs_of_dead_arenas(parent);
        }
        // Names of its own for each sandbox of the process (check-game
        // describes a game in one, then checks it in another): a sandbox's
        // end removes its boxes, which must not be another's.
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let name = match STARTED.fetch_add(1, Ordering::Relaxed) {
            0 => format!("{RUN_PREFIX}{}", std::process::id()),
            later => format!("{RUN_PREFIX}{}-{later}", std::process::id()),
        };
        let cgroups = Arc::new(Cgroups {
            version,
            parents,
            name,
            limits: *limits,
            free: Mutex::new(Vec::new()),
            made: AtomicU64::new(0),
        });
        // One box cgroup made and limited proves the rest will be.
        let first = cgroups.make_box().ok()?;
        cgroups.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(first);
        Some(cgroups)
    }

    pub fn version(&self) -> CgroupVersion {
        self.version
    }

    /// Whether a box's cgroup gives it one CPU share (else the scheduler
    /// shares CPU by session, one per box).
    pub fn shares_cpu(&self) -> bool {
        self.parents.iter().any(|(controller, parent)| match self.version {
            CgroupVersion::V1 => *controller == "cpu",
            CgroupVersion::V2 => fs::read_to_string(parent.join("cgroup.subtree_control"))
                .is_ok_and(|text| text.split_ascii_whitespace().any(|c| c == "cpu")),
        })
    }

    /// The folders of the run's box number `number`, by controller.
    fn box_folders(&self, number: u64) -> Vec<(&'static str, PathBuf)> {
        let name = format!("{}-box-{number}", self.name);
        self.parents.iter().map(|(controller, parent)| (*controller, parent.join(&name))).collect()
    }

    fn make_box(&self) -> io::Result<BoxCgroup> {
        let folders = self.box_folders(self.made.fetch_add(1, Ordering::Relaxed));
        for (_, folder) in &folders {
            fs::create_dir(folder)?;
        }
        // A v1 hierarchy takes a single thread through `tasks` without
        // the global lock a whole process's move takes (which waits for
        // an RCU grace period: milliseconds); the box's first process is a
        // single thread that writes itself ("0") there.
        let join = match self.version {
            CgroupVersion::V1 => "tasks",
            CgroupVersion::V2 => "cgroup.procs",
        };
        let joins = folders
            .iter()
            .map(|(_, folder)| {
                fs::OpenOptions::new().write(true).open(folder.join(join)).map(OwnedFd::from)
            })
            .collect::<io::Result<_>>()?;
        let events = |controller: &str, file: &str| {
            let folder = match self.version {
                CgroupVersion::V1 => folders.iter().find(|(name, _)| *name == controller),
                CgroupVersion::V2 => folders.first(),
            };
            folder.and_then(|(_, folder)| fs::File::open(folder.join(file)).ok())
        };
        let memory_events = events(
            "memory",
            match self.version {
                CgroupVersion::V1 => "memory.oom_control",
                CgroupVersion::V2 => "memory.events",
            },
        );
        let pids_events = events("pids", "pids.events");
        let cgroup = BoxCgroup { folders, joins, memory_events, pids_events };
        let memory = self.limits.memory.to_string();
        let processes = self.limits.processes.to_string();
        match self.version {
            CgroupVersion::V1 => {
                let memory_folder = cgroup.controller("memory").ok_or_else(missing)?;
                fs::write(memory_folder.join("memory.limit_in_bytes"), &memory)?;
                // No swap beyond the limit, where the kernel accounts swap.
                let swap = memory_folder.join("memory.memsw.limit_in_bytes");
                if swap.exists() {
                    fs::write(swap, &memory)?;
                }
                let pids_folder = cgroup.controller("pids").ok_or_else(missing)?;
                fs::write(pids_folder.join("pids.max"), &processes)?;
            }
            CgroupVersion::V2 => {
                let folder = &cgroup.folders[0].1;
                fs::write(folder.join("memory.max"), &memory)?;
                let _ = fs::write(folder.join("memory.swap.max"), "0");
                fs::write(folder.join("pids.max"), &processes)?;
            }
        }
        Ok(cgroup)
    }

    /// A box cgroup for a box about to start.
    pub fn lease(self: &Arc<Cgroups>) -> io::Result<Lease> {
        let reused = self.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let cgroup = match reused {
            Some(cgroup) => cgroup,
            None => self.make_box()?,
        };
        let before = cgroup.counts();
        Ok(Lease { cgroups: Arc::clone(self), cgroup: Some(cgroup), before })
    }
}

fn missing() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "a cgroup controller is missing")
}

impl BoxCgroup {
    /// The folder of the v1 hierarchy of `controller`.
    fn controller(&self, controller: &str) -> Option<&PathBuf> {
        self.folders.iter().find(|(name, _)| *name == controller).map(|(_, folder)| folder)
    }

    /// The `cgroup.procs` files that list the box's processes.
    fn procs_files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.folders.iter().map(|(_, folder)| folder.join("cgroup.procs"))
    }

    fn counts(&self) -> Counts {
        let field = |file: Option<&fs::File>, name: &[u8]| {
            // A few short lines, read whole from their start each time.
            let mut text = [0u8; 512];
            let length = file.and_then(|file| file.read_at(&mut text, 0).ok()).unwrap_or(0);
            text[..length]
                .split(|&byte| byte == b'\n')
                .find_map(|line| {
                    let value = line.strip_prefix(name)?.strip_prefix(b" ")?;
                    std::str::from_utf8(value).ok()?.trim().parse().ok()
                })
                .unwrap_or(0)
        };
        Counts {
            oom_kills: field(self.memory_events.as_ref(), b"oom_kill"),
            forks_refused: field(self.pids_events.as_ref(), b"max"),
        }
    }

    fn is_empty(&self) -> bool {
        self.procs_files()
            .all(|file| fs::read_to_string(file).is_ok_and(|text| text.trim().is_empty()))
    }

    fn remove(&self) {
        for (_, folder) in &self.folders {
            let _ = fs::remove_dir(folder);
        }
    }
}

impl Lease {
    /// The files, open for writing, the box's first process joins the box's
    /// cgroup by (it writes "0", itself, to each). Opened by arena, whose
    /// right to move a process there the kernel checks at the write.
    pub fn join_files(&self) -> Vec<RawFd> {
        self.cgroup
            .as_ref()
            .map(|cgroup| cgroup.joins.iter().map(AsRawFd::as_raw_fd).collect())
            .unwrap_or_default()
    }

    /// A limit the box ran into since it started, or since the last call
    /// (a box that serves again counts its next process from there): the
    /// kernel killed one of its processes for memory, or refused it a
    /// process.
    pub fn reached(&mut self) -> Option<LimitReached> {
        let cgroup = self.cgroup.as_ref()?;
        let now = cgroup.counts();
        let before = std::mem::replace(&mut self.before, now);
        if now.oom_kills > before.oom_kills {
            Some(LimitReached::Memory)
        } else if now.forks_refused > before.forks_refused {
            Some(LimitReached::Processes)
        } else {
            None
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let Some(cgroup) = self.cgroup.take() else { return };
        if cgroup.is_empty() {
            self.cgroups.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(cgroup);
        } else {
            // A process still leaving: the kernel refuses, and the run's
            // end (or a later run) removes the folder.
            cgroup.remove();
        }
    }
}

impl Drop for Cgroups {
    fn drop(&mut self) {
        // Every box made, given back or not: an empty one goes, one that
        // still holds a process is left to a later run.
        for number in 0..*self.made.get_mut() {
            for (_, folder) in self.box_folders(number) {
                let _ = fs::remove_dir(folder);
            }
        }
    }
}

/// Removes a box's folder, or a run's folder and the box folders in it
/// (as arena made them before boxes were made right under its cgroup):
/// empty cgroups only, since the kernel refuses to remove one that holds a
/// process.
fn remove_run(run: &Path) {
    if let Ok(entries) = fs::read_dir(run) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                let _ = fs::remove_dir(entry.path());
            }
        }
    }
    let _ = fs::remove_dir(run);
}

/// Removes the box folders arena `pid` made (it is gone), under arena's
/// own cgroup in each hierarchy; returns how many are left (a box's
/// process not gone yet).
pub fn remove_runs_of(pid: u32) -> usize {
    let (Ok(mounts), Ok(own)) =
        (fs::read_to_string("/proc/self/mountinfo"), fs::read_to_string("/proc/self/cgroup"))
    else {
        return 0;
    };
    let parents: Vec<PathBuf> = v1_candidates(&mounts, &own)
        .into_iter()
        .flatten()
        .map(|(_, folder)| folder)
        .chain(v2_folder(&mounts, &own))
        .collect();
    let mut left = 0;
    for parent in parents {
        let Ok(entries) = fs::read_dir(&parent) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(RUN_PREFIX)) else {
                continue;
            };
            if rest.split('-').next() == Some(pid.to_string().as_str()) {
                remove_run(&entry.path());
                left += usize::from(entry.path().exists());
            }
        }
    }
    left
}

/// Removes the box folders under `parent` whose arena is gone (killed
/// before it could remove them).
fn remove_runs_of_dead_arenas(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(RUN_PREFIX)) else {
            continue;
        };
        // `arena-PID-box-K`, `arena-PID-N-box-K` (a later sandbox of the
        // same arena), `arena-PID-self` (where a v2 run put arena itself),
        // or `arena-PID` and `arena-PID-N` (a run's folder, from before).
        let pid = rest.split('-').next().unwrap_or(rest);
        if pid.parse::<u32>().is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            remove_run(&entry.path());
        }
    }
}

/// The folders of arena's own cgroup in the v1 memory, pids and cpu
/// hierarchies (cpu only where mounted), if the first two are writable.
fn v1_folders(mountinfo: &str, own: &str) -> Option<Vec<(&'static str, PathBuf)>> {
    let mut folders = v1_candidates(mountinfo, own)?;
    if !folders[..2].iter().all(|(_, folder)| writable(folder)) {
        return None;
    }
    // Without a writable cpu hierarchy, CPU is shared by session instead.
    folders.retain(|(_, folder)| writable(folder));
    Some(folders)
}

/// The folders of arena's own cgroup in the v1 memory, pids and cpu
/// hierarchies, from /proc/self/mountinfo and /proc/self/cgroup; `None`
/// unless memory and pids are mounted.
fn v1_candidates(mountinfo: &str, own: &str) -> Option<Vec<(&'static str, PathBuf)>> {
    let mut folders = Vec::new();
    for controller in ["memory", "pids", "cpu"] {
        let mount = mountinfo.lines().find_map(|line| {
            let (before, after) = line.split_once(" - ")?;
            let mut fields = after.split_ascii_whitespace();
            if fields.next()? != "cgroup" {
                return None;
            }
            let options = fields.nth(1)?;
            options
                .split(',')
                .any(|option| option == controller)
                .then(|| before.split_ascii_whitespace().nth(4).map(PathBuf::from))?
        });
        let path = own.lines().find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _ = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            controllers.split(',').any(|name| name == controller).then(|| path.to_owned())
        });
        match (mount, path) {
            (Some(mount), Some(path)) => {
                folders.push((controller, mount.join(path.trim_start_matches('/'))))
            }
            _ if controller == "cpu" => {}
            _ => return None,
        }
    }
    Some(folders)
}

/// Arena's own folder in the unified hierarchy, if it may make cgroups
/// with the memory and pids controllers under it: it is writable and
/// delegates those controllers. A folder that holds processes cannot
/// delegate (the kernel's rule for the unified hierarchy); when the only
/// process in it is arena, arena moves itself to a leaf of its own first.
fn v2_folder(mountinfo: &str, own: &str) -> Option<PathBuf> {
    let mount = mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        (after.split_ascii_whitespace().next()? == "cgroup2")
            .then(|| before.split_ascii_whitespace().nth(4).map(PathBuf::from))?
    })?;
    let path = own.lines().find_map(|line| line.strip_prefix("0::"))?;
    let folder = mount.join(path.trim().trim_start_matches('/'));
    let controllers = fs::read_to_string(folder.join("cgroup.controllers")).ok()?;
    let has = |name: &str| controllers.split_ascii_whitespace().any(|c| c == name);
    if !has("memory") || !has("pids") || !writable(&folder) {
        return None;
    }
    let control = folder.join("cgroup.subtree_control");
    let wanted = if has("cpu") { "+memory +pids +cpu" } else { "+memory +pids" };
    let enabled = |folder: &Path| {
        fs::read_to_string(folder.join("cgroup.subtree_control")).is_ok_and(|text| {
            let on = |name: &str| text.split_ascii_whitespace().any(|c| c == name);
            on("memory") && on("pids") && (on("cpu") || !has("cpu"))
        })
    };
    if enabled(&folder) || fs::write(&control, wanted).is_ok() {
        return Some(folder);
    }
    let procs = fs::read_to_string(folder.join("cgroup.procs")).ok()?;
    let me = std::process::id().to_string();
    if procs.lines().any(|pid| pid.trim() != me) {
        return None;
    }
    let leaf = folder.join(format!("{RUN_PREFIX}{me}-self"));
    fs::create_dir(&leaf).ok()?;
    fs::write(leaf.join("cgroup.procs"), &me).ok()?;
    fs::write(&control, wanted).ok()?;
    Some(folder)
}

fn writable(folder: &Path) -> bool {
    let Ok(path) = std::ffi::CString::new(folder.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access() with a valid path.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
    const OWN: &str = "8:pids:/\n4:memory:/jobs/a1\n1:cpu:/\n0::/\n";

    #[test]
    fn v1_folders_are_arenas_own_cgroup_in_each_hierarchy() {
        assert_eq!(
            v1_candidates(MOUNTINFO, OWN).unwrap(),
            [
                ("memory", PathBuf::from("/sys/fs/cgroup/memory/jobs/a1")),
                ("pids", PathBuf::from("/sys/fs/cgroup/pids")),
                ("cpu", PathBuf::from("/sys/fs/cgroup/cpu")),
            ]
        );
        let without_pids: String = MOUNTINFO
            .lines()
            .filter(|line| !line.ends_with("pids"))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(v1_candidates(&without_pids, OWN), None);
        let combined = MOUNTINFO.replace("rw,cpu\n", "rw,cpu,cpuacct\n");
        let own = OWN.replace("1:cpu:/", "1:cpu,cpuacct:/game");
        assert_eq!(
            v1_candidates(&combined, &own).unwrap()[2].1,
            PathBuf::from("/sys/fs/cgroup/cpu/game")
        );
    }
}
