//! What a program's command names, found as the program would find it: its
//! program (by path, or in PATH, through a version manager's shim), the
//! interpreters that run (a `#!` line's, a virtual environment's base), the
//! files and folders its later words name (a script, a class path), and the
//! command `env` runs. Nothing here decides what a box shows: the command
//! is its author's words, and [`super::view`] holds them against what the
//! maintainer declared.

use std::path::{Path, PathBuf};

use super::shims::{self, Resolved, Unresolved};

/// A path a command reaches, as written and as it resolves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reached {
    /// The word (or line) that names it.
    pub word: String,
    /// Absolute, as written: links not resolved.
    pub written: PathBuf,
    /// Links resolved.
    pub real: PathBuf,
}

/// An interpreter a command runs, and what names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreter {
    /// The program, absolute (links not resolved).
    pub path: PathBuf,
    /// Whether it was found in PATH (`#!/usr/bin/env NAME`, a venv made
    /// from a program in PATH): arena's environment chose it.
    pub in_path: bool,
    /// What names it: "the #! line of FILE", "the virtual environment FOLDER".
    pub named_by: String,
}

/// What a command names, found as its program would find it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandFiles {
    /// The program exec'd, when it exists.
    pub program: Option<Reached>,
    /// Whether the program was found in PATH (the command names it by name).
    pub in_path: bool,
    /// The shim PATH found, and the program it runs (which is `program`).
    pub shim: Option<Resolved>,
    /// The virtual environment the program is the interpreter of.
    pub venv: Option<PathBuf>,
    /// Existing files and folders the later words name.
    pub named: Vec<Reached>,
    /// Interpreters the program and the named files run.
    pub interpreters: Vec<Interpreter>,
    /// Every path the command reaches as written, the working folder first:
    /// a box recreates the links on their way.
    pub reached: Vec<PathBuf>,
}

impl CommandFiles {
    /// Looks up the files of `argv` run in `dir` with `path` as PATH.
    pub fn of(
        argv: &[String],
        dir: &Path,
        path: &std::ffi::OsStr,
    ) -> Result<CommandFiles, Unresolved> {
        let mut files = CommandFiles::default();
        // The working folder must exist where the program runs.
        files.reach(dir);
        let Some((program, arguments)) = argv.split_first() else { return Ok(files) };
        if let Some(run) = run_by_env(program, arguments) {
            return CommandFiles::of(run, dir, path);
        }
        if program.contains('/') {
            let written = absolute(&dir.join(program));
            if let Ok(real) = written.canonicalize() {
                files.add_interpreter_of(&real, path);
                files.venv = python_environment(&written);
                files.reach(&written);
                files.program = Some(Reached { word: program.clone(), written, real });
            }
        } else if let Some(found) = find_in_path(program, path) {
            files.in_path = true;
            files.reach(&found);
            let shim = shims::resolve(&found, program, dir)?;
            let run = shim.as_ref().map_or(found.clone(), |shim| shim.program.clone());
            files.reach(&run);
            if let Ok(real) = run.canonicalize() {
                files.add_interpreter_of(&real, path);
                files.venv = python_environment(&run);
                files.program = Some(Reached { word: program.clone(), written: run, real });
            }
            files.shim = shim;
        }
        if let Some(venv) = files.venv.clone() {
            files.add_venv_base(&venv);
        }
        let before = std::iter::once(None).chain(arguments.iter().map(Some));
        for (word, before) in arguments.iter().zip(before) {
            for named in named_paths(word, before.map(String::as_str)) {
                let written = absolute(&dir.join(named));
                let Ok(real) = written.canonicalize() else { continue };
                if real.is_file() {
                    files.add_interpreter_of(&real, path);
                }
                files.reach(&written);
                files.named.push(Reached { word: word.clone(), written, real });
            }
        }
        Ok(files)
    }

    fn reach(&mut self, path: &Path) {
        let path = absolute(path);
        if !self.reached.contains(&path) {
            self.reached.push(path);
        }
    }

    /// The interpreter named by `file`'s `#!` line, if it has one.
    fn add_interpreter_of(&mut self, file: &Path, path: &std::ffi::OsStr) {
        let Some(line) = shebang(file) else { return };
        let mut words = line.split_ascii_whitespace();
        let Some(interpreter) = words.next() else { return };
        let named_by = format!("the #! line of {}", file.display());
        // `#!/usr/bin/env python3` names its program in PATH.
        let found = if interpreter.ends_with("/env") {
            let Some(name) = words.find(|word| !word.starts_with('-')) else { return };
            let Some(found) = find_in_path(name, path) else { return };
            // A shim there runs what its manager says (or, unresolved,
            // the shim itself, which then has to be shown).
            let program = shims::resolve(&found, name, file.parent().unwrap_or(file))
                .ok()
                .flatten()
                .map_or(found.clone(), |shim| shim.program);
            self.reach(&found);
            Interpreter { path: program, in_path: true, named_by }
        } else {
            Interpreter { path: PathBuf::from(interpreter), in_path: false, named_by }
        };
        self.reach(&found.path);
        if !self.interpreters.contains(&found) {
            self.interpreters.push(found);
        }
    }

    /// The installation a virtual environment was made from (its
    /// `pyvenv.cfg`'s `home`), which its interpreter is a link to and reads
    /// its standard library from.
    fn add_venv_base(&mut self, venv: &Path) {
        let Ok(config) = std::fs::read_to_string(venv.join("pyvenv.cfg")) else { return };
        let home = config.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "home").then(|| PathBuf::from(value.trim()))
        });
        if let Some(home) = home {
            self.reach(&home);
            self.interpreters.push(Interpreter {
                path: home.join("python"),
                in_path: false,
                named_by: format!("the virtual environment {}", venv.display()),
            });
        }
    }
}

/// `path` made absolute against arena's folder, without resolving links.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The Python virtual environment `program` (as written) is the
/// interpreter of: the folder above its `bin` holding a `pyvenv.cfg`.
fn python_environment(program: &Path) -> Option<PathBuf> {
    let root = program.parent().filter(|bin| bin.ends_with("bin"))?.parent()?;
    root.join("pyvenv.cfg").is_file().then(|| root.to_path_buf())
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

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn a_command_run_by_env_names_what_env_runs() {
        let run = |line: &str| run_by_env("/usr/bin/env", &words(line)).map(<[String]>::to_vec);
        assert_eq!(run("A=1 -u B python3 bot.py"), Some(words("python3 bot.py")));
        assert_eq!(run("-- ./bot"), Some(words("./bot")));
        assert_eq!(run("A=1"), None);
        assert_eq!(run_by_env("python3", &words("bot.py")), None);
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        std::fs::write(root.join("bot.py"), "").unwrap();
        let argv = words("env OB=1 python3 bot.py");
        let files = CommandFiles::of(&argv, &root, std::ffi::OsStr::new("/usr/bin")).unwrap();
        let named: Vec<&PathBuf> = files.named.iter().map(|named| &named.real).collect();
        assert_eq!(named, [&root.join("bot.py")]);
        assert!(files.in_path);
    }

    #[test]
    fn a_class_path_names_each_of_its_entries() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["game", "lib", "more", "native"] {
            std::fs::create_dir(root.join(folder)).unwrap();
        }
        std::fs::write(root.join("lib/json.jar"), "").unwrap();
        let argv = words(
            "java -Xmx256m -cp game:lib/json.jar --class-path=more:native/* -Djava.library.path=native Main",
        );
        let files = CommandFiles::of(&argv, &root, std::ffi::OsStr::new("/usr/bin")).unwrap();
        let named: Vec<PathBuf> = files.named.iter().map(|named| named.real.clone()).collect();
        assert_eq!(
            named,
            ["game", "lib/json.jar", "more", "native", "native"].map(|name| root.join(name))
        );
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
        let argv = words("lang -q bot.lang");
        let files = CommandFiles::of(&argv, &root, tools.as_os_str()).unwrap();
        assert_eq!(files.program.as_ref().map(|program| &program.real), Some(&interpreter));
        assert!(files.in_path);
        assert_eq!(files.named.len(), 1);
        assert_eq!(
            files.interpreters,
            [Interpreter {
                path: interpreter.clone(),
                in_path: true,
                named_by: format!("the #! line of {}", root.join("bot.lang").display()),
            }]
        );
    }
}
