//! The results folder of a tournament: what was played, resuming, and the
//! final files.
//!
//! `tournament.json` records the settings the folder's games were played
//! under; games.csv gets one row per finished game, flushed at once. A run
//! on a folder that holds games already plays only the games missing from
//! it, and refuses settings that differ from those recorded (see
//! `compare`). Every pass over games.csv streams it: memory does not grow
//! with the number of games a folder holds.

mod compare;
pub mod export;
mod finish;
mod folder;
mod games_csv;
pub mod history;
mod merge;
mod repair;
pub mod report;
pub mod seed_key;
mod settings;
mod sort;
mod transcripts;

use std::path::Path;

use anyhow::Context;

use crate::results::archive;
pub use finish::report_folder;
pub use folder::ResultsFolder;
pub use games_csv::for_each_row;
pub use merge::{MergeInterrupted, merge_folders};
pub use settings::RecordedSettings;
pub use transcripts::{MAX_TRANSCRIPT_BYTES, TranscriptReader, transcript_of_game};

/// The file of one row per finished game.
pub const GAMES_CSV: &str = "games.csv";
/// One line per completed run: when, how many games, and the ratings then.
pub const HISTORY_FILE: &str = "history.jsonl";
const SETTINGS_JSON: &str = "tournament.json";
const OWN_FILES: [&str; 9] = [
    GAMES_CSV,
    "standings.csv",
    "crosstable.csv",
    SETTINGS_JSON,
    "set-aside.csv",
    HISTORY_FILE,
    archive::ARCHIVE_FILE,
    archive::INDEX_FILE,
    seed_key::SEED_KEY_FILE,
];

/// Where rows of games.csv that are no game of the tournament go.
const SET_ASIDE_CSV: &str = "set-aside.csv";

/// A results folder that does not belong to this tournament.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ResumeRefused(pub String);

/// A folder given as a results folder that is none (no tournament.json, or
/// one arena cannot read): input to correct, unlike a file that cannot be
/// written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotResultsFolder(pub String);

fn remove_if_present(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(error).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Makes the results folder `path`, and the folders above it, where it is
/// missing.
pub fn create_folder(path: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(path).with_context(|| format!("cannot create {}", path.display()))
}

/// Writes a file so that readers see the old or the new content, never
/// half (`whole_file`), naming it in an error.
pub fn write_atomically(path: &Path, content: &[u8]) -> anyhow::Result<()> {
    arena_base::whole_file::replace(path, content)
        .with_context(|| format!("cannot write {}", path.display()))
}
