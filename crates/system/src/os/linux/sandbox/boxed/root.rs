//! The box's root, built by its first process from the plan's steps.

use std::ffi::{c_char, c_int, c_void};

use super::failed::{at, errno};
use super::plan::Step;
use super::scratch::{make_shm, mount_scratch};
use super::{BUILD_AT, BoxStart, Failed};

/// What a view's slot holds once the view is in place.
pub(super) const MOUNTED: c_int = -2;

/// The empty file in a box's root that hidden files are covered with.
const EMPTY: &std::ffi::CStr = c".empty";

/// Opens every host path the box shows, as a detached copy of its mount,
/// while this process may still read it (under root, before it becomes the
/// box's root, which may not enter /root). A path that is gone is skipped.
pub(super) unsafe fn open_views(start: &BoxStart, views: *mut c_int) -> Result<(), (Failed, i32)> {
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
pub(super) unsafe fn build_root(start: &BoxStart, views: *mut c_int) -> Result<(), (Failed, i32)> {
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
        // What an empty file laid over a hidden one is bound from.
        let empty =
            libc::open(EMPTY.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o444);
        at(Failed::Root, empty)?;
        libc::close(empty);
        at(Failed::Scratch, libc::mkdir(c"tmp".as_ptr(), 0o755))?;
        mount_scratch(start)?;
        at(Failed::Proc, libc::mkdir(c"proc".as_ptr(), 0o555))?;
        // The bot sees its own processes only: not pid 1, whose counts
        // (its reaped children's CPU and faults) outlive each process.
        at(
            Failed::Proc,
            libc::mount(
                c"proc".as_ptr(),
                c"proc".as_ptr(),
                c"proc".as_ptr(),
                secure | libc::MS_NOEXEC,
                c"hidepid=2".as_ptr().cast(),
            ),
        )?;
        at(Failed::Devices, libc::mkdir(c"dev".as_ptr(), 0o755))?;
        at(Failed::Devices, libc::mkdir(c"dev/shm".as_ptr(), 0o755))?;
        make_shm()?;
        for (link, target) in [
            (c"dev/fd", c"/proc/self/fd"),
            (c"dev/stdin", c"/proc/self/fd/0"),
            (c"dev/stdout", c"/proc/self/fd/1"),
            (c"dev/stderr", c"/proc/self/fd/2"),
        ] {
            at(Failed::Devices, libc::symlink(target.as_ptr(), link.as_ptr()))?;
        }
        make_steps(start, views, |_| true)?;
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

/// Makes the steps of the plan that `only` picks, in order, relative to
/// the working folder (the new root); `views` holds each view's mount,
/// taken (closed) as it is moved into place.
pub(super) unsafe fn make_steps(
    start: &BoxStart,
    views: *mut c_int,
    only: impl Fn(&Step) -> bool,
) -> Result<(), (Failed, i32)> {
    let no_data = std::ptr::null::<c_void>();
    let no_type = std::ptr::null::<c_char>();
    let tmpfs = c"tmpfs".as_ptr();
    let secure = libc::MS_NOSUID | libc::MS_NODEV;
    // SAFETY: folders, mounts and links made from prepared C strings.
    unsafe {
        let mut index = 0;
        for step in &start.plan.steps {
            if !only(step) {
                // Each view keeps its slot in `views`.
                index += usize::from(matches!(step, Step::View { .. }));
                continue;
            }
            match step {
                Step::Folder(path) => {
                    if libc::mkdir(path.as_ptr(), 0o755) < 0 && errno() != libc::EEXIST {
                        return Err((Failed::Folder, errno()));
                    }
                }
                Step::View { target, file, device, writable, .. } => {
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
                    } else if *writable {
                        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
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
                    *views.add(index - 1) = MOUNTED;
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
                // A hidden path below a folder the box's first process may
                // not search (a folder closed to others, under root) needs
                // no stand-in: the bot, with no more rights over host
                // files than this process, cannot reach it either.
                Step::Hide { target, .. }
                    if libc::faccessat(libc::AT_FDCWD, target.as_ptr(), libc::F_OK, 0) < 0
                        && errno() == libc::EACCES => {}
                Step::Hide { target, file: false } => {
                    at(
                        Failed::Hide,
                        libc::mount(
                            tmpfs,
                            target.as_ptr(),
                            tmpfs,
                            secure | libc::MS_RDONLY | libc::MS_NOEXEC,
                            c"size=4k,mode=0555".as_ptr().cast(),
                        ),
                    )?;
                }
                Step::Hide { target, file: true } => {
                    at(
                        Failed::Hide,
                        libc::mount(
                            EMPTY.as_ptr(),
                            target.as_ptr(),
                            no_type,
                            libc::MS_BIND,
                            no_data,
                        ),
                    )?;
                    at(
                        Failed::Hide,
                        libc::mount(
                            std::ptr::null(),
                            target.as_ptr(),
                            no_type,
                            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | secure,
                            no_data,
                        ),
                    )?;
                }
                Step::Link { path, target } => {
                    if libc::symlink(target.as_ptr(), path.as_ptr()) < 0 && errno() != libc::EEXIST
                    {
                        return Err((Failed::Link, errno()));
                    }
                }
            }
        }
    }
    Ok(())
}
