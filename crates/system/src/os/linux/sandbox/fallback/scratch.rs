//! The fallback's scratch folders: on disk (a box's are its own tmpfs),
//! one per process, emptied and kept for the bot's next process, and
//! removed whatever modes a bot left on them.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ::landlock::RulesetCreated;

/// How the folder of a run's scratch folders begins, before the run's pid.
pub(in crate::os::linux::sandbox) const SCRATCH_PREFIX: &str = "arena-bots-";

/// Removes the scratch folders of runs that ended without removing them
/// (killed by SIGKILL): those whose arena process is gone.
pub(in crate::os::linux::sandbox) fn remove_scratch_of_dead_runs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(SCRATCH_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|pid| pid.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            remove_tree(&entry.path());
        }
    }
}

/// Removes the scratch folders of arena `pid` (it is gone); returns how
/// many are left.
pub(in crate::os::linux::sandbox) fn remove_scratch_of(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return 0 };
    let mut left = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let ours = name
            .to_str()
            .and_then(|name| name.strip_prefix(SCRATCH_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .is_some_and(|owner| owner == pid.to_string());
        if ours {
            remove_tree(&entry.path());
            left += usize::from(entry.path().exists());
        }
    }
    left
}

/// Removes a folder a bot wrote, whatever modes it left on it (a folder of
/// mode 0311 would stop a plain removal).
fn remove_tree(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::remove_dir_all(path).is_ok() || !path.exists() {
        return;
    }
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let _ = std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    folders.push(entry.path());
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(path);
}

/// A fallback process's scratch folder: its HOME and TMPDIR. Emptied on
/// drop (after the process has been killed) and kept, with its ruleset,
/// for the bot's next process.
#[derive(Debug)]
pub struct ScratchFolder {
    pub(super) path: PathBuf,
    pub(super) ruleset: Option<RulesetCreated>,
    pub(super) free: Arc<Mutex<Vec<(PathBuf, RulesetCreated)>>>,
}

impl Drop for ScratchFolder {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.path) else { return };
        let mut emptied = true;
        for entry in entries.flatten() {
            let path = entry.path();
            let removed = match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    remove_tree(&path);
                    if path.exists() { Err(io::Error::other("left")) } else { Ok(()) }
                }
                _ => std::fs::remove_file(&path),
            };
            emptied &= removed.is_ok();
        }
        if emptied && let Some(ruleset) = self.ruleset.take() {
            let path = std::mem::take(&mut self.path);
            self.free.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((path, ruleset));
        } else {
            // Not reused; the run's scratch root goes at the end anyway.
            remove_tree(&self.path);
        }
    }
}
