//! Reading games.csv (a torn last row repaired), and moving or reordering
//! its rows on disk without holding them all.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::Context;

use super::finish::Numbering;
use crate::events::{Event, Reporter};
use crate::results::GameRow;

/// Reads games.csv. A last line without its newline is what a crash leaves
/// behind mid-write: it is dropped (and, with `repair`, cut from the file).
pub fn read_games_csv(
    path: &Path,
    repair: bool,
    reporter: &dyn Reporter,
) -> anyhow::Result<Vec<GameRow>> {
    let mut file = match OpenOptions::new().read(true).write(repair).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot open {}", path.display())),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
    let complete = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |last| last + 1);
    if complete < bytes.len() {
        let message = format!(
            "dropping an unfinished last line of {} (left by an interrupted write)",
            path.display()
        );
        reporter.report(&Event::Warning { message: &message });
        if repair {
            file.set_len(complete as u64)?;
            file.seek(SeekFrom::End(0))?;
        }
    }
    let mut reader = csv::Reader::from_reader(&bytes[..complete]);
    let mut rows = Vec::new();
    for (number, row) in reader.deserialize::<GameRow>().enumerate() {
        rows.push(
            row.with_context(|| format!("{}: row {} cannot be read", path.display(), number + 2))?,
        );
    }
    Ok(rows)
}

/// Appends the rows of `games` at `ranges` to `aside` (with the header if it
/// is new).
pub(super) fn move_rows(
    games: &Path,
    header_end: u64,
    ranges: &[(u64, u64)],
    aside: &Path,
) -> anyhow::Result<()> {
    use std::os::unix::fs::FileExt;
    let source = File::open(games).with_context(|| format!("cannot open {}", games.display()))?;
    let new = !aside.exists();
    let mut out = File::options()
        .create(true)
        .append(true)
        .open(aside)
        .with_context(|| format!("cannot open {}", aside.display()))?;
    let mut bytes = vec![0; header_end as usize];
    if new {
        source.read_exact_at(&mut bytes, 0)?;
        out.write_all(&bytes)?;
    }
    for &(start, end) in ranges {
        bytes.resize((end - start) as usize, 0);
        source.read_exact_at(&mut bytes, start)?;
        out.write_all(&bytes).with_context(|| format!("cannot write {}", aside.display()))?;
    }
    out.sync_all()?;
    Ok(())
}

/// Rewrites games.csv with its rows at `places` (byte ranges) in the given
/// order; with `renumber`, each row is read and numbered again on the way.
pub(super) fn rewrite_in_order(
    path: &Path,
    header_end: u64,
    places: &[(u64, u64, u64)],
    renumber: Option<(&Numbering, &csv::StringRecord)>,
) -> anyhow::Result<()> {
    use std::os::unix::fs::FileExt;
    let source = File::open(path)?;
    let temporary = path.with_extension("tmp-arena");
    let mut out = std::io::BufWriter::new(File::create(&temporary)?);
    let mut bytes = vec![0; header_end as usize];
    source.read_exact_at(&mut bytes, 0)?;
    out.write_all(&bytes)?;
    for &(_, start, end) in places {
        bytes.resize((end - start) as usize, 0);
        source.read_exact_at(&mut bytes, start)?;
        match renumber {
            None => out.write_all(&bytes)?,
            Some((numbering, headers)) => {
                let mut reader =
                    csv::ReaderBuilder::new().has_headers(false).from_reader(&bytes[..]);
                let mut record = csv::StringRecord::new();
                reader.read_record(&mut record)?;
                let mut row: GameRow = record
                    .deserialize(Some(headers))
                    .context("a row of games.csv changed while it was being rewritten")?;
                numbering.apply(&mut row);
                let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(&mut out);
                writer.serialize(&row)?;
                writer.flush()?;
            }
        }
    }
    let file = out.into_inner().map_err(|error| error.into_error())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
