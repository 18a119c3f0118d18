//! One `[[bot]]` of a tournament: its command, folder and environment, its
//! own time control, and its fingerprint.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::identity::{BotMaterial, Fingerprint, FingerprintError, Tree};
use arena_base::printable::check_bot_name;
use arena_referee::clock::{TimeKey, TimeKeys};
use arena_referee::{BotCommand, TimeControl};
use arena_system::sandbox::command_files::find_in_path;
use arena_system::sandbox::{Declared, in_system_folder};

/// The build script of a starter kit's folder: a file named in a command
/// beside it stands for the whole folder in the bot's fingerprint.
const KIT_BUILD_SCRIPT: &str = "build.sh";

/// One `[[bot]]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BotEntry {
    /// The bot's name, unique in the tournament.
    pub name: String,
    /// The command to run, its program resolved against `dir`.
    pub argv: Vec<String>,
    /// The folder it runs in (absolute).
    pub dir: PathBuf,
    /// The `env` table: variables set in the bot's environment.
    pub env: BTreeMap<String, String>,
    /// The command as the file writes it (what results folders record, so
    /// that they do not depend on where the checkout lives).
    pub written_command: Vec<String>,
    /// The `dir` key as the file writes it, if set: the bot's own folder,
    /// which its box shows (else its script's or program's).
    pub written_dir: Option<String>,
    /// The `read_paths` key: what this bot alone may read besides (absolute).
    pub read_paths: Vec<PathBuf>,
    /// The `version` key: stands for the bot's files in its fingerprint.
    pub version: Option<String>,
    /// The `build` key: the command that builds the bot, run in `dir`
    /// (`arena build`), as the file writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<Vec<String>>,
    /// The time keys of the bot's table (a handicap): they change the
    /// tournament's time control for this bot.
    #[serde(skip)]
    pub time_keys: TimeKeys,
    /// The bot's own time control, when its table has time keys.
    #[serde(skip)]
    pub time_control: Option<TimeControl>,
}

impl BotEntry {
    /// The bot's time control, made again from its keys over `control`
    /// (the tournament's).
    pub(super) fn rebase_time(&mut self, control: TimeControl) -> Result<(), String> {
        if self.time_keys.is_empty() {
            return Ok(());
        }
        let own = self.time_keys.over(control).map_err(|error| {
            format!("bot `{}`: {}", self.name, error.describe(TimeKey::file_key))
        })?;
        self.time_control = Some(own);
        Ok(())
    }

    /// The command that runs the bot: in its folder, with its environment.
    pub fn command(&self) -> BotCommand {
        BotCommand {
            argv: self.argv.clone(),
            dir: Some(self.dir.clone()),
            env: self.env.iter().map(|(key, value)| (key.clone(), value.clone())).collect(),
            declared: Declared {
                folder: self.written_dir.as_ref().map(|_| self.dir.clone()),
                read_paths: self.read_paths.clone(),
            },
            ..BotCommand::default()
        }
    }

    /// The command that builds the bot, if it has one: run in its folder,
    /// with its environment, a program path relative to its folder.
    pub fn build_command(&self) -> Option<BotCommand> {
        let mut argv = self.build.clone()?;
        if argv[0].contains('/') && Path::new(&argv[0]).is_relative() {
            argv[0] = self.dir.join(&argv[0]).to_string_lossy().into_owned();
        }
        // Its box is the bot's: its folder (a build always has `dir`) and
        // its read_paths.
        Some(BotCommand {
            argv,
            dir: Some(self.dir.clone()),
            env: self.env.iter().map(|(key, value)| (key.clone(), value.clone())).collect(),
            declared: Declared {
                folder: Some(self.dir.clone()),
                read_paths: self.read_paths.clone(),
            },
            ..BotCommand::default()
        })
    }

    /// What this bot is, for its results (see [`crate::identity`]):
    /// with a `version` key, the version stands for the files; else, for a
    /// bot with a `build` command, its sources: the build command and the
    /// files under its `dir` that no `.gitignore` leaves out; else every
    /// file under the `dir` the file sets; or without one, the files and
    /// folders its command names, wherever they are: relative to its
    /// folder (`bots/x.py`), by absolute path (`/home/me/bot.py`, but not
    /// in the system folders: `/usr/bin/python3` is not the bot), and the
    /// program found in PATH when the command names no file of its own
    /// for it to run (`mybot --level 3` is the bot `mybot`; in `python3
    /// bot.py`, python3 is its interpreter, left out as upgrades of it
    /// are, though where PATH's `python3` is a version manager's shim,
    /// which version it runs counts: its path). Nothing under `excluded`
    /// (the results folder).
    ///
    /// Returns the fingerprint, and the one arena made before it covered
    /// absolute paths, programs in PATH and shims, when that differs (a
    /// folder recorded then resumes without replaying a bot that did not
    /// change).
    pub fn fingerprints(
        &self,
        excluded: &[PathBuf],
    ) -> Result<(Fingerprint, Option<Fingerprint>), FingerprintError> {
        let (mut relative, elsewhere) = self.trees();
        let interpreter = arena_system::sandbox::shims::interpreter_of(&self.argv, &self.dir);
        if elsewhere.is_empty() && interpreter.is_none() {
            return Ok((self.material(relative, excluded, None).fingerprint()?, None));
        }
        let earlier = self.material(relative.clone(), excluded, None).fingerprint()?;
        relative.extend(elsewhere);
        Ok((self.material(relative, excluded, interpreter).fingerprint()?, Some(earlier)))
    }

    /// Each file the bot's fingerprint covers, by the name it has there,
    /// with a digest of its own content.
    pub fn source_files(
        &self,
        excluded: &[PathBuf],
    ) -> Result<BTreeMap<String, Fingerprint>, FingerprintError> {
        let (mut trees, elsewhere) = self.trees();
        trees.extend(elsewhere);
        self.material(trees, excluded, None).file_digests()
    }

    /// The files and folders of the bot's fingerprint (see
    /// [`BotEntry::fingerprints`]): those named relative to its folder, and
    /// those elsewhere (absolute paths, a program found in PATH).
    fn trees(&self) -> (Vec<Tree>, Vec<Tree>) {
        let mut relative = Vec::new();
        let mut elsewhere = Vec::new();
        if self.version.is_some() {
            return (relative, elsewhere);
        }
        if self.written_dir.is_some() || self.build.is_some() {
            relative.push(Tree { path: self.dir.clone(), relative_to: self.dir.clone() });
            return (relative, elsewhere);
        }
        let mut names_own_file = false;
        for (at, word) in self.written_command.iter().enumerate() {
            let named = Path::new(word);
            if word.starts_with('-') {
                continue;
            }
            // Named from its own folder: how the command reaches
            // the file is in the command words already.
            let Ok(mut path) = self.dir.join(named).canonicalize() else { continue };
            names_own_file |= at > 0;
            let relative_to = match path.parent() {
                Some(parent) if path.is_file() => parent.to_path_buf(),
                _ => path.clone(),
            };
            // A kit's launcher (`bots/cpp/bot`, with `build.sh` beside it)
            // runs what the build made: a rebuild changes the bot though
            // the launcher stays the same file, so its whole folder counts.
            if path.is_file() && relative_to.join(KIT_BUILD_SCRIPT).is_file() {
                path = relative_to.clone();
            }
            if named.is_relative() {
                relative.push(Tree { path, relative_to });
            } else if !in_system_folder(&path) {
                elsewhere.push(Tree { path, relative_to });
            }
        }
        let program = self.written_command.first().map(String::as_str).unwrap_or("");
        if !names_own_file
            && !program.contains('/')
            && let Some(found) =
                find_in_path(program, &std::env::var_os("PATH").unwrap_or_default())
            && let Ok(path) = found.canonicalize()
            && !in_system_folder(&path)
            && let Some(parent) = path.parent()
        {
            elsewhere.push(Tree { relative_to: parent.to_path_buf(), path });
        }
        (relative, elsewhere)
    }

    /// What goes into the fingerprint of this bot with `trees` and the
    /// program its shim runs.
    fn material<'a>(
        &'a self,
        trees: Vec<Tree>,
        excluded: &[PathBuf],
        interpreter: Option<PathBuf>,
    ) -> BotMaterial<'a> {
        BotMaterial {
            command: &self.written_command,
            env: &self.env,
            version: self.version.as_deref(),
            build: self.build.as_deref(),
            interpreter,
            // A built bot is its sources, not what its build made.
            sources_only: self.build.is_some() && self.version.is_none(),
            trees,
            excluded: excluded.to_vec(),
        }
    }
}

/// Checks that `name` can name a bot of a tournament: printable, and free
/// of the `;` and ` vs ` that games.csv joins names with.
pub fn check_tournament_bot_name(name: &str) -> Result<(), String> {
    check_bot_name(name)?;
    if name.contains(';') || name.contains(" vs ") {
        return Err("a name may not contain `;` or ` vs `".to_owned());
    }
    Ok(())
}

/// Whether `key` can name an environment variable that every program reads
/// back: `[A-Za-z_][A-Za-z0-9_]*`.
pub(super) fn valid_env_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
