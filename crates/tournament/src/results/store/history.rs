//! history.jsonl: one line per completed run of a results folder, so that
//! a leaderboard can show how ratings moved and what changed since the
//! last run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{HISTORY_FILE, RecordedSettings};
use crate::standings::Standing;

/// The standings after one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// When the run completed, in seconds since 1970 (UTC).
    pub time: u64,
    /// Games counted then.
    pub games: u64,
    /// Each bot's place then, by name.
    pub bots: BTreeMap<String, HistoryBot>,
}

/// One bot's place after a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryBot {
    /// Its rank.
    pub rank: usize,
    /// Its Elo.
    pub elo: f64,
    /// The first 12 hex digits of its fingerprint then.
    pub version: String,
}

impl HistoryEntry {
    /// The entry for `table`, played under `settings`, now.
    pub fn now(table: &[Standing], settings: &RecordedSettings) -> HistoryEntry {
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let version = |name: &str| {
            settings
                .bots
                .iter()
                .find(|bot| bot.name == name)
                .map(|bot| bot.short_fingerprint().to_owned())
                .unwrap_or_default()
        };
        HistoryEntry {
            time,
            games: table.iter().map(|standing| standing.tally.games).sum::<u64>() / 2,
            bots: table
                .iter()
                .map(|standing| {
                    let bot = HistoryBot {
                        rank: standing.rank,
                        elo: if standing.elo.is_finite() { standing.elo } else { 0.0 },
                        version: version(&standing.bot),
                    };
                    (standing.bot.clone(), bot)
                })
                .collect(),
        }
    }

    /// Whether `other` shows the same standings (its time aside).
    pub fn same_standings(&self, other: &HistoryEntry) -> bool {
        self.games == other.games && self.bots == other.bots
    }
}

/// The runs recorded in `folder`, oldest first. Lines that cannot be read
/// (a torn last line) are skipped: the history is for display.
pub fn read(folder: &Path) -> Vec<HistoryEntry> {
    let Ok(text) = std::fs::read_to_string(folder.join(HISTORY_FILE)) else { return Vec::new() };
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

/// A run to leave out that history.jsonl does not hold.
#[derive(Debug, thiserror::Error)]
#[error(
    "{folder}/{HISTORY_FILE} has no run {id}: its runs are {known} (`arena report --runs` lists them)"
)]
pub struct NoSuchRun {
    folder: String,
    id: u64,
    known: String,
}

/// Leaves the runs whose `time` is one of `ids` out of `folder`'s
/// history.jsonl (rewritten whole, atomically); returns those left out.
/// Nothing is changed when one of `ids` is not there.
pub fn drop_runs(folder: &Path, ids: &[u64]) -> anyhow::Result<Vec<HistoryEntry>> {
    let history = read(folder);
    if let Some(&id) = ids.iter().find(|id| !history.iter().any(|run| run.time == **id)) {
        let known: Vec<String> = history.iter().map(|run| run.time.to_string()).collect();
        let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
        return Err(NoSuchRun { folder: folder.display().to_string(), id, known }.into());
    }
    let (dropped, kept): (Vec<HistoryEntry>, Vec<HistoryEntry>) =
        history.into_iter().partition(|run| ids.contains(&run.time));
    let mut text = Vec::new();
    for run in &kept {
        text.extend(serde_json::to_vec(run)?);
        text.push(b'\n');
    }
    super::write_atomically(&folder.join(HISTORY_FILE), &text)?;
    Ok(dropped)
}

/// Appends `entry` unless the last run recorded the same standings (a
/// rerun that played nothing); returns the history with it.
pub fn append(folder: &Path, entry: HistoryEntry) -> anyhow::Result<Vec<HistoryEntry>> {
    let mut history = read(folder);
    if history.last().is_some_and(|last| last.same_standings(&entry)) {
        return Ok(history);
    }
    let path = folder.join(HISTORY_FILE);
    let mut line = serde_json::to_vec(&entry)?;
    line.push(b'\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(&line))
        .with_context(|| format!("cannot append to {}", path.display()))?;
    history.push(entry);
    Ok(history)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_dropped_by_its_time_and_an_unknown_one_changes_nothing() {
        let folder = tempfile::tempdir().unwrap();
        for time in [10, 20, 30] {
            let bot = HistoryBot { rank: 1, elo: time as f64, version: "v".into() };
            let entry = HistoryEntry {
                time,
                games: time,
                bots: [("a".to_owned(), bot)].into_iter().collect(),
            };
            append(folder.path(), entry).unwrap();
        }
        let error = drop_runs(folder.path(), &[20, 25]).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "has no run 25: its runs are 10, 20, 30 (`arena report --runs` lists them)"
            ),
            "{error}"
        );
        assert_eq!(read(folder.path()).len(), 3);
        let dropped = drop_runs(folder.path(), &[20]).unwrap();
        assert_eq!(dropped.iter().map(|run| run.time).collect::<Vec<_>>(), [20]);
        assert_eq!(read(folder.path()).iter().map(|run| run.time).collect::<Vec<_>>(), [10, 30]);
    }

    #[test]
    fn a_rerun_with_the_same_standings_adds_no_line() {
        let folder = tempfile::tempdir().unwrap();
        // Ratings as the run that found this computed them: the parser must
        // read back the very value it wrote.
        let elos = [-78.08030122060066, -65.19528505963835, 143.27558628023903];
        let entry = HistoryEntry {
            time: 1,
            games: 30,
            bots: elos
                .iter()
                .enumerate()
                .map(|(index, &elo)| {
                    let bot = HistoryBot { rank: index + 1, elo, version: "0465a451947c".into() };
                    (format!("bot{index}"), bot)
                })
                .collect(),
        };
        append(folder.path(), entry.clone()).unwrap();
        let history = append(folder.path(), HistoryEntry { time: 2, ..entry }).unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(read(folder.path()).len(), 1);
    }
}
