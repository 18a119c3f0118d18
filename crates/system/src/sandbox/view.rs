//! What one program's box may show, from what the maintainer declared:
//! the system folders, the installation of the interpreter arena's PATH
//! gives it, its own folder (the `dir` a tournament file sets, else the
//! folder of its script or program), and the `read_paths` the tournament
//! file or arena's flags add. A program's command is its author's words:
//! every path it names must lie in that view, or the run is refused before
//! it starts; nothing it names widens a box.
//!
//! Where the interpreter comes from is arena's environment's word: a
//! program found in PATH (and what a shim there runs), or one whose
//! installation is in a folder of PATH (a `#!` line, a virtual
//! environment's base). The installation shown is the folder above the
//! program's `bin` when it holds what an interpreter needs (`lib`,
//! `libexec`, `versions`: a pyenv version, an nvm tree, a JDK), else the
//! program's folder alone (`~/.cargo/bin`, not `~/.cargo`).

use std::path::{Path, PathBuf};

use super::command_files::{CommandFiles, Reached};
use super::files::{in_git_folder, in_system_folder, real_path, too_wide};

/// What the maintainer declared of one program's box.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// Its own folder, as a tournament file's `dir` (or `game_dir`) sets it.
    pub folder: Option<PathBuf>,
    /// Paths it alone may read besides, as its `[[bot]]`'s `read_paths`.
    pub read_paths: Vec<PathBuf>,
}

/// The installations arena's PATH may run an interpreter from: that of
/// each of its folders (not the home, `/` or `/tmp`).
#[derive(Clone, Debug, Default)]
pub struct Roots(Vec<PathBuf>);

impl Roots {
    /// The installations of the folders of `path` (a PATH value).
    pub fn of_path(path: &std::ffi::OsStr) -> Roots {
        let mut roots: Vec<PathBuf> = std::env::split_paths(path)
            .filter(|folder| folder.is_absolute())
            .filter_map(|folder| installation_of(&folder.join("program")))
            .map(|root| real_path(&root))
            .collect();
        roots.sort();
        roots.dedup();
        Roots(roots)
    }

    fn holds(&self, path: &Path) -> bool {
        self.0.iter().any(|root| path.starts_with(root))
    }
}

/// The installation `program` belongs to (see the module's words), unless
/// that is a system folder's or too wide to show.
pub fn installation_of(program: &Path) -> Option<PathBuf> {
    let folder = program.parent()?;
    let above = folder.parent().filter(|above| {
        ["lib", "lib64", "libexec", "versions"].iter().any(|name| above.join(name).is_dir())
    });
    let root = match (folder.file_name().and_then(|name| name.to_str()), above) {
        (Some("bin" | "shims" | "sbin"), Some(above)) if !too_wide(above) => above,
        _ => folder,
    };
    (!in_system_folder(root) && !too_wide(root)).then(|| root.to_path_buf())
}

/// A box's view of one program, worked out from its command and what was
/// declared for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Its own folder (or, where its script lies in a folder too wide to
    /// show, the script alone).
    pub own: Option<PathBuf>,
    /// The installations of the interpreters it runs.
    pub installations: Vec<PathBuf>,
    /// What it alone may read besides.
    pub read_paths: Vec<PathBuf>,
    /// The program exec'd (links resolved), for telling why a box could
    /// not run it.
    pub program: Option<PathBuf>,
    /// What to exec in place of the program found in PATH, when that is a
    /// shim: the program the shim runs.
    pub exec: Option<PathBuf>,
    /// Folders put before PATH in the program's environment: those of the
    /// programs shims run, so that what it starts in turn finds them
    /// (without the shims, which a box does not show).
    pub path_before: Vec<PathBuf>,
    /// The paths the command names, as its words name them.
    pub named: Vec<Reached>,
    /// Every path the command reaches as written (the working folder first).
    pub reached: Vec<PathBuf>,
}

/// A path a command names that its box would not show.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} `{word}` names {}, {why}", path.display())]
pub struct NotShown {
    /// "its command's word", "the #! line of bot.py"...
    pub what: String,
    /// The word as written.
    pub word: String,
    /// The path the word names, resolved.
    pub path: PathBuf,
    /// Why the box does not show it, and what to do.
    pub why: String,
}

/// Why a path outside every view is refused, and what to do.
const OUTSIDE: &str = "which its box does not show: a box shows the system folders, its interpreter's installation, its own folder and `read_paths`; move the file into its folder, or add the path to `read_paths` (in the tournament file, or `--allow-read` on the command line) if every program may read it";

impl View {
    /// The view of the program whose command names `files`, given what was
    /// declared for it, the paths every program may read (`shared`) and the
    /// installations arena's PATH may run interpreters from.
    pub fn of(
        files: &CommandFiles,
        declared: &Declared,
        shared: &[PathBuf],
        roots: &Roots,
    ) -> Result<View, NotShown> {
        let read_paths: Vec<PathBuf> =
            declared.read_paths.iter().map(|path| real_path(path)).collect();
        let shared: Vec<PathBuf> = shared.iter().map(|path| real_path(path)).collect();
        let own = match &declared.folder {
            Some(folder) => Some(real_path(folder)),
            None => derived_folder(files, roots),
        };
        let mut view = View {
            own,
            read_paths,
            named: files.named.clone(),
            reached: files.reached.clone(),
            program: files.program.as_ref().map(|program| program.real.clone()),
            ..View::default()
        };
        let in_view = |view: &View, path: &Path| {
            in_system_folder(path)
                || view.own.as_ref().is_some_and(|own| path.starts_with(own))
                || view.read_paths.iter().chain(&shared).any(|read| path.starts_with(read))
        };
        if let Some(program) = &files.program {
            if files.in_path {
                view.add_installation(&program.written);
                view.add_installation(&program.real);
            } else {
                // Named by its path: as written (where the box must have
                // it) and where its links lead, each in the view or an
                // interpreter's installation arena's PATH holds
                // (`/root/.pyenv/versions/3.12/bin/python`).
                // As written: its folder's links resolved (it may itself be
                // a link, which the box makes where it is).
                let written = match (program.written.parent(), program.written.file_name()) {
                    (Some(folder), Some(name)) => real_path(folder).join(name),
                    _ => program.written.clone(),
                };
                for path in [&written, &program.real] {
                    if in_view(&view, path) {
                        continue;
                    }
                    if !roots.holds(path) {
                        return Err(NotShown {
                            what: "its program".to_owned(),
                            word: program.word.clone(),
                            path: path.to_path_buf(),
                            why: OUTSIDE.to_owned(),
                        });
                    }
                    view.add_installation(path);
                }
            }
        }
        if let Some(shim) = &files.shim {
            view.exec = Some(shim.program.clone());
            view.path_before.extend(shim.program.parent().map(Path::to_path_buf));
        }
        for interpreter in &files.interpreters {
            let real = real_path(&interpreter.path);
            if interpreter.in_path || roots.holds(&real) || roots.holds(&interpreter.path) {
                view.add_installation(&interpreter.path);
                view.add_installation(&real);
                if interpreter.in_path
                    && let Some(folder) = interpreter.path.parent()
                    && !view.path_before.iter().any(|before| before == folder)
                {
                    view.path_before.push(folder.to_path_buf());
                }
            } else if !in_view(&view, &real) {
                return Err(NotShown {
                    what: interpreter.named_by.clone(),
                    word: interpreter.path.display().to_string(),
                    path: real,
                    why: "an interpreter neither in the system folders nor in an installation arena's PATH holds nor in its own folder; install it where PATH finds it, or add it to `read_paths`".to_owned(),
                });
            }
        }
        view.installations.sort();
        view.installations.dedup();
        for named in &files.named {
            let shown = in_view(&view, &named.real)
                || view
                    .installations
                    .iter()
                    .any(|installation| named.real.starts_with(installation));
            if !shown {
                return Err(NotShown {
                    what: "its command's word".to_owned(),
                    word: named.word.clone(),
                    path: named.real.clone(),
                    why: OUTSIDE.to_owned(),
                });
            }
            if in_git_folder(&named.real) {
                return Err(NotShown {
                    what: "its command's word".to_owned(),
                    word: named.word.clone(),
                    path: named.real.clone(),
                    why: "inside a `.git` folder, which no box shows (a checkout keeps its credentials there)".to_owned(),
                });
            }
        }
        Ok(view)
    }

    fn add_installation(&mut self, program: &Path) {
        if self.own.as_ref().is_some_and(|own| program.starts_with(own)) {
            return;
        }
        if let Some(installation) = installation_of(program) {
            self.installations.push(installation);
        }
    }

    /// Refuses a path the command names inside what no box of it may
    /// show: `protected` (the results, the tournament file), or another
    /// program's own folder (one of `others`) that is not its own too.
    pub fn check_against(&self, others: &[&View], protected: &[PathBuf]) -> Result<(), NotShown> {
        for named in &self.named {
            let refuse = |why: String| NotShown {
                what: "its command's word".to_owned(),
                word: named.word.clone(),
                path: named.real.clone(),
                why,
            };
            if let Some(path) = protected.iter().find(|path| named.real.starts_with(path)) {
                return Err(refuse(format!(
                    "inside {}, which arena keeps from every program (the results folder, the tournament file and what the run's setups are made from)",
                    path.display()
                )));
            }
            for other in others {
                let Some(theirs) = &other.own else { continue };
                let mine = self.own.as_ref().is_some_and(|own| {
                    named.real.starts_with(own) && (own.starts_with(theirs) || theirs == own)
                });
                if named.real.starts_with(theirs) && !mine && !in_system_folder(theirs) {
                    return Err(refuse(format!(
                        "inside {}, another program's own folder, which no other box shows",
                        theirs.display()
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A program's own folder where the file declares none: its program's,
/// when named by a path and no interpreter (one of a virtual environment,
/// of the system folders or of an installation PATH holds); else its
/// script's (the first file a later word names), else, for a virtual
/// environment's interpreter, the folder holding the environment, else the
/// first folder a later word names (a class path's); the
/// program or script alone where that folder is too wide to show whole (a
/// home, `/tmp`). One in a system folder is no program's own: every box
/// shows it.
fn derived_folder(files: &CommandFiles, roots: &Roots) -> Option<PathBuf> {
    let by_path = files.program.as_ref().filter(|_| !files.in_path).map(|program| &program.real);
    let own_program = by_path.filter(|program| {
        files.venv.is_none() && !in_system_folder(program) && !roots.holds(program)
    });
    let script = files.named.iter().find(|named| named.real.is_file()).map(|named| &named.real);
    let named_folder =
        files.named.iter().find(|named| named.real.is_dir()).map(|named| &named.real);
    let (file, folder) = match (own_program, script, &files.venv) {
        (Some(program), _, _) => (program, program.parent().map(Path::to_path_buf)),
        (None, Some(script), _) => (script, script.parent().map(Path::to_path_buf)),
        (None, None, Some(venv)) => (by_path?, real_path(venv).parent().map(Path::to_path_buf)),
        // A class path's folder (`java -cp build Main`).
        (None, None, None) => {
            let folder = named_folder?;
            (folder, Some(folder.clone()))
        }
    };
    match folder {
        Some(folder) if !too_wide(&folder) => Some(folder),
        _ => Some(file.clone()),
    }
}
