//! Building the bots of a tournament file that declare a `build` command.
//!
//! A bot's build runs in a box of its own (`arena build`): what the bot's
//! box shows, its own folder (`dir`) writable, the environment a bot gets
//! (never arena's secrets), limits raised for a compiler, the network only
//! where `build_network` grants it, and `build_timeout` to finish; its
//! output goes where arena's stderr goes. Afterwards the bot's program must
//! exist, and the build should have left its sources alone: files it wrote
//! that its fingerprint covers (outputs no `.gitignore` leaves out) would
//! make every build a new version.
//!
//! A build that succeeded is recorded in the bot's folder
//! ([`BUILD_RECORD`]: the build command and a digest of each source file
//! as the build left it). A run refuses a bot with a build command while
//! that record is missing, names another command, or disagrees with its
//! sources now: a kit's launcher exists before its build does, so an
//! unbuilt bot would otherwise start, crash in every game and be withdrawn.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Tournament;
use super::config::BotEntry;
use super::identity::{BUILD_RECORD, Fingerprint, FingerprintError};
use arena_referee::process::run_to_end;
use arena_referee::{BotCommand, CommandError};
use arena_system::os::sandbox::Sandbox;
use arena_system::sandbox::{LimitReached, SandboxError};

use crate::config::BuildSettings;

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
    NoBuild {
        /// The bot's name.
        bot: String,
    },
    /// Its box would not show what the build command names.
    #[error("bot `{bot}`: build: {error}")]
    Sandbox {
        /// The bot's name.
        bot: String,
        /// What the sandbox refused.
        error: SandboxError,
    },
    /// The build command did not start.
    #[error("bot `{bot}`: build `{command}` could not start in {}: {error}", dir.display())]
    Start {
        /// The bot's name.
        bot: String,
        /// The build command, as written.
        command: String,
        /// The folder it was to run in.
        dir: PathBuf,
        /// Why it did not start.
        error: Box<CommandError>,
    },
    /// The build command failed.
    #[error("bot `{bot}`: build `{command}` failed in {} ({status}{})", dir.display(), reached_note(*.reached))]
    Failed {
        /// The bot's name.
        bot: String,
        /// The build command, as written.
        command: String,
        /// The folder it ran in.
        dir: PathBuf,
        /// How it exited.
        status: ExitStatus,
        /// The sandbox limit its box saw it reach, if any.
        reached: Option<LimitReached>,
    },
    /// The build ran past its time.
    #[error("bot `{bot}`: build `{command}` did not finish within {} (build_timeout) and was killed", humantime::format_duration(*timeout))]
    TimedOut {
        /// The bot's name.
        bot: String,
        /// The build command, as written.
        command: String,
        /// The time it had (`build_timeout`).
        timeout: Duration,
    },
    /// The build succeeded, but the bot's program is not there to run.
    #[error("bot `{bot}`: its build `{command}` succeeded, but its command cannot run: {problem}")]
    NoProgram {
        /// The bot's name.
        bot: String,
        /// The build command, as written.
        command: String,
        /// Why the bot's command cannot run.
        problem: String,
    },
    /// The bot's files could not be read to see what the build changed.
    #[error("bot `{bot}`: cannot read its files: {error}")]
    Files {
        /// The bot's name.
        bot: String,
        /// Why they could not be read.
        error: FingerprintError,
    },
    /// The build's record could not be written.
    #[error("bot `{bot}`: its build succeeded, but arena cannot record it: cannot write {}: {error}", path.display())]
    Record {
        /// The bot's name.
        bot: String,
        /// The build record's path.
        path: PathBuf,
        /// Why it could not be written.
        error: std::io::Error,
    },
}

/// ", having reached its memory limit", or nothing.
fn reached_note(reached: Option<LimitReached>) -> String {
    match reached {
        Some(LimitReached::Memory) => ", having reached its memory limit".to_owned(),
        Some(LimitReached::Processes) => ", having reached its process limit".to_owned(),
        Some(LimitReached::CpuTime) => ", having reached its CPU time limit".to_owned(),
        Some(LimitReached::FileSize) => ", having reached its file size limit".to_owned(),
        None => String::new(),
    }
}

/// Runs the build command of the bot `index` of `tournament` in `sandbox`
/// (`None`: outside any box, with arena's environment) and waits for it,
/// giving its output to `output` as it comes.
pub async fn build_bot(
    tournament: &Tournament,
    index: usize,
    sandbox: Option<&Arc<Sandbox>>,
    settings: &BuildSettings,
    output: impl FnMut(&[u8]),
) -> Result<Built, BuildError> {
    let bot = &tournament.bots[index];
    let Some(build) = bot.build_command() else {
        return Err(BuildError::NoBuild { bot: bot.name.clone() });
    };
    let words = shell_words::join(bot.build.iter().flatten());
    let excluded = tournament.fingerprint_exclusions();
    let files = |bot: &BotEntry| {
        bot.source_files(&excluded)
            .map_err(|error| BuildError::Files { bot: bot.name.clone(), error })
    };
    // The other bots' commands, for their folders: a build's box hides
    // them as a bot's does, so no build writes into another bot.
    let mut commands = vec![build];
    let mut names = vec![format!("bot `{}`", bot.name)];
    for (_, entry) in tournament.bots.iter().enumerate().filter(|(other, _)| *other != index) {
        commands.push(entry.command());
        names.push(format!("bot `{}`", entry.name));
    }
    BotCommand::prepare_all(&mut commands, &names, sandbox)
        .map_err(|error| BuildError::Sandbox { bot: bot.name.clone(), error })?;
    let build = commands.swap_remove(0);
    let before = files(bot)?;
    let dir = build.dir.clone().unwrap_or_default();
    let started = Instant::now();
    let ended =
        run_to_end(&build, settings.timeout, output).await.map_err(|error| BuildError::Start {
            bot: bot.name.clone(),
            command: words.clone(),
            dir: dir.clone(),
            error: Box::new(error),
        })?;
    let elapsed = started.elapsed();
    if ended.timed_out {
        return Err(BuildError::TimedOut {
            bot: bot.name.clone(),
            command: words,
            timeout: settings.timeout,
        });
    }
    if !ended.status.success() {
        return Err(BuildError::Failed {
            bot: bot.name.clone(),
            command: words,
            dir,
            status: ended.status,
            reached: ended.reached,
        });
    }
    bot.command().check_program().map_err(|problem| BuildError::NoProgram {
        bot: bot.name.clone(),
        command: words.clone(),
        problem,
    })?;
    let after = files(bot)?;
    let record = BuildRecord { build: words, sources: hex_digests(&after) };
    let text = serde_json::to_vec_pretty(&record).expect("a record is JSON");
    let path = bot.dir.join(BUILD_RECORD);
    arena_base::whole_file::replace(&path, &text).map_err(|error| BuildError::Record {
        bot: bot.name.clone(),
        path,
        error,
    })?;
    Ok(Built { elapsed, touched_sources: touched(&before, &after) })
}

/// What a bot's folder keeps of its last successful build.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct BuildRecord {
    /// The build command's words, as one shell line.
    build: String,
    /// Each source file's digest as the build left it, by name.
    sources: BTreeMap<String, String>,
}

fn hex_digests(files: &BTreeMap<String, Fingerprint>) -> BTreeMap<String, String> {
    files.iter().map(|(name, digest)| (name.clone(), digest.hex())).collect()
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

/// Checks that every bot with a build command was built by `arena build`
/// since its sources or build command last changed, and has its program,
/// as it must before it plays; the error names the bot, what is missing or
/// changed, and how to build it (`file` is the tournament file, for the
/// command to run; `excluded`, what no fingerprint reads).
pub fn check_built(bots: &[BotEntry], file: &Path, excluded: &[PathBuf]) -> Result<(), String> {
    let build_it = format!("run `arena build {}`", shell_words::quote(&file.to_string_lossy()));
    for bot in bots.iter().filter(|bot| bot.build.is_some()) {
        let words = shell_words::join(bot.build.iter().flatten());
        let recorded = std::fs::read(bot.dir.join(BUILD_RECORD))
            .ok()
            .and_then(|text| serde_json::from_slice::<BuildRecord>(&text).ok());
        let Some(recorded) = recorded else {
            return Err(format!(
                "bot `{}` is not built: it has a build command (`{words}`), and `arena build` has not built it in {} (no {BUILD_RECORD} there); {build_it} first",
                bot.name,
                bot.dir.display()
            ));
        };
        if recorded.build != words {
            return Err(format!(
                "bot `{}`: its build command is now `{words}`, and was `{}` when it was last built; {build_it} again",
                bot.name, recorded.build
            ));
        }
        let now =
            bot.source_files(excluded).map_err(|error| format!("bot `{}`: {error}", bot.name))?;
        let changed = touched(&recorded.sources, &hex_digests(&now));
        if let [first, rest @ ..] = changed.as_slice() {
            let more = match rest.len() {
                0 => String::new(),
                count => format!(" and {count} more"),
            };
            return Err(format!(
                "bot `{}`: its sources changed since it was last built ({first}{more}); {build_it} again",
                bot.name
            ));
        }
        if let Err(problem) = bot.command().check_program() {
            return Err(format!(
                "bot `{}`: command: {problem}: it is made by the bot's build command (`{words}`); {build_it} first",
                bot.name
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
