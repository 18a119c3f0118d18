//! Which files a box shows, from its program's [`View`]: the system folders
//! (the same for every box: nothing in them is ever hidden because of a
//! program), its interpreter's installation, its own folder and the
//! `read_paths`, less what belongs to arena (the results, the tournament
//! file), other programs' own folders inside those, and never anything
//! inside a `.git` folder (where a CI checkout keeps its token).

use super::view::View;
use std::path::{Path, PathBuf};

/// Folders every bot may read and execute from, where they exist.
const SYSTEM_FOLDERS: [&str; 9] =
    ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc"];

/// What programs commonly read in /etc at start-up: the dynamic linker's
/// cache, time zone, users and groups, the alternatives links, and the
/// configuration of Python and Java installations. The rest of /etc (shadow
/// passwords, host keys, tokens) stays closed. A trailing `*` matches a prefix.
const ETC_ENTRIES: [&str; 17] = [
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "host.conf",
    "hosts",
    "alternatives",
    "ssl",
    "ca-certificates",
    "mime.types",
    "os-release",
    "python3*",
    "java-*",
];

/// The system paths a bot may read: `SYSTEM_FOLDERS` and the chosen
/// entries of /etc, those that exist.
pub fn system_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        SYSTEM_FOLDERS.iter().map(PathBuf::from).filter(|path| path.exists()).collect();
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let wanted = ETC_ENTRIES.iter().any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => name == *pattern,
            });
            if wanted {
                paths.push(entry.path());
            }
        }
    }
    paths.sort();
    paths
}

/// Whether `path` lies in one of the system folders every bot may read.
pub fn in_system_folder(path: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|folder| path.starts_with(folder))
}

/// Whether `path` lies inside a `.git` folder (or is one).
pub fn in_git_folder(path: &Path) -> bool {
    path.components().any(|component| component.as_os_str() == ".git")
}

/// The path with links resolved; for a path that does not exist yet, its
/// parent's resolved path and its name.
pub fn real_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(real) = absolute.canonicalize() {
        return real;
    }
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => real_path(parent).join(name),
        _ => absolute,
    }
}

/// What a bot's sandbox shows: paths shown whole, and inside them paths
/// kept from the bot (the results folder, the tournament file, other bots'
/// files, `.git`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Paths shown with everything inside them.
    pub whole: Vec<PathBuf>,
    /// Paths inside `whole` that are kept from the bot.
    pub hidden: Vec<PathBuf>,
    /// Of `whole`, what is shown read-write (a build's own folder).
    pub writable: Vec<PathBuf>,
}

impl Shown {
    /// The same as grants on the machine's own tree, for Landlock (which
    /// cannot take back a path inside one it grants): each shown path split
    /// into its entries around what is hidden.
    pub fn grants(&self) -> Vec<Grant> {
        let mut grants: Vec<Grant> =
            self.whole.iter().flat_map(|path| tree_without(path, &self.hidden)).collect();
        grants.sort();
        grants.dedup();
        grants
    }
}

/// Folders too wide to show whole for a file in them: a program's script
/// kept directly in one of these is shown alone, and an interpreter's
/// installation is never guessed to be one.
pub fn too_wide(folder: &Path) -> bool {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    folder == Path::new("/")
        || ["/home", "/root", "/tmp", "/var/tmp", "/var"]
            .iter()
            .any(|wide| folder == Path::new(wide))
        || folder.parent() == Some(Path::new("/home"))
        || home.is_some_and(|home| {
            folder == home || home.canonicalize().is_ok_and(|home| folder == home)
        })
}

/// What the box of the program whose view is `view` shows: the system
/// paths, its interpreters' installations, its own folder, `shared` (the
/// `read_paths` of every program) and its own `read_paths`; hidden inside
/// them, `protected` (the results folder, the tournament file), every
/// `.git` folder at the top of a shown folder, and the own folder of each
/// of `others` that lies inside its own folder or a read path (unless its
/// own folder is that one too, or a read path names something in it: the
/// maintainer shared it).
pub fn shown(view: &View, others: &[&View], protected: &[PathBuf], shared: &[PathBuf]) -> Shown {
    let shared: Vec<PathBuf> = shared.iter().map(|path| real_path(path)).collect();
    let reads: Vec<&PathBuf> = view.read_paths.iter().chain(&shared).collect();
    let mut whole: Vec<PathBuf> = system_paths();
    whole.extend(view.installations.iter().cloned());
    whole.extend(view.own.iter().cloned());
    whole.extend(reads.iter().map(|path| (*path).clone()));
    whole.retain(|path| !in_git_folder(path));
    whole.sort();
    whole.dedup();
    let mut hidden: Vec<PathBuf> = protected.to_vec();
    for other in others {
        let Some(theirs) = &other.own else { continue };
        let named_by_maintainer = reads.iter().any(|read| read.starts_with(theirs));
        // Their folder is this one's, or holds it: nothing of it to hide.
        let ours = view.own.as_ref().is_some_and(|own| own.starts_with(theirs));
        if !named_by_maintainer && !ours && !in_system_folder(theirs) {
            hidden.push(theirs.clone());
        }
    }
    for folder in view.own.iter().chain(reads.iter().copied()) {
        let git = folder.join(".git");
        if git.exists() {
            hidden.push(git);
        }
    }
    // Only what exists, inside something shown but the system folders and
    // installations (which no program's folder changes), needs hiding.
    hidden.retain(|path| {
        path.exists()
            && whole.iter().any(|shown| path.starts_with(shown) && path != shown)
            && (protected.contains(path)
                || !in_system_folder(path)
                    && !view
                        .installations
                        .iter()
                        .any(|installation| path.starts_with(installation)))
    });
    hidden.sort();
    hidden.dedup();
    // What lies inside a hidden folder is hidden with it.
    let mut outermost: Vec<PathBuf> = Vec::new();
    for path in hidden {
        if !outermost.iter().any(|outer| path.starts_with(outer)) {
            outermost.push(path);
        }
    }
    Shown { whole, hidden: outermost, writable: Vec::new() }
}

/// A path to open to a bot.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Grant {
    /// Read (and execute) it and everything under it.
    Whole(PathBuf),
    /// List the folder (and the folders under it), without reading files:
    /// a folder that holds something excluded, whose other entries are
    /// granted one by one. Listing keeps imports of sibling modules working.
    List(PathBuf),
}

/// The grants that open everything under `root` except `excluded` (and
/// what lies under them): `root` whole when nothing excluded is inside it,
/// else a listing of it and its entries one by one, recursing only into the
/// folders that hold something excluded.
pub fn tree_without(root: &Path, excluded: &[PathBuf]) -> Vec<Grant> {
    let mut granted = Vec::new();
    collect_tree_without(root, excluded, &mut granted);
    granted
}

fn collect_tree_without(path: &Path, excluded: &[PathBuf], granted: &mut Vec<Grant>) {
    if excluded.iter().any(|excluded| path.starts_with(excluded)) {
        return;
    }
    if !excluded.iter().any(|excluded| excluded.starts_with(path)) {
        granted.push(Grant::Whole(path.to_path_buf()));
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    granted.push(Grant::List(path.to_path_buf()));
    let mut children: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    children.sort();
    for child in children {
        collect_tree_without(&child, excluded, granted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_programs_folder_inside_a_shown_one_is_hidden_unless_shared() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["bots/mine/.git", "bots/theirs", "results", "lib"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let view = |own: &str| View { own: Some(root.join(own)), ..View::default() };
        let (mine, theirs) = (view("bots"), view("bots/theirs"));
        let shown = shown(&mine, &[&theirs], &[root.join("results")], &[]);
        assert!(shown.whole.contains(&root.join("bots")), "{shown:?}");
        assert!(shown.hidden.contains(&root.join("bots/theirs")), "{shown:?}");
        assert!(!shown.hidden.iter().any(|path| path.starts_with("/usr")), "{shown:?}");
        // A read path the maintainer wrote inside it shares it.
        let shared = super::shown(&mine, &[&theirs], &[], &[root.join("bots/theirs")]);
        assert!(!shared.hidden.contains(&root.join("bots/theirs")), "{shared:?}");
        // Two programs of one folder each see it.
        let same = super::shown(&view("bots/theirs"), &[&theirs], &[], &[]);
        assert!(
            same.whole.contains(&root.join("bots/theirs")) && same.hidden.is_empty(),
            "{same:?}"
        );
        // `.git` at the top of its own folder is hidden.
        let own = super::shown(&view("bots/mine"), &[], &[], &[]);
        assert_eq!(own.hidden, [root.join("bots/mine/.git")]);
        // Nothing in the system folders is hidden for another program.
        let system = View { own: Some(PathBuf::from("/usr/lib")), ..View::default() };
        let beside = super::shown(&mine, &[&system], &[], &[]);
        assert!(!beside.hidden.iter().any(|path| path.starts_with("/usr")), "{beside:?}");
    }

    #[test]
    fn a_tree_is_granted_whole_or_around_what_is_excluded() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["bot/lib", "results/logs", ".git"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        std::fs::write(root.join("bot/main.py"), "").unwrap();
        std::fs::write(root.join("tournament.toml"), "").unwrap();
        assert_eq!(tree_without(&root, &[]), [Grant::Whole(root.clone())]);
        let excluded = [root.join("results"), root.join(".git"), root.join("tournament.toml")];
        assert_eq!(
            tree_without(&root, &excluded),
            [Grant::List(root.clone()), Grant::Whole(root.join("bot"))]
        );
        assert_eq!(tree_without(&root.join("bot"), &excluded), [Grant::Whole(root.join("bot"))]);
        assert!(tree_without(&root.join("results/logs"), &excluded).is_empty());
    }
}
