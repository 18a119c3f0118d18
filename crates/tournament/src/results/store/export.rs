//! The outputs made from finished standings, behind one trait.
//!
//! Every exporter is fed the same [`Summary`] (the standings, the results
//! they were computed from, and the settings) and renders one file; the
//! caller writes it atomically. standings.csv and crosstable.csv go into
//! every results folder; the others go where the user asks (`--markdown
//! FILE`). A new format is a new [`Exporter`] and an [`ExportFormat`]
//! variant, nothing threaded through the callers.

use std::path::{Path, PathBuf};

use super::RecordedSettings;
use super::history::HistoryEntry;
use super::report;
use crate::standings::{Results, Standing, crosstable_csv, standings_csv};

/// What every exporter renders from.
pub struct Summary<'a> {
    /// The results folder.
    pub folder: &'a Path,
    /// Its runs, oldest first (this one last, when it is recorded).
    pub history: &'a [HistoryEntry],
    /// The settings the games were played under.
    pub settings: &'a RecordedSettings,
    /// Every counted game, gathered per pair.
    pub results: &'a Results,
    /// The standings, best first.
    pub table: &'a [Standing],
}

impl Summary<'_> {
    /// Games counted in the standings.
    pub fn games(&self) -> u64 {
        self.table.iter().map(|standing| standing.tally.games).sum::<u64>() / 2
    }
}

/// One output file made from a [`Summary`].
pub trait Exporter {
    /// The file's contents.
    fn render(&self, summary: &Summary<'_>) -> Vec<u8>;
}

/// standings.csv: one line per bot.
pub struct StandingsCsv;

impl Exporter for StandingsCsv {
    fn render(&self, summary: &Summary<'_>) -> Vec<u8> {
        standings_csv(summary.table).into_bytes()
    }
}

/// crosstable.csv: each bot's points against each other bot.
pub struct CrosstableCsv;

impl Exporter for CrosstableCsv {
    fn render(&self, summary: &Summary<'_>) -> Vec<u8> {
        crosstable_csv(summary.results, summary.table).into_bytes()
    }
}

/// The standings, the change since the previous run, the crosstable and
/// the settings in Markdown, for a CI job summary or a pull request.
pub struct Markdown;

impl Exporter for Markdown {
    fn render(&self, summary: &Summary<'_>) -> Vec<u8> {
        report::markdown(summary).into_bytes()
    }
}

/// The leaderboard as one self-contained web page; its replays quote what
/// crashed bots wrote to stderr only when `shows_stderr`.
pub struct Html {
    /// Whether replays quote what crashed bots wrote to stderr.
    pub shows_stderr: bool,
}

impl Exporter for Html {
    fn render(&self, summary: &Summary<'_>) -> Vec<u8> {
        let data = report::page_data(summary, summary.folder, self.shows_stderr);
        crate::html_page::render(&data).into_bytes()
    }
}

/// The formats a user can ask for beside the results folder's own files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `--markdown FILE`.
    Markdown,
    /// `--html FILE` (with `--show-stderr` on `arena report`: the replays
    /// quote what crashed bots wrote to stderr).
    Html {
        /// Whether replays quote what crashed bots wrote to stderr.
        shows_stderr: bool,
    },
}

impl ExportFormat {
    /// The exporter that renders this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            ExportFormat::Markdown => Box::new(Markdown),
            ExportFormat::Html { shows_stderr } => Box::new(Html { shows_stderr }),
        }
    }
}

/// An output the user asked for: a format and the file it goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// What to write.
    pub format: ExportFormat,
    /// Where.
    pub path: PathBuf,
}

/// Every file a finished run writes: the folder's standings.csv and
/// crosstable.csv, then what `extra` asks for.
pub fn outputs(folder: &Path, extra: &[Export]) -> Vec<(PathBuf, Box<dyn Exporter>)> {
    let mut outputs: Vec<(PathBuf, Box<dyn Exporter>)> = vec![
        (folder.join("standings.csv"), Box::new(StandingsCsv)),
        (folder.join("crosstable.csv"), Box::new(CrosstableCsv)),
    ];
    outputs.extend(extra.iter().map(|export| (export.path.clone(), export.format.exporter())));
    outputs
}
