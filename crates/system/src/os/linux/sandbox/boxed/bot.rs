//! The bot's process between the clone from the box's first process and
//! exec: its pipes, its identity, its limits, Landlock, seccomp.

use std::ffi::{c_int, c_void};
use std::io;

use super::failed::{at, errno};
use super::{BOT_ID, Failed, InitJob};
use crate::os::linux::cpu::set_cpus;
use crate::os::linux::sandbox::landlock::restrict_self;
use crate::os::linux::sandbox::spawn::{close_inherited_files_at_exec, load_filter, set_rlimits};

pub(super) extern "C" fn bot_main(job: *mut c_void) -> c_int {
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
        // The handlers are at their defaults already (see `init`).
        libc::sigprocmask(libc::SIG_SETMASK, &job.mask, std::ptr::null_mut());
        // Born on the first process's CPU (see `init`).
        if libc::CPU_COUNT(&job.cpus) > 0 {
            set_cpus(&job.cpus);
        }
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
        // Before the filter, which refuses the call to the bot.
        crate::os::linux::ask_short_slice();
        set_rlimits(&start.rlimits)
            .map_err(|error| (Failed::Limits, error.raw_os_error().unwrap_or(libc::EINVAL)))?;
        close_inherited_files_at_exec();
        if let Some(ruleset) = job.ruleset {
            restrict_self(ruleset).map_err(|error| {
                (Failed::Landlock, error.raw_os_error().unwrap_or(libc::EINVAL))
            })?;
        }
        // The first process loaded the filter's first half.
        if let Some(filters) = &start.filters {
            load_filter(&filters.bot)
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
    crate::os::linux::sandbox::spawn::check(unsafe {
        libc::syscall(libc::SYS_capset, &header, data.as_ptr())
    } as c_int)?;
    // SAFETY: clears the ambient set.
    unsafe {
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0);
    }
    Ok(())
}
