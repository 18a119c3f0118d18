//! `arena report RESULTS`: the standings of a results folder, and its
//! Markdown and web page, without playing anything.

use std::path::PathBuf;
use std::process::ExitCode;

use super::options::{UsageError, requested_exports, say_written};
use arena_tournament::results::store::export::ExportFormat;
use arena_tournament::results::store::history::{self, HistoryEntry};
use arena_tournament::results::store::{NotResultsFolder, report_folder};
use arena_tournament::standings::standings_text;

/// Arguments of `arena report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results folder: of `arena run`, `arena merge`, `arena sprt` or
    /// `arena gauntlet`.
    #[arg(value_name = "RESULTS")]
    folder: PathBuf,
    /// Write the leaderboard as one self-contained web page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the standings, the change since the previous run, the
    /// crosstable and the settings as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Let the page's replays quote what a crashed bot last wrote to stderr
    /// (by default a public page says only that it crashed: a bot's stderr
    /// is its author's, and may hold what it should not show).
    #[arg(long, requires = "html")]
    show_stderr: bool,
    /// List the runs history.jsonl holds (each line: its id, when it
    /// ended, its games, its leader) and stop.
    #[arg(long)]
    runs: bool,
    /// Leave the run ID (its id as --runs lists it: the `time` of its line
    /// in history.jsonl) out of the history for good, before the report:
    /// the page's rating chart and the change since the previous run are
    /// drawn without it. Repeatable.
    #[arg(long = "drop-run", value_name = "ID")]
    drop_runs: Vec<u64>,
}

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    if args.runs {
        for run in history::read(&args.folder) {
            crate::say!("{}", run_line(&run));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.drop_runs.is_empty() {
        let dropped =
            history::drop_runs(&args.folder, &args.drop_runs).map_err(|error| {
                match error.downcast_ref::<history::NoSuchRun>() {
                    Some(_) => UsageError(format!("--drop-run: {error:#}")).into(),
                    None => error,
                }
            })?;
        for run in &dropped {
            crate::say!("left out of the history: {}", run_line(run));
        }
    }
    let mut exports = requested_exports(args.markdown.as_deref(), args.html.as_deref())?;
    for export in &mut exports {
        if let ExportFormat::Html { shows_stderr } = &mut export.format {
            *shows_stderr = args.show_stderr;
        }
    }
    // A folder that is none is input to correct; a file that cannot be
    // written (a full disk) is not.
    let standings = report_folder(&args.folder, &exports).map_err(|error| match error
        .downcast_ref::<NotResultsFolder>(
    ) {
        Some(_) => UsageError(format!("{error:#}")).into(),
        None => error,
    })?;
    crate::say_raw!("{}", standings_text(&standings));
    say_written(&exports);
    Ok(ExitCode::SUCCESS)
}

/// "1796212345  2026-12-02 06:12:25 UTC  120 games  leader: strong (+215)".
fn run_line(run: &HistoryEntry) -> String {
    let when = humantime::format_rfc3339_seconds(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(run.time),
    )
    .to_string()
    .replace('T', " ")
    .replace('Z', " UTC");
    let leader = run
        .bots
        .iter()
        .min_by_key(|(_, bot)| bot.rank)
        .map(|(name, bot)| {
            format!("  leader: {name} ({})", arena_tournament::standings::signed(bot.elo))
        })
        .unwrap_or_default();
    format!("{}  {when}  {} games{leader}", run.time, run.games)
}
