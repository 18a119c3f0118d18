//! Building the bots of a tournament file that declare a `build` command.
//!
//! A bot's build runs in its folder (`dir`), with arena's environment and
//! the bot's `env`, its output going where arena's goes, outside the
//! sandbox: a build is the maintainer's own step (compilers, caches, a
//! package registry), run before any game, never during one. Afterwards
//! the bot's program must exist, and the build should have left its
//! sources alone: files it wrote that its fingerprint covers (outputs no
//! `.gitignore` leaves out) would make every build a new version.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::config::BotEntry;
use super::identity::FingerprintError;

/// A finished build.
#[derive(Debug)]
pub struct Built {
    /// How long it took.
    pub elapsed: Duration,
    /// Files of the bot's fingerprint the build added, changed or removed.
    pub touched_sources: Vec<String>,
}

/// Why a bot could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The bot declares no build command.
    #[error("bot `{bot}` has no build command")]
    NoBuild { bot: String },
    /// The build command did not start.
    #[error("bot `{bot}`: build `{command}` could not start in {}: {error}", dir.display())]
    Start { bot: String, command: String, dir: PathBuf, error: std::io::Error },
    /// The build command failed.
    #[error("bot `{bot}`: build `{command}` failed in {} ({status})", dir.display())]
    Failed { bot: String, command: String, dir: PathBuf, status: ExitStatus },
    /// The build succeeded, but the bot's program is not there to run.
    #[error("bot `{bot}`: its build `{command}` succeeded, but its command cannot run: {problem}")]
    NoProgram { bot: String, command: String, problem: String },
    /// The bot's files could not be read to see what the build changed.
    #[error("bot `{bot}`: cannot read its files: {error}")]
    Files { bot: String, error: FingerprintError },
}

/// Runs `bot`'s build command and waits for it; `excluded` are folders
/// none of its files lie in (the results folder).
pub fn build_bot(bot: &BotEntry, excluded: &[PathBuf]) -> Result<Built, BuildError> {
    let Some(build) = bot.build_command() else {
        return Err(BuildError::NoBuild { bot: bot.name.clone() });
    };
    let words = shell_words::join(bot.build.iter().flatten());
    let files = |bot: &BotEntry| {
        bot.source_files(excluded)
            .map_err(|error| BuildError::Files { bot: bot.name.clone(), error })
    };
    let before = files(bot)?;
    let dir = build.dir.clone().unwrap_or_default();
    let started = Instant::now();
    let status = Command::new(&build.argv[0])
        .args(&build.argv[1..])
        .current_dir(&dir)
        .envs(build.env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .status()
        .map_err(|error| BuildError::Start {
            bot: bot.name.clone(),
            command: words.clone(),
            dir: dir.clone(),
            error,
        })?;
    let elapsed = started.elapsed();
    if !status.success() {
        return Err(BuildError::Failed { bot: bot.name.clone(), command: words, dir, status });
    }
    bot.command().check_program().map_err(|problem| BuildError::NoProgram {
        bot: bot.name.clone(),
        command: words.clone(),
        problem,
    })?;
    let after = files(bot)?;
    Ok(Built { elapsed, touched_sources: touched(&before, &after) })
}

/// The names whose digest differs between `before` and `after`, or that
/// only one of them has.
fn touched<T: PartialEq>(before: &BTreeMap<String, T>, after: &BTreeMap<String, T>) -> Vec<String> {
    let mut names: Vec<String> = before
        .iter()
        .filter(|(name, digest)| after.get(*name) != Some(digest))
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(after.keys().filter(|name| !before.contains_key(*name)).cloned());
    names.sort();
    names
}

/// Checks that every bot with a build command has its program, as it must
/// before it plays; the error names the bot, the program, and how to build
/// it (`file` is the tournament file, for the command to run).
pub fn check_built(bots: &[BotEntry], file: &Path) -> Result<(), String> {
    for bot in bots.iter().filter(|bot| bot.build.is_some()) {
        if let Err(problem) = bot.command().check_program() {
            let words = shell_words::join(bot.build.iter().flatten());
            return Err(format!(
                "bot `{}`: command: {problem}: it is made by the bot's build command (`{words}`); run `arena build {}` first",
                bot.name,
                shell_words::quote(&file.to_string_lossy())
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touched_names_the_files_added_changed_and_removed() {
        let before: BTreeMap<String, u8> =
            [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)].into_iter().collect();
        let after: BTreeMap<String, u8> =
            [("a".into(), 1), ("b".into(), 9), ("d".into(), 4)].into_iter().collect();
        assert_eq!(touched(&before, &after), ["b", "c", "d"]);
        assert!(touched(&before, &before).is_empty());
    }
}
