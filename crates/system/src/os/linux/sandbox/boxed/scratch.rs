//! A box's scratch folders: /tmp, a tmpfs, and /dev/shm, a folder of it.
//! Made with the box; after each of its bot's processes kept where that
//! process left them as they were made, else made anew.

use std::ffi::c_int;

use super::failed::{at, errno};
use super::ipc::renew_ipc;
use super::plan::Step;
use super::root::{MOUNTED, make_steps};
use super::{BoxStart, Failed, InitJob};

/// What a bot's process could change in the scratch, read by the box's
/// first process once the process and all it started are gone. Equal
/// marks (but for the probe's number, one more) mean the next process
/// finds the scratch as the earlier one found it.
///
/// Why these suffice: a bot may write only in the two folders (the box's
/// root owns them, and everything else the box makes there, and /tmp is
/// sticky), so it can leave something only as a new file, folder, link or
/// name, or by touching the two folders' times (which anyone who may
/// write a folder may); reading changes no time (the scratch is mounted
/// `noatime`, or a read of what the box made there would set one the next
/// process could see). A tmpfs numbers the files it makes in order, so the
/// probe (a nameless file made and dropped at once) tells whether any file
/// was made since the last mark, even one removed again (the numbering
/// comes round after 2^32 files); a new name for a file (a hard link)
/// takes room the free-inode count shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct ScratchMark {
    probe: u64,
    free_inodes: u64,
    free_blocks: u64,
    folders: [[i64; 11]; 2],
}

/// The scratch's folders, as the box's processes see them.
const FOLDERS: [&std::ffi::CStr; 2] = [c"/tmp", c"/tmp/.shm"];

impl ScratchMark {
    /// The scratch as it is now; `None` where it cannot be read (a full
    /// scratch refuses the probe), which counts as changed.
    pub(super) unsafe fn take() -> Option<ScratchMark> {
        // SAFETY: a file made and closed, and reads into values on the stack.
        unsafe {
            let file = libc::open(FOLDERS[0].as_ptr(), libc::O_TMPFILE | libc::O_RDWR, 0o600);
            if file < 0 {
                return None;
            }
            let mut probe: libc::stat = std::mem::zeroed();
            let probed = libc::fstat(file, &mut probe);
            libc::close(file);
            let mut space: libc::statfs = std::mem::zeroed();
            if probed < 0 || libc::statfs(FOLDERS[0].as_ptr(), &mut space) < 0 {
                return None;
            }
            let mut folders = [[0; 11]; 2];
            for (folder, path) in folders.iter_mut().zip(FOLDERS) {
                let mut stat: libc::stat = std::mem::zeroed();
                if libc::stat(path.as_ptr(), &mut stat) < 0 {
                    return None;
                }
                *folder = [
                    i64::from(stat.st_mode),
                    i64::from(stat.st_uid),
                    i64::from(stat.st_gid),
                    stat.st_nlink as i64,
                    stat.st_size,
                    stat.st_atime,
                    stat.st_atime_nsec,
                    stat.st_mtime,
                    stat.st_mtime_nsec,
                    stat.st_ctime,
                    stat.st_ctime_nsec,
                ];
            }
            Some(ScratchMark {
                probe: probe.st_ino,
                free_inodes: space.f_ffree,
                free_blocks: space.f_bfree,
                folders,
            })
        }
    }

    /// Whether `self`, taken after `earlier`, shows nothing made or
    /// touched in between (but the probe).
    fn follows(&self, earlier: &ScratchMark) -> bool {
        self.probe == earlier.probe.wrapping_add(1)
            && ScratchMark { probe: earlier.probe, ..*self } == *earlier
    }
}

/// Makes the box new for its bot's next process, so that nothing an
/// earlier process of the bot made is left: the scratch and the IPC
/// namespace each kept if the process left it as it was, else made anew. The
/// rest of the box (its views, which the bot may not write, and its other
/// namespaces) stays.
pub(super) unsafe fn renew(job: &mut InitJob<'_>) -> Result<(), (Failed, i32)> {
    // SAFETY: reads of the box's own folders, then its own mounts.
    unsafe {
        let now = ScratchMark::take();
        job.scratch = match (now, job.scratch) {
            (Some(now), Some(earlier)) if now.follows(&earlier) => Some(now),
            _ => {
                make_anew(job)?;
                // The rules name the old scratch's folders.
                make_ruleset(job)?;
                ScratchMark::take()
            }
        };
        renew_ipc(job)?;
        at(Failed::WorkingFolder, libc::chdir(job.start.workdir.as_ptr()))?;
    }
    Ok(())
}

/// The Landlock ruleset for the box as it is now, in place of the last.
pub(super) unsafe fn make_ruleset(job: &mut InitJob<'_>) -> Result<(), (Failed, i32)> {
    let Some(rules) = &job.start.landlock else { return Ok(()) };
    // SAFETY: closes this process's own descriptor, then makes another.
    unsafe {
        if let Some(old) = job.ruleset.take() {
            libc::close(old);
        }
        let made = rules
            .make()
            .map_err(|error| (Failed::Landlock, error.raw_os_error().unwrap_or(libc::EINVAL)))?;
        job.ruleset = Some(made);
    }
    Ok(())
}

/// A new scratch in place of the old: what the plan puts in /tmp (the
/// folders to a view there, the view, what it hides) is made again in the
/// new one, the views moved from copies of their mounts.
unsafe fn make_anew(job: &InitJob<'_>) -> Result<(), (Failed, i32)> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    let start = job.start;
    // SAFETY: mounts on the box's own paths, with prepared C strings; the
    // views' slots are this process's own.
    unsafe {
        at(Failed::Scratch, libc::chdir(c"/".as_ptr()))?;
        let mut index = 0;
        for step in &start.plan.steps {
            let Step::View { target, .. } = step else { continue };
            // Only a view that is there: the path of one the build skipped
            // (its host path was gone) may be a folder of the bot's.
            if step.in_scratch() && *job.views.add(index) == MOUNTED {
                let fd = libc::syscall(
                    libc::SYS_open_tree,
                    libc::AT_FDCWD,
                    target.as_ptr(),
                    OPEN_TREE_CLONE
                        | libc::AT_RECURSIVE as libc::c_uint
                        | libc::O_CLOEXEC as libc::c_uint,
                ) as c_int;
                if fd < 0 && errno() != libc::ENOENT {
                    return Err((Failed::Open, errno()));
                }
                *job.views.add(index) = fd;
            }
            index += 1;
        }
        at(Failed::Scratch, libc::umount2(c"/dev/shm".as_ptr(), libc::MNT_DETACH))?;
        at(Failed::Scratch, libc::umount2(c"/tmp".as_ptr(), libc::MNT_DETACH))?;
        mount_scratch(start)?;
        make_shm()?;
        // Hidden paths are inside the views' copies.
        make_steps(start, job.views, |step| {
            step.in_scratch() && !matches!(step, Step::Hide { .. })
        })?;
    }
    Ok(())
}

/// Mounts the box's scratch tmpfs at `tmp` (relative to the root).
pub(super) unsafe fn mount_scratch(start: &BoxStart) -> Result<(), (Failed, i32)> {
    // SAFETY: a mount of prepared C strings.
    unsafe {
        at(
            Failed::Scratch,
            libc::mount(
                c"tmpfs".as_ptr(),
                c"tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOATIME,
                start.scratch_options.as_ptr().cast(),
            ),
        )?;
    }
    Ok(())
}

/// Makes /dev/shm a folder of the scratch tmpfs at `tmp`, so that both
/// share one size (relative to the root).
pub(super) unsafe fn make_shm() -> Result<(), (Failed, i32)> {
    // SAFETY: a folder and a bind mount of prepared C strings.
    unsafe {
        at(Failed::Devices, libc::mkdir(c"tmp/.shm".as_ptr(), 0o1777))?;
        at(Failed::Devices, libc::chmod(c"tmp/.shm".as_ptr(), 0o1777))?;
        at(
            Failed::Devices,
            libc::mount(
                c"tmp/.shm".as_ptr(),
                c"dev/shm".as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ),
        )?;
    }
    Ok(())
}
