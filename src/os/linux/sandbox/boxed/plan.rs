//! What a bot's boxes hold, as the steps that build a box's root.

use std::ffi::CString;
use std::path::Path;

use super::DEVICES;
use crate::sandbox::layout::{Entry, Layout};

/// What a bot's boxes hold: made once per bot from its layout.
pub struct BoxPlan {
    pub(super) steps: Vec<Step>,
    /// How many of the steps show a host path.
    pub(super) views: usize,
}

/// One step of building a box's root; paths are relative to the new root.
pub(super) enum Step {
    Folder(CString),
    View {
        source: CString,
        target: CString,
        file: bool,
        device: bool,
    },
    /// A small configuration file, copied rather than shown: writing one
    /// into the root costs a fraction of a mount.
    Copy {
        target: CString,
        contents: Vec<u8>,
    },
    Link {
        path: CString,
        target: CString,
    },
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

fn absolute(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_encoded_bytes()).ok()
}

impl BoxPlan {
    /// The steps that make `layout` in a box, with the devices.
    pub fn new(layout: &Layout) -> BoxPlan {
        let mut steps = Vec::new();
        for device in DEVICES {
            let path = Path::new(device);
            if let (Some(source), Some(target)) = (absolute(path), relative(path)) {
                steps.push(Step::View { source, target, file: true, device: true });
            }
        }
        for entry in layout.entries() {
            // A path that cannot be a C string cannot be opened either.
            let step = match entry {
                Entry::Folder(path) => relative(&path).map(Step::Folder),
                Entry::Bind { path, file: true } if let Some(contents) = copied(&path) => {
                    relative(&path).map(|target| Step::Copy { target, contents })
                }
                Entry::Bind { path, file } => absolute(&path)
                    .zip(relative(&path))
                    .map(|(source, target)| Step::View { source, target, file, device: false }),
                Entry::Link { path, target } => relative(&path)
                    .zip(absolute(&target).or_else(|| relative(&target)))
                    .map(|(path, _)| Step::Link {
                        path,
                        target: CString::new(target.as_os_str().as_encoded_bytes())
                            .unwrap_or_default(),
                    }),
            };
            steps.extend(step);
        }
        let views = steps.iter().filter(|step| matches!(step, Step::View { .. })).count();
        BoxPlan { steps, views }
    }
}
