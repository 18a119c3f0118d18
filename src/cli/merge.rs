//! `arena merge`: shard folders into one results folder.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

use super::EXIT_INTERRUPTED;
use super::interrupt::Interrupt;
use super::options::{UsageError, requested_exports, say_written};
use super::reporters::Quiet;
use arena_tournament::results::store::{MergeInterrupted, ResumeRefused, merge_folders};
use arena_tournament::standings::standings_text;

/// Arguments of `arena merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The merged results folder (created; must not hold a games.csv).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Results folders of `arena run --shard K/N` of the same tournament.
    #[arg(required = true, num_args = 1..)]
    shards: Vec<PathBuf>,
    /// Also write the standings, crosstable and settings as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Also write the leaderboard as one self-contained web page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Merge what there is even if folders are missing, hold no or a torn
    /// games.csv, or games of the schedule are in none of them (each is
    /// said as a warning). Without it, any of these fails the merge.
    #[arg(long)]
    partial: bool,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let occupied = std::fs::read_dir(&args.out).is_ok_and(|mut entries| entries.next().is_some());
    if occupied || args.out.is_file() {
        return Err(UsageError(format!(
            "{} exists and is not an empty folder; choose another --out",
            args.out.display()
        ))
        .into());
    }
    let exports = requested_exports(args.markdown.as_deref(), args.html.as_deref())?;
    // Named once written (the merge's thread takes the list).
    let written = exports.clone();
    // The merge runs beside a listener for Ctrl-C (and the other signals
    // that end arena), which stops it: its staging folder is removed and
    // nothing is written to --out.
    let cancel = Arc::new(AtomicBool::new(false));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let merged = runtime.block_on(async {
        let interrupt = Interrupt::listen().context("cannot listen for Ctrl-C")?;
        let (shards, out, partial) = (args.shards.clone(), args.out.clone(), args.partial);
        let stop = Arc::clone(&cancel);
        let (done, mut merged) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("arena-merge".into())
            .spawn(move || {
                let _ = done.send(merge_folders(&shards, &out, &exports, partial, &stop, &Quiet));
            })
            .context("cannot start the merge's thread (the limit on processes and threads, `ulimit -u`, may be too low)")?;
        tokio::select! {
            merged = &mut merged => merged.context("the merge stopped without a word"),
            () = interrupt.wait() => {
                cancel.store(true, Ordering::Relaxed);
                merged.await.context("the merge stopped without a word")
            }
        }
    })?;
    let (rows, standings) = match merged {
        Err(error) if error.downcast_ref::<ResumeRefused>().is_some() => {
            return Err(UsageError(format!("{error:#}")).into());
        }
        Err(error) if error.downcast_ref::<MergeInterrupted>().is_some() => {
            eprintln!("arena: {error}");
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        other => other?,
    };
    crate::say_raw!("{}", standings_text(&standings));
    crate::say!(
        "\nmerged {} games from {} folders into {}",
        rows,
        args.shards.len(),
        args.out.display()
    );
    say_written(&written);
    Ok(ExitCode::SUCCESS)
}
