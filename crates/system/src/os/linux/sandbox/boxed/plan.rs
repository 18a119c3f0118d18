//! What a bot's boxes hold, as the steps that build a box's root.

use std::ffi::CString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{DEVICES, SCRATCH};
use crate::sandbox::layout::{Entry, Layout};

/// What a bot's boxes hold: made once per bot from its layout.
pub struct BoxPlan {
    pub(super) steps: Vec<Step>,
    /// How many of the steps show a host path.
    pub(super) views: usize,
    /// The host paths shown, for telling why a start was refused access.
    shown: Vec<PathBuf>,
    /// The host paths shown read-write (at the same paths in the box).
    pub(in crate::os::linux::sandbox) writable: Vec<String>,
}

/// One step of building a box's root; paths are relative to the new root.
pub(super) enum Step {
    Folder(CString),
    View {
        source: CString,
        target: CString,
        file: bool,
        device: bool,
        /// Read-write (a build's own folder); else read-only.
        writable: bool,
    },
    /// A small configuration file, copied rather than shown: writing one
    /// into the root costs a fraction of a mount.
    Copy {
        target: CString,
        contents: Vec<u8>,
    },
    /// A path inside a view the bot must not see: an empty read-only
    /// folder (a tmpfs) or file is laid over it.
    Hide {
        target: CString,
        file: bool,
    },
    Link {
        path: CString,
        target: CString,
    },
}

impl Step {
    /// Whether it makes something in the box's scratch folders (/tmp,
    /// /dev/shm), which each of the bot's processes gets anew.
    pub(super) fn in_scratch(&self) -> bool {
        let target = match self {
            Step::Folder(target)
            | Step::View { target, .. }
            | Step::Copy { target, .. }
            | Step::Hide { target, .. }
            | Step::Link { path: target, .. } => target.to_bytes(),
        };
        SCRATCH.iter().any(|scratch| {
            let scratch = scratch.trim_start_matches('/').as_bytes();
            target.strip_prefix(scratch).is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
        })
    }
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

/// `path` as the kernel takes it.
fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_encoded_bytes()).ok()
}

impl BoxPlan {
    /// The steps that make `layout` in a box, with the devices.
    pub fn new(layout: &Layout) -> BoxPlan {
        let mut steps = Vec::new();
        let mut shown = Vec::new();
        for device in DEVICES {
            let path = Path::new(device);
            if let (Some(source), Some(target)) = (c_path(path), relative(path)) {
                steps.push(Step::View {
                    source,
                    target,
                    file: true,
                    device: true,
                    writable: false,
                });
            }
        }
        for entry in layout.entries() {
            // A path that cannot be a C string cannot be opened either.
            let step = match entry {
                Entry::Folder(path) => relative(&path).map(Step::Folder),
                Entry::Bind { path, file: true } if let Some(contents) = copied(&path) => {
                    relative(&path).map(|target| Step::Copy { target, contents })
                }
                Entry::Bind { path, file } => {
                    shown.push(path.clone());
                    let writable = layout.writable(&path);
                    c_path(&path).zip(relative(&path)).map(|(source, target)| Step::View {
                        source,
                        target,
                        file,
                        device: false,
                        writable,
                    })
                }
                Entry::Hide { path, file } => {
                    relative(&path).map(|target| Step::Hide { target, file })
                }
                // A link's target as the host has it (absolute or relative).
                Entry::Link { path, target } => relative(&path)
                    .zip(c_path(&target))
                    .map(|(path, target)| Step::Link { path, target }),
            };
            steps.extend(step);
        }
        let views = steps.iter().filter(|step| matches!(step, Step::View { .. })).count();
        let writable = shown
            .iter()
            .filter(|path| layout.writable(path))
            .filter_map(|path| path.to_str().map(str::to_owned))
            .collect();
        BoxPlan { steps, views, shown, writable }
    }

    /// The first place on the way to `path` that is closed to others:
    /// under root a box's bot is a user of its own, with only the rights
    /// others have on host files. The way runs from the view that shows
    /// `path` (the folders above a view are the box's own); a folder needs
    /// others' search right, the file itself their read right, or when it
    /// is the `program` the box executes, their execute right (and read
    /// right for a script, which its interpreter reads).
    pub fn closed_to_others(&self, path: &Path, program: bool) -> Option<(PathBuf, u32)> {
        let view = self.shown.iter().filter(|shown| path.starts_with(shown)).max()?;
        let mut place = view.clone();
        let below = path.strip_prefix(view).ok()?;
        let mut steps = vec![place.clone()];
        for part in below {
            place.push(part);
            steps.push(place.clone());
        }
        steps.into_iter().find_map(|step| {
            let meta = std::fs::metadata(&step).ok()?;
            let mode = meta.permissions().mode();
            let needed = match (meta.is_dir(), program && step == path) {
                (true, _) => 0o001,
                (false, true) if is_script(&step) => 0o005,
                (false, true) => 0o001,
                (false, false) => 0o004,
            };
            (mode & needed != needed).then_some((step, mode & 0o7777))
        })
    }
}

/// Whether `file` starts with `#!` (arena, as root, reads what the box's
/// user may not).
fn is_script(file: &Path) -> bool {
    let mut start = [0u8; 2];
    std::fs::File::open(file)
        .and_then(|mut opened| std::io::Read::read_exact(&mut opened, &mut start))
        .is_ok_and(|()| &start == b"#!")
}
