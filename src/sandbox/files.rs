//! Which files a bot may read: system folders, its interpreter's
//! installation, and the folders of the files its command names, less what
//! belongs to the arena or to other bots, and never anything inside a
//! `.git` folder (where a CI checkout keeps its token).

use super::command_files::CommandFiles;
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

/// The system paths a bot may read: [`SYSTEM_FOLDERS`] and the chosen
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
    pub whole: Vec<PathBuf>,
    pub hidden: Vec<PathBuf>,
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

/// Folders too wide to show whole for a file in them: a bot's script kept
/// directly in one of these is shown alone, and an interpreter's
/// installation is never guessed to be one.
fn too_wide(folder: &Path) -> bool {
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

/// What the bot whose command names `own` may see: the system paths, its
/// interpreter's installation, the folders of its own files and those it
/// names, and `read_paths` (a setting); hidden inside them, `protected`
/// (the results folder, the tournament file), the other bots' files
/// (`others`), and every `.git` folder at the top of a shown folder. A file
/// or folder the command names inside one of those is not shown at all.
pub fn shown(
    own: &CommandFiles,
    others: &[CommandFiles],
    protected: &[PathBuf],
    read_paths: &[PathBuf],
) -> Shown {
    let mut excluded = protected.to_vec();
    let own_folders = own.folders();
    // A file that another bot's command names but that this bot runs too
    // (an interpreter of this bot's installation) is not that bot's to keep.
    let shared = |file: &Path| {
        own.own.iter().any(|mine| mine == file)
            || own.installations.iter().any(|installation| file.starts_with(installation))
    };
    for other in others.iter().filter(|other| *other != own) {
        excluded.extend(other.own.iter().filter(|file| !shared(file)).cloned());
        // Another bot's folder, unless this bot's own files are in it, or
        // it is a system folder (where only its files are kept out).
        excluded.extend(other.folders().into_iter().filter(|folder| {
            !in_system_folder(folder)
                && !own.own.iter().any(|file| file.starts_with(folder))
                && !own_folders.iter().any(|mine| mine.starts_with(folder))
        }));
    }
    // Only what exists needs keeping out.
    excluded.retain(|path| path.exists());
    let forbidden = |path: &Path| {
        in_git_folder(path) || excluded.iter().any(|excluded| path.starts_with(excluded))
    };
    let mut whole: Vec<PathBuf> = system_paths();
    whole.extend(own.installations.iter().filter(|folder| !too_wide(folder)).cloned());
    for file in own.own.iter().filter(|file| !forbidden(file)) {
        match file.parent() {
            Some(folder) if !too_wide(folder) => whole.push(folder.to_path_buf()),
            _ => whole.push(file.clone()),
        }
    }
    whole.extend(own.own_folders.iter().filter(|folder| !too_wide(folder)).cloned());
    whole.extend(read_paths.iter().map(|path| real_path(path)));
    whole.retain(|path| !forbidden(path));
    whole.sort();
    whole.dedup();
    let mut hidden = excluded;
    for folder in &whole {
        let git = folder.join(".git");
        if git.exists() {
            hidden.push(git);
        }
    }
    // Only what a shown path holds needs hiding.
    hidden.retain(|path| whole.iter().any(|shown| path.starts_with(shown) && path != shown));
    hidden.sort();
    hidden.dedup();
    // What lies inside a hidden folder is hidden with it.
    let mut outermost: Vec<PathBuf> = Vec::new();
    for path in hidden {
        if !outermost.iter().any(|outer| path.starts_with(outer)) {
            outermost.push(path);
        }
    }
    Shown { whole, hidden: outermost }
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
    fn what_another_bot_names_is_hidden_but_a_shared_interpreter_is_not() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["mine", "theirs", "results", "mine/.git"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        std::fs::write(root.join("mine/bot.py"), "").unwrap();
        std::fs::write(root.join("theirs/bot.py"), "").unwrap();
        let path = std::ffi::OsStr::new("/usr/bin:/bin");
        let mine = CommandFiles::of(&["python3".into(), "mine/bot.py".into()], &root, path);
        let theirs_argv = ["/usr/bin/python3".to_owned(), "theirs/bot.py".to_owned()];
        let theirs = CommandFiles::of(&theirs_argv, &root, path);
        assert_eq!(theirs.own, [root.join("theirs/bot.py")], "the system's python is not its own");
        let shown = shown(&mine, std::slice::from_ref(&theirs), &[root.join("results")], &[]);
        assert!(shown.whole.contains(&root.join("mine")), "{shown:?}");
        assert!(!shown.whole.contains(&root.join("theirs")), "{shown:?}");
        assert!(shown.hidden.contains(&root.join("mine/.git")), "{shown:?}");
        // The interpreter the other bot names by path is this bot's too.
        assert!(!shown.hidden.iter().any(|path| path.starts_with("/usr")), "{shown:?}");
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
