//! Starting a bot in a box of its own.
//!
//! The arena clones a child into new user, PID, mount, IPC and UTS
//! namespaces (and a network namespace unless the network is allowed).
//! That child is the box's first process, pid 1 inside it, and arena's
//! code: it builds the box's root, starts the bot as its child, waits for
//! it, reports its exit status, and exits, which kills everything left in
//! the box at once however deep or detached. The arena watches it through
//! a pidfd and kills the box by killing it.
//!
//! The steps, in order:
//!
//! 1. arena: `clone` (no shared memory: the box's first process keeps a
//!    copy of arena's, touching only what was prepared for it);
//! 2. arena: the child's user and group id maps, and its cgroup; then a
//!    byte on the sync pipe lets it go on;
//! 3. first process: it dies with the arena (`PR_SET_PDEATHSIG`), keeps
//!    only the descriptors it needs, starts a session (one CPU share per
//!    box where the scheduler shares by session), opens every host path
//!    the box shows (while it still may read them: under root, before it
//!    becomes the box's root), makes the root (a tmpfs) with the box's
//!    /tmp, /proc, /dev and /dev/shm, mounts the views read-only, makes
//!    the links, pivots into it and makes it read-only;
//! 4. first process: starts the bot (`CLONE_VM | CLONE_VFORK`), which
//!    takes its pipes as stdin, stdout and stderr, becomes the box's user
//!    (1000) with no capability, sets its limits, restricts itself with
//!    Landlock and loads the seccomp filter last, then execs;
//! 5. first process: reports "started" or the step that failed, then
//!    reaps every process of the box until the bot exits, reports its
//!    status and exits.
//!
//! Everything between clone and exec makes system calls only: the paths,
//! maps, rules and filter were prepared before, and nothing allocates.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;

use super::seccomp::Filter;

use super::landlock::InBoxRuleset;
use super::spawn::{
    Spawned, block_signals, close_inherited_files_at_exec, default_signals, kill_pidfd,
    load_filter, null_terminated, pipe, restore_signals, set_rlimits, wait_exited,
};
use crate::sandbox::layout::{Entry, Layout};

/// The bot's user and group id inside its box.
pub const BOT_ID: u32 = 1000;

/// The user id a box's root and bot get on the host when arena runs as
/// root: this plus twice the box's pid (plus one for the bot), so that no
/// two live boxes share one and none is a real user's.
pub const ROOT_BOX_UID_BASE: u32 = 0x4000_0000;

/// Where the first process mounts the box's new root while building it: a
/// folder every Linux system has, hidden only inside the box's own mount
/// namespace.
const BUILD_AT: &CStr = c"/tmp";

/// The devices a box has, shown from the host's.
pub const DEVICES: [&str; 5] =
    ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// The box's scratch folders: its /tmp (HOME and TMPDIR) and /dev/shm.
pub const SCRATCH: [&str; 2] = ["/tmp", "/dev/shm"];

/// What a bot's boxes hold: made once per bot from its layout.
pub struct BoxPlan {
    steps: Vec<Step>,
    /// How many of the steps show a host path.
    views: usize,
}

/// One step of building a box's root; paths are relative to the new root.
enum Step {
    Folder(CString),
    View {
        source: CString,
        target: CString,
        file: bool,
        device: bool,
    },
    /// A small configuration file, copied rather than shown: writing one
    /// into the root costs a fraction of a mount.
    Copy {
        target: CString,
        contents: Vec<u8>,
    },
    Link {
        path: CString,
        target: CString,
    },
}

/// Files of /etc up to this size are copied into a box rather than shown.
const COPIED_UP_TO: u64 = 256 << 10;

/// The contents of `path` if it is a configuration file small enough to be
/// copied into each box.
fn copied(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    (path.starts_with("/etc") && meta.is_file() && meta.len() <= COPIED_UP_TO)
        .then(|| std::fs::read(path).ok())?
}

fn relative(path: &Path) -> Option<CString> {
    let text = path.to_str()?.trim_start_matches('/');
    CString::new(text).ok()
}

fn absolute(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_encoded_bytes()).ok()
}

impl BoxPlan {
    /// The steps that make `layout` in a box, with the devices.
    pub fn new(layout: &Layout) -> BoxPlan {
        let mut steps = Vec::new();
        for device in DEVICES {
            let path = Path::new(device);
            if let (Some(source), Some(target)) = (absolute(path), relative(path)) {
                steps.push(Step::View { source, target, file: true, device: true });
            }
        }
        for entry in layout.entries() {
            // A path that cannot be a C string cannot be opened either.
            let step = match entry {
                Entry::Folder(path) => relative(&path).map(Step::Folder),
                Entry::Bind { path, file: true } if let Some(contents) = copied(&path) => {
                    relative(&path).map(|target| Step::Copy { target, contents })
                }
                Entry::Bind { path, file } => absolute(&path)
                    .zip(relative(&path))
                    .map(|(source, target)| Step::View { source, target, file, device: false }),
                Entry::Link { path, target } => relative(&path)
                    .zip(absolute(&target).or_else(|| relative(&target)))
                    .map(|(path, _)| Step::Link {
                        path,
                        target: CString::new(target.as_os_str().as_encoded_bytes())
                            .unwrap_or_default(),
                    }),
            };
            steps.extend(step);
        }
        let views = steps.iter().filter(|step| matches!(step, Step::View { .. })).count();
        BoxPlan { steps, views }
    }
}

/// The step of a box's start that failed, reported with its errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Failed {
    Namespaces = 21,
    Cgroup = 22,
    Isolate = 1,
    Open,
    Identity,
    Root,
    Scratch,
    Proc,
    Devices,
    Folder,
    View,
    Link,
    Pivot,
    ReadOnly,
    WorkingFolder,
    StartBot,
    Stdio,
    BotIdentity,
    Limits,
    Landlock,
    Seccomp,
    Exec,
}

impl Failed {
    fn from_code(code: u32) -> Failed {
        const ALL: [Failed; 22] = [
            Failed::Namespaces,
            Failed::Cgroup,
            Failed::Isolate,
            Failed::Open,
            Failed::Identity,
            Failed::Root,
            Failed::Scratch,
            Failed::Proc,
            Failed::Devices,
            Failed::Folder,
            Failed::View,
            Failed::Link,
            Failed::Pivot,
            Failed::ReadOnly,
            Failed::WorkingFolder,
            Failed::StartBot,
            Failed::Stdio,
            Failed::BotIdentity,
            Failed::Limits,
            Failed::Landlock,
            Failed::Seccomp,
            Failed::Exec,
        ];
        ALL.into_iter().find(|step| *step as u32 == code).unwrap_or(Failed::Isolate)
    }

    /// What the step does, for a message: "mounting /proc".
    pub fn doing(self) -> &'static str {
        match self {
            Failed::Namespaces => "making the box's namespaces",
            Failed::Cgroup => "joining the box's cgroup",
            Failed::Isolate => "isolating the box (session, mount propagation)",
            Failed::Open => "opening a path the box shows",
            Failed::Identity => "taking the box's user id",
            Failed::Root => "mounting the box's root",
            Failed::Scratch => "mounting the box's /tmp",
            Failed::Proc => "mounting the box's /proc",
            Failed::Devices => "making the box's /dev",
            Failed::Folder => "making a folder in the box",
            Failed::View => "showing a host path in the box",
            Failed::Link => "making a link in the box",
            Failed::Pivot => "entering the box's root",
            Failed::ReadOnly => "making the box's root read-only",
            Failed::WorkingFolder => "entering the working folder",
            Failed::StartBot => "starting the bot in the box",
            Failed::Stdio => "connecting the bot's pipes",
            Failed::BotIdentity => "taking the bot's user id",
            Failed::Limits => "setting the bot's resource limits",
            Failed::Landlock => "restricting the bot with Landlock",
            Failed::Seccomp => "loading the system call filter",
            Failed::Exec => "running the program",
        }
    }
}

/// A box's start that failed: the step and the system's error.
#[derive(Debug)]
pub struct StartFailure {
    pub step: Failed,
    pub error: io::Error,
}

/// What the box's first process sends the arena on its report pipe.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Report {
    kind: u32,
    /// The failed step's code, or the bot's wait status.
    value: u32,
    errno: i32,
}

const REPORT_STARTED: u32 = 1;
const REPORT_FAILED: u32 = 2;
const REPORT_ENDED: u32 = 3;

/// Everything one box's start needs, prepared by the arena.
pub struct BoxStart {
    pub plan: Arc<BoxPlan>,
    pub program: CString,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    /// The bot's working folder (it exists in the box).
    pub workdir: CString,
    pub rlimits: Vec<(c_int, u64, u64)>,
    pub landlock: Option<InBoxRuleset>,
    pub filter: Option<Arc<Filter>>,
    /// tmpfs options of the box's /tmp and /dev/shm.
    pub scratch_options: CString,
    /// Where arena's command line lies in memory (its copy in the box's
    /// first process is blanked: the bot may read /proc/1/cmdline).
    pub command_line: std::ops::Range<usize>,
    /// Arena is root: the box gets ids of its own on the host.
    pub as_root: bool,
    /// The box has its own network namespace (a loopback to bring up).
    pub own_network: bool,
    /// Files the first process joins its cgroup by (it writes "0" to each).
    pub cgroup_joins: Vec<RawFd>,
}

/// What the box's first process reads: on the arena's stack, copied into
/// the child by clone.
struct InitJob<'a> {
    start: &'a BoxStart,
    argv: *const *const c_char,
    envp: *const *const c_char,
    /// The descriptors of the host paths the box shows, one per view.
    views: *mut c_int,
    /// The child's ends of the bot's pipes.
    stdio: [RawFd; 3],
    report: RawFd,
    sync_read: RawFd,
    sync_write: RawFd,
    /// The descriptors to keep, sorted; every other is closed at once.
    keep: [RawFd; 5],
    mask: libc::sigset_t,
    bot_stack_top: *mut c_void,
    /// Where the bot's process, which shares the first process's memory,
    /// leaves the step and errno it failed at.
    bot_failure: (u32, i32),
}

/// Starts `start`'s bot in a new box.
pub fn spawn(start: &BoxStart) -> Result<StartedBox, StartFailure> {
    let fail = |step: Failed| move |error: io::Error| StartFailure { step, error };
    let (stdin_read, stdin_write) = pipe().map_err(fail(Failed::Isolate))?;
    let (stdout_read, stdout_write) = pipe().map_err(fail(Failed::Isolate))?;
    let (stderr_read, stderr_write) = pipe().map_err(fail(Failed::Isolate))?;
    let (report_read, report_write) = pipe().map_err(fail(Failed::Isolate))?;
    let (sync_read, sync_write) = pipe().map_err(fail(Failed::Isolate))?;
    let argv = null_terminated(&start.argv);
    let envp = null_terminated(&start.envp);
    let mut views = vec![-1 as c_int; start.plan.views.max(1)];
    const STACK: usize = 128 * 1024;
    let mut init_stack = vec![0u8; STACK];
    let mut bot_stack = vec![0u8; STACK];
    let top = |stack: &mut Vec<u8>| {
        // SAFETY: one past the end of the buffer, aligned down to 16.
        unsafe {
            let top = stack.as_mut_ptr().add(STACK);
            top.sub(top as usize % 16).cast::<c_void>()
        }
    };
    let mut keep = [
        stdin_read.as_raw_fd(),
        stdout_write.as_raw_fd(),
        stderr_write.as_raw_fd(),
        report_write.as_raw_fd(),
        sync_read.as_raw_fd(),
    ];
    keep.sort_unstable();
    let mut job = InitJob {
        start,
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        views: views.as_mut_ptr(),
        stdio: [stdin_read.as_raw_fd(), stdout_write.as_raw_fd(), stderr_write.as_raw_fd()],
        report: report_write.as_raw_fd(),
        sync_read: sync_read.as_raw_fd(),
        sync_write: sync_write.as_raw_fd(),
        keep,
        mask: block_signals(),
        bot_stack_top: top(&mut bot_stack),
        bot_failure: (0, 0),
    };
    let mut flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_PIDFD
        | libc::SIGCHLD;
    if start.own_network {
        flags |= libc::CLONE_NEWNET;
    }
    let mut pidfd: c_int = -1;
    // SAFETY: without CLONE_VM the child runs `init_main` on its own copy
    // of the stack and of everything `job` points to; signals are blocked
    // across the clone (the child resets them before the bot runs).
    let pid = unsafe {
        libc::clone(init_main, top(&mut init_stack), flags, (&raw mut job).cast(), &raw mut pidfd)
    };
    let clone_error = io::Error::last_os_error();
    restore_signals(&job.mask);
    if pid < 0 {
        return Err(StartFailure { step: Failed::Namespaces, error: clone_error });
    }
    // SAFETY: CLONE_PIDFD stored a new descriptor that is ours alone.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    drop((stdin_read, stdout_write, stderr_write, report_write, sync_read));
    let gone = |failure: StartFailure| {
        kill_pidfd(&pidfd);
        let _ = wait_exited(&pidfd, true);
        failure
    };
    if let Err(error) = identity_maps(pid as u32, start.as_root) {
        return Err(gone(StartFailure { step: Failed::Identity, error }));
    }
    let go = [1u8];
    // SAFETY: writes one byte from the stack to our end of the sync pipe.
    if unsafe { libc::write(sync_write.as_raw_fd(), go.as_ptr().cast(), 1) } != 1 {
        return Err(gone(StartFailure {
            step: Failed::Isolate,
            error: io::Error::last_os_error(),
        }));
    }
    drop(sync_write);
    match read_report(&report_read) {
        Some(Report { kind: REPORT_STARTED, .. }) => {}
        Some(Report { kind: REPORT_FAILED, value, errno }) => {
            let step = Failed::from_code(value);
            return Err(gone(StartFailure { step, error: io::Error::from_raw_os_error(errno) }));
        }
        _ => {
            let error = io::Error::other("the box's first process ended before the bot started");
            return Err(gone(StartFailure { step: Failed::Isolate, error }));
        }
    }
    drop((init_stack, bot_stack, views));
    let spawned = Spawned {
        pid: pid as u32,
        pidfd,
        stdin: stdin_write,
        stdout: stdout_read,
        stderr: stderr_read,
    };
    Ok(StartedBox { spawned, report: report_read })
}

/// A box just started, and the pipe on which its first process reports
/// the bot's exit status (read it with [`bot_status`] once that process
/// has exited).
pub struct StartedBox {
    pub spawned: Spawned,
    pub report: OwnedFd,
}

/// Writes the box's id maps: under root, the box's root and bot get ids of
/// their own on the host; otherwise the bot's id is arena's own (the only
/// one an unprivileged user may map).
fn identity_maps(pid: u32, as_root: bool) -> io::Result<()> {
    let file = |name: &str| format!("/proc/{pid}/{name}");
    if as_root {
        let base = ROOT_BOX_UID_BASE + 2 * pid;
        let map = format!("0 {base} 1\n{BOT_ID} {} 1", base + 1);
        std::fs::write(file("uid_map"), &map)?;
        std::fs::write(file("gid_map"), &map)?;
    } else {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        std::fs::write(file("setgroups"), "deny")?;
        std::fs::write(file("uid_map"), format!("{BOT_ID} {uid} 1"))?;
        std::fs::write(file("gid_map"), format!("{BOT_ID} {gid} 1"))?;
    }
    Ok(())
}

fn read_report(report: &OwnedFd) -> Option<Report> {
    let mut value = Report::default();
    let size = std::mem::size_of::<Report>();
    // SAFETY: reads at most one report into a value on the stack.
    let read = unsafe { libc::read(report.as_raw_fd(), (&raw mut value).cast(), size) };
    (read == size as isize).then_some(value)
}

/// The bot's exit status, read from the report pipe once the box's first
/// process has exited; `None` when it sent none (the box was killed).
pub fn bot_status(report: &OwnedFd) -> Option<ExitStatus> {
    match read_report(report)? {
        Report { kind: REPORT_ENDED, value, .. } => Some(ExitStatus::from_raw(value as i32)),
        _ => None,
    }
}

/// Sends a report from inside the box.
///
/// # Safety
/// Raw write of a value on the stack.
unsafe fn send(fd: RawFd, report: Report) {
    // SAFETY: writes the value on the stack; a pipe write this small is atomic.
    unsafe {
        libc::write(fd, (&raw const report).cast(), std::mem::size_of::<Report>());
    }
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)
}

/// Turns a system call's result into the step it failed at.
fn at(step: Failed, result: c_int) -> Result<c_int, (Failed, i32)> {
    if result < 0 { Err((step, errno())) } else { Ok(result) }
}

extern "C" fn init_main(job: *mut c_void) -> c_int {
    // SAFETY: `job` is this process's copy of the arena's InitJob.
    let job = unsafe { &mut *job.cast::<InitJob<'_>>() };
    // SAFETY: the box's first process, with everything prepared.
    let result = unsafe { init(job) };
    if let Err((step, errno)) = result {
        // SAFETY: a report from the stack, then the end of the process.
        unsafe {
            send(job.report, Report { kind: REPORT_FAILED, value: step as u32, errno });
        }
    }
    // SAFETY: ends the process without running any of the arena's code.
    unsafe { libc::_exit(if result.is_ok() { 0 } else { 127 }) }
}

/// The box's first process: builds the box, starts the bot, reaps.
unsafe fn init(job: &mut InitJob<'_>) -> Result<(), (Failed, i32)> {
    let start = job.start;
    // SAFETY: system calls on this process, with pointers to its copy of
    // memory the arena prepared.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        blank(&start.command_line);
        for &join in &start.cgroup_joins {
            if libc::write(join, c"0".as_ptr().cast(), 1) != 1 {
                return Err((Failed::Cgroup, errno()));
            }
        }
        libc::close(job.sync_write);
        keep_only(&job.keep);
        // The arena writes the id maps and the cgroup first; nothing comes
        // (end of file) if it died meanwhile.
        let mut go = 0u8;
        if libc::read(job.sync_read, (&raw mut go).cast(), 1) != 1 {
            libc::_exit(1);
        }
        libc::close(job.sync_read);
        // Its memory is a copy of the arena's: nothing in the box may read
        // it (ptrace, /proc/1/mem), and its command line (world-readable as
        // /proc/1/cmdline) was blanked above. Only now: the arena writes
        // the id maps through /proc/PID, which a process that is not
        // dumpable hands to root.
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        at(Failed::Isolate, libc::setsid())?;
        at(
            Failed::Isolate,
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ),
        )?;
        open_views(start, job.views)?;
        if start.as_root {
            // The box's root, which the host knows as an id of no user's.
            at(
                Failed::Identity,
                libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) as c_int,
            )?;
            at(Failed::Identity, libc::syscall(libc::SYS_setresgid, 0, 0, 0) as c_int)?;
            at(Failed::Identity, libc::syscall(libc::SYS_setresuid, 0, 0, 0) as c_int)?;
        }
        build_root(start, job.views)?;
        libc::sethostname(c"arena".as_ptr(), 5);
        if start.own_network {
            bring_up_loopback();
        }
        at(Failed::WorkingFolder, libc::chdir(start.workdir.as_ptr()))?;
        let bot = libc::clone(
            bot_main,
            job.bot_stack_top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (job as *mut InitJob<'_>).cast(),
        );
        if bot < 0 {
            return Err((Failed::StartBot, errno()));
        }
        if job.bot_failure.0 != 0 {
            let (step, errno) = job.bot_failure;
            let _ = libc::waitpid(bot, std::ptr::null_mut(), 0);
            return Err((Failed::from_code(step), errno));
        }
        send(job.report, Report { kind: REPORT_STARTED, ..Report::default() });
        // Only the bot holds its pipes now: its exit closes them.
        for fd in job.stdio {
            libc::close(fd);
        }
        loop {
            let mut status = 0;
            let reaped = libc::waitpid(-1, &mut status, libc::__WALL);
            if reaped == bot {
                send(job.report, Report { kind: REPORT_ENDED, value: status as u32, errno: 0 });
                return Ok(());
            }
            if reaped < 0 && errno() != libc::EINTR {
                return Ok(());
            }
        }
    }
}

/// Overwrites `range` of this process's memory with zeroes.
unsafe fn blank(range: &std::ops::Range<usize>) {
    if range.start == 0 || range.end <= range.start {
        return;
    }
    // SAFETY: the range is the argument area of the arena's memory, whose
    // copy this process owns; volatile, so the writes are never dropped.
    unsafe {
        let start = range.start as *mut u8;
        for offset in 0..range.end - range.start {
            std::ptr::write_volatile(start.add(offset), 0);
        }
    }
}

/// Closes every descriptor but `keep` (sorted): the copies of the arena's
/// files, other bots' pipes among them, which a box must not hold.
unsafe fn keep_only(keep: &[RawFd; 5]) {
    let mut from = 3u32;
    for &fd in keep {
        let fd = fd as u32;
        if fd > from {
            // SAFETY: closes descriptors of this process.
            unsafe { libc::syscall(libc::SYS_close_range, from, fd - 1, 0) };
        }
        from = from.max(fd + 1);
    }
    // SAFETY: as above.
    unsafe { libc::syscall(libc::SYS_close_range, from, u32::MAX, 0) };
}

/// Opens every host path the box shows, as a detached copy of its mount,
/// while this process may still read it (under root, before it becomes the
/// box's root, which may not enter /root). A path that is gone is skipped.
unsafe fn open_views(start: &BoxStart, views: *mut c_int) -> Result<(), (Failed, i32)> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    let mut index = 0;
    for step in &start.plan.steps {
        let Step::View { source, .. } = step else { continue };
        // SAFETY: open_tree on a prepared path; the result goes into the
        // prepared array, one slot per view.
        unsafe {
            let fd = libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                source.as_ptr(),
                OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
            ) as c_int;
            if fd < 0 && errno() != libc::ENOENT {
                return Err((Failed::Open, errno()));
            }
            *views.add(index) = fd;
        }
        index += 1;
    }
    Ok(())
}

/// `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;

/// Makes the box's root at [`BUILD_AT`] and enters it.
unsafe fn build_root(start: &BoxStart, views: *mut c_int) -> Result<(), (Failed, i32)> {
    let no_data = std::ptr::null::<c_void>();
    let tmpfs = c"tmpfs".as_ptr();
    let secure = libc::MS_NOSUID | libc::MS_NODEV;
    // SAFETY: mounts, folders and links made from prepared C strings; all
    // paths after the chdir are relative to the new root.
    unsafe {
        at(
            Failed::Root,
            libc::mount(
                tmpfs,
                BUILD_AT.as_ptr(),
                tmpfs,
                secure,
                c"size=4m,mode=0755".as_ptr().cast(),
            ),
        )?;
        at(Failed::Root, libc::chdir(BUILD_AT.as_ptr()))?;
        at(Failed::Scratch, libc::mkdir(c"tmp".as_ptr(), 0o755))?;
        at(
            Failed::Scratch,
            libc::mount(
                tmpfs,
                c"tmp".as_ptr(),
                tmpfs,
                secure,
                start.scratch_options.as_ptr().cast(),
            ),
        )?;
        at(Failed::Proc, libc::mkdir(c"proc".as_ptr(), 0o555))?;
        at(
            Failed::Proc,
            libc::mount(
                c"proc".as_ptr(),
                c"proc".as_ptr(),
                c"proc".as_ptr(),
                secure | libc::MS_NOEXEC,
                no_data,
            ),
        )?;
        at(Failed::Devices, libc::mkdir(c"dev".as_ptr(), 0o755))?;
        at(Failed::Devices, libc::mkdir(c"dev/shm".as_ptr(), 0o755))?;
        at(
            Failed::Devices,
            libc::mount(
                tmpfs,
                c"dev/shm".as_ptr(),
                tmpfs,
                secure,
                start.scratch_options.as_ptr().cast(),
            ),
        )?;
        for (link, target) in [
            (c"dev/fd", c"/proc/self/fd"),
            (c"dev/stdin", c"/proc/self/fd/0"),
            (c"dev/stdout", c"/proc/self/fd/1"),
            (c"dev/stderr", c"/proc/self/fd/2"),
        ] {
            at(Failed::Devices, libc::symlink(target.as_ptr(), link.as_ptr()))?;
        }
        let mut index = 0;
        for step in &start.plan.steps {
            match step {
                Step::Folder(path) => {
                    if libc::mkdir(path.as_ptr(), 0o755) < 0 && errno() != libc::EEXIST {
                        return Err((Failed::Folder, errno()));
                    }
                }
                Step::View { target, file, device, .. } => {
                    let fd = *views.add(index);
                    index += 1;
                    if fd < 0 {
                        continue;
                    }
                    if *file {
                        let made = libc::open(
                            target.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                            0o644,
                        );
                        if made < 0 && errno() != libc::EEXIST {
                            return Err((Failed::View, errno()));
                        }
                        libc::close(made);
                    } else if libc::mkdir(target.as_ptr(), 0o755) < 0 && errno() != libc::EEXIST {
                        return Err((Failed::View, errno()));
                    }
                    let set = if *device {
                        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC
                    } else {
                        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                    };
                    let attr =
                        MountAttr { attr_set: set, attr_clr: 0, propagation: 0, userns_fd: 0 };
                    at(
                        Failed::View,
                        libc::syscall(
                            libc::SYS_mount_setattr,
                            fd,
                            c"".as_ptr(),
                            libc::AT_EMPTY_PATH,
                            &raw const attr,
                            std::mem::size_of::<MountAttr>(),
                        ) as c_int,
                    )?;
                    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
                    at(
                        Failed::View,
                        libc::syscall(
                            libc::SYS_move_mount,
                            fd,
                            c"".as_ptr(),
                            libc::AT_FDCWD,
                            target.as_ptr(),
                            MOVE_MOUNT_F_EMPTY_PATH,
                        ) as c_int,
                    )?;
                    libc::close(fd);
                }
                Step::Copy { target, contents } => {
                    let fd = libc::open(
                        target.as_ptr(),
                        libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC,
                        0o644,
                    );
                    if fd < 0 {
                        return Err((Failed::View, errno()));
                    }
                    let written = libc::write(fd, contents.as_ptr().cast(), contents.len());
                    libc::close(fd);
                    if written != contents.len() as isize {
                        return Err((Failed::View, errno()));
                    }
                }
                Step::Link { path, target } => {
                    if libc::symlink(target.as_ptr(), path.as_ptr()) < 0 && errno() != libc::EEXIST
                    {
                        return Err((Failed::Link, errno()));
                    }
                }
            }
        }
        // The old root goes: nothing of the host is left but the views.
        at(
            Failed::Pivot,
            libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as c_int,
        )?;
        at(Failed::Pivot, libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
        at(Failed::Pivot, libc::chdir(c"/".as_ptr()))?;
        at(
            Failed::ReadOnly,
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | secure,
                no_data,
            ),
        )?;
    }
    Ok(())
}

/// Brings the box's loopback up (a new network namespace has it down).
unsafe fn bring_up_loopback() {
    // SAFETY: a socket and two ioctls on a request on the stack.
    unsafe {
        let socket = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if socket < 0 {
            return;
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        request.ifr_name[0] = b'l' as c_char;
        request.ifr_name[1] = b'o' as c_char;
        if libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request) == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(socket, libc::SIOCSIFFLAGS, &request);
        }
        libc::close(socket);
    }
}

extern "C" fn bot_main(job: *mut c_void) -> c_int {
    // SAFETY: `job` is the first process's InitJob, whose memory this
    // process shares until it execs.
    let job = unsafe { &mut *job.cast::<InitJob<'_>>() };
    // SAFETY: the bot's process between clone and exec.
    if let Err((step, errno)) = unsafe { bot(job) } {
        job.bot_failure = (step as u32, errno);
    }
    // SAFETY: ends the process without running any of the arena's code.
    unsafe { libc::_exit(127) }
}

/// The bot's process: its pipes, its identity, limits, Landlock, seccomp,
/// exec. Returns only on failure.
unsafe fn bot(job: &mut InitJob<'_>) -> Result<(), (Failed, i32)> {
    let start = job.start;
    // SAFETY: system calls on this process with prepared pointers.
    unsafe {
        default_signals(&job.mask);
        for (target, &fd) in job.stdio.iter().enumerate() {
            at(Failed::Stdio, libc::dup2(fd, target as c_int))?;
        }
        // The bot's own id: under root this drops every capability (from
        // the box's root to an id that is not); otherwise the id is the
        // same and the capabilities go at exec, or here.
        at(
            Failed::BotIdentity,
            libc::syscall(libc::SYS_setresgid, BOT_ID, BOT_ID, BOT_ID) as c_int,
        )?;
        at(
            Failed::BotIdentity,
            libc::syscall(libc::SYS_setresuid, BOT_ID, BOT_ID, BOT_ID) as c_int,
        )?;
        drop_capabilities()
            .map_err(|error| (Failed::BotIdentity, error.raw_os_error().unwrap_or(libc::EPERM)))?;
        set_rlimits(&start.rlimits)
            .map_err(|error| (Failed::Limits, error.raw_os_error().unwrap_or(libc::EINVAL)))?;
        close_inherited_files_at_exec();
        if let Some(ruleset) = &start.landlock {
            ruleset.restrict_self().map_err(|error| {
                (Failed::Landlock, error.raw_os_error().unwrap_or(libc::EINVAL))
            })?;
        }
        if let Some(filter) = &start.filter {
            load_filter(filter)
                .map_err(|error| (Failed::Seccomp, error.raw_os_error().unwrap_or(libc::EINVAL)))?;
        }
        libc::execve(start.program.as_ptr(), job.argv, job.envp);
        Err((Failed::Exec, errno()))
    }
}

/// Empties every capability set of the calling process.
unsafe fn drop_capabilities() -> io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: c_int,
    }
    let header = Header { version: 0x2008_0522, pid: 0 };
    let data = [0u32; 6];
    // SAFETY: capset with a header and data on the stack.
    super::spawn::check(
        unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) } as c_int
    )?;
    // SAFETY: clears the ambient set.
    unsafe {
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0);
    }
    Ok(())
}

/// Whether boxes can be made here: one is made, with the system folders,
/// and runs `true`. Returns what failed when it cannot be.
pub fn probe(network: bool, as_root: bool) -> Result<(), String> {
    let program = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .find(|path| Path::new(path).exists())
        .ok_or("no `true` program in /usr/bin or /bin to try a box with")?;
    let grants: Vec<crate::sandbox::files::Grant> = crate::sandbox::files::system_paths()
        .into_iter()
        .map(crate::sandbox::files::Grant::Whole)
        .collect();
    let program = CString::new(program).expect("no NUL");
    let start = BoxStart {
        plan: Arc::new(BoxPlan::new(&Layout::new(&grants, &[]))),
        argv: vec![program.clone()],
        program,
        envp: Vec::new(),
        workdir: c"/".to_owned(),
        rlimits: Vec::new(),
        landlock: None,
        filter: None,
        scratch_options: c"size=1m,mode=1777".to_owned(),
        command_line: command_line(),
        as_root,
        own_network: !network,
        cgroup_joins: Vec::new(),
    };
    let started =
        spawn(&start).map_err(|failure| format!("{}: {}", failure.step.doing(), failure.error))?;
    let waited = wait_exited(&started.spawned.pidfd, true)
        .map_err(|error| format!("waiting for the box: {error}"))?
        .ok_or("waiting for the box: no status")?;
    match bot_status(&started.report).unwrap_or(waited).code() {
        Some(0) => Ok(()),
        _ => Err(format!("a box running `true` ended with {waited}")),
    }
}

/// Where this process's command line lies in its memory: fields 48 and 49
/// of /proc/self/stat (`arg_start`, `arg_end`).
pub fn command_line() -> std::ops::Range<usize> {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_ascii_whitespace().collect())
        .unwrap_or_default();
    // After the name comes field 3: arg_start is field 48.
    let field = |number: usize| fields.get(number - 3)?.parse::<usize>().ok();
    match (field(48), field(49)) {
        (Some(start), Some(end)) => start..end,
        _ => 0..0,
    }
}
