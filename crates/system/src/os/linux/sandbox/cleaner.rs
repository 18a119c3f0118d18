//! What a killed arena's sandbox leaves, removed as soon as it is gone:
//! its box cgroups (empty once its boxes, which die with it, are) and the
//! fallback's scratch folders. A sandbox that keeps either starts a small
//! process of arena's own (`arena after-sandbox PID`) that waits for the
//! end of its standard input, which closes only when arena ends (however
//! it ends), and then removes what arena did not. An arena that ends
//! normally has removed them itself: the cleaner finds nothing and exits.
//! (A later run removes what a dead arena left too, as a last resort.)

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{cgroup, fallback};

/// The cleaner of one sandbox: its process, and the pipe that keeps it
/// waiting while arena lives.
#[derive(Debug)]
pub struct Cleaner {
    child: Option<Child>,
}

impl Cleaner {
    /// Starts the cleaner for this arena, if arena's program can be found
    /// again (a failure only leaves the cleaning to a later run).
    pub fn start() -> Cleaner {
        let child = std::env::current_exe().ok().and_then(|arena| {
            Command::new(arena)
                .args(["after-sandbox", &std::process::id().to_string()])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()
        });
        Cleaner { child }
    }
}

impl Drop for Cleaner {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // The word that the sandbox ended here, with arena alive and
            // its own cleaning done: the cleaner exits at once (rather
            // than wait for an arena that waits for it).
            if let Some(mut stdin) = child.stdin.take() {
                let _ = std::io::Write::write_all(&mut stdin, DONE);
            }
            let _ = child.wait();
        }
    }
}

/// Whether process `pid` has ended (gone, or a zombie not yet reaped).
fn ended(pid: u32) -> bool {
    match crate::os::read_stat(pid) {
        None => true,
        Some(stat) => stat.state == 'Z' || stat.state == 'X',
    }
}

/// What arena writes to its cleaner when its sandbox ends normally.
const DONE: &[u8] = b"done";

/// The cleaner's work: waits for the end of its input; unless arena said
/// its sandbox ended normally, waits for arena `pid` to be gone and
/// removes its cgroups and scratch folders, trying again for a while as
/// its boxes' processes end.
pub fn clean_after(pid: u32) {
    let mut input = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut input);
    if input == DONE {
        return;
    }
    let until = Instant::now() + Duration::from_secs(10);
    while !ended(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    if !ended(pid) {
        return;
    }
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let left = cgroup::remove_runs_of(pid) + fallback::remove_scratch_of(pid);
        if left == 0 || Instant::now() > until {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
