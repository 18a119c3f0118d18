//! `arena merge`: the folders of a sharded run combined into one.
//!
//! Rows are streamed: each shard's games.csv is read row by row, each
//! row's place sorted by its game number on disk ([`Sorter`]), and the
//! merged games.csv written in game order, each row's transcript copied
//! on the way. Memory does not grow with the number of games.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, bail};

use super::compare;
use super::finish::{Numbering, write_summaries};
use super::games_csv::{RowParser, Rows};
use super::settings::RecordedSettings;
use super::sort::{Place, Sorter};
use super::{GAMES_CSV, ResumeRefused, SETTINGS_JSON, write_atomically};
use crate::events::{Event, Reporter};
use crate::results::archive;
use crate::results::store::export::Export;
use crate::rows::GameRow;
use crate::standings::Standing;

/// A merge stopped by a signal; nothing of it is left.
#[derive(Debug, thiserror::Error)]
#[error("the merge was interrupted; nothing was written to {0}")]
pub struct MergeInterrupted(pub String);

/// What names a staging folder of `arena merge` beside its --out.
const STAGING_PREFIX: &str = ".arena-merge-";
/// The lock a merge holds on its staging folder while it works in it.
const STAGING_LOCK: &str = ".arena-merge.lock";

/// Combines the folders of a sharded run into `out`: games.csv holding every
/// row once, in schedule order, and standings and crosstable over them all,
/// the same files one machine would have written. Transcripts and logs are
/// copied along. Returns the number of games and the standings.
///
/// A folder that is missing, holds no games.csv or a torn one, or games of
/// the schedule that no folder holds, fail the merge unless `partial`
/// (then they are warnings). A folder of another tournament, or two folders
/// with different results for one game, always fail it. The output is made
/// beside `out` and moved into place whole: a failed or interrupted merge
/// leaves nothing (`cancel` interrupts it), and one killed outright leaves
/// a staging folder that the next merge beside it removes.
pub fn merge_folders(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    cancel: &AtomicBool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(u64, Vec<Standing>)> {
    let (staging, lock) = staging_folder(out)?;
    let merged = merge_into(shards, staging.path(), exports, partial, cancel, reporter);
    drop(lock);
    let merged = merged.and_then(|merged| {
        let _ = std::fs::remove_file(staging.path().join(STAGING_LOCK));
        // `out` may exist only as an empty folder (clap's caller checked the
        // rest); the staged folder replaces it.
        let _ = std::fs::remove_dir(out);
        std::fs::rename(staging.path(), out)
            .and_then(|()| arena_base::whole_file::sync_folder_of(out))
            .with_context(|| format!("cannot move the merged results to {}", out.display()))?;
        Ok(merged)
    });
    // Gone already when the merge succeeded; removed when it failed.
    drop(staging);
    merged
}

/// A temporary folder beside `out`, on the same file system, locked while
/// this merge works in it; staging folders of merges that died are
/// removed first.
fn staging_folder(out: &Path) -> anyhow::Result<(tempfile::TempDir, File)> {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    remove_dead_staging(parent);
    let staging = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(parent)
        .with_context(|| format!("cannot make a folder in {}", parent.display()))?;
    let lock_path = staging.path().join(STAGING_LOCK);
    let lock = File::create(&lock_path)
        .with_context(|| format!("cannot create {}", lock_path.display()))?;
    lock.try_lock().with_context(|| format!("cannot lock {}", lock_path.display()))?;
    Ok((staging, lock))
}

/// Removes the staging folders in `parent` that no merge holds locked
/// (their merge was killed before it could remove them).
fn remove_dead_staging(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(STAGING_PREFIX) || !entry.path().is_dir() {
            continue;
        }
        let lock = File::options().write(true).open(entry.path().join(STAGING_LOCK));
        let dead = match lock {
            Ok(lock) => lock.try_lock().is_ok(),
            // Made, then killed before its lock was.
            Err(_) => true,
        };
        if dead {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether two rows of one game say the same result (timings aside).
fn same_result(one: &GameRow, other: &GameRow) -> bool {
    (&one.winner, &one.outcome, &one.reason, &one.forfeit1, &one.forfeit2)
        == (&other.winner, &other.outcome, &other.reason, &other.forfeit1, &other.forfeit2)
        && (one.score1, one.score2, one.plies) == (other.score1, other.score2, other.plies)
}

/// A shard's games.csv, open for reading its rows by place.
struct Source {
    folder: PathBuf,
    csv: File,
    headers: csv::StringRecord,
    archive: Option<archive::ArchiveReader>,
}

/// Frames gathered before they are appended at once.
const FRAMES_AT_ONCE: usize = 64;

fn merge_into(
    shards: &[PathBuf],
    out: &Path,
    exports: &[Export],
    partial: bool,
    cancel: &AtomicBool,
    reporter: &dyn Reporter,
) -> anyhow::Result<(u64, Vec<Standing>)> {
    let interrupted = || MergeInterrupted(out.display().to_string());
    // What --partial lets pass.
    let mut gaps: Vec<String> = Vec::new();
    let mut first: Option<(serde_json::Value, &Path)> = None;
    let mut readable = Vec::new();
    for shard in shards {
        if !shard.is_dir() {
            gaps.push(format!("{} is not a folder", shard.display()));
            continue;
        }
        let path = shard.join(SETTINGS_JSON);
        let recorded: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).with_context(|| {
                format!(
                    "{} is not a results folder: cannot read {}",
                    shard.display(),
                    path.display()
                )
            })?)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match &first {
            None => first = Some((recorded, shard)),
            Some((reference, first_shard)) => {
                let (differences, adopted) = compare::merge(reference, &recorded);
                if !differences.is_empty() {
                    bail!(ResumeRefused(format!(
                        "{} belongs to a different tournament than {}: {}",
                        shard.display(),
                        first_shard.display(),
                        differences.join("; ")
                    )));
                }
                if !adopted.is_empty() {
                    let message = format!(
                        "{} and {} were written by different arenas; one did not record {}",
                        first_shard.display(),
                        shard.display(),
                        adopted.join(", ")
                    );
                    reporter.report(&Event::Warning { message: &message });
                }
            }
        }
        readable.push(shard);
    }
    let Some((reference, _)) = first else {
        bail!(ResumeRefused(format!(
            "none of the folders is a results folder: {}",
            gaps.join("; ")
        )));
    };
    let settings = RecordedSettings::from_json(reference)
        .context("the first folder's tournament.json cannot be read")?;
    write_atomically(&out.join(SETTINGS_JSON), &serde_json::to_vec_pretty(&settings)?)?;
    let names = settings.bot_names();
    let schedule = settings.schedule();
    let numbering = Numbering::new(&schedule, &names);

    // Every row's place, sorted by game.
    let mut sorter = Sorter::new(out);
    let mut sources = Vec::new();
    for shard in readable {
        let csv = shard.join(GAMES_CSV);
        let Some(mut rows) = Rows::open(&csv)? else {
            gaps.push(format!("{} holds no games.csv", shard.display()));
            continue;
        };
        let file = File::open(&csv).with_context(|| format!("cannot open {}", csv.display()))?;
        let len = file.metadata()?.len();
        let mut last = [0u8; 1];
        if len > 0 && file.read_exact_at(&mut last, len - 1).is_ok() && last[0] != b'\n' {
            gaps.push(format!("{} ends in an unfinished row", csv.display()));
        }
        let mut header_bytes = vec![0; rows.header_end() as usize];
        file.read_exact_at(&mut header_bytes, 0)?;
        let headers = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&header_bytes[..])
            .headers()?
            .clone();
        let source = sources.len() as u32;
        while let Some((mut row, range)) = rows.next_row()? {
            if cancel.load(Ordering::Relaxed) {
                bail!(interrupted());
            }
            if numbering.apply(&mut row).is_some() {
                sorter.push(Place {
                    game: row.game_index,
                    source,
                    start: range.start,
                    end: range.end,
                })?;
            }
        }
        let archive = archive::ArchiveReader::open(shard).ok();
        sources.push(Source { folder: shard.clone(), csv: file, headers, archive });
        for folder in ["transcripts", "logs"] {
            copy_folder(&shard.join(folder), &out.join(folder))?;
        }
    }

    // The rows in game order, each game once, transcripts copied along.
    let mut games = BufWriter::new(
        File::create(out.join(GAMES_CSV))
            .with_context(|| format!("cannot write {}", out.display()))?,
    );
    let mut results = settings.no_results();
    let mut writer: Option<archive::ArchiveWriter> = None;
    let mut frames: Vec<archive::Frame> = Vec::new();
    let (mut next, mut kept) = (1u64, 0u64);
    let mut previous: Option<(GameRow, u32)> = None;
    let mut parsers: Vec<RowParser> =
        sources.iter().map(|source| RowParser::new(source.headers.clone())).collect();
    // Transcripts not found, by shard.
    let mut lost = vec![0u64; sources.len()];
    let mut bytes = Vec::new();
    for place in sorter.sorted()? {
        let place = place?;
        if cancel.load(Ordering::Relaxed) {
            bail!(interrupted());
        }
        let source = &sources[place.source as usize];
        bytes.resize((place.end - place.start) as usize, 0);
        source.csv.read_exact_at(&mut bytes, place.start)?;
        let mut row = parsers[place.source as usize].parse(&bytes).with_context(|| {
            format!("{} changed while it was merged", source.folder.join(GAMES_CSV).display())
        })?;
        numbering.apply(&mut row);
        if let Some((kept_row, from)) = &previous
            && kept_row.game_index == row.game_index
        {
            if !same_result(kept_row, &row) {
                let first_folder = sources[*from as usize].folder.display().to_string();
                bail!(ResumeRefused(format!(
                    "game {} ({} against {}, round {}) has one result in {} and another in {}",
                    row.game_index,
                    row.seat1,
                    row.seat2,
                    row.round,
                    first_folder,
                    sources[place.source as usize].folder.display()
                )));
            }
            continue;
        }
        if let Some(number) = archive::parse_reference(&row.transcript) {
            let source = &mut sources[place.source as usize];
            // Copied as stored, renumbered: no need to decompress it.
            let frame = match source.archive.as_mut().map(|reader| reader.frame(number, next)) {
                Some(Ok(frame)) => Some(frame),
                Some(Err(error @ archive::ArchiveError::Damaged { .. })) => {
                    return Err(error.into());
                }
                _ => None,
            };
            match frame {
                Some(frame) => {
                    frames.push(frame);
                    row.transcript = archive::reference(next);
                    next += 1;
                }
                None => {
                    lost[place.source as usize] += 1;
                    row.transcript.clear();
                }
            }
            if frames.len() >= FRAMES_AT_ONCE {
                let writer = match &mut writer {
                    Some(writer) => writer,
                    None => writer.insert(archive::ArchiveWriter::open(out)?),
                };
                writer.append_all(&frames)?;
                frames.clear();
            }
        }
        games
            .write_all(&row.csv_line(kept == 0)?)
            .with_context(|| format!("cannot write {}", out.join(GAMES_CSV).display()))?;
        results.add(&row);
        kept += 1;
        previous = Some((row, place.source));
    }
    if !frames.is_empty() {
        let writer = match &mut writer {
            Some(writer) => writer,
            None => writer.insert(archive::ArchiveWriter::open(out)?),
        };
        writer.append_all(&frames)?;
    }
    games
        .into_inner()
        .map_err(|error| error.into_error())
        .and_then(|file| file.sync_all())
        .with_context(|| format!("cannot write {}", out.join(GAMES_CSV).display()))?;
    for (source, &count) in sources.iter().zip(&lost).filter(|(_, count)| **count > 0) {
        gaps.push(format!(
            "the transcripts of {count} games are not in {}",
            source.folder.join(archive::ARCHIVE_FILE).display()
        ));
    }
    let missing = schedule.len().saturating_sub(kept);
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
    let table = write_summaries(out, &settings, &results, exports, true)?;
    Ok((kept, table))
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
