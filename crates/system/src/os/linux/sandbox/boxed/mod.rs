//! Starting a bot in a box of its own.
//!
//! The arena clones a child into new user, PID, mount, IPC and UTS
//! namespaces (and a network namespace unless the network is allowed).
//! That child is the box's first process, pid 1 inside it, and arena's
//! code: it builds the box's root, starts the bot as its child, waits for
//! it and reports its exit status once nothing the bot left runs. Where the
//! box may serve its bot's next process it then makes itself new and waits
//! again; it exits when the arena closes its end of the sync socket, which
//! kills everything left in the box at once however deep or detached. The
//! arena watches it through a pidfd and kills the box by killing it.
//!
//! The steps, in order:
//!
//! 1. arena: `clone` (no shared memory: the box's first process keeps a
//!    copy of arena's, touching only what was prepared for it);
//! 2. arena: the child's user and group id maps; then a byte on the sync
//!    socket lets it go on;
//! 3. first process: it dies with the thread that started it, arena's
//!    (`PR_SET_PDEATHSIG`; bots are started on threads that live as long as
//!    their runs), sets every signal's handler to its default (signals
//!    stay blocked), keeps only the descriptors it needs, joins its cgroup (as
//!    a single thread), makes itself undumpable, starts a session (one CPU share per
//!    box where the scheduler shares by session), opens every host path
//!    the box shows (while it still may read them: under root, before it
//!    becomes the box's root), makes the root (a tmpfs) with the box's
//!    /tmp, /proc, /dev and /dev/shm, mounts the views read-only, makes
//!    the links, pivots into it and makes it read-only; makes the Landlock
//!    ruleset its bots restrict themselves with, holds a mount of its IPC
//!    namespace's message queues (attached nowhere), marks its scratch and
//!    IPC as they are, loads the first half of the bot's seccomp filter
//!    (`box_filter`); reports READY;
//! 4. arena, when a game wants the bot: the word to start it on the sync
//!    socket, with the CPUs and the bot's ends of three new pipes
//!    (`SCM_RIGHTS`);
//! 5. first process: starts the bot (`CLONE_VM | CLONE_VFORK`) on its own
//!    CPU, which it leaves to the bot until the exec; the bot's process
//!    unblocks signals, takes the CPUs named, takes its pipes as stdin,
//!    stdout and stderr, becomes the box's user
//!    (1000) with no capability, sets its limits, restricts itself with
//!    the box's Landlock ruleset and loads the other half of the seccomp
//!    filter last, then execs; reports STARTED (or the step that failed,
//!    and exits);
//! 6. first process: reaps every process of the box until the bot exits,
//!    kills (`kill(-1)`) and reaps whatever is left, reports ENDED with the
//!    bot's status;
//! 7. first process: the scratch (/tmp, and /dev/shm in it) and the IPC
//!    namespace kept where their marks show the bot's process left them
//!    as they were (`scratch`, `ipc`), else made new (what the plan puts in
//!    /tmp made again, its views moved from copies of their mounts; a new
//!    ruleset for the new scratch); then READY again, and on from 4.
//!
//! What a box keeps from one of its bot's processes to the next: its views
//! (which the bot may not write, but for folders the tournament file makes
//! writable), its network namespace (as boxes of one bot always shared
//! them under root), its pid count and the numbering of its files and IPC
//! objects (a process may learn how many processes the box served, and
//! whether the earlier ones left the scratch and IPC alone; the marks'
//! probes move the numbering on by one per process). A box that was killed
//! (a bot that did not exit by itself, a forfeit) serves no other process,
//! nor does a box whose first process is the bot's own user (arena's user
//! id in every box: the bot could signal it and move the folders it made).
//! The bot's /proc shows its own processes only (`hidepid=2`), not pid 1.
//!
//! Everything between clone and exec makes system calls only: the paths,
//! maps, rules and filter were prepared before, and nothing allocates.

mod bot;
mod failed;
mod init;
mod ipc;
mod plan;
mod root;
mod scratch;

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;

pub use failed::{Failed, StartFailure};
pub use plan::BoxPlan;

use init::init_main;

use super::super::cpu::only_current_among;
use super::box_filter::BoxFilters;
use super::landlock::InBoxRuleset;
use super::spawn::{
    block_signals, kill_pidfd, null_terminated, pipe, restore_signals, wait_exited,
};
use crate::sandbox::layout::Layout;

pub use super::ids::{BOT_ID, ROOT_BOX_UID_BASE};
use super::ids::{BoxIds, IdLease, write_maps};

/// Where the first process mounts the box's new root while building it: a
/// folder every Linux system has, hidden only inside the box's own mount
/// namespace.
const BUILD_AT: &CStr = c"/tmp";

/// The devices a box has, shown from the host's.
pub const DEVICES: [&str; 5] =
    ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// The box's scratch folders: its /tmp (HOME and TMPDIR) and /dev/shm.
pub const SCRATCH: [&str; 2] = ["/tmp", "/dev/shm"];

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
/// The box is built and waits for the word to start its bot.
const REPORT_READY: u32 = 4;

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
    /// The bot's seccomp filter, in the halves the first process and each
    /// bot's process load.
    pub filters: Option<Arc<BoxFilters>>,
    /// tmpfs options of the box's /tmp and /dev/shm.
    pub scratch_options: CString,
    /// Where arena's command line lies in memory (its copy in the box's
    /// first process is blanked: the bot may read /proc/1/cmdline).
    pub command_line: std::ops::Range<usize>,
    /// Who the box is on the host.
    pub ids: BoxIds,
    /// The network the box gets.
    pub network: Network,
    /// Files the first process joins its cgroup by (it writes "0" to each).
    pub cgroup_joins: Vec<RawFd>,
}

/// The network a box gets.
#[derive(Clone, Copy, Debug)]
pub enum Network {
    /// The machine's (the network is allowed).
    Host,
    /// A namespace of its own, whose loopback it brings up.
    Own,
    /// An existing namespace (one an earlier box of the same bot made and
    /// left empty), entered through its descriptor: making a network
    /// namespace and having the kernel tear it down cost more than the
    /// rest of a box. Only root may enter one it did not make.
    Join(RawFd),
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
    keep: &'a [RawFd],
    mask: libc::sigset_t,
    bot_stack_top: *mut c_void,
    /// Where the bot's process, which shares the first process's memory,
    /// leaves the step and errno it failed at.
    bot_failure: (u32, i32),
    /// The scratch as the bot's process found it (see `scratch`).
    scratch: Option<scratch::ScratchMark>,
    /// The Landlock ruleset of the box's current scratch, which each bot's
    /// process restricts itself with.
    ruleset: Option<RawFd>,
    /// The IPC namespace as the bot's process found it (see `ipc`), and the
    /// first process's own mount of its message queues.
    ipc: Option<ipc::IpcMark>,
    queues: Option<RawFd>,
    /// The CPUs the bot runs on, as the word to start it names them (none:
    /// any); its process takes them just before exec (see `init`).
    cpus: libc::cpu_set_t,
}

/// A box's first process, seen from the arena: waiting for the word to
/// start a bot, or running one. Dropped, it ends with everything in it.
///
/// A box serves one bot's processes one after the other (where the arena
/// gives it back, see `started`): after a bot's end its first process
/// kills whatever the bot left, reports the end, makes the scratch folders
/// and the IPC namespace anew and waits again.
pub struct BoxProcess {
    pub pid: u32,
    pidfd: OwnedFd,
    /// The first process's reports, read without blocking unless asked.
    report: OwnedFd,
    /// Where the word to start a bot goes (with the bot's pipe ends).
    go: OwnedFd,
    /// Whether the READY report for the next start has been read.
    ready: bool,
    /// The subordinate ids it holds until it ends.
    _ids: Option<IdLease>,
}

/// The arena's ends of a bot's stdin, stdout and stderr.
pub struct BotPipes {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// How a box's bot ended, as its first process tells it.
pub enum BotEnd {
    /// Not yet.
    Running,
    /// The bot exited with this status; everything it left is gone and
    /// the box lives on.
    Ended(ExitStatus),
    /// The box itself ended (killed, or it failed): its first process's
    /// status.
    BoxEnded(Option<ExitStatus>),
}

impl BoxProcess {
    /// A duplicate of the first process's pidfd, to kill the box by.
    pub fn pidfd(&self) -> io::Result<OwnedFd> {
        self.pidfd.try_clone()
    }

    /// A duplicate of the report pipe, readable when the bot's end (or the
    /// box's) can be read with [`BoxProcess::bot_end`].
    pub fn report(&self) -> io::Result<OwnedFd> {
        self.report.try_clone()
    }

    /// Whether the box can start a bot at once: its READY report is read or
    /// waiting (or it has ended, which a start then says).
    pub fn looks_ready(&self) -> bool {
        self.ready || readable(&self.report, 0)
    }

    /// Starts the box's bot, on `cpus` (the CPUs of the thread that asks,
    /// where given); returns the arena's ends of its pipes once it has
    /// exec'd.
    pub fn go(&mut self, cpus: Option<&[usize]>) -> Result<BotPipes, StartFailure> {
        let fail = |step: Failed| move |error: io::Error| StartFailure { step, error };
        if !std::mem::take(&mut self.ready) {
            self.expect(REPORT_READY)?;
        }
        let (stdin_read, stdin_write) = pipe().map_err(fail(Failed::Pipes))?;
        let (stdout_read, stdout_write) = pipe().map_err(fail(Failed::Pipes))?;
        let (stderr_read, stderr_write) = pipe().map_err(fail(Failed::Pipes))?;
        // SAFETY: fills a CPU set on the stack, within its size.
        let set = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in cpus.unwrap_or(&[]).iter().filter(|&&cpu| cpu < libc::CPU_SETSIZE as usize)
            {
                libc::CPU_SET(cpu, &mut set);
            }
            set
        };
        let ends = [stdin_read.as_raw_fd(), stdout_write.as_raw_fd(), stderr_write.as_raw_fd()];
        // Where programs are born on their starting thread's CPU, the first
        // process is woken on this one (a sleeping process moves at no
        // cost), and starts its bot here. A box of subordinate ids may not
        // be moved: its bot is born where its first process wakes.
        if crate::os::starts_programs_here()
            && let Some(here) = only_current_among(&set)
        {
            // SAFETY: sets another process's CPUs from a set of its size.
            unsafe {
                libc::sched_setaffinity(
                    self.pid as libc::pid_t,
                    std::mem::size_of::<libc::cpu_set_t>(),
                    &here,
                );
            }
        }
        send_go(&self.go, &set, ends).map_err(fail(Failed::Isolate))?;
        // The first process has its own copies now.
        drop((stdin_read, stdout_write, stderr_write));
        self.expect(REPORT_STARTED)?;
        Ok(BotPipes { stdin: stdin_write, stdout: stdout_read, stderr: stderr_read })
    }

    /// Reads the next report, which must be `kind`: a failure's report
    /// becomes the failure, an end of the box says so.
    fn expect(&self, kind: u32) -> Result<(), StartFailure> {
        readable(&self.report, -1);
        match read_report(&self.report) {
            Some(Report { kind: got, .. }) if got == kind => Ok(()),
            Some(Report { kind: REPORT_FAILED, value, errno }) => Err(StartFailure {
                step: Failed::from_code(value),
                error: io::Error::from_raw_os_error(errno),
            }),
            _ => Err(StartFailure {
                step: Failed::Isolate,
                error: io::Error::other("the box's first process ended before the bot started"),
            }),
        }
    }

    /// The running bot's end: waited for when `block`, else read only if
    /// the report pipe is readable.
    pub fn bot_end(&self, block: bool) -> BotEnd {
        if !readable(&self.report, if block { -1 } else { 0 }) {
            return BotEnd::Running;
        }
        match read_report(&self.report) {
            Some(Report { kind: REPORT_ENDED, value, .. }) => {
                BotEnd::Ended(ExitStatus::from_raw(value as i32))
            }
            _ => BotEnd::BoxEnded(wait_exited(&self.pidfd, true).ok().flatten()),
        }
    }

    /// Kills the box and waits until its first process is gone.
    pub fn end(self) {
        drop(self);
    }
}

impl Drop for BoxProcess {
    fn drop(&mut self) {
        kill_pidfd(&self.pidfd);
        let _ = wait_exited(&self.pidfd, true);
    }
}

/// Whether `fd` has something to read (or its writer is gone), waiting up
/// to `timeout_ms` (-1: until it has).
fn readable(fd: &OwnedFd, timeout_ms: c_int) -> bool {
    let mut poll = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    loop {
        // SAFETY: polls one descriptor we hold.
        let polled = unsafe { libc::poll(&mut poll, 1, timeout_ms) };
        if polled >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return polled > 0;
        }
    }
}

/// Sends the word to start a bot: the CPUs, and the bot's pipe ends.
fn send_go(socket: &OwnedFd, cpus: &libc::cpu_set_t, ends: [RawFd; 3]) -> io::Result<()> {
    let mut control = [0u64; 8];
    let mut part = libc::iovec {
        iov_base: (cpus as *const libc::cpu_set_t).cast_mut().cast(),
        iov_len: std::mem::size_of::<libc::cpu_set_t>(),
    };
    // SAFETY: a message built on the stack: one control message of three
    // descriptors within the buffer, as CMSG_SPACE sizes it.
    let sent = unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &raw mut part;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = libc::CMSG_SPACE(std::mem::size_of_val(&ends) as u32) as usize;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(&ends) as u32) as usize;
        libc::CMSG_DATA(header).cast::<[RawFd; 3]>().write_unaligned(ends);
        libc::sendmsg(socket.as_raw_fd(), &message, libc::MSG_NOSIGNAL)
    };
    if sent < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Starts `start`'s bot in a new box.
pub fn spawn(start: &BoxStart) -> Result<(BoxProcess, BotPipes), StartFailure> {
    let mut process = prepare(start)?;
    let pipes = process.go(None)?;
    Ok((process, pipes))
}

/// Makes `start`'s box, up to the bot's start: namespaces, id maps, the
/// cgroup, the root; returns once its first process waits for the word.
pub fn prepare(start: &BoxStart) -> Result<BoxProcess, StartFailure> {
    let fail = |step: Failed| move |error: io::Error| StartFailure { step, error };
    let (report_read, report_write) = pipe().map_err(fail(Failed::Pipes))?;
    let (sync_read, sync_write) = socket_pair().map_err(fail(Failed::Pipes))?;
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
    let mut keep = vec![report_write.as_raw_fd(), sync_read.as_raw_fd()];
    keep.extend(&start.cgroup_joins);
    keep.sort_unstable();
    let mut job = InitJob {
        start,
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        views: views.as_mut_ptr(),
        stdio: [-1; 3],
        report: report_write.as_raw_fd(),
        sync_read: sync_read.as_raw_fd(),
        sync_write: sync_write.as_raw_fd(),
        keep: &keep,
        mask: unsafe { std::mem::zeroed() },
        bot_stack_top: top(&mut bot_stack),
        bot_failure: (0, 0),
        scratch: None,
        ruleset: None,
        ipc: None,
        queues: None,
        // SAFETY: an empty CPU set is all zeros.
        cpus: unsafe { std::mem::zeroed() },
    };
    let mut flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_PIDFD
        | libc::SIGCHLD;
    // The child is made in the network namespace this thread is in: to
    // join one, this thread enters it for the clone and goes back after.
    let joined = match start.network {
        Network::Host => None,
        Network::Own => {
            flags |= libc::CLONE_NEWNET;
            None
        }
        Network::Join(namespace) => {
            let here = std::fs::File::open("/proc/thread-self/ns/net")
                .map_err(|error| StartFailure { step: Failed::Namespaces, error })?;
            // SAFETY: setns on this thread with descriptors we hold.
            if unsafe { libc::setns(namespace, libc::CLONE_NEWNET) } != 0 {
                let error = io::Error::last_os_error();
                return Err(StartFailure { step: Failed::Namespaces, error });
            }
            Some(here)
        }
    };
    job.mask = block_signals();
    let mut pidfd: c_int = -1;
    // SAFETY: without CLONE_VM the child runs `init_main` on its own copy
    // of the stack and of everything `job` points to; signals are blocked
    // across the clone (the child resets them before the bot runs).
    let pid = unsafe {
        libc::clone(init_main, top(&mut init_stack), flags, (&raw mut job).cast(), &raw mut pidfd)
    };
    let clone_error = io::Error::last_os_error();
    restore_signals(&job.mask);
    if let Some(here) = joined {
        // SAFETY: back to this thread's own namespace, which it left above.
        let back = unsafe { libc::setns(here.as_raw_fd(), libc::CLONE_NEWNET) };
        // Only a kernel bug makes this fail; arena must not go on in a
        // bot's namespace.
        assert_eq!(back, 0, "a thread goes back to its own network namespace");
    }
    if pid < 0 {
        return Err(StartFailure { step: Failed::Namespaces, error: clone_error });
    }
    // SAFETY: CLONE_PIDFD stored a new descriptor that is ours alone.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    drop((report_write, sync_read));
    let mut process = BoxProcess {
        pid: pid as u32,
        pidfd,
        report: report_read,
        go: sync_write,
        ready: false,
        _ids: None,
    };
    // A failure from here on drops `process`: the box is killed and reaped.
    process._ids = write_maps(&start.ids, pid as u32)
        .map_err(|error| StartFailure { step: Failed::Identity, error })?;
    let go = [1u8];
    // SAFETY: writes one byte from the stack to our end of the sync socket.
    if unsafe { libc::write(process.go.as_raw_fd(), go.as_ptr().cast(), 1) } != 1 {
        return Err(StartFailure { step: Failed::Isolate, error: io::Error::last_os_error() });
    }
    process.expect(REPORT_READY).map_err(|failure| match failure.error.raw_os_error() {
        Some(_) => failure,
        None => StartFailure {
            step: Failed::Isolate,
            error: io::Error::other("the box's first process ended before its root was built"),
        },
    })?;
    process.ready = true;
    // The child has its own copy of these.
    drop((init_stack, bot_stack, views));
    Ok(process)
}

/// A connected pair of sequenced-packet sockets, closed on exec, both
/// numbered 3 or more: one message each, with descriptors where sent.
fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair fills the two descriptors, which are then ours.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        let [one, two] = fds.map(|fd| OwnedFd::from_raw_fd(fd));
        Ok((super::spawn::above_stdio(one)?, super::spawn::above_stdio(two)?))
    }
}

fn read_report(report: &OwnedFd) -> Option<Report> {
    let mut value = Report::default();
    let size = std::mem::size_of::<Report>();
    // SAFETY: reads at most one report into a value on the stack.
    let read = unsafe { libc::read(report.as_raw_fd(), (&raw mut value).cast(), size) };
    (read == size as isize).then_some(value)
}

/// Whether boxes can be made here, with `ids`: one is made, with the
/// system folders, and runs `true`. Returns what failed when it cannot be.
pub fn probe(network: bool, ids: &BoxIds) -> Result<(), String> {
    let program = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .find(|path| Path::new(path).exists())
        .ok_or("no `true` program in /usr/bin or /bin to try a box with")?;
    let shown = crate::sandbox::files::Shown {
        whole: crate::sandbox::files::system_paths(),
        hidden: Vec::new(),
        writable: Vec::new(),
    };
    let program = CString::new(program).expect("no NUL");
    let start = BoxStart {
        plan: Arc::new(BoxPlan::new(&Layout::new(&shown, &[]))),
        argv: vec![program.clone()],
        program,
        envp: Vec::new(),
        workdir: c"/".to_owned(),
        rlimits: Vec::new(),
        landlock: None,
        filters: None,
        scratch_options: c"size=1m,mode=1777".to_owned(),
        command_line: command_line(),
        ids: ids.clone(),
        network: if network { Network::Host } else { Network::Own },
        cgroup_joins: Vec::new(),
    };
    let (process, pipes) =
        spawn(&start).map_err(|failure| format!("{}: {}", failure.step.doing(), failure.error))?;
    // `true` reads nothing and writes nothing: its end is all there is.
    drop(pipes);
    match process.bot_end(true) {
        BotEnd::Ended(status) if status.code() == Some(0) => Ok(()),
        BotEnd::Ended(status) => Err(format!("a box running `true` ended with {status}")),
        BotEnd::Running | BotEnd::BoxEnded(_) => {
            Err("a box running `true` ended before its bot did".into())
        }
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
