//! What a bot's box holds, worked out before its process starts.
//!
//! A box's root is an empty tmpfs. Into it go, at the paths they have on
//! the host, read-only views of what the bot may read (what its [`Shown`]
//! shows whole: the system folders, its interpreter's installation, its own
//! folders), empty stand-ins laid over what those hold that the bot must
//! not see (the results, other bots' files, `.git`), the folders that lead
//! to them, and the symbolic links its command and working folder go
//! through (`/bin -> usr/bin`, a home folder that is a link). Nothing else of the host exists in the box; /proc, /dev, /tmp and
//! /dev/shm are the box's own and are not part of the layout.
//!
//! This module only reads the host's file system (to tell folders from
//! files and to read links); the mounts themselves are made by the OS layer.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::files::Shown;

/// Paths the box makes for itself: no grant may show the host's there.
const BOX_OWN: [&str; 4] = ["/proc", "/dev", "/sys", "/run"];

/// One thing in a box's root, in the order they are made.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Entry {
    /// An empty folder: one that leads to something shown, or the working
    /// folder.
    Folder(PathBuf),
    /// A host folder (or file) shown read-only at the same path.
    Bind {
        /// The path, the same on the host and in the box.
        path: PathBuf,
        /// It is a file, not a folder.
        file: bool,
    },
    /// A path inside a view that the bot must not see: an empty folder
    /// (or file) is laid over it.
    Hide {
        /// The path hidden.
        path: PathBuf,
        /// It is a file, not a folder.
        file: bool,
    },
    /// A symbolic link, as the host has it.
    Link {
        /// Where the link is.
        path: PathBuf,
        /// What it points to, as written in it.
        target: PathBuf,
    },
}

/// A box's root, as the entries to make in order: folders first (parents
/// before children), then the views, what is hidden in them, and the links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    folders: BTreeSet<PathBuf>,
    binds: Vec<(PathBuf, bool)>,
    hides: Vec<(PathBuf, bool)>,
    links: Vec<(PathBuf, PathBuf)>,
    /// Views shown read-write.
    writable: Vec<PathBuf>,
}

impl Layout {
    /// The layout that shows `shown` and lets `reached` (the bot's working
    /// folder and the paths its command names, as written) resolve in the
    /// box as they do on the host.
    pub fn new(shown: &Shown, reached: &[PathBuf]) -> Layout {
        let mut layout = Layout { writable: shown.writable.clone(), ..Layout::default() };
        // Sorted, so that a folder comes before what lies inside it.
        let mut whole = shown.whole.clone();
        whole.sort();
        for path in &whole {
            layout.show(path);
        }
        for path in &shown.hidden {
            if layout.shown(path)
                && let Ok(meta) = std::fs::symlink_metadata(path)
            {
                layout.hides.push((path.clone(), !meta.is_dir()));
            }
        }
        for path in reached {
            layout.reach(path);
        }
        layout
    }

    /// The entries to make, in order.
    pub fn entries(&self) -> Vec<Entry> {
        let folders = self.folders.iter().cloned().map(Entry::Folder);
        let binds =
            self.binds.iter().map(|(path, file)| Entry::Bind { path: path.clone(), file: *file });
        let hides =
            self.hides.iter().map(|(path, file)| Entry::Hide { path: path.clone(), file: *file });
        let links = self
            .links
            .iter()
            .map(|(path, target)| Entry::Link { path: path.clone(), target: target.clone() });
        folders.chain(binds).chain(hides).chain(links).collect()
    }

    /// Whether the view of `path` is read-write.
    pub fn writable(&self, path: &Path) -> bool {
        self.writable.iter().any(|writable| writable == path)
    }

    /// Whether `path` is inside something shown whole (so it exists in the
    /// box as on the host).
    fn shown(&self, path: &Path) -> bool {
        self.binds.iter().any(|(bound, _)| path.starts_with(bound))
    }

    fn box_own(path: &Path) -> bool {
        path == Path::new("/") || BOX_OWN.iter().any(|own| path.starts_with(own))
    }

    /// Shows the host's `path` whole: as a link if it is one (a merged
    /// /usr's `/bin`), else as a read-only view.
    fn show(&mut self, path: &Path) {
        if Layout::box_own(path) || self.shown(path) {
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else { return };
        if meta.file_type().is_symlink() {
            if let Ok(target) = std::fs::read_link(path) {
                self.link(path, target);
            }
            return;
        }
        if let Some(parent) = path.parent() {
            self.folder(parent);
        }
        self.binds.push((path.to_path_buf(), !meta.is_dir()));
    }

    /// Makes `path` and the folders above it, where they are not shown.
    fn folder(&mut self, path: &Path) {
        if Layout::box_own(path) || self.shown(path) {
            return;
        }
        for ancestor in path.ancestors() {
            if ancestor == Path::new("/") || !self.folders.insert(ancestor.to_path_buf()) {
                break;
            }
        }
    }

    fn link(&mut self, path: &Path, target: PathBuf) {
        if Layout::box_own(path) || self.shown(path) || self.links.iter().any(|(at, _)| at == path)
        {
            return;
        }
        if let Some(parent) = path.parent() {
            self.folder(parent);
        }
        self.links.push((path.to_path_buf(), target));
    }

    /// Makes the host path `path` (absolute, as written, maybe through
    /// links) resolve in the box: every link on the way is made, and where
    /// it ends up is a folder if nothing shows it.
    fn reach(&mut self, path: &Path) {
        let mut resolved = PathBuf::from("/");
        for component in path.components() {
            match component {
                Component::RootDir | Component::CurDir | Component::Prefix(_) => continue,
                Component::ParentDir => {
                    resolved.pop();
                    continue;
                }
                Component::Normal(name) => {
                    let next = resolved.join(name);
                    let Ok(meta) = std::fs::symlink_metadata(&next) else { return };
                    if meta.file_type().is_symlink() {
                        let Ok(target) = std::fs::read_link(&next) else { return };
                        self.link(&next, target);
                        let Ok(real) = next.canonicalize() else { return };
                        resolved = real;
                    } else {
                        resolved = next;
                    }
                }
            }
        }
        if resolved.is_dir() {
            self.folder(&resolved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_become_views_with_the_folders_that_lead_to_them() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("bots/mine/lib")).unwrap();
        std::fs::write(root.join("bots/mine/bot.py"), "").unwrap();
        std::fs::write(root.join("bots/other.py"), "").unwrap();
        let shown = Shown {
            whole: vec![root.join("bots/mine"), root.join("bots/mine/lib"), PathBuf::from("/proc")],
            hidden: vec![root.join("bots/mine/lib"), root.join("bots/other.py")],
            writable: Vec::new(),
        };
        let layout = Layout::new(&shown, &[]);
        let entries = layout.entries();
        assert!(entries.contains(&Entry::Folder(root.clone())));
        assert!(entries.contains(&Entry::Folder(root.join("bots"))));
        assert!(entries.contains(&Entry::Bind { path: root.join("bots/mine"), file: false }));
        // Inside a view already; and /proc is the box's own.
        assert_eq!(entries.iter().filter(|entry| matches!(entry, Entry::Bind { .. })).count(), 1);
        // Hidden inside a view: laid over. Not inside one: not there at all.
        assert!(entries.contains(&Entry::Hide { path: root.join("bots/mine/lib"), file: false }));
        assert!(
            !entries.iter().any(
                |entry| matches!(entry, Entry::Hide { path, .. } if path.ends_with("other.py"))
            )
        );
        assert!(
            !entries
                .iter()
                .any(|entry| matches!(entry, Entry::Folder(path) if path.starts_with("/proc")))
        );
        // Folders come first, parents before children.
        let folders: Vec<&Entry> =
            entries.iter().take_while(|entry| matches!(entry, Entry::Folder(_))).collect();
        assert_eq!(folders.len(), entries.len() - 2);
        let position = |path: &Path| {
            entries.iter().position(|entry| entry == &Entry::Folder(path.to_path_buf()))
        };
        assert!(position(&root) < position(&root.join("bots")));
    }

    #[test]
    fn links_on_the_way_to_a_named_path_are_made() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("data/me/bots")).unwrap();
        std::fs::write(root.join("data/me/bots/bot.py"), "").unwrap();
        std::os::unix::fs::symlink(root.join("data/me"), root.join("home")).unwrap();
        let shown = Shown {
            whole: vec![root.join("data/me/bots")],
            hidden: Vec::new(),
            writable: Vec::new(),
        };
        let layout = Layout::new(&shown, &[root.join("home/bots/bot.py"), root.join("work")]);
        let entries = layout.entries();
        assert!(
            entries
                .contains(&Entry::Link { path: root.join("home"), target: root.join("data/me") }),
            "{entries:?}"
        );
        assert!(entries.contains(&Entry::Bind { path: root.join("data/me/bots"), file: false }));
    }

    #[test]
    fn a_merged_usr_keeps_its_top_level_links() {
        let shown = Shown {
            whole: vec![PathBuf::from("/bin"), PathBuf::from("/usr")],
            hidden: Vec::new(),
            writable: Vec::new(),
        };
        let entries = Layout::new(&shown, &[]).entries();
        let bin = std::fs::symlink_metadata("/bin").unwrap();
        if bin.file_type().is_symlink() {
            assert!(entries.iter().any(
                |entry| matches!(entry, Entry::Link { path, .. } if path == Path::new("/bin"))
            ));
        } else {
            assert!(entries.contains(&Entry::Bind { path: PathBuf::from("/bin"), file: false }));
        }
        assert!(entries.contains(&Entry::Bind { path: PathBuf::from("/usr"), file: false }));
    }
}
