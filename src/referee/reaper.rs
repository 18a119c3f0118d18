//! Making sure no bot process outlives its session, including descendants
//! that left the bot's process group.
//!
//! Every bot runs in its own process group, and ending a session kills the
//! whole group. A descendant that called `setsid` (or `setpgid`) is not in
//! that group any more. The arena marks itself a child subreaper, so when
//! such a process loses its parent it is handed to the arena instead of to
//! init; [`sweep_orphans`] then finds it among the arena's children and kills
//! and reaps it by pid. It never calls `waitpid(-1)`, which would steal the
//! exit statuses of the bots tokio is waiting for.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

/// Pids of the bot processes this arena spawned and has not reaped yet.
static LIVE_BOTS: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// Held for reading while a bot is spawned and registered, for writing by a
/// sweep: a sweep never sees a new bot that is not registered yet, and
/// spawns on several threads do not wait for each other.
static SPAWN_GATE: RwLock<()> = RwLock::new(());

/// Keeps sweeps out while the caller spawns and registers a bot.
pub(crate) fn spawning() -> RwLockReadGuard<'static, ()> {
    SPAWN_GATE.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn register(pid: u32) {
    live_bots().get_or_insert_with(HashSet::new).insert(pid);
}

/// When the last sweep ran, to keep sweeps cheap under fast game rates.
static LAST_SWEEP: Mutex<Option<Instant>> = Mutex::new(None);

/// The registry of live bot pids, locked.
pub(crate) fn live_bots() -> MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE_BOTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn unregister(pid: u32) {
    if let Some(pids) = live_bots().as_mut() {
        pids.remove(&pid);
    }
}

/// Makes this process the reaper of its orphaned descendants, so a bot's
/// escaped children come back to the arena when their parent dies.
pub use crate::os::become_subreaper;

/// Sweeps at most every `interval`; cheap enough to call after each session.
pub fn sweep_orphans_now_and_then(interval: Duration) {
    {
        let mut last = LAST_SWEEP.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.is_some_and(|at| at.elapsed() < interval) {
            return;
        }
        *last = Some(Instant::now());
    }
    sweep_orphans();
}

/// Kills and reaps every orphan handed to this process: a child that is not
/// a live bot and that is not in this process's own group and session (so a
/// program started by the host application is left alone). Returns how many
/// it killed.
pub fn sweep_orphans() -> usize {
    let _no_spawns = SPAWN_GATE.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    let registry = live_bots();
    let me = std::process::id();
    let Some(own) = crate::os::read_stat(me) else { return 0 };
    let mut killed = 0;
    // A killed orphan's own children become orphans in turn: go again.
    for _ in 0..16 {
        let orphans: Vec<u32> = crate::os::children_of(me)
            .into_iter()
            .filter(|pid| !registry.as_ref().is_some_and(|live| live.contains(pid)))
            .filter(|pid| {
                crate::os::read_stat(*pid)
                    .is_some_and(|stat| stat.group != own.group || stat.session != own.session)
            })
            .collect();
        if orphans.is_empty() {
            break;
        }
        for &pid in &orphans {
            crate::os::kill_process_and_group(pid);
        }
        for &pid in &orphans {
            crate::os::reap_by_pid(pid, Duration::from_secs(1));
        }
        killed += orphans.len();
    }
    killed
}
