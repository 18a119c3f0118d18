//! The memory watchdog: where no cgroup counts a box's memory, one thread
//! of the arena looks at every such box a few times a second and kills a
//! box whose processes hold more than the memory limit.
//!
//! It counts what the kernel counts resident and no limit of a process
//! covers: anonymous memory (the heap, stacks, `MAP_GROWSDOWN` mappings)
//! and shared memory mapped in (shared anonymous mappings, System V and
//! POSIX shared memory), summed over the box's processes, so shared pages
//! mapped by two processes count twice. Unmapped shared memory is bounded
//! elsewhere: the box's tmpfs folders by their size, System V segments by
//! the IPC namespace's limits, and `memfd_create` is refused without a
//! cgroup. The check runs on its own thread, never on a game's.
//!
//! A look at a box reads /proc for each of its processes, so a box of many
//! processes is looked at less often: after a look that took `t`, the next
//! waits `100 t` (between 50 ms and 1 s), and a box costs arena at most a
//! hundredth of a CPU however many processes it runs. Unix socket buffers
//! are not counted here: seccomp refuses raising them (`SO_SNDBUF` and
//! kin), and the kernel's defaults bound what a box's sockets hold.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::spawn::kill_pidfd;

/// How often a box is looked at, at most.
const INTERVAL: Duration = Duration::from_millis(50);

/// A look at a box waits this many times as long as it took, after it:
/// a box costs the watchdog at most a hundredth of a CPU.
const SHARE: u32 = 100;

/// The longest a box goes unlooked at.
const LONGEST: Duration = Duration::from_secs(1);

/// A box the watchdog looks at.
struct Watched {
    /// The box's first process (every other is its descendant), or a
    /// fallback bot's process.
    pid: u32,
    /// Whether `pid`'s own memory counts: not a box's first process, a
    /// copy of the arena that shares its pages.
    counts_itself: bool,
    pidfd: OwnedFd,
    limit_bytes: u64,
    over: Arc<AtomicBool>,
}

#[derive(Default)]
struct Registry {
    boxes: Mutex<Vec<Watched>>,
    wake: Condvar,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        std::thread::Builder::new()
            .name("arena-memory-watchdog".into())
            .spawn(watch)
            .expect("the memory watchdog's thread starts");
        Registry::default()
    })
}

/// A box being watched; it is forgotten when this is dropped.
pub struct Watch {
    pid: u32,
    over: Arc<AtomicBool>,
}

impl Watch {
    /// Watches the box whose first process is `pid` (`pidfd` a duplicate
    /// of its descriptor, for killing it): its descendants' memory.
    pub fn first_process(pid: u32, pidfd: OwnedFd, limit_bytes: u64) -> Watch {
        Watch::start(Watched {
            pid,
            counts_itself: false,
            pidfd,
            limit_bytes,
            over: Arc::default(),
        })
    }

    /// Watches a bot's process outside a box and its descendants.
    pub fn process(pid: u32, pidfd: OwnedFd, limit_bytes: u64) -> Watch {
        Watch::start(Watched { pid, counts_itself: true, pidfd, limit_bytes, over: Arc::default() })
    }

    fn start(watched: Watched) -> Watch {
        let watch = Watch { pid: watched.pid, over: Arc::clone(&watched.over) };
        let registry = registry();
        let mut boxes = registry.boxes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        boxes.push(watched);
        registry.wake.notify_one();
        watch
    }

    /// Whether the watchdog killed the box for its memory.
    pub fn killed_for_memory(&self) -> bool {
        self.over.load(Ordering::Acquire)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut boxes = registry().boxes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        boxes.retain(|watched| watched.pid != self.pid || !Arc::ptr_eq(&watched.over, &self.over));
    }
}

fn watch() {
    let registry = registry();
    // When each box is next looked at: a box whose look took long (many
    // processes to read in /proc) is looked at less often, so that no box
    // costs arena more than a share of a CPU however many processes it
    // runs (`SHARE`), and none waits longer than `LONGEST`.
    let mut due: HashMap<u32, Instant> = HashMap::new();
    loop {
        let pids: Vec<(u32, bool, u64)> = {
            let mut boxes = registry.boxes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            while boxes.is_empty() {
                boxes = registry.wake.wait(boxes).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            boxes
                .iter()
                .map(|watched| (watched.pid, watched.counts_itself, watched.limit_bytes))
                .collect()
        };
        due.retain(|pid, _| pids.iter().any(|(watched, _, _)| watched == pid));
        // Measured without the lock: starting and ending boxes never wait
        // for /proc.
        let now = Instant::now();
        let mut over = Vec::new();
        for (pid, itself, limit) in pids {
            if due.get(&pid).is_some_and(|when| *when > now) {
                continue;
            }
            let started = Instant::now();
            let held = descendants_memory(pid) + if itself { resident_unbacked(pid) } else { 0 };
            let took = started.elapsed();
            due.insert(pid, started + (took * SHARE).clamp(INTERVAL, LONGEST));
            if held > limit {
                over.push(pid);
            }
        }
        if !over.is_empty() {
            let boxes = registry.boxes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for watched in boxes.iter().filter(|watched| over.contains(&watched.pid)) {
                watched.over.store(true, Ordering::Release);
                // The descriptor names the process itself, never a pid
                // that was reused.
                kill_pidfd(&watched.pidfd);
            }
        }
        std::thread::sleep(INTERVAL);
    }
}

/// Bytes of anonymous and shared memory resident in the descendants of
/// `pid`.
fn descendants_memory(pid: u32) -> u64 {
    let mut total = 0;
    let mut pending = children(pid);
    while let Some(pid) = pending.pop() {
        total += resident_unbacked(pid);
        pending.extend(children(pid));
    }
    total
}

/// The children of every thread of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_ascii_whitespace()
                .filter_map(|pid| pid.parse::<u32>().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// RssAnon and RssShmem of one process, in bytes.
fn resident_unbacked(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return 0 };
    status
        .lines()
        .filter_map(|line| line.strip_prefix("RssAnon:").or_else(|| line.strip_prefix("RssShmem:")))
        .filter_map(|value| value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        .sum::<u64>()
        * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_tree_memory_counts_its_children() {
        // A process holding 64 MiB of anonymous memory, with a child (a new
        // program, as a box's bot is) that holds 64 MiB more: only the
        // child's count.
        let grandchild = "b=bytearray(64<<20)\nimport time\ntime.sleep(30)";
        let parent = format!(
            "import subprocess\nb=bytearray(64<<20)\nsubprocess.run(['python3','-c',{grandchild:?}])"
        );
        let mut child = std::process::Command::new("python3")
            .args(["-c", &parent])
            .spawn()
            .expect("python3 runs");
        let pid = child.id();
        let mut seen = 0;
        // Python starting and filling its memory may take a while on a
        // loaded machine.
        for _ in 0..400 {
            seen = descendants_memory(pid);
            if seen > 60 << 20 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::process::Command::new("pkill").args(["-P", &pid.to_string()]).status();
        let _ = child.kill();
        let _ = child.wait();
        assert!(seen > 60 << 20 && seen < 100 << 20, "{seen} bytes seen");
    }
}
