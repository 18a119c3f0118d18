//! Repairs on resume: rows whose transcript a crash lost, and rows of
//! bots that changed, set aside (kept in set-aside.csv, not counted).

use std::fs::File;
use std::path::Path;

use anyhow::Context;

use super::games_csv::{move_rows, rewrite_in_order};
use super::{GAMES_CSV, SET_ASIDE_CSV};
use crate::archive;
use crate::events::{Event, Reporter};
use crate::results::GameRow;

/// Sets aside the rows of `rows` (games.csv's) whose transcript should be
/// in the archive but is not (a crash came between the row and its
/// transcript), so that those games are played again; returns the rows
/// kept and the number the next transcript gets.
pub(super) fn check_transcripts(
    folder: &Path,
    rows: Vec<GameRow>,
    reporter: &dyn Reporter,
) -> anyhow::Result<(Vec<GameRow>, u64)> {
    let numbers: Vec<u64> =
        rows.iter().filter_map(|row| archive::parse_reference(&row.transcript)).collect();
    let archived = if folder.join(archive::ARCHIVE_FILE).exists() {
        // Repairs what a crash left (a torn frame) before reading.
        drop(archive::ArchiveWriter::open(folder)?);
        Some(archive::ArchiveReader::open(folder)?)
    } else {
        None
    };
    let highest = archived.as_ref().map_or(0, archive::ArchiveReader::highest);
    let next = numbers.iter().copied().chain([highest]).max().unwrap_or(0) + 1;
    let missing = |row: &GameRow| {
        archive::parse_reference(&row.transcript)
            .is_some_and(|number| !archived.as_ref().is_some_and(|found| found.contains(number)))
    };
    if !rows.iter().any(missing) {
        return Ok((rows, next));
    }
    let lost = set_aside_rows(folder, missing)?;
    let message = format!(
        "{} games of {} lost their transcripts in a crash: they are set aside (set-aside.csv) and played again",
        lost.len(),
        folder.join(GAMES_CSV).display()
    );
    reporter.report(&Event::Warning { message: &message });
    Ok((rows.into_iter().filter(|row| !missing(row)).collect(), next))
}

/// Moves the rows of `folder`'s games.csv that `retire` picks to
/// set-aside.csv (kept, not counted) and returns them.
pub(super) fn set_aside_rows(
    folder: &Path,
    retire: impl Fn(&GameRow) -> bool,
) -> anyhow::Result<Vec<GameRow>> {
    let path = folder.join(GAMES_CSV);
    let mut reader = csv::Reader::from_reader(std::io::BufReader::new(
        File::open(&path).with_context(|| format!("cannot open {}", path.display()))?,
    ));
    let headers = reader.headers()?.clone();
    let header_end = reader.position().byte();
    let mut record = csv::StringRecord::new();
    let (mut kept, mut retired, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let start = reader.position().byte();
        if !reader.read_record(&mut record)? {
            break;
        }
        let end = reader.position().byte();
        let row: GameRow = record.deserialize(Some(&headers)).with_context(|| {
            format!("{}: row {} cannot be read", path.display(), kept.len() + retired.len() + 2)
        })?;
        if retire(&row) {
            retired.push((start, end));
            rows.push(row);
        } else {
            kept.push((0, start, end));
        }
    }
    if !retired.is_empty() {
        move_rows(&path, header_end, &retired, &folder.join(SET_ASIDE_CSV))?;
        rewrite_in_order(&path, header_end, &kept, None)?;
    }
    Ok(rows)
}
