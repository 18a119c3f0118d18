//! `arena build FILE`: runs the build command of each bot of a tournament
//! file that declares one.

use std::path::PathBuf;
use std::process::ExitCode;

use super::options::UsageError;
use crate::tournament::Tournament;
use crate::tournament::build::{BuildError, build_bot};

/// Arguments of `arena build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The tournament file whose bots to build.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Build only this bot (repeatable) [default: every bot with a build
    /// command].
    #[arg(long = "bot", value_name = "NAME")]
    bots: Vec<String>,
}

pub fn run(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let tournament =
        Tournament::load(&args.file, None).map_err(|error| UsageError(error.to_string()))?;
    for name in &args.bots {
        tournament.bot_index(name).map_err(|error| UsageError(format!("--bot {name}: {error}")))?;
    }
    let chosen: Vec<_> = tournament
        .bots
        .iter()
        .filter(|bot| args.bots.is_empty() || args.bots.contains(&bot.name))
        .collect();
    let excluded = tournament.fingerprint_exclusions();
    let mut failed = Vec::new();
    let mut built = 0;
    for bot in &chosen {
        let Some(words) = &bot.build else {
            if !args.bots.is_empty() {
                crate::say!("bot `{}` has no build command", bot.name);
            }
            continue;
        };
        crate::say!("building `{}` in {}: {}", bot.name, shown(&bot.dir), shell_words::join(words));
        match build_bot(bot, &excluded) {
            Ok(done) => {
                built += 1;
                crate::say!("built `{}` in {:.1}s", bot.name, done.elapsed.as_secs_f64());
                if !done.touched_sources.is_empty() {
                    let mut names = done.touched_sources.clone();
                    let more = names.len().saturating_sub(5);
                    names.truncate(5);
                    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                    super::reporters::warn(&format!(
                        "bot `{}`: its build wrote files its fingerprint covers ({}{more}): list what it makes in a .gitignore in its folder, or every build is a new version of the bot",
                        bot.name,
                        names.join(", ")
                    ));
                }
            }
            Err(error @ BuildError::NoBuild { .. }) => crate::say!("{error}"),
            Err(error) => {
                eprintln!("arena: {error}");
                failed.push(bot.name.clone());
            }
        }
    }
    if built == 0 && failed.is_empty() && args.bots.is_empty() {
        crate::say!("no bot of {} has a build command", args.file.display());
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(anyhow::anyhow!(
            "{} of {} builds failed: {}",
            failed.len(),
            failed.len() + built,
            failed.join(", ")
        ))
    }
}

/// `path` relative to the working directory where it lies under it.
fn shown(path: &std::path::Path) -> String {
    let here = std::env::current_dir().unwrap_or_default();
    match path.strip_prefix(&here) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
