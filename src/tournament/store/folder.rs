//! An open results folder: its lock, opening it (fresh or resumed, with
//! what changed since the last run), and appending rows.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::games_csv::read_games_csv;
use super::repair::{check_transcripts, set_aside_rows};
use super::settings::{BotChanges, RecordedSettings};
use super::{
    GAMES_CSV, GameKey, OWN_FILES, ResumeRefused, SETTINGS_JSON, key_of_row, remove_if_present,
    write_atomically,
};
use crate::events::{Event, Reporter};
use crate::results::{GameRow, GamesCsv};

/// An open results folder.
pub struct ResultsFolder {
    pub path: PathBuf,
    pub settings: RecordedSettings,
    /// The games already on disk, from earlier runs. Rows themselves stay
    /// on disk, so memory does not grow with the number of games.
    pub done: std::collections::HashSet<GameKey>,
    pub(super) games_csv: GamesCsv,
    /// Whether this run has written tournament.json yet.
    settings_written: bool,
    /// The number the next transcript of the archive gets.
    pub next_transcript: u64,
    /// The folder's lock, released when the folder is dropped.
    _lock: File,
}

/// The lock file that makes one arena the only writer of a results folder.
const LOCK_FILE: &str = ".arena.lock";

/// Takes `folder`'s lock, or names the arena that holds it.
fn lock_folder(folder: &Path) -> anyhow::Result<File> {
    let path = folder.join(LOCK_FILE);
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    // An flock, released when the file closes (or arena dies).
    if file.try_lock().is_err() {
        let mut holder = String::new();
        let _ = std::io::Read::read_to_string(&mut file, &mut holder);
        bail!(ResumeRefused(format!(
            "{} is in use by another arena (pid {}); wait for it to end, or choose another --out",
            folder.display(),
            holder.trim()
        )));
    }
    file.set_len(0)?;
    write!(file, "{}", std::process::id())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file)
}

/// Removes what arena writes in a results folder: its own files, and the
/// transcripts and logs named as arena names them (and their folders, if
/// that leaves them empty). Anything else stays.
fn remove_own_files(folder: &Path) -> anyhow::Result<()> {
    for file in OWN_FILES {
        remove_if_present(&folder.join(file))?;
    }
    for (sub, suffix) in [("transcripts", ".jsonl"), ("logs", ".log")] {
        let sub = folder.join(sub);
        let Ok(entries) = std::fs::read_dir(&sub) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("game-") && name.ends_with(suffix) {
                remove_if_present(&entry.path())?;
            }
        }
        let _ = std::fs::remove_dir(&sub);
    }
    Ok(())
}

impl ResultsFolder {
    /// Opens (or creates) `path` for `settings`, as its only writer: a lock
    /// is held until the folder is dropped. With `fresh`, whatever arena
    /// wrote there before is removed first (and nothing else).
    ///
    /// tournament.json is written with the first game recorded, so a run
    /// that fails before any game leaves nothing that would refuse the
    /// corrected command.
    pub fn open(
        path: &Path,
        settings: RecordedSettings,
        fresh: bool,
        reporter: &dyn Reporter,
    ) -> anyhow::Result<ResultsFolder> {
        std::fs::create_dir_all(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let lock = lock_folder(path)?;
        let settings_path = path.join(SETTINGS_JSON);
        let csv_path = path.join(GAMES_CSV);
        let has_rows = |csv: &Path| -> anyhow::Result<bool> {
            Ok(csv.exists() && !read_games_csv(csv, true, reporter)?.is_empty())
        };
        if fresh {
            if !settings_path.exists() && has_rows(&csv_path)? {
                bail!(ResumeRefused(format!(
                    "{} holds a games.csv but no tournament.json: arena did not write it, so --fresh leaves it alone; choose another --out",
                    path.display()
                )));
            }
            remove_own_files(path)?;
        }
        let logs = path.join("logs");
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
        let mut bot_changes = BotChanges::default();
        if settings_path.exists() {
            let recorded: RecordedSettings = serde_json::from_slice(
                &std::fs::read(&settings_path)
                    .with_context(|| format!("cannot read {}", settings_path.display()))?,
            )
            .with_context(|| {
                format!("{} is not a tournament.json arena can read", settings_path.display())
            })?;
            let differences = recorded.resume_differences(&settings);
            if !differences.is_empty() {
                bail!(ResumeRefused(format!(
                    "{} holds results of a different tournament: {}.\nRun with --fresh to discard them, or choose another --out.",
                    path.display(),
                    differences.join("; ")
                )));
            }
            bot_changes = recorded.bot_changes(&settings);
        } else if has_rows(&csv_path)? {
            bail!(ResumeRefused(format!(
                "{} holds a games.csv but no tournament.json, so arena cannot tell what it belongs to; choose another --out",
                path.display()
            )));
        }
        let retired = bot_changes.retired();
        let set_aside = if retired.is_empty() || !csv_path.exists() {
            Vec::new()
        } else {
            set_aside_rows(path, |row| {
                retired.contains(row.seat1.as_str()) || retired.contains(row.seat2.as_str())
            })?
        };
        let count_of = |bot: &str| {
            set_aside.iter().filter(|row| row.seat1 == bot || row.seat2 == bot).count() as u64
        };
        for (bot, from, to) in &bot_changes.changed {
            reporter.report(&Event::BotChanged { bot, from, to, set_aside: count_of(bot) });
        }
        for (bot, from) in &bot_changes.removed {
            reporter.report(&Event::BotChanged { bot, from, to: "", set_aside: count_of(bot) });
        }
        if !bot_changes.adopted.is_empty() {
            let message = format!(
                "{} was written by an earlier arena that kept no fingerprints: taking bots {} to be the versions the file names now",
                settings_path.display(),
                bot_changes.adopted.join(", ")
            );
            reporter.report(&Event::Warning { message: &message });
        }
        let rows = read_games_csv(&csv_path, true, reporter)?;
        let (rows, next_transcript) = check_transcripts(path, rows, reporter)?;
        let done = rows.iter().map(key_of_row).collect();
        let games_csv = GamesCsv::append_to(&csv_path)
            .with_context(|| format!("cannot open {}", csv_path.display()))?;
        let mut folder = ResultsFolder {
            path: path.to_path_buf(),
            settings,
            done,
            games_csv,
            settings_written: false,
            next_transcript,
            _lock: lock,
        };
        if bot_changes != BotChanges::default() {
            // Recorded at once: the rows that remain are the new versions'.
            folder.write_settings()?;
        }
        Ok(folder)
    }

    /// Appends `row` to games.csv (flushed); the first one of a run writes
    /// tournament.json first, so no row stands without its settings.
    pub fn append(&mut self, row: &GameRow) -> anyhow::Result<()> {
        self.write_settings()?;
        let path = self.path.join(GAMES_CSV);
        self.games_csv
            .append(row)
            .with_context(|| format!("cannot append to {}", path.display()))?;
        Ok(())
    }

    pub(super) fn write_settings(&mut self) -> anyhow::Result<()> {
        if !self.settings_written {
            let json = serde_json::to_vec_pretty(&self.settings)?;
            write_atomically(&self.path.join(SETTINGS_JSON), &json)?;
            self.settings_written = true;
        }
        Ok(())
    }
}
