//! Starting a program outside a box (in the fallback, or without a
//! sandbox), the way posix_spawn starts one:
//! `clone` with `CLONE_VM | CLONE_VFORK`, the child running the sandbox
//! steps on a stack of its own, then exec. Until the exec the child borrows
//! the arena's memory instead of copying it: a fork would copy the arena's
//! page tables and tear them down again at exec, which costs more than all
//! the sandbox steps together. std's `Command` forks as soon as a step must
//! run before exec, hence this module; and it maps and unmaps a stack for
//! each start, where the unmapping makes every CPU arena's threads ran on
//! flush its TLB: the stack here is an allocation, reused by the thread.
//!
//! The calling thread waits (`CLONE_VFORK`) until the child has exec'd or
//! failed; a failure's errno comes back in the memory they share (a pipe
//! would cost a start four more system calls). The exit is watched through
//! a pidfd, so nothing here needs SIGCHLD.

use std::ffi::{CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::super::cpu::{current_cpus, only_current_among, set_cpus, starts_programs_here};
use super::child::ChildSetup;
use super::spawn::{
    Spawned, block_signals, default_signals, null_terminated, pipe, restore_signals, wait_exited,
};

/// The child's stack: ample for the sandbox steps, which make system calls
/// and little else.
const CHILD_STACK: usize = 96 * 1024;

/// A program ready to start: everything the child needs, made beforehand.
pub struct Prepared {
    pub program: CString,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub dir: Option<CString>,
    pub setup: ChildSetup,
}

/// What the child reads, on the parent's stack (the parent waits).
struct ChildJob<'a> {
    program: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    dir: *const c_char,
    /// The child's ends of the three pipes, to become 0, 1 and 2.
    stdio: [RawFd; 3],
    /// Where the child leaves an errno if it fails before exec.
    error: c_int,
    /// The signal mask to start the program with.
    mask: libc::sigset_t,
    setup: &'a ChildSetup,
    /// The CPUs the child takes before exec, where it is born on the
    /// parent's CPU alone (see `start_programs_here`).
    widen: Option<libc::cpu_set_t>,
}

/// Starts `prepared`.
pub fn spawn(prepared: &mut Prepared) -> io::Result<Spawned> {
    let argv = null_terminated(&prepared.argv);
    let envp = null_terminated(&prepared.envp);
    thread_local! {
        // Kept for the thread's next starts; never zeroed (a stack needs
        // no initial contents), never unmapped while the thread lives.
        static STACK: std::cell::RefCell<Box<[std::mem::MaybeUninit<u8>]>> =
            std::cell::RefCell::new(Box::new_uninit_slice(CHILD_STACK));
    }
    STACK.with_borrow_mut(|stack| clone_child(prepared, stack, &argv, &envp))
}

fn clone_child(
    prepared: &Prepared,
    stack: &mut [std::mem::MaybeUninit<u8>],
    argv: &[*const c_char],
    envp: &[*const c_char],
) -> io::Result<Spawned> {
    let (stdin_read, stdin_write) = pipe()?;
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;
    // SAFETY: the stack is ours until the child has exec'd or exited, which
    // CLONE_VFORK waits for; the top is aligned as the ABI wants.
    let stack_top = unsafe {
        let top = stack.as_mut_ptr().add(stack.len());
        top.sub(top as usize % 16)
    };
    let mut job = ChildJob {
        program: prepared.program.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        dir: prepared.dir.as_ref().map_or(std::ptr::null(), |dir| dir.as_ptr()),
        stdio: [stdin_read.as_raw_fd(), stdout_write.as_raw_fd(), stderr_write.as_raw_fd()],
        error: 0,
        mask: block_signals(),
        setup: &prepared.setup,
        widen: None,
    };
    if starts_programs_here()
        && let Some(cpus) = current_cpus()
        && let Some(here) = only_current_among(&cpus)
    {
        set_cpus(&here);
        job.widen = Some(cpus);
    }
    let mut pidfd: c_int = -1;
    // SAFETY: signals are blocked across the clone so that no handler of
    // the arena's runs in the child (it resets them all before unblocking);
    // the child only reads `job` and the prepared strings, all alive until
    // clone returns.
    let pid = unsafe {
        libc::clone(
            child_main,
            stack_top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD,
            (&raw mut job).cast(),
            &raw mut pidfd,
        )
    };
    let clone_error = io::Error::last_os_error();
    if let Some(cpus) = &job.widen {
        set_cpus(cpus);
    }
    restore_signals(&job.mask);
    if pid < 0 {
        return Err(clone_error);
    }
    drop((stdin_read, stdout_write, stderr_write));
    // SAFETY: CLONE_PIDFD stored a new descriptor that is ours alone.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    // The child has exec'd (no errno) or failed.
    if job.error != 0 {
        let _ = wait_exited(&pidfd, true);
        return Err(io::Error::from_raw_os_error(job.error));
    }
    Ok(Spawned {
        pid: pid as u32,
        pidfd,
        stdin: stdin_write,
        stdout: stdout_read,
        stderr: stderr_read,
    })
}

extern "C" fn child_main(job: *mut c_void) -> c_int {
    // SAFETY: `job` is the parent's ChildJob, alive while the parent waits.
    let job = unsafe { &mut *job.cast::<ChildJob<'_>>() };
    // SAFETY: in the child before exec, with everything prepared; the
    // errno is left where the parent reads it once the child has ended.
    unsafe {
        job.error = run_child(job);
        libc::_exit(127)
    }
}

/// The child's steps; returns an errno only if one fails or exec does.
unsafe fn run_child(job: &ChildJob<'_>) -> c_int {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL);
    // SAFETY: system calls on this (child) process with prepared pointers.
    unsafe {
        default_signals(&job.mask);
        if let Some(cpus) = &job.widen {
            set_cpus(cpus);
        }
        for (target, &fd) in job.stdio.iter().enumerate() {
            if libc::dup2(fd, target as c_int) < 0 {
                return errno();
            }
        }
        if !job.dir.is_null() && libc::chdir(job.dir) < 0 {
            return errno();
        }
        if let Err(error) = job.setup.apply() {
            return error.raw_os_error().unwrap_or(libc::EINVAL);
        }
        libc::execve(job.program, job.argv, job.envp);
        errno()
    }
}

#[cfg(test)]
mod tests {
    use super::super::child::{Identity, Session};
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn prepared(argv: &[&str]) -> Prepared {
        let strings =
            |words: &[&str]| words.iter().map(|word| CString::new(*word).unwrap()).collect();
        Prepared {
            program: CString::new(argv[0]).unwrap(),
            argv: strings(argv),
            envp: strings(&["PATH=/usr/bin:/bin"]),
            dir: Some(CString::new("/").unwrap()),
            setup: ChildSetup {
                session: Session::New,
                identity: Identity::Same,
                rlimits: Vec::new(),
                ruleset: None,
                filter: None,
            },
        }
    }

    #[test]
    fn exit_codes_and_signals_come_back_through_the_pidfd() {
        for (script, code, signal) in [
            ("exit 3", Some(3), None),
            ("kill -SEGV $$", None, Some(libc::SIGSEGV)),
            ("true", Some(0), None),
        ] {
            let spawned = spawn(&mut prepared(&["/bin/sh", "-c", script])).expect("sh starts");
            let status = wait_exited(&spawned.pidfd, true).unwrap().expect("blocking wait");
            assert_eq!((status.code(), status.signal()), (code, signal), "{script}");
        }
    }

    #[test]
    fn the_child_gets_its_pipes_folder_and_session() {
        let script =
            "read line; echo \"$line $(pwd)\"; echo oops >&2; [ $$ = $(ps -o sid= -p $$) ]";
        let spawned = spawn(&mut prepared(&["/bin/sh", "-c", script])).expect("sh starts");
        let mut stdin = std::fs::File::from(spawned.stdin);
        std::io::Write::write_all(&mut stdin, b"hello\n").unwrap();
        drop(stdin);
        let mut output = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(spawned.stdout), &mut output)
            .unwrap();
        let mut errors = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(spawned.stderr), &mut errors)
            .unwrap();
        assert_eq!(output, "hello /\n");
        assert_eq!(errors, "oops\n");
        let status = wait_exited(&spawned.pidfd, true).unwrap().unwrap();
        assert_eq!(status.code(), Some(0), "not a session leader");
    }

    #[test]
    fn a_program_that_cannot_be_run_is_an_error_not_a_process() {
        let error = spawn(&mut prepared(&["/no/such/program"])).err().expect("an error");
        assert_eq!(error.raw_os_error(), Some(libc::ENOENT));
        // A script without a #! line: the kernel cannot run it.
        let folder = tempfile::tempdir().unwrap();
        let script = folder.path().join("bot");
        std::fs::write(&script, "print('no #! line')\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        // Another test thread forking while the script was open for writing
        // holds it open for a moment (until its child's exec closes it), so
        // the kernel may say "text file busy" first.
        let mut error = None;
        for _ in 0..50 {
            let attempt =
                spawn(&mut prepared(&[script.to_str().unwrap()])).err().expect("an error");
            if attempt.raw_os_error() != Some(libc::ETXTBSY) {
                error = Some(attempt);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(error.and_then(|error| error.raw_os_error()), Some(libc::ENOEXEC));
    }
}
