//! A box's IPC namespace: kept for the bot's next process where the
//! earlier one made no System V object and no POSIX message queue, else
//! made anew (a new namespace costs a superblock made and one destroyed).

use std::ffi::c_int;
use std::os::fd::RawFd;

use super::failed::{at, errno};
use super::{Failed, InitJob};

/// What a bot's process could change in the box's IPC namespace, read by
/// the box's first process once the process and all it started are gone.
///
/// Why these suffice: a namespace that holds any System V object is never
/// kept (the kernel's counts of each kind must be 0); the kernel numbers
/// the objects of each kind it makes in order (the slot, or a sequence
/// above it, moves on with each new object), so a probe (an object made
/// and removed at once) numbered one step past the last probe says nothing
/// was made in between and removed again, short of a bot that makes and
/// removes objects until the numbering comes round (which the counts still
/// catch if it kept one); the step is learnt from two probes as the box is
/// built. The folder of the namespace's message queues grows with each
/// queue, seen through a mount of it that only the first process holds (a
/// queue made and removed again leaves nothing: its times are coarse, its
/// number the machine's).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct IpcMark {
    /// The probes' ids, -1 for a kind the box's filter refuses (to the bot
    /// as well).
    probes: [c_int; 3],
    /// Size and times of the queues' folder.
    queues: [i64; 5],
    /// How far apart the ids of two probes of a kind made one after the
    /// other lie.
    steps: [c_int; 3],
}

impl IpcMark {
    /// The namespace as it is now, through `queues` (the first process's
    /// mount of the queues' folder); `None` where it cannot be read, which
    /// counts as changed.
    pub(super) unsafe fn take(queues: Option<RawFd>, steps: [c_int; 3]) -> Option<IpcMark> {
        let queues = queues?;
        // SAFETY: objects made and removed at once, and a stat on the stack.
        unsafe {
            if !empty() {
                return None;
            }
            let private = libc::IPC_PRIVATE;
            let shm = probe(libc::shmget(private, 1, 0o600), |id| {
                libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut())
            })?;
            let msg = probe(libc::msgget(private, 0o600), |id| {
                libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut())
            })?;
            let sem =
                probe(libc::semget(private, 1, 0o600), |id| libc::semctl(id, 0, libc::IPC_RMID))?;
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(queues, &mut stat) < 0 {
                return None;
            }
            Some(IpcMark {
                probes: [shm, msg, sem],
                queues: [
                    stat.st_size,
                    stat.st_mtime,
                    stat.st_mtime_nsec,
                    stat.st_ctime,
                    stat.st_ctime_nsec,
                ],
                steps,
            })
        }
    }

    /// Whether `self`, taken after `earlier`, shows nothing made in between
    /// (but the probes).
    fn follows(&self, earlier: &IpcMark) -> bool {
        self.queues == earlier.queues
            && (0..3).all(|kind| {
                let (now, before) = (self.probes[kind], earlier.probes[kind]);
                (now == -1 && before == -1)
                    || (before >= 0 && now == before.wrapping_add(self.steps[kind]))
            })
    }

    /// The namespace as it is now, the steps learnt from two probes.
    pub(super) unsafe fn first(queues: Option<RawFd>) -> Option<IpcMark> {
        // SAFETY: as `take`.
        unsafe {
            let first = IpcMark::take(queues, [0; 3])?;
            let second = IpcMark::take(queues, [0; 3])?;
            let steps: [c_int; 3] =
                std::array::from_fn(|kind| second.probes[kind].wrapping_sub(first.probes[kind]));
            // A kind the filter refuses has no step; one of 0 would take
            // the same id for the next.
            let learnt = (0..3).all(|kind| {
                (first.probes[kind] == -1 && second.probes[kind] == -1) || steps[kind] != 0
            });
            (learnt && first.queues == second.queues).then_some(IpcMark { steps, ..second })
        }
    }
}

/// Whether the namespace holds no System V object of any kind (or the
/// filter refuses them all, to the bot as well).
unsafe fn empty() -> bool {
    const SHM_INFO: c_int = 14;
    // SAFETY: the kernel's counts into buffers on the stack, each as large
    // as the structure it fills (`struct shm_info` starts with `used_ids`).
    unsafe {
        let mut shm = [0 as libc::c_ulong; 8];
        let mut msg: libc::msginfo = std::mem::zeroed();
        let mut sem: libc::seminfo = std::mem::zeroed();
        let counted = |result: c_int| result >= 0 || errno() == libc::ENOSYS;
        counted(libc::shmctl(0, SHM_INFO, shm.as_mut_ptr().cast()))
            && counted(libc::msgctl(0, libc::MSG_INFO, (&raw mut msg).cast()))
            && counted(libc::semctl(0, 0, libc::SEM_INFO, &raw mut sem))
            && *shm.as_ptr().cast::<c_int>() == 0
            && msg.msgpool == 0
            && sem.semusz == 0
    }
}

/// A probe's id: `made` is the object made (or -1), `remove` removes it.
/// -1 where the filter refuses the kind; `None` on any other failure.
unsafe fn probe(made: c_int, remove: impl FnOnce(c_int) -> c_int) -> Option<c_int> {
    if made < 0 {
        return (errno() == libc::ENOSYS).then_some(-1);
    }
    (remove(made) == 0).then_some(made)
}

/// A mount of the current IPC namespace's message queues, held by the
/// first process alone (attached nowhere in the box); `None` where the
/// kernel does not make one.
pub(super) unsafe fn mount_queues() -> Option<RawFd> {
    const FSOPEN_CLOEXEC: libc::c_uint = 1;
    const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
    const FSMOUNT_CLOEXEC: libc::c_uint = 1;
    // SAFETY: the new mount API on a prepared name; descriptors closed here
    // but the mount's.
    unsafe {
        let context = libc::syscall(libc::SYS_fsopen, c"mqueue".as_ptr(), FSOPEN_CLOEXEC) as c_int;
        if context < 0 {
            return None;
        }
        let mounted = if libc::syscall(
            libc::SYS_fsconfig,
            context,
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<libc::c_char>(),
            std::ptr::null::<libc::c_void>(),
            0,
        ) == 0
        {
            libc::syscall(libc::SYS_fsmount, context, FSMOUNT_CLOEXEC, 0) as c_int
        } else {
            -1
        };
        libc::close(context);
        (mounted >= 0).then_some(mounted)
    }
}

/// Keeps the box's IPC namespace if the bot's process left it as it was,
/// else makes a new one (with a new mount of its queues).
pub(super) unsafe fn renew_ipc(job: &mut InitJob<'_>) -> Result<(), (Failed, i32)> {
    // SAFETY: probes and mounts of this process's own namespace.
    unsafe {
        let now = job.ipc.and_then(|earlier| IpcMark::take(job.queues, earlier.steps));
        job.ipc = match (now, job.ipc) {
            (Some(now), Some(earlier)) if now.follows(&earlier) => Some(now),
            _ => {
                at(Failed::Isolate, libc::unshare(libc::CLONE_NEWIPC))?;
                if let Some(old) = job.queues.take() {
                    libc::close(old);
                }
                job.queues = mount_queues();
                IpcMark::first(job.queues)
            }
        };
    }
    Ok(())
}
