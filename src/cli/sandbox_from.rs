//! `--sandbox-from BASE_FILE`: a league file played with the sandbox of
//! another (a pull request's, with the base branch's).

use std::path::PathBuf;

use super::options::UsageError;
use super::reporters::warn;
use arena_tournament::Tournament;

/// The flag of `arena build`, `check --league` and `gauntlet --league`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SandboxFromArgs {
    /// Run with the sandbox of BASE_FILE, the base branch's copy of the
    /// league file: its sandbox mode, limits and network, its read_paths
    /// and each bot's (by name; a new bot gets none), and its
    /// build_network and build_timeout replace this file's, and what
    /// differs is said in a warning that begins "sandbox-from". Every bot's
    /// dir must lie inside the working folder. For a pull request, whose
    /// author may change bots but not widen their boxes.
    #[arg(long, value_name = "BASE_FILE")]
    sandbox_from: Option<PathBuf>,
}

impl SandboxFromArgs {
    /// Gives `tournament` the base file's sandbox, warning of each
    /// difference; nothing without the flag.
    pub fn apply(&self, tournament: &mut Tournament) -> anyhow::Result<()> {
        let Some(file) = &self.sandbox_from else { return Ok(()) };
        let base = Tournament::load(file, None)
            .map_err(|error| UsageError(format!("--sandbox-from: {error}")))?;
        let here = std::env::current_dir()?;
        let differences = tournament
            .take_sandbox_from(&base, &here)
            .map_err(|error| UsageError(format!("{}: {error}", tournament.file.display())))?;
        for difference in differences {
            warn(&format!(
                "sandbox-from {}: {difference}; the base file's is used",
                file.display()
            ));
        }
        Ok(())
    }
}
