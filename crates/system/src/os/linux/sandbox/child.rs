//! What a new process does to itself between the clone and exec outside a
//! box: in the fallback (where no box can be made), and, with nothing but
//! its group and descriptors, without a sandbox.
//!
//! This runs in the forked child of a multi-threaded program, so it makes
//! only system calls: every path, map line and rule was prepared before the
//! fork, and nothing here allocates. The order matters: the session and the
//! file descriptors first, then the identity (which needs privileges the
//! later steps give up), the limits, Landlock and finally seccomp.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

use crate::os::linux::sandbox::seccomp::Filter;

use super::spawn::{check, close_inherited_files_at_exec, load_filter, set_rlimits};

/// The user id of a bot started by root is this plus the bot's pid, so
/// that no two live bots share one (and none is a real user's).
pub use crate::os::linux::sandbox::boxed::ROOT_BOX_UID_BASE;

/// Who the bot runs as.
pub enum Identity {
    /// The arena's own user, as it is.
    Same,
    /// The arena's own user inside a user namespace of its own, which makes
    /// the process limit count this bot's processes only. The map lines are
    /// `"{id} {id} 1"`.
    UserNamespace { uid_map: Vec<u8>, gid_map: Vec<u8> },
    /// Started by root: a user id of its own (the id a box's bot of the
    /// same pid would get: [`ROOT_BOX_UID_BASE`] + 2 × pid + 1)
    /// with every capability dropped except reading files that Landlock
    /// lets it read (interpreters under /root must still run). Its scratch
    /// folder is handed to that user. `ids`, when given, are the user
    /// and group to be instead (a build: its folder's owner's).
    OwnUser { scratch: CString, ids: Option<(u32, u32)> },
}

/// Where the process runs among the machine's sessions and groups.
pub enum Session {
    /// A session of its own (and so a group): the scheduler shares CPU by
    /// session, so a sandboxed program gets one share whatever it starts.
    New,
    /// A process group of its own in arena's session: what a program
    /// started without a sandbox gets, killed as a group.
    Group,
}

/// Everything the child applies to itself before exec.
pub struct ChildSetup {
    pub session: Session,
    pub identity: Identity,
    /// `(resource, soft limit, hard limit)`.
    pub rlimits: Vec<(libc::c_int, u64, u64)>,
    /// The Landlock ruleset to restrict the process with. The child only
    /// reads its number: it shares the arena's memory, and the descriptor
    /// is the arena's to close once the child has exec'd.
    pub ruleset: Option<OwnedFd>,
    pub filter: Option<Arc<Filter>>,
}

const CAP_DAC_READ_SEARCH: u32 = 2;
const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
const SECBIT_KEEP_CAPS: libc::c_ulong = 1 << 4;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

impl ChildSetup {
    /// Applies the setup to the calling process.
    ///
    /// # Safety
    /// Only in a child between fork and exec (it changes the process for
    /// good and must not run anywhere else).
    pub unsafe fn apply(&self) -> io::Result<()> {
        // SAFETY: plain system calls on this process, with pointers to
        // memory prepared before the fork.
        unsafe {
            match self.session {
                Session::New => check(libc::setsid())?,
                Session::Group => check(libc::setpgid(0, 0))?,
            };
            close_inherited_files_at_exec();
            match &self.identity {
                Identity::Same => {}
                Identity::UserNamespace { uid_map, gid_map } => {
                    check(libc::unshare(libc::CLONE_NEWUSER))?;
                    write_file(c"/proc/self/setgroups", b"deny")?;
                    write_file(c"/proc/self/uid_map", uid_map)?;
                    write_file(c"/proc/self/gid_map", gid_map)?;
                }
                Identity::OwnUser { scratch, ids } => become_own_user(scratch, *ids)?,
            }
            // Before the filter, which refuses the call to the bot.
            crate::os::linux::ask_short_slice();
            set_rlimits(&self.rlimits)?;
            if let Some(ruleset) = &self.ruleset {
                // no_new_privs first: nothing the bot runs gains rights.
                check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
                check(libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0)
                    as libc::c_int)?;
            }
            if let Some(filter) = &self.filter {
                load_filter(filter)?;
            }
        }
        Ok(())
    }
}

/// Drops root: a user id of its own (or `ids`), no capability but reading.
unsafe fn become_own_user(scratch: &CString, ids: Option<(u32, u32)>) -> io::Result<()> {
    // SAFETY: system calls on this process only.
    unsafe {
        let own = ROOT_BOX_UID_BASE + 2 * libc::getpid() as u32 + 1;
        let (uid, gid) = ids.unwrap_or((own, own));
        check(libc::chown(scratch.as_ptr(), uid, gid))?;
        // No bounding set to trim: once the user ids change, the permitted
        // set holds read search alone and can only shrink, and with
        // no_new_privs (set below, before exec) exec ignores file
        // capabilities and setuid bits.
        check(libc::prctl(
            libc::PR_SET_SECUREBITS,
            SECBIT_KEEP_CAPS | SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
            0,
            0,
            0,
        ))?;
        // Raw system calls: glibc's wrappers signal every thread of the
        // process they think they are in, and this child shares the
        // arena's memory and so its list of threads.
        check(
            libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) as libc::c_int
        )?;
        check(libc::syscall(libc::SYS_setresgid, gid, gid, gid) as libc::c_int)?;
        check(libc::syscall(libc::SYS_setresuid, uid, uid, uid) as libc::c_int)?;
        let header = CapHeader { version: 0x2008_0522, pid: 0 };
        let read = 1 << CAP_DAC_READ_SEARCH;
        let data = [
            CapData { effective: read, permitted: read, inheritable: read },
            CapData { effective: 0, permitted: 0, inheritable: 0 },
        ];
        check(libc::syscall(libc::SYS_capset, &header, data.as_ptr()) as libc::c_int)?;
        // Ambient, so that it survives exec into a program without file
        // capabilities (every interpreter).
        check(libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_RAISE as libc::c_ulong,
            CAP_DAC_READ_SEARCH as libc::c_ulong,
            0,
            0,
        ))?;
    }
    Ok(())
}

unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open, write and close with valid pointers.
    unsafe {
        let fd = check(libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC))?;
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
