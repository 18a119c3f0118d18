//! `arena merge`: shard folders into one results folder.

use std::path::PathBuf;
use std::process::ExitCode;

use super::options::UsageError;
use crate::text_file::check_writable;
use crate::tournament::standings::standings_text;
use crate::tournament::store::merge_folders;

/// Arguments of `arena merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The merged results folder (created; must not hold a games.csv).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Results folders of `arena run --shard K/N` of the same tournament.
    #[arg(required = true, num_args = 1..)]
    shards: Vec<PathBuf>,
    /// Also write the standings as a Markdown table to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    if args.out.join("games.csv").exists() {
        return Err(UsageError(format!(
            "{} already holds a games.csv; choose another --out",
            args.out.display()
        ))
        .into());
    }
    if let Some(markdown) = &args.markdown {
        check_writable(markdown).map_err(|error| UsageError(format!("--markdown: {error}")))?;
    }
    let (rows, standings) = merge_folders(&args.shards, &args.out, args.markdown.as_deref())?;
    crate::say_raw!("{}", standings_text(&standings));
    crate::say!(
        "\nmerged {} games from {} folders into {}",
        rows,
        args.shards.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
