//! `arena bots FILE`: the bots of a tournament file with their
//! fingerprints, as a results folder would record them.

use std::path::PathBuf;
use std::process::ExitCode;

use super::options::UsageError;
use arena_tournament::Tournament;

/// Arguments of `arena bots`.
#[derive(Debug, clap::Args)]
pub struct BotsArgs {
    /// The tournament file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn run(args: BotsArgs) -> anyhow::Result<ExitCode> {
    let tournament =
        Tournament::load(&args.file, None).map_err(|error| UsageError(error.to_string()))?;
    for (bot, (fingerprint, _)) in tournament.bots.iter().zip(tournament.fingerprints()?) {
        crate::say!("{fingerprint}  {}", bot.name);
    }
    Ok(ExitCode::SUCCESS)
}
