//! The files a bot's command names, found as the bot would find them: its
//! program (by path or in PATH), the interpreter of a `#!` line, the
//! scripts, class paths and folders its words name, and the command `env`
//! runs. What a box shows (`files`) starts from these.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::files::in_system_folder;

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

#[cfg(test)]
mod tests {
    use super::*;

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
