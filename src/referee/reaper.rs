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
//! seen before it is registered).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Pids of the processes this arena spawned and has not reaped yet.
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

/// Spawns under way: a sweep never kills while one is.
static SPAWNING: AtomicUsize = AtomicUsize::new(0);

fn live() -> MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Held while a process is spawned and registered: sweeps keep away.
pub(crate) struct Spawning(());

impl Spawning {
    pub(crate) fn start() -> Spawning {
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        Spawning(())
    }

    /// Registers the spawned `pid` as one of the arena's.
    pub(crate) fn register(&self, pid: u32) {
        live().get_or_insert_with(HashSet::new).insert(pid);
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
pub use crate::os::become_subreaper;

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

/// Asks for a sweep soon; returns at once.
pub fn request_sweep() {
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
/// alone).
fn sweep() -> usize {
    let me = std::process::id();
    let Some(own) = crate::os::read_stat(me) else { return 0 };
    let mut killed = 0;
    let mut rounds = 0;
    let mut postponed = 0;
    // A killed orphan's own children become orphans in turn: go again.
    while rounds < 16 {
        let mut orphans: Vec<u32> = crate::os::children_of(me)
            .into_iter()
            .filter(|pid| {
                crate::os::read_stat(*pid)
                    .is_some_and(|stat| stat.group != own.group || stat.session != own.session)
            })
            .collect();
        {
            let registry = live();
            if SPAWNING.load(Ordering::SeqCst) > 0 {
                // A child seen in the scan may be a spawn not yet
                // registered: try again in a moment, for a second at most
                // (a spawn takes milliseconds); the next sweep goes on.
                drop(registry);
                postponed += 1;
                if postponed > 500 {
                    return killed;
                }
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            orphans.retain(|pid| !registry.as_ref().is_some_and(|live| live.contains(pid)));
        }
        if orphans.is_empty() {
            break;
        }
        rounds += 1;
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
