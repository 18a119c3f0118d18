//! What starting a sandboxed process takes on either path (a box, or the
//! fallback without namespaces): pipes, the argument vectors exec wants,
//! waiting through a pidfd, and the steps every child takes before exec.

use std::ffi::{CString, c_char, c_int};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// A started process: the pid arena watches (a box's first process, or
/// the bot itself without a box), a pidfd to wait on and signal, and the
/// arena's ends of the bot's stdin, stdout and stderr.
pub struct Spawned {
    /// The pid arena watches.
    pub pid: u32,
    /// A pidfd of that pid.
    pub pidfd: OwnedFd,
    /// Arena's end of the bot's stdin.
    pub stdin: OwnedFd,
    /// Arena's end of the bot's stdout.
    pub stdout: OwnedFd,
    /// Arena's end of the bot's stderr.
    pub stderr: OwnedFd,
}

/// A pipe whose two ends close on exec, both numbered 3 or more (so that
/// making them the child's 0, 1 and 2 never overwrites one with another,
/// even when the arena runs with a standard stream closed).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors, which are then ours.
    let [read, write] = unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        fds.map(|fd| OwnedFd::from_raw_fd(fd))
    };
    Ok((above_stdio(read)?, above_stdio(write)?))
}

pub(super) fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: duplicates a descriptor we own; the copy is ours.
    unsafe {
        let copy = libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3);
        if copy < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(copy))
    }
}

/// Pointers to `strings`, ending in a null pointer, as exec wants them.
pub fn null_terminated(strings: &[CString]) -> Vec<*const c_char> {
    strings.iter().map(|string| string.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
}

/// The exit status of the process behind `pidfd`, reaping it: `None` if it
/// is still running and `block` is false.
pub fn wait_exited(pidfd: &OwnedFd, block: bool) -> io::Result<Option<ExitStatus>> {
    let flags = libc::WEXITED | if block { 0 } else { libc::WNOHANG };
    // SAFETY: waitid fills the zeroed siginfo it is given.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        if libc::waitid(libc::P_PIDFD, pidfd.as_raw_fd() as libc::id_t, &mut info, flags) != 0 {
            return Err(io::Error::last_os_error());
        }
        if info.si_pid() == 0 {
            return Ok(None);
        }
        let status = info.si_status();
        // As a wait status: the code in the second byte, or the signal.
        Ok(Some(ExitStatus::from_raw(match info.si_code {
            libc::CLD_EXITED => (status & 0xff) << 8,
            libc::CLD_DUMPED => status | 0x80,
            _ => status,
        })))
    }
}

/// SIGKILL to the process behind `pidfd`; an error only means it is gone.
pub fn kill_pidfd(pidfd: &OwnedFd) {
    // SAFETY: a signal to one process through its descriptor.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        );
    }
}

/// Blocks every signal on the calling thread, returning the mask it had:
/// held across a clone so that no handler of the arena's runs in the
/// child, which restores the mask itself once its handlers are reset.
pub fn block_signals() -> libc::sigset_t {
    // SAFETY: fills a set on the stack and swaps this thread's mask.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        old
    }
}

/// Restores the mask [`block_signals`] returned.
pub fn restore_signals(mask: &libc::sigset_t) {
    // SAFETY: sets this thread's mask from a valid set.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
    }
}

/// A program starts with every signal at its default and `mask` blocked,
/// as a program does; no handler of the arena's may run in the child.
///
/// # Safety
/// Only in a child between clone and exec.
pub unsafe fn default_signals(mask: &libc::sigset_t) {
    // SAFETY: system calls on the calling process only.
    unsafe {
        default_handlers();
        libc::sigprocmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
    }
}

/// Every signal's handler at its default (the mask left as it is).
///
/// The system call itself: libc's wrappers refuse the signals it keeps for
/// itself (32 and 33 under glibc), which a program would otherwise start
/// with as the arena's process had them (a box's first process had 32
/// ignored).
///
/// # Safety
/// Only in a process of arena's own between clone and exec.
pub unsafe fn default_handlers() {
    /// The kernel's `struct sigaction` on the architectures arena builds
    /// for: handler, flags, restorer, mask.
    #[repr(C)]
    struct KernelSigaction {
        handler: usize,
        flags: libc::c_ulong,
        restorer: usize,
        mask: u64,
    }
    let default = KernelSigaction { handler: libc::SIG_DFL, flags: 0, restorer: 0, mask: 0 };
    for signal in 1..=64 {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            // SAFETY: sets the calling process's handler from a struct on
            // the stack of the size the kernel reads (its mask is 8 bytes).
            unsafe {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    &raw const default,
                    std::ptr::null_mut::<KernelSigaction>(),
                    std::mem::size_of::<u64>(),
                );
            }
        }
    }
}

/// Every descriptor above stderr is closed at exec: a bot inherits nothing
/// of the arena's (its results files, terminal, other bots' pipes).
///
/// # Safety
/// Only in a child between clone and exec.
pub unsafe fn close_inherited_files_at_exec() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: flags on this process's own descriptors.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) != 0 {
            for fd in 3..4096 {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
    }
}

/// Applies `rlimits` (`(resource, soft, hard)`) to the calling process.
///
/// # Safety
/// Only in a child between clone and exec.
pub unsafe fn set_rlimits(rlimits: &[(c_int, u64, u64)]) -> io::Result<()> {
    for &(resource, soft, hard) in rlimits {
        let value = libc::rlimit { rlim_cur: soft, rlim_max: hard };
        // SAFETY: prlimit on this process (0) with a value on the stack.
        check(unsafe {
            libc::syscall(libc::SYS_prlimit64, 0, resource, &value, std::ptr::null_mut::<u8>())
        } as c_int)?;
    }
    Ok(())
}

/// Loads `filter` on the calling thread (and so on every process it starts
/// from then on), with no_new_privs.
///
/// `SECCOMP_FILTER_FLAG_SPEC_ALLOW` keeps the kernel from forcing its
/// speculative store bypass mitigation on filtered tasks: that mitigation
/// shields a process from code running inside it, not one process from
/// another, and on a virtual machine it costs a trap at every context switch
/// between the referee and a bot, that is, at every move.
pub fn load_filter(filter: &[super::bpf::Instruction]) -> io::Result<()> {
    const SECCOMP_SET_MODE_FILTER: libc::c_uint = 1;
    const SECCOMP_FILTER_FLAG_SPEC_ALLOW: libc::c_uint = 1 << 2;
    let program = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?,
        // The kernel copies the program; it does not write to it.
        filter: filter.as_ptr().cast::<libc::sock_filter>().cast_mut(),
    };
    // SAFETY: prctl and seccomp with a program that outlives the calls.
    unsafe {
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
        check(libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_SET_MODE_FILTER,
            SECCOMP_FILTER_FLAG_SPEC_ALLOW,
            &program,
        ) as c_int)?;
    }
    Ok(())
}

pub fn check(result: c_int) -> io::Result<c_int> {
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(result) }
}
