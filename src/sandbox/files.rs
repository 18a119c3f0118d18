//! Which files a bot may read: system folders, its interpreter's
//! installation, and the folders of the files its command names, less what
//! belongs to the arena or to other bots, and never anything inside a
//! `.git` folder (where a CI checkout keeps its token).

use std::collections::BTreeSet;
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

/// The files a bot's command names, found as the bot would find them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandFiles {
    /// The bot's own program and script files (absolute, links resolved):
    /// the program when named by a path, and every later word that names
    /// an existing file (see [`named_paths`]).
    pub own: Vec<PathBuf>,
    /// Folders its command names (a class path, a package folder).
    pub own_folders: Vec<PathBuf>,
    /// The file it executes (links resolved), unless a system folder's: named
    /// by a path, or found in PATH.
    pub program: Option<PathBuf>,
    /// Installations of the interpreters it runs (a program found in PATH,
    /// the interpreter of a `#!` line), outside the system folders.
    pub installations: Vec<PathBuf>,
    /// The paths the command reaches as written (absolute, links not
    /// resolved): its program, the files and folders it names, the
    /// interpreters it runs. A box recreates the links on their way.
    pub reached: Vec<PathBuf>,
}

impl CommandFiles {
    /// Looks up the files of `argv` run in `dir` with `path` as PATH.
    pub fn of(argv: &[String], dir: &Path, path: &std::ffi::OsStr) -> CommandFiles {
        let mut files = CommandFiles::default();
        // The working folder must exist where the bot runs.
        files.reach(dir);
        let Some((program, arguments)) = argv.split_first() else { return files };
        if let Some(run) = run_by_env(program, arguments) {
            return CommandFiles::of(run, dir, path);
        }
        if program.contains('/') {
            if let Some(file) = existing_file(&dir.join(program)) {
                files.add_interpreter_of(&file, path);
                files.reach(&dir.join(program));
                // A virtual environment's interpreter is an installation's
                // program, and one of the system's (`/usr/bin/python3`) the
                // system's: neither is the bot's own.
                if !files.add_python_environment(&dir.join(program)) && !in_system_folder(&file) {
                    files.program = Some(file.clone());
                    files.own.push(file);
                }
            }
        } else if let Some(found) = find_in_path(program, path) {
            files.reach(&found);
            files.add_python_environment(&found);
            files.add_installation(&found);
            if let Ok(real) = found.canonicalize() {
                files.add_installation(&real);
                files.add_interpreter_of(&real, path);
                if !in_system_folder(&real) {
                    files.program = Some(real);
                }
            }
        }
        let before = std::iter::once(None).chain(arguments.iter().map(Some));
        for word in arguments
            .iter()
            .zip(before)
            .flat_map(|(word, before)| named_paths(word, before.map(String::as_str)))
        {
            let named = dir.join(word);
            if let Some(file) = existing_file(&named) {
                files.add_interpreter_of(&file, path);
                files.own.push(file);
                files.reach(&named);
            } else if let Ok(folder) = named.canonicalize()
                && folder.is_dir()
            {
                files.own_folders.push(folder);
                files.reach(&named);
            }
        }
        files.own.sort();
        files.own.dedup();
        files.add_node_modules();
        files.installations.sort();
        files.installations.dedup();
        files
    }

    fn reach(&mut self, path: &Path) {
        if let Ok(absolute) = std::path::absolute(path) {
            self.reached.push(absolute);
        }
    }

    /// The folders holding the bot's own files, and those its command names.
    pub fn folders(&self) -> BTreeSet<PathBuf> {
        let parents = self.own.iter().filter_map(|file| file.parent().map(Path::to_path_buf));
        parents.chain(self.own_folders.iter().cloned()).collect()
    }

    /// The installation a program belongs to: the folder above `bin` or
    /// `shims` when it holds what an interpreter needs beside its program (a
    /// pyenv or nvm tree, a JDK: `lib`, `libexec` or `versions`), else the
    /// program's folder alone (`~/.cargo/bin`, not `~/.cargo` and its
    /// credentials).
    fn add_installation(&mut self, program: &Path) {
        let Some(folder) = program.parent() else { return };
        let above = folder.parent().filter(|above| {
            ["lib", "lib64", "libexec", "versions"].iter().any(|name| above.join(name).is_dir())
        });
        let root = match (folder.file_name().and_then(|name| name.to_str()), above) {
            (Some("bin" | "shims" | "sbin"), Some(above)) => above,
            _ => folder,
        };
        if !in_system_folder(root) && root != Path::new("/") {
            self.installations.push(root.to_path_buf());
        }
    }

    /// The Python virtual environment `program` (as written) runs in, if
    /// it is one's interpreter (a `pyvenv.cfg` above its `bin` folder): the
    /// environment, and the installation it was made from (its `home`),
    /// which its interpreter is a link to and reads its standard library
    /// from.
    /// Returns whether it is one.
    fn add_python_environment(&mut self, program: &Path) -> bool {
        let Some(root) = program.parent().filter(|bin| bin.ends_with("bin")).and_then(Path::parent)
        else {
            return false;
        };
        let Ok(config) = std::fs::read_to_string(root.join("pyvenv.cfg")) else { return false };
        if let Ok(root) = root.canonicalize() {
            self.installations.push(root);
        }
        let home = config.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "home").then(|| PathBuf::from(value.trim()))
        });
        if let Some(home) = home {
            self.reach(&home);
            self.add_installation(&home.join("python"));
            if let Ok(real) = home.canonicalize() {
                self.add_installation(&real.join("python"));
            }
        }
        true
    }

    /// The `node_modules` folders a JavaScript file of the bot's resolves
    /// packages from: in its folder and each above it, up to its project's
    /// root (the folder with `.git`) or eight levels.
    fn add_node_modules(&mut self) {
        let scripts: Vec<PathBuf> = self
            .own
            .iter()
            .filter(|file| {
                file.extension()
                    .and_then(|extension| extension.to_str())
                    .is_some_and(|extension| matches!(extension, "js" | "mjs" | "cjs" | "ts"))
            })
            .cloned()
            .collect();
        for script in scripts {
            for folder in script.ancestors().skip(1).take(8) {
                let modules = folder.join("node_modules");
                if modules.is_dir() {
                    self.own_folders.push(modules);
                }
                if folder.join(".git").exists() {
                    break;
                }
            }
        }
        self.own_folders.sort();
        self.own_folders.dedup();
    }

    /// The interpreter named by `file`'s `#!` line, if it has one.
    fn add_interpreter_of(&mut self, file: &Path, path: &std::ffi::OsStr) {
        let Some(line) = shebang(file) else { return };
        let mut words = line.split_ascii_whitespace();
        let Some(interpreter) = words.next() else { return };
        // `#!/usr/bin/env python3` names its program in PATH.
        let program = if interpreter.ends_with("/env") {
            words.find(|word| !word.starts_with('-')).and_then(|name| find_in_path(name, path))
        } else {
            Some(PathBuf::from(interpreter))
        };
        if let Some(program) = program {
            self.reach(&program);
            self.add_python_environment(&program);
            self.add_installation(&program);
            if let Ok(real) = program.canonicalize() {
                self.add_installation(&real);
            }
        }
    }
}

/// The command `env` runs, when `program` is `env` (`env NAME=VALUE ...
/// PROGRAM ARGS`): what the box must show is PROGRAM's, as if named first.
pub fn run_by_env<'a>(program: &str, arguments: &'a [String]) -> Option<&'a [String]> {
    if Path::new(program).file_name().is_none_or(|name| name != "env") {
        return None;
    }
    let mut at = 0;
    while let Some(word) = arguments.get(at) {
        match word.as_str() {
            // Options whose value is the next word.
            "-u" | "--unset" | "-C" | "--chdir" => at += 2,
            "--" => return arguments.get(at + 1..).filter(|run| !run.is_empty()),
            _ if word.starts_with('-') || word.contains('=') => at += 1,
            _ => return Some(&arguments[at..]),
        }
    }
    None
}

/// Options whose value is a list of paths: Java's class and module paths.
const PATH_LIST_OPTIONS: [&str; 4] = ["-cp", "-classpath", "--class-path", "--module-path"];

/// The paths a word of a command may name, after the word `before`: the
/// word, or an option's value written `--name=VALUE`; the value of an
/// option of [`PATH_LIST_OPTIONS`] as a list of paths ([`path_list`]: Java's
/// `-cp game:lib/*`, `--class-path=game:lib`).
fn named_paths<'a>(word: &'a str, before: Option<&str>) -> Vec<&'a str> {
    let is_list = |option: &str| PATH_LIST_OPTIONS.contains(&option);
    if before.is_some_and(is_list) {
        return path_list(word).collect();
    }
    match word.split_once('=') {
        Some((option, value)) if is_list(option) => path_list(value).collect(),
        Some((option, value)) if option.starts_with('-') => vec![value],
        _ if word.starts_with('-') => Vec::new(),
        _ => vec![word],
    }
}

/// The paths of a list such as Java's class path: entries split at `:`,
/// empty ones left out, and `DIR/*` (the archives in `DIR`) read as `DIR`.
pub fn path_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(':').filter(|entry| !entry.is_empty()).map(|entry| match entry.strip_suffix('*') {
        Some("") => ".",
        Some(folder) => {
            folder.strip_suffix('/').filter(|folder| !folder.is_empty()).unwrap_or(folder)
        }
        None => entry,
    })
}

fn existing_file(path: &Path) -> Option<PathBuf> {
    let real = path.canonicalize().ok()?;
    real.is_file().then_some(real)
}

/// Whether `path` lies in one of the system folders every bot may read.
pub fn in_system_folder(path: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|folder| path.starts_with(folder))
}

/// The first executable file called `name` in the folders of `path`.
pub fn find_in_path(name: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path).map(|folder| folder.join(name)).find(|candidate| {
        candidate
            .metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// The first line of `file` after `#!`, if it starts so.
fn shebang(file: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let count = std::fs::File::open(file).ok()?.read(&mut head).ok()?;
    let head = head[..count].strip_prefix(b"#!")?;
    let end = head.iter().position(|&byte| byte == b'\n').unwrap_or(head.len());
    Some(String::from_utf8_lossy(&head[..end]).trim().to_owned())
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

    #[test]
    fn a_command_run_by_env_names_what_env_runs() {
        let words = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let run = |line: &str| run_by_env("/usr/bin/env", &words(line)).map(<[String]>::to_vec);
        assert_eq!(run("A=1 -u B python3 bot.py"), Some(words("python3 bot.py")));
        assert_eq!(run("-- ./bot"), Some(words("./bot")));
        assert_eq!(run("A=1"), None);
        assert_eq!(run_by_env("python3", &words("bot.py")), None);
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        std::fs::write(root.join("bot.py"), "").unwrap();
        let argv = words("env OB=1 python3 bot.py");
        let files = CommandFiles::of(&argv, &root, std::ffi::OsStr::new("/usr/bin"));
        assert_eq!(files.own, [root.join("bot.py")]);
    }

    #[test]
    fn a_class_path_names_each_of_its_entries() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["game", "lib", "more", "native"] {
            std::fs::create_dir(root.join(folder)).unwrap();
        }
        std::fs::write(root.join("lib/json.jar"), "").unwrap();
        let argv: Vec<String> = [
            "java",
            "-Xmx256m",
            "-cp",
            "game:lib/json.jar",
            "--class-path=more:native/*",
            "-Djava.library.path=native",
            "Main",
        ]
        .map(str::to_owned)
        .to_vec();
        let files = CommandFiles::of(&argv, &root, std::ffi::OsStr::new("/usr/bin"));
        assert_eq!(files.own, [root.join("lib/json.jar")]);
        assert_eq!(files.own_folders, [root.join("game"), root.join("more"), root.join("native")]);
        assert_eq!(named_paths("-q", None), Vec::<&str>::new());
        // Only a path list's option splits its value.
        assert_eq!(named_paths("a:b", Some("-cp")), ["a", "b"]);
        assert_eq!(named_paths("path:/etc/shadow", None), ["path:/etc/shadow"]);
        assert_eq!(named_paths("--out=a:b", None), ["a:b"]);
        assert_eq!(path_list("lib/*::*:/*:x").collect::<Vec<_>>(), ["lib", ".", "/", "x"]);
    }

    #[test]
    fn a_command_names_its_script_and_its_interpreter() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        let tools = root.join("tools/bin");
        std::fs::create_dir_all(&tools).unwrap();
        let interpreter = tools.join("lang");
        std::fs::write(&interpreter, "").unwrap();
        std::fs::set_permissions(&interpreter, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        std::fs::write(root.join("bot.lang"), "#!/usr/bin/env lang\n").unwrap();
        let argv = ["lang".to_owned(), "-q".to_owned(), "bot.lang".to_owned()];
        // Without a `lib` beside its `bin`, an installation is its program's
        // folder alone; with one, the folder above.
        let files = CommandFiles::of(&argv, &root, tools.as_os_str());
        assert_eq!(files.own, [root.join("bot.lang")]);
        assert_eq!(files.installations, [root.join("tools/bin")]);
        assert_eq!(files.folders().into_iter().collect::<Vec<_>>(), std::slice::from_ref(&root));
        std::fs::create_dir_all(root.join("tools/lib")).unwrap();
        let files = CommandFiles::of(&argv, &root, tools.as_os_str());
        assert_eq!(files.installations, [root.join("tools")]);
    }
}
