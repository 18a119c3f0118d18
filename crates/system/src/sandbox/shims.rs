//! Programs behind a version manager's shim (pyenv, rbenv, nodenv, asdf,
//! mise), resolved once, when the run is loaded, to the program the shim
//! would run: a shim is a script that starts its manager to choose the
//! version, which costs a Python bot a third of a second or more at every
//! start (and, in a box, needs the manager's whole tree), and which version
//! it chooses is part of what the bot is.
//!
//! A script shim ends in `exec TOOL exec NAME "$@"` (pyenv, rbenv, nodenv,
//! asdf); mise's shims are links to `mise` itself. Either way the manager
//! tells where NAME is with `TOOL which NAME`, asked in the folder the
//! program runs in (where a `.python-version` or `.tool-versions` file may
//! choose another version than the default).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a manager's `which` may take.
const WHICH_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest file read as a possible shim.
const MOST_SHIM_BYTES: u64 = 16 << 10;

/// The manager and the name it is asked for, when `program` (found in
/// PATH, as `name`) is a shim.
fn shim_of(program: &Path, name: &str) -> Option<(PathBuf, String)> {
    // mise: a link to the `mise` program, called by the shim's name.
    if let Ok(target) = std::fs::read_link(program)
        && target.file_name().is_some_and(|file| file == "mise")
    {
        let tool = if target.is_absolute() { target } else { program.parent()?.join(target) };
        return Some((tool, name.to_owned()));
    }
    if std::fs::metadata(program).ok()?.len() > MOST_SHIM_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(program).ok()?;
    if !text.starts_with("#!") {
        return None;
    }
    text.lines().rev().find_map(|line| {
        let words = shell_words::split(line.trim()).ok()?;
        match words.as_slice() {
            [exec, tool, subcommand, called, ..] if exec == "exec" && subcommand == "exec" => {
                // pyenv and rbenv write `"$program"`, set from `$0`.
                let called = if called.starts_with('$') { name } else { called.as_str() };
                Some((PathBuf::from(tool), called.to_owned()))
            }
            _ => None,
        }
    })
}

/// What a shim was resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The shim, as PATH found it.
    pub shim: PathBuf,
    /// The program it runs, as its manager says.
    pub program: PathBuf,
}

/// Why a shim could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is a shim of {} (a version manager), which could not say what it runs: `{} which {name}` {why}",
    shim.display(), tool.display(), tool.display()
)]
pub struct Unresolved {
    /// The shim, as PATH found it.
    pub shim: PathBuf,
    /// The version manager the shim hands its program to.
    pub tool: PathBuf,
    /// The name the shim was called by, which the manager was asked about.
    pub name: String,
    /// What went wrong: the manager failed, or said nothing usable.
    pub why: String,
}

type Answers =
    std::collections::HashMap<(PathBuf, String, PathBuf), Result<Option<Resolved>, Unresolved>>;

/// What each shim was resolved to in this run: asked once.
static RESOLVED: std::sync::Mutex<Option<Answers>> = std::sync::Mutex::new(None);

/// The program behind `program` (found in PATH as `name`), run in `dir`,
/// when it is a shim; `Ok(None)` when it is none. Asked of the manager once
/// a run.
pub fn resolve(program: &Path, name: &str, dir: &Path) -> Result<Option<Resolved>, Unresolved> {
    let key = (program.to_owned(), name.to_owned(), dir.to_owned());
    let known = |answers: &mut Option<Answers>| answers.get_or_insert_default().get(&key).cloned();
    if let Some(answer) =
        known(&mut RESOLVED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    {
        return answer;
    }
    let answer = ask(program, name, dir);
    RESOLVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get_or_insert_default()
        .insert(key, answer.clone());
    answer
}

/// The program a shim first in PATH runs for `argv` in `dir`, when its
/// program is named by name and PATH finds a shim: part of what the program
/// is (a bot is another when its manager chooses another version).
pub fn interpreter_of(argv: &[String], dir: &Path) -> Option<PathBuf> {
    let argv = match argv.split_first() {
        Some((program, arguments)) => super::run_by_env(program, arguments).unwrap_or(argv),
        None => return None,
    };
    let name = argv.first().filter(|name| !name.contains('/'))?;
    let found = super::command_files::find_in_path(name, &std::env::var_os("PATH")?)?;
    Some(resolve(&found, name, dir).ok()??.program)
}

fn ask(program: &Path, name: &str, dir: &Path) -> Result<Option<Resolved>, Unresolved> {
    let Some((tool, called)) = shim_of(program, name) else { return Ok(None) };
    let unresolved = |why: String| Unresolved {
        shim: program.to_owned(),
        tool: tool.clone(),
        name: called.clone(),
        why,
    };
    let spawn = || {
        Command::new(&tool)
            .args(["which", &called])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    // A manager just written (a test's) may be held open by another
    // thread's child for a moment: the kernel says it is busy.
    let mut spawned = spawn();
    for _ in 0..50 {
        match &spawned {
            Err(error) if error.raw_os_error() == Some(26) => {
                std::thread::sleep(Duration::from_millis(20));
                spawned = spawn();
            }
            _ => break,
        }
    }
    let mut child = spawned.map_err(|error| unresolved(format!("cannot be run: {error}")))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|error| unresolved(error.to_string()))? {
            break status;
        }
        if started.elapsed() > WHICH_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(unresolved(format!("took more than {}s", WHICH_TIMEOUT.as_secs())));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut output = String::new();
    let mut errors = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut stdout, &mut output);
    }
    if let Some(mut stderr) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut stderr, &mut errors);
    }
    if !status.success() {
        let said = errors.lines().next().unwrap_or("").trim();
        return Err(unresolved(format!("failed ({status}): {said}")));
    }
    let found = PathBuf::from(output.trim());
    if !found.is_absolute() || !found.is_file() {
        return Err(unresolved(format!("answered `{}`, which is no program", output.trim())));
    }
    Ok(Some(Resolved { shim: program.to_owned(), program: found }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn executable(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_script_shim_is_resolved_by_its_managers_which_in_the_programs_folder() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().canonicalize().unwrap();
        for folder in ["shims", "libexec", "versions/1.2/bin", "versions/9.9/bin", "bot"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        executable(&root.join("versions/1.2/bin/lang"), "");
        executable(&root.join("versions/9.9/bin/lang"), "");
        // A manager that chooses by a version file in the folder it runs in.
        let manager = root.join("libexec/manager");
        executable(
            &manager,
            &format!(
                "#!/bin/sh\n[ \"$1\" = which ] || exit 9\nversion=1.2\n[ -f .lang-version ] && version=$(cat .lang-version)\necho {}/versions/$version/bin/$2\n",
                root.display()
            ),
        );
        let shim = root.join("shims/lang");
        executable(
            &shim,
            &format!(
                "#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\nexec \"{}\" exec \"$program\" \"$@\"\n",
                manager.display()
            ),
        );
        let resolved = resolve(&shim, "lang", &root.join("bot")).unwrap().unwrap();
        assert_eq!(resolved.program, root.join("versions/1.2/bin/lang"));
        std::fs::create_dir(root.join("other")).unwrap();
        std::fs::write(root.join("other/.lang-version"), "9.9").unwrap();
        let resolved = resolve(&shim, "lang", &root.join("other")).unwrap().unwrap();
        assert_eq!(resolved.program, root.join("versions/9.9/bin/lang"), "the folder's choice");
        // A program that is no shim is left as it is.
        assert_eq!(resolve(&root.join("versions/1.2/bin/lang"), "lang", &root).unwrap(), None);
        // A manager that cannot say is an error naming it.
        executable(&manager, "#!/bin/sh\necho 'lang: version 7 not installed' >&2\nexit 1\n");
        let error = resolve(&shim, "lang", &root.join("versions")).unwrap_err();
        assert!(error.to_string().contains("version 7 not installed"), "{error}");
    }
}
