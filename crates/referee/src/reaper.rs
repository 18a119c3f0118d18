//! Making sure no bot process outlives its session where no box holds it:
//! without the sandbox, and in the sandbox's fallback.
//!
//! A boxed bot needs none of this: killing its box's first process ends
//! everything in the box. Outside a box a bot runs in its own process
//! group, and ending a session kills the group; a descendant that called
//! `setsid` (or `setpgid`) is not in that group any more. The arena marks
//! itself a child subreaper, so when such a process loses its parent it is
//! handed to the arena instead of to init; a sweep then finds it among the
//! arena's children and kills and reaps it by pid. It never calls
//! `waitpid(-1)`, which would steal the exit statuses tokio waits for.
//!
//! Sweeps run on a thread of their own, so a game's thread never scans
//! /proc or sleeps while reaping; no lock is held across a scan. A sweep
//! postpones itself while a spawn is under way (the new child could be
//! seen before it is registered). A scan of /proc costs a read per process
//! of the machine, more than a game between quick bots: a sweep scans only
//! when some process or thread was made since the last one that arena did
//! not start itself (the kernel hands out pids in order, so when every pid
//! after the last sweep's reading is one of arena's own bots, no bot made
//! anything that could have escaped).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Pids of the processes this arena spawned and has not reaped yet.
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// Spawns under way: a sweep never kills while one is.
static SPAWNING: AtomicUsize = AtomicUsize::new(0);

/// What was made since the last sweep: the last pid the kernel had handed
/// out when it began (or before the first spawn), and the pids arena
/// started since.
struct Since {
    last_pid: Option<u32>,
    own: Vec<u32>,
}

static SINCE: Mutex<Since> = Mutex::new(Since { last_pid: None, own: Vec::new() });

fn since() -> MutexGuard<'static, Since> {
    SINCE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Since {
    /// Whether a process that arena did not start may have been made
    /// since the last reading, given the kernel's last pid `now`: unless
    /// every pid after that reading up to `now` is arena's own, or it
    /// cannot be told (no reading, pids wrapped around).
    fn others_made(&self, now: Option<u32>) -> bool {
        let (Some(before), Some(now)) = (self.last_pid, now) else { return true };
        let Some(made) = now.checked_sub(before) else { return true };
        let own = self.own.iter().filter(|&&pid| before < pid && pid <= now).count();
        own as u64 != u64::from(made)
    }

    /// A new reading, `now`: what was made up to it is settled.
    fn settle(&mut self, now: Option<u32>) {
        self.last_pid = now;
        match now {
            Some(now) => self.own.retain(|&pid| pid > now),
            None => self.own.clear(),
        }
    }
}

fn live() -> MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Held while a process is spawned and registered: sweeps keep away.
pub(crate) struct Spawning(());

impl Spawning {
    pub(crate) fn start() -> Spawning {
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        let mut since = since();
        if since.last_pid.is_none() {
            // Before the first spawn: it, and what comes after, is counted.
            let now = arena_system::os::last_pid();
            since.settle(now);
        }
        Spawning(())
    }

    /// Registers the spawned `pid` as one of the arena's.
    pub(crate) fn register(&self, pid: u32) {
        live().get_or_insert_with(HashSet::new).insert(pid);
        let mut since = since();
        since.own.push(pid);
        // Never settled for long (a bot's helper lives on): counted no
        // more, every sweep scans until one finds nothing left.
        if since.own.len() > 10_000 {
            since.settle(None);
        }
    }
}

impl Drop for Spawning {
    fn drop(&mut self) {
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Forgets a reaped pid.
pub(crate) fn unregister(pid: u32) {
    if let Some(pids) = live().as_mut() {
        pids.remove(&pid);
    }
}

/// Makes this process the reaper of its orphaned descendants, so a bot's
/// escaped children come back to the arena when their parent dies.
pub use arena_system::os::become_subreaper;

/// A request to the sweeper thread; `done` hears when it has swept.
struct Request {
    done: Option<Sender<usize>>,
}

fn sweeper() -> &'static Mutex<Sender<Request>> {
    static SWEEPER: OnceLock<Mutex<Sender<Request>>> = OnceLock::new();
    SWEEPER.get_or_init(|| {
        let (requests, incoming) = channel::<Request>();
        std::thread::Builder::new()
            .name("arena-sweeper".into())
            .spawn(move || {
                while let Ok(request) = incoming.recv() {
                    // Requests that piled up meanwhile are served by one sweep.
                    let mut waiting: Vec<Sender<usize>> = request.done.into_iter().collect();
                    while let Ok(more) = incoming.try_recv() {
                        waiting.extend(more.done);
                    }
                    let killed = sweep();
                    for done in waiting {
                        let _ = done.send(killed);
                    }
                }
            })
            .expect("the sweeper's thread starts");
        Mutex::new(requests)
    })
}

/// Asks for a sweep soon, if one is due (something arena did not start was
/// made since the last); returns at once.
pub fn request_sweep() {
    if SPAWNING.load(Ordering::SeqCst) == 0 {
        let mut since = since();
        let now = arena_system::os::last_pid();
        if !since.others_made(now) {
            since.settle(now);
            return;
        }
    }
    let sender = sweeper().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    let _ = sender.send(Request { done: None });
}

/// Sweeps and waits until it is done (at the end of a run); returns how
/// many processes it killed.
pub fn sweep_orphans() -> usize {
    let (done, heard) = channel();
    let sender = sweeper().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    if sender.send(Request { done: Some(done) }).is_err() {
        return 0;
    }
    heard.recv().unwrap_or(0)
}

/// Kills and reaps every orphan handed to this process: a child that is not
/// a live process of the arena's and that is not in this process's own
/// group and session (so a program started by the host application is left
/// alone). Scans only when something arena did not start was made since the
/// last sweep that found nothing of a bot's making left: a process a bot
/// made and that lives on under it (its helper, or one that escaped its
/// group while the bot still runs) becomes arena's child only when the bot
/// ends, so until none is left every sweep scans.
fn sweep() -> usize {
    // A spawn under way has a pid not registered yet, which would count as
    // made by someone else: judged once it is registered (a spawn takes
    // milliseconds; after a second, judged anyway, and scanned).
    for _ in 0..500 {
        if SPAWNING.load(Ordering::SeqCst) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // Read before the scan: whatever is made after this reading has a
    // later pid, and is the next sweep's to find.
    let now = arena_system::os::last_pid();
    if !since().others_made(now) {
        since().settle(now);
        return 0;
    }
    let me = std::process::id();
    let Some(own) = arena_system::os::read_stat(me) else { return 0 };
    let mut killed = 0;
    let mut rounds = 0;
    let mut postponed = 0;
    // A killed orphan's own children become orphans in turn: go again.
    loop {
        let descendants = arena_system::os::descendants_of(me);
        let registry = live();
        if SPAWNING.load(Ordering::SeqCst) > 0 {
            // A child seen in the scan may be a spawn not yet registered:
            // try again in a moment, for a second at most (a spawn takes
            // milliseconds); the next sweep goes on.
            drop(registry);
            postponed += 1;
            if postponed > 500 {
                return killed;
            }
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        let arenas = |pid: &u32| registry.as_ref().is_some_and(|live| live.contains(pid));
        let orphans: Vec<u32> = descendants
            .iter()
            .filter(|(pid, stat)| {
                stat.parent == me
                    && (stat.group != own.group || stat.session != own.session)
                    && !arenas(pid)
            })
            .map(|(pid, _)| *pid)
            .collect();
        if orphans.is_empty() || rounds == 16 {
            // Settled only when nothing but arena's own live programs is
            // left below it.
            // (A helper of arena's own, in its group and session, is none
            // of a bot's.)
            let ours = |stat: &arena_system::os::ProcStat| {
                stat.group == own.group && stat.session == own.session
            };
            if descendants.iter().all(|(pid, stat)| arenas(pid) || ours(stat)) {
                drop(registry);
                since().settle(now);
            }
            return killed;
        }
        drop(registry);
        rounds += 1;
        for &pid in &orphans {
            arena_system::os::kill_process_and_group(pid);
        }
        for &pid in &orphans {
            arena_system::os::reap_by_pid(pid, Duration::from_secs(1));
        }
        killed += orphans.len();
    }
}

#[cfg(test)]
mod tests {
    use super::Since;

    #[test]
    fn a_scan_is_due_unless_every_pid_made_since_is_arenas_own() {
        let mut since = Since { last_pid: Some(100), own: vec![101, 102] };
        assert!(!since.others_made(Some(102)), "only arena's two bots");
        assert!(since.others_made(Some(103)), "a third process, not arena's");
        assert!(since.others_made(None), "no reading");
        assert!(since.others_made(Some(50)), "pids wrapped around");
        since.own.push(99);
        assert!(since.others_made(Some(103)), "a pid before the reading does not count");
        since.settle(Some(102));
        assert_eq!(since.own, [] as [u32; 0]);
        assert!(!since.others_made(Some(102)));
        since.settle(None);
        assert!(since.others_made(Some(102)), "no reading to count from");
    }
}
