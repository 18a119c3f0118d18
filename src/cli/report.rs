//! `arena report RESULTS`: the standings of a results folder, and its
//! Markdown and web page, without playing anything.

use std::path::PathBuf;
use std::process::ExitCode;

use super::options::{UsageError, requested_exports, say_written};
use crate::tournament::export::ExportFormat;
use crate::tournament::standings::standings_text;
use crate::tournament::store::{NotResultsFolder, report_folder};

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
}

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
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
