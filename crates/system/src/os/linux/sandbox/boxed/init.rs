//! The box's first process: arena's code, pid 1 of the box. It builds the
//! box's root, then for each of its bot's processes starts it, reaps until
//! it exits and what it left is gone, and makes the box new.

use std::ffi::{c_char, c_int, c_void};
use std::os::fd::RawFd;

use super::bot::bot_main;
use super::failed::{at, errno};
use super::ipc::{IpcMark, mount_queues};
use super::root::{build_root, open_views};
use super::scratch::{ScratchMark, make_ruleset, renew};
use super::{
    Failed, InitJob, Network, REPORT_ENDED, REPORT_FAILED, REPORT_READY, REPORT_STARTED, Report,
};
use crate::os::linux::cpu::{only_current_among, set_cpus};
use crate::os::linux::sandbox::spawn::{default_handlers, load_filter};

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

pub(super) extern "C" fn init_main(job: *mut c_void) -> c_int {
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
        // None of the arena's handlers may run here (signals stay blocked
        // but for the bot's process), and each bot's process, which starts
        // with this process's handlers, is spared sixty calls a start.
        default_handlers();
        blank(&start.command_line);
        libc::close(job.sync_write);
        keep_only(job.keep);
        // The arena writes the id maps and the cgroup first; nothing comes
        // (end of file) if it died meanwhile.
        let mut go = 0u8;
        if libc::read(job.sync_read, (&raw mut go).cast(), 1) != 1 {
            libc::_exit(1);
        }
        // Into the box's cgroup, as a single thread (see `cgroup`); after
        // the go, so that a failure comes back as a report.
        for &join in &start.cgroup_joins {
            if libc::write(join, c"0".as_ptr().cast(), 1) != 1 {
                return Err((Failed::Cgroup, errno()));
            }
        }
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
        if start.ids.own() {
            // The box's root, which the host knows as an id of no user's
            // (and, where a helper wrote the map, without arena's groups).
            at(
                Failed::Identity,
                libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) as c_int,
            )?;
            at(Failed::Identity, libc::syscall(libc::SYS_setresgid, 0, 0, 0) as c_int)?;
            at(Failed::Identity, libc::syscall(libc::SYS_setresuid, 0, 0, 0) as c_int)?;
        }
        build_root(start, job.views)?;
        libc::sethostname(c"arena".as_ptr(), 5);
        if matches!(start.network, Network::Own) {
            bring_up_loopback();
        }
        at(Failed::WorkingFolder, libc::chdir(start.workdir.as_ptr()))?;
        make_ruleset(job)?;
        job.queues = mount_queues();
        // The bot's filter, with what this process still calls allowed; each
        // bot's process loads the rest.
        if let Some(filters) = &start.filters {
            load_filter(&filters.first)
                .map_err(|error| (Failed::Seccomp, error.raw_os_error().unwrap_or(libc::EINVAL)))?;
        }
        // Under the filter, as every later mark (it may refuse System V).
        job.scratch = ScratchMark::take();
        job.ipc = IpcMark::first(job.queues);
        // Built: the box waits for the word to start its bot (at once, or
        // for a box made ahead of need, when a game wants it), and after
        // each bot's end, for its bot's next process where the plan allows.
        loop {
            send(job.report, Report { kind: REPORT_READY, ..Report::default() });
            let Some(stdio) = receive_go(job.sync_read, &mut job.cpus)? else {
                // The arena is done with the box (or gone).
                return Ok(());
            };
            job.stdio = stdio;
            job.bot_failure = (0, 0);
            // The bot's process is born on this CPU, which this process
            // leaves to it until its exec (`CLONE_VFORK`): the kernel would
            // place a new process on the least loaded CPU, across an
            // interrupt and often behind another game's processes (a tenth
            // of the games per second where every CPU has a game). It takes
            // the CPUs it was started on before exec, and this process
            // takes them again once it waits.
            if let Some(here) = only_current_among(&job.cpus) {
                set_cpus(&here);
            }
            let bot = libc::clone(
                bot_main,
                job.bot_stack_top,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (job as *mut InitJob<'_>).cast(),
            );
            if libc::CPU_COUNT(&job.cpus) > 0 {
                set_cpus(&job.cpus);
            }
            if bot < 0 {
                return Err((Failed::StartBot, errno()));
            }
            if job.bot_failure.0 != 0 {
                let (step, errno) = job.bot_failure;
                let _ = libc::waitpid(bot, std::ptr::null_mut(), 0);
                return Err((Failed::from_code(step), errno));
            }
            // Only the bot holds its pipes now: its exit closes them.
            for fd in job.stdio {
                libc::close(fd);
            }
            send(job.report, Report { kind: REPORT_STARTED, ..Report::default() });
            let status = reap_all(bot);
            send(job.report, Report { kind: REPORT_ENDED, value: status as u32, errno: 0 });
            renew(job)?;
        }
    }
}

/// Reaps every process of the box until the bot has exited, then kills
/// and reaps whatever it left (pid 1's `kill(-1)` reaches every other
/// process of the box): returns the bot's wait status.
unsafe fn reap_all(bot: c_int) -> c_int {
    // SAFETY: waits and signals within the box, with a status on the stack.
    unsafe {
        let mut status = 0;
        loop {
            let mut reaped_status = 0;
            let reaped = libc::waitpid(-1, &mut reaped_status, libc::__WALL);
            if reaped == bot {
                status = reaped_status;
                break;
            }
            // Signals are blocked: only "no child" ends the wait, which
            // cannot come before the bot's own end.
            if reaped < 0 {
                break;
            }
        }
        libc::kill(-1, libc::SIGKILL);
        while libc::waitpid(-1, std::ptr::null_mut(), libc::__WALL) > 0 {}
        status
    }
}

/// Waits for the word to start a bot: the CPUs to start it on and the
/// bot's ends of its three pipes (passed with the message). `None` when
/// the arena closed its end.
unsafe fn receive_go(
    socket: RawFd,
    cpus: &mut libc::cpu_set_t,
) -> Result<Option<[RawFd; 3]>, (Failed, i32)> {
    // Room for one control message of three descriptors, aligned.
    let mut control = [0u64; 8];
    let mut part = libc::iovec {
        iov_base: (cpus as *mut libc::cpu_set_t).cast(),
        iov_len: std::mem::size_of::<libc::cpu_set_t>(),
    };
    // SAFETY: recvmsg into buffers on the stack; the control message is
    // read only within the length the kernel gave.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &raw mut part;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = std::mem::size_of_val(&control);
        let received = libc::recvmsg(socket, &mut message, libc::MSG_CMSG_CLOEXEC);
        if received == 0 {
            return Ok(None);
        }
        if received < 0 {
            return Err((Failed::Stdio, errno()));
        }
        let header = libc::CMSG_FIRSTHDR(&message);
        let expected = libc::CMSG_LEN(3 * std::mem::size_of::<c_int>() as u32) as usize;
        if header.is_null()
            || (*header).cmsg_level != libc::SOL_SOCKET
            || (*header).cmsg_type != libc::SCM_RIGHTS
            || (*header).cmsg_len != expected
        {
            return Err((Failed::Stdio, libc::EBADMSG));
        }
        let fds = libc::CMSG_DATA(header).cast::<c_int>();
        let mut ends =
            [fds.read_unaligned(), fds.add(1).read_unaligned(), fds.add(2).read_unaligned()];
        // Numbered 3 or more, as the bot's dup2 into 0, 1 and 2 wants them
        // (a standard stream the arena runs without leaves its number free).
        for end in &mut ends {
            if *end < 3 {
                let moved = libc::fcntl(*end, libc::F_DUPFD_CLOEXEC, 3);
                if moved < 0 {
                    return Err((Failed::Stdio, errno()));
                }
                libc::close(*end);
                *end = moved;
            }
        }
        Ok(Some(ends))
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
unsafe fn keep_only(keep: &[RawFd]) {
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
