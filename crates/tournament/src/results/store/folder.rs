//! An open results folder: its lock, opening it (fresh or resumed, with
//! what changed since the last run), and appending rows.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::compare::{self, BotChanges};
use super::games_csv::repair_torn_tail;
use super::repair::{Repairs, repair};
use super::seed_key::NewKey;
use super::settings::{RecordedSettings, read_json};
use super::{
    GAMES_CSV, OWN_FILES, ResumeRefused, SETTINGS_JSON, remove_if_present, write_atomically,
};
use crate::events::{Event, Reporter};
use crate::results::GamesCsv;
use crate::rows::GameRow;
use crate::schedule::Schedule;
use arena_base::bits::BitSet;

/// An open results folder.
pub struct ResultsFolder {
    /// The folder.
    pub path: PathBuf,
    /// What its tournament.json records.
    pub settings: RecordedSettings,
    /// The games of the schedule already on disk, from earlier runs, by
    /// number (less one). Rows themselves stay on disk, so memory does not
    /// grow with the number of games.
    pub done: BitSet,
    /// Where rows are appended; taken by the archive's writer in a run that
    /// keeps transcripts there, so that rows follow their transcripts.
    pub games_csv: Option<GamesCsv>,
    /// Whether this run has written tournament.json yet.
    settings_written: bool,
    /// A seat-seed key of the folder's own, written beside tournament.json.
    new_key: Option<NewKey>,
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
    for (sub, suffix) in [("transcripts", ".jsonl"), ("logs", ".log"), ("void", ".jsonl")] {
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

/// Removes the temporary files a run that was killed left in `folder`
/// (arena writes a file beside its place, as NAME.tmp-arena, and moves it
/// there when it is whole). Only the holder of the folder's lock calls it.
fn remove_temporaries(folder: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Ok(()) };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().ends_with(".tmp-arena") {
            remove_if_present(&entry.path())?;
        }
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
        schedule: &Schedule,
        fresh: bool,
        new_key: Option<NewKey>,
        reporter: &dyn Reporter,
    ) -> anyhow::Result<ResultsFolder> {
        super::create_folder(path)?;
        let lock = lock_folder(path)?;
        remove_temporaries(path)?;
        let settings_path = path.join(SETTINGS_JSON);
        let csv_path = path.join(GAMES_CSV);
        repair_torn_tail(&csv_path, reporter)?;
        let has_rows = |csv: &Path| {
            csv.metadata().is_ok_and(|meta| meta.len() > 0) && {
                super::games_csv::Rows::open(csv)
                    .ok()
                    .flatten()
                    .is_some_and(|mut rows| rows.next_row().is_ok_and(|row| row.is_some()))
            }
        };
        if fresh {
            if !settings_path.exists() && has_rows(&csv_path) {
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
        let mut game_changed = None;
        let mut upgraded = false;
        if let Some(recorded) = read_json(path)? {
            let resume = compare::resume(&recorded, &settings);
            if !resume.refused.is_empty() {
                bail!(ResumeRefused(format!(
                    "{} holds results of a different tournament: {}.\nRun with --fresh to discard them, or choose another --out.",
                    path.display(),
                    resume.refused.join("; ")
                )));
            }
            if !resume.adopted.is_empty() {
                let message = format!(
                    "{} was written by an earlier arena that did not record {}: taking this run's",
                    settings_path.display(),
                    resume.adopted.join(", ")
                );
                reporter.report(&Event::Warning { message: &message });
            }
            upgraded = !resume.adopted.is_empty();
            bot_changes = resume.bots;
            game_changed = resume.game_changed;
        } else if has_rows(&csv_path) {
            bail!(ResumeRefused(format!(
                "{} holds a games.csv but no tournament.json, so arena cannot tell what it belongs to; choose another --out",
                path.display()
            )));
        }
        // A new version of the game program: no game played with the old
        // one counts, whoever played it.
        let names = settings.bot_names();
        let retired = match game_changed {
            Some(_) => names.iter().map(String::as_str).collect(),
            None => bot_changes.retired(),
        };
        let Repairs { done, next_transcript, set_aside } =
            repair(path, &settings, schedule, &retired, reporter)?;
        if let Some((from, to)) = &game_changed {
            // Each set-aside game is counted once per bot: twice in all.
            let games = set_aside.values().sum::<u64>() / 2;
            reporter.report(&Event::GameChanged { from, to, set_aside: games });
        }
        let count_of = |bot: &str| set_aside.get(bot).copied().unwrap_or(0);
        for (bot, from, to) in &bot_changes.changed {
            reporter.report(&Event::BotChanged { bot, from, to, set_aside: count_of(bot) });
        }
        for (bot, from) in &bot_changes.removed {
            reporter.report(&Event::BotChanged { bot, from, to: "", set_aside: count_of(bot) });
        }
        if !bot_changes.adopted.is_empty() {
            let message = format!(
                "{} was written by an earlier arena whose fingerprints left files out or were not kept: taking bots {} to be the versions the file names now",
                settings_path.display(),
                bot_changes.adopted.join(", ")
            );
            reporter.report(&Event::Warning { message: &message });
        }
        let games_csv = GamesCsv::append_to(&csv_path)
            .with_context(|| format!("cannot open {}", csv_path.display()))?;
        let mut folder = ResultsFolder {
            path: path.to_path_buf(),
            settings,
            done,
            games_csv: Some(games_csv),
            settings_written: false,
            new_key,
            next_transcript,
            _lock: lock,
        };
        if bot_changes != BotChanges::default() || game_changed.is_some() || upgraded {
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
            .as_mut()
            .expect("rows go here unless the archive's writer took the file")
            .append(row)
            .with_context(|| format!("cannot append to {}", path.display()))?;
        Ok(())
    }

    /// Writes tournament.json (and the folder's own seat-seed key, when it
    /// has a new one) unless this run has written it already: before the
    /// first row, so that no row stands without its settings.
    pub fn write_settings(&mut self) -> anyhow::Result<()> {
        if !self.settings_written {
            if let Some(key) = self.new_key.take() {
                key.write(&self.path)?;
            }
            let json = serde_json::to_vec_pretty(&self.settings)?;
            write_atomically(&self.path.join(SETTINGS_JSON), &json)?;
            self.settings_written = true;
        }
        Ok(())
    }
}
