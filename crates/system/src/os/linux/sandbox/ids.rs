//! Who a box is on the machine: under root, ids of its own (two per box,
//! from [`ROOT_BOX_UID_BASE`] and the box's pid, which no two live boxes
//! share); unprivileged, ids of its own from the subordinate ids of
//! arena's user (`/etc/subuid` and `/etc/subgid`, mapped by Debian's
//! `newuidmap` and `newgidmap`, as rootless containers take them), where
//! the user has them; else arena's own id, which is all an unprivileged
//! user may map.
//!
//! With ids of its own a box keeps nothing of arena's user: not its files
//! (it has only the rights others have), not its supplementary groups (the
//! box's first process drops them: `setgroups` is allowed where a helper
//! wrote the group map), not its per-user kernel quotas (processes, epoll
//! watches, pending signals and message queues are counted per user).

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

/// The user id a box's root and bot get on the host when arena runs as
/// root: this plus twice the box's pid (plus one for the bot), so that no
/// two live boxes share one and none is a real user's.
pub const ROOT_BOX_UID_BASE: u32 = 0x4000_0000;

/// The bot's user and group id inside its box.
pub const BOT_ID: u32 = 1000;

/// A range of subordinate ids: the first and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    start: u32,
    count: u32,
}

/// The first range of at least two ids `/etc/subuid` (or subgid) `text`
/// gives the user named `name` with id `id` (lines `NAME-OR-ID:START:COUNT`).
fn range_in(text: &str, name: Option<&str>, id: u32) -> Option<Range> {
    text.lines().find_map(|line| {
        let mut fields = line.trim().split(':');
        let owner = fields.next()?;
        let start: u32 = fields.next()?.parse().ok()?;
        let count: u32 = fields.next()?.parse().ok()?;
        let ours = Some(owner) == name || owner.parse::<u32>().ok() == Some(id);
        (ours && count >= 2 && start.checked_add(count).is_some()).then_some(Range { start, count })
    })
}

/// The name of the user with id `uid`, from /etc/passwd.
fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.get(2)?.parse::<u32>().ok()? == uid).then(|| fields[0].to_owned())
    })
}

/// The subordinate ids arena's (unprivileged) user may hand to boxes, and
/// the helpers that map them.
#[derive(Debug)]
pub struct Subordinate {
    uids: Range,
    gids: Range,
    newuidmap: PathBuf,
    newgidmap: PathBuf,
    /// Slots in use (slot k: ids start + 2k for the box's root, + 1 for
    /// its bot), and where the next search starts.
    used: Mutex<(BTreeSet<u32>, u32)>,
}

impl Subordinate {
    /// The user's subordinate ids, where it has a range of both kinds and
    /// the helpers are installed; `None` otherwise.
    pub fn of_this_user() -> Option<Arc<Subordinate>> {
        let (uid, gid) = super::super::user_ids();
        let name = user_name(uid);
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let uids = range_in(&read("/etc/subuid")?, name.as_deref(), uid)?;
        let gids = range_in(&read("/etc/subgid")?, name.as_deref(), gid)
            .or_else(|| range_in(&read("/etc/subgid")?, name.as_deref(), uid))?;
        let path = std::env::var_os("PATH").unwrap_or_default();
        let helper = |name: &str| {
            std::env::split_paths(&path)
                .chain(["/usr/bin".into(), "/bin".into()])
                .map(|folder: PathBuf| folder.join(name))
                .find(|candidate| candidate.is_file())
        };
        // Spread over the range: two arenas of one user rarely meet.
        let start =
            std::process::id().wrapping_mul(2_654_435_761) % (uids.count.min(gids.count) / 2);
        Some(Arc::new(Subordinate {
            uids,
            gids,
            newuidmap: helper("newuidmap")?,
            newgidmap: helper("newgidmap")?,
            used: Mutex::new((BTreeSet::new(), start)),
        }))
    }

    fn slots(&self) -> u32 {
        self.uids.count.min(self.gids.count) / 2
    }

    /// A slot of ids for one box, held until the lease is dropped; `None`
    /// when every slot is in use.
    pub fn lease(self: &Arc<Subordinate>) -> Option<IdLease> {
        let mut guard = self.used.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (used, next) = &mut *guard;
        let slots = self.slots();
        let slot =
            (0..slots).map(|step| (*next + step) % slots).find(|slot| !used.contains(slot))?;
        used.insert(slot);
        *next = (slot + 1) % slots;
        Some(IdLease { ids: Arc::clone(self), slot })
    }

    /// Writes the id maps of the box whose first process is `pid`: its
    /// root and bot, the ids of `slot`.
    fn map(&self, pid: u32, slot: u32) -> io::Result<()> {
        for (helper, range) in [(&self.newuidmap, self.uids), (&self.newgidmap, self.gids)] {
            let root = range.start + 2 * slot;
            run_helper(helper, &[pid, 0, root, 1, BOT_ID, root + 1, 1])?;
        }
        Ok(())
    }
}

fn run_helper(helper: &Path, arguments: &[u32]) -> io::Result<()> {
    let output = Command::new(helper)
        .args(arguments.iter().map(u32::to_string))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    Err(io::Error::other(format!(
        "{} failed ({}): {}",
        helper.display(),
        output.status,
        said.trim()
    )))
}

/// A box's slot of subordinate ids, given back when dropped.
#[derive(Debug)]
pub struct IdLease {
    ids: Arc<Subordinate>,
    slot: u32,
}

impl Drop for IdLease {
    fn drop(&mut self) {
        let mut guard = self.ids.used.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.0.remove(&self.slot);
    }
}

/// Who one box is on the machine.
#[derive(Clone, Debug)]
pub enum BoxIds {
    /// Arena runs as root: ids of its own from the box's pid.
    Root,
    /// Subordinate ids of arena's user.
    Subordinate(Arc<Subordinate>),
    /// Arena's own id (an unprivileged user without subordinate ids).
    Shared,
    /// Under root, a build's box: its root an id of its own, its bot the
    /// owner of the bot's folder (which the build writes).
    Owner { uid: u32, gid: u32 },
}

impl BoxIds {
    /// Whether a box gets ids of its own (and so only others' rights on
    /// host files, and no supplementary group).
    pub fn own(&self) -> bool {
        !matches!(self, BoxIds::Shared)
    }
}

/// Writes the id maps of the new box whose first process is `pid`; holds
/// the slot of subordinate ids it takes until the box ends.
pub fn write_maps(ids: &BoxIds, pid: u32) -> io::Result<Option<IdLease>> {
    let file = |name: &str| format!("/proc/{pid}/{name}");
    match ids {
        BoxIds::Root => {
            let base = ROOT_BOX_UID_BASE + 2 * pid;
            let map = format!("0 {base} 1\n{BOT_ID} {} 1", base + 1);
            std::fs::write(file("uid_map"), &map)?;
            std::fs::write(file("gid_map"), &map)?;
            Ok(None)
        }
        BoxIds::Owner { uid, gid } => {
            let base = ROOT_BOX_UID_BASE + 2 * pid;
            std::fs::write(file("uid_map"), format!("0 {base} 1\n{BOT_ID} {uid} 1"))?;
            std::fs::write(file("gid_map"), format!("0 {base} 1\n{BOT_ID} {gid} 1"))?;
            Ok(None)
        }
        BoxIds::Subordinate(subordinate) => {
            let lease = subordinate.lease().ok_or_else(|| {
                io::Error::other("every subordinate id of arena's user is in use")
            })?;
            subordinate.map(pid, lease.slot)?;
            Ok(Some(lease))
        }
        BoxIds::Shared => {
            let (uid, gid) = super::super::user_ids();
            std::fs::write(file("setgroups"), "deny")?;
            std::fs::write(file("uid_map"), format!("{BOT_ID} {uid} 1"))?;
            std::fs::write(file("gid_map"), format!("{BOT_ID} {gid} 1"))?;
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_range_is_found_by_name_or_id() {
        let text = "root:100000:65536\nme:200000:65536\n1001:300000:1\n1002:400000:10\n";
        assert_eq!(range_in(text, Some("me"), 1000), Some(Range { start: 200000, count: 65536 }));
        assert_eq!(range_in(text, None, 1002), Some(Range { start: 400000, count: 10 }));
        // Fewer than two ids give no box both of its own.
        assert_eq!(range_in(text, None, 1001), None);
        assert_eq!(range_in(text, Some("nobody"), 65534), None);
    }
}
