//! `arena merge`: the folders of a sharded run combined into one.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::finish::{renumber, write_final_files};
use super::games_csv::read_games_csv;
use super::settings::RecordedSettings;
use super::{GAMES_CSV, GameKey, ResumeRefused, SETTINGS_JSON, key_of_row, write_atomically};
use crate::archive;
use crate::events::{Event, Reporter};
use crate::results::GameRow;
use crate::tournament::export::Export;
use crate::tournament::standings::Standing;

/// Combines the folders of a sharded run into `out`: games.csv holding every
/// row once, in schedule order, and standings and crosstable over them all,
/// the same files one machine would have written. Transcripts and logs are
/// copied along. Returns the number of games and the standings.
///
/// A folder that is missing, holds no games.csv or a torn one, or games of
/// the schedule that no folder holds, fail the merge unless `partial`
/// (then they are warnings). A folder of another tournament, or two folders
/// with different results for one game, always fail it. The output is made
/// beside `out` and moved into place whole: a failed merge leaves nothing.
pub fn merge_folders(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(usize, Vec<Standing>)> {
    let staging = staging_folder(out)?;
    let merged = merge_into(shards, staging.path(), exports, partial, reporter);
    let merged = merged.and_then(|merged| {
        // `out` may exist only as an empty folder (clap's caller checked the
        // rest); the staged folder replaces it.
        let _ = std::fs::remove_dir(out);
        std::fs::rename(staging.path(), out)
            .with_context(|| format!("cannot move the merged results to {}", out.display()))?;
        Ok(merged)
    });
    // Gone already when the merge succeeded; removed when it failed.
    drop(staging);
    merged
}

/// A temporary folder beside `out`, on the same file system.
fn staging_folder(out: &Path) -> anyhow::Result<tempfile::TempDir> {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    tempfile::Builder::new()
        .prefix(".arena-merge-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot make a folder in {}", parent.display()))
}

/// Whether two rows of one game say the same result (timings aside).
fn same_result(one: &GameRow, other: &GameRow) -> bool {
    (&one.winner, &one.outcome, &one.reason, &one.forfeit1, &one.forfeit2)
        == (&other.winner, &other.outcome, &other.reason, &other.forfeit1, &other.forfeit2)
        && (one.score1, one.score2, one.plies) == (other.score1, other.score2, other.plies)
}

fn merge_into(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(usize, Vec<Standing>)> {
    let mut settings: Option<RecordedSettings> = None;
    let mut rows: BTreeMap<GameKey, (GameRow, &Path)> = BTreeMap::new();
    // What --partial lets pass.
    let mut gaps: Vec<String> = Vec::new();
    for shard in shards {
        if !shard.is_dir() {
            gaps.push(format!("{} is not a folder", shard.display()));
            continue;
        }
        let path = shard.join(SETTINGS_JSON);
        let recorded: RecordedSettings =
            serde_json::from_slice(&std::fs::read(&path).with_context(|| {
                format!(
                    "{} is not a results folder: cannot read {}",
                    shard.display(),
                    path.display()
                )
            })?)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match &settings {
            None => settings = Some(recorded),
            Some(first) => {
                let differences = first.merge_differences(&recorded);
                if !differences.is_empty() {
                    bail!(ResumeRefused(format!(
                        "{} belongs to a different tournament than {}: {}",
                        shard.display(),
                        shards[0].display(),
                        differences.join("; ")
                    )));
                }
            }
        }
        let csv = shard.join(GAMES_CSV);
        match std::fs::read(&csv) {
            Err(_) => {
                gaps.push(format!("{} holds no games.csv", shard.display()));
                continue;
            }
            Ok(bytes) if bytes.last().is_some_and(|&last| last != b'\n') => {
                gaps.push(format!("{} ends in an unfinished row", csv.display()));
            }
            Ok(_) => {}
        }
        for row in read_games_csv(&csv, false, reporter)? {
            match rows.entry(key_of_row(&row)) {
                std::collections::btree_map::Entry::Vacant(place) => {
                    place.insert((row, shard));
                }
                std::collections::btree_map::Entry::Occupied(place) => {
                    let (kept, from) = place.get();
                    if !same_result(kept, &row) {
                        bail!(ResumeRefused(format!(
                            "game {} ({} against {}, round {}) has one result in {} and another in {}",
                            row.game_index,
                            row.seat1,
                            row.seat2,
                            row.round,
                            from.display(),
                            shard.display()
                        )));
                    }
                }
            }
        }
        for folder in ["transcripts", "logs"] {
            copy_folder(&shard.join(folder), &out.join(folder))?;
        }
    }
    let Some(settings) = settings else {
        bail!(ResumeRefused(format!(
            "none of the folders is a results folder: {}",
            gaps.join("; ")
        )));
    };
    write_atomically(&out.join(SETTINGS_JSON), &serde_json::to_vec_pretty(&settings)?)?;
    let names = settings.bot_names();
    let schedule = settings.schedule();
    let mut rows = copy_transcripts(rows.into_values().collect(), out, &mut gaps)?;
    renumber(&mut rows, &schedule, &names);
    let missing = schedule.len().saturating_sub(rows.len() as u64);
    if missing > 0 {
        gaps.push(format!("{missing} games of the schedule are in none of the folders"));
    }
    if !gaps.is_empty() {
        if !partial {
            bail!(ResumeRefused(format!(
                "the folders do not make a whole tournament: {}; merge what there is with --partial",
                gaps.join("; ")
            )));
        }
        for gap in &gaps {
            let message = format!("{gap}; the standings cover the rest");
            reporter.report(&Event::Warning { message: &message });
        }
    }
    let table = write_final_files(out, &settings, &rows, exports)?;
    Ok((rows.len(), table))
}

/// Copies each row's transcript from its shard's archive into `out`'s,
/// numbered anew, and points the row at the copy.
/// A transcript that cannot be found is a gap (the row keeps no
/// transcript); a damaged archive fails the merge.
fn copy_transcripts(
    rows: Vec<(GameRow, &Path)>,
    out: &Path,
    gaps: &mut Vec<String>,
) -> anyhow::Result<Vec<GameRow>> {
    let mut readers: HashMap<&Path, Option<archive::ArchiveReader>> = HashMap::new();
    let mut writer = None;
    let mut next = 1;
    let mut copied = Vec::with_capacity(rows.len());
    for (mut row, shard) in rows {
        if let Some(number) = archive::parse_reference(&row.transcript) {
            let reader = match readers.entry(shard) {
                std::collections::hash_map::Entry::Occupied(found) => found.into_mut(),
                std::collections::hash_map::Entry::Vacant(place) => {
                    place.insert(archive::ArchiveReader::open(shard).ok())
                }
            };
            let transcript = match reader.as_mut().map(|reader| reader.read(number)) {
                Some(Ok(transcript)) => transcript,
                Some(Err(error @ archive::ArchiveError::Damaged { .. })) => {
                    return Err(error.into());
                }
                _ => {
                    gaps.push(format!(
                        "the transcript of game {} is not in {}",
                        row.game_index,
                        shard.join(archive::ARCHIVE_FILE).display()
                    ));
                    row.transcript.clear();
                    copied.push(row);
                    continue;
                }
            };
            let writer = match &mut writer {
                Some(writer) => writer,
                None => writer.insert(archive::ArchiveWriter::open(out)?),
            };
            writer.append(&archive::Frame::compress(next, &transcript)?)?;
            row.transcript = archive::reference(next);
            next += 1;
        }
        copied.push(row);
    }
    Ok(copied)
}

fn copy_folder(from: &Path, to: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else { return Ok(()) };
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in entries {
        let entry = entry?;
        std::fs::copy(entry.path(), to.join(entry.file_name()))
            .with_context(|| format!("cannot copy {}", entry.path().display()))?;
    }
    Ok(())
}
