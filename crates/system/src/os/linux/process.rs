//! Processes: groups, the subreaper, reaping by pid, /proc.

use std::time::{Duration, Instant};

/// SIGKILL to the process group `pid` leads (a bot's group: its pgid is its
/// pid, set at spawn). An error only means it is gone.
pub fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: plain signal delivery to one process group.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// SIGKILL to `pid`, and to its group when it leads one (an escaped process
/// that called `setsid` leads its own group, which may hold more escapees).
pub fn kill_process_and_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    // SAFETY: plain signal delivery; errors (already gone) are harmless.
    unsafe {
        if libc::getpgid(pid) == pid {
            libc::kill(-pid, libc::SIGKILL);
        }
        libc::kill(pid, libc::SIGKILL);
    }
}

/// Waits for one killed child by pid, for at most `patience`. Never waits
/// for "any child": that would steal the statuses tokio waits for.
pub fn reap_by_pid(pid: u32, patience: Duration) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    let deadline = Instant::now() + patience;
    loop {
        let mut status = 0;
        // SAFETY: waits for this one pid only, never for any child.
        let result = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if result != 0 || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Makes this process the reaper of its orphaned descendants, so a bot's
/// escaped children come back to it when their parent dies.
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument
    // and touches no memory of ours.
    let result = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
    if result == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// This process's real user and group ids.
pub fn user_ids() -> (u32, u32) {
    // SAFETY: getuid and getgid cannot fail.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// The fields of /proc/PID/stat arena needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// R, S, Z...
    pub state: char,
    /// The parent's pid.
    pub parent: u32,
    /// The process group.
    pub group: u32,
    /// The session.
    pub session: u32,
}

/// Reads /proc/PID/stat; `None` once the process is gone (and reaped).
pub fn read_stat(pid: u32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself hold spaces or
    // parentheses: the fields that follow start after the last `)`.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    Some(ProcStat { state, parent, group, session })
}

/// Whether process `pid` is blocked reading its standard input: one of
/// its threads in a `read` of descriptor 0 (the JVM reads on a thread of
/// its own), from /proc/PID/task/*/syscall; `None` when that cannot be
/// told (the process is gone, or not ours to inspect). A thread on a CPU
/// ("running") is busy.
pub fn reading_stdin(pid: u32) -> Option<bool> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut known = false;
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("syscall")) else { continue };
        let mut fields = text.split_ascii_whitespace();
        let Some(first) = fields.next() else { continue };
        known = true;
        // "running" instead of a number while the thread is on a CPU: busy.
        let Ok(number) = first.parse::<libc::c_long>() else { continue };
        if number == libc::SYS_read && fields.next() == Some("0x0") {
            return Some(true);
        }
    }
    known.then_some(false)
}

/// The pid the kernel handed out last in this process's pid namespace (the
/// last field of /proc/loadavg): pids are handed out in increasing order,
/// wrapping at the largest, so every process or thread made since a
/// reading has a pid after it.
pub fn last_pid() -> Option<u32> {
    use std::os::unix::fs::FileExt;
    // Kept open: each read at offset 0 is a fresh reading, one call.
    static LOADAVG: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    let file = LOADAVG.get_or_init(|| std::fs::File::open("/proc/loadavg").ok()).as_ref()?;
    let mut text = [0u8; 128];
    let count = file.read_at(&mut text, 0).ok()?;
    let text = std::str::from_utf8(&text[..count]).ok()?;
    text.split_ascii_whitespace().nth(4)?.parse().ok()
}

/// Every descendant of `ancestor` (children, their children...), with its
/// stat, from one scan of /proc.
pub fn descendants_of(ancestor: u32) -> Vec<(u32, ProcStat)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let all: Vec<(u32, ProcStat)> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, read_stat(pid)?)))
        .collect();
    let mut found: Vec<(u32, ProcStat)> = Vec::new();
    let mut parents = vec![ancestor];
    while let Some(parent) = parents.pop() {
        for &(pid, stat) in all.iter().filter(|(_, stat)| stat.parent == parent) {
            found.push((pid, stat));
            parents.push(pid);
        }
    }
    found
}
