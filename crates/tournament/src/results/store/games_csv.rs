//! Reading games.csv row by row (never all of it at once), repairing a
//! torn last row, and moving or reordering its rows on disk.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::events::{Event, Reporter};
use crate::rows::GameRow;
/// The rows of games.csv, read one at a time, each with where it lies in
/// the file. A last line without its newline (what a crash leaves behind
/// mid-write) is left out.
pub struct Rows {
    reader: csv::Reader<std::io::Take<BufReader<File>>>,
    headers: csv::StringRecord,
    record: csv::StringRecord,
    path: PathBuf,
    /// The line number of the next row (the header is line 1).
    line: u64,
    header_end: u64,
}

impl Rows {
    /// Opens `path`; `None` if there is no such file.
    pub fn open(path: &Path) -> anyhow::Result<Option<Rows>> {
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error).with_context(|| format!("cannot open {}", path.display()));
            }
        };
        let complete =
            complete_len(&mut file).with_context(|| format!("cannot read {}", path.display()))?;
        file.seek(SeekFrom::Start(0))?;
        let mut reader =
            csv::Reader::from_reader(BufReader::with_capacity(64 << 10, file).take(complete));
        let headers = if complete == 0 {
            csv::StringRecord::new()
        } else {
            reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone()
        };
        let header_end = reader.position().byte();
        Ok(Some(Rows {
            reader,
            headers,
            record: csv::StringRecord::new(),
            path: path.to_owned(),
            line: 2,
            header_end,
        }))
    }

    /// Where the header line ends.
    pub fn header_end(&self) -> u64 {
        self.header_end
    }

    /// The next row and its byte range, or none at the end.
    pub fn next_row(&mut self) -> anyhow::Result<Option<(GameRow, std::ops::Range<u64>)>> {
        let start = self.reader.position().byte();
        let read = self
            .reader
            .read_record(&mut self.record)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        if !read {
            return Ok(None);
        }
        let row: GameRow = self.record.deserialize(Some(&self.headers)).with_context(|| {
            format!("{}: row {} cannot be read", self.path.display(), self.line)
        })?;
        self.line = self.reader.position().line() + 1;
        Ok(Some((row, start..self.reader.position().byte())))
    }
}

/// Reads single rows of games.csv from their bytes (a row found by its
/// place), with one CSV reader for all of them: making a reader per row
/// would cost more than reading the row.
pub struct RowParser {
    reader: csv::Reader<std::io::Cursor<Vec<u8>>>,
    headers: csv::StringRecord,
    record: csv::StringRecord,
}

impl RowParser {
    /// A parser of rows under `headers` (the file's header line).
    pub fn new(headers: csv::StringRecord) -> RowParser {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(std::io::Cursor::new(Vec::new()));
        RowParser { reader, headers, record: csv::StringRecord::new() }
    }

    /// The row whose bytes (one whole line) are `bytes`.
    pub fn parse(&mut self, bytes: &[u8]) -> anyhow::Result<GameRow> {
        let source = self.reader.get_mut().get_mut();
        source.clear();
        source.extend_from_slice(bytes);
        // Back to the start: the reader forgets the last row and its end.
        self.reader.seek_raw(SeekFrom::Start(0), csv::Position::new())?;
        if !self.reader.read_record(&mut self.record)? {
            anyhow::bail!("an empty row");
        }
        Ok(self.record.deserialize(Some(&self.headers))?)
    }
}

/// Every row of `path` to `each`, in file order (nothing when there is no
/// such file).
pub fn for_each_row(
    path: &Path,
    mut each: impl FnMut(GameRow) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let Some(mut rows) = Rows::open(path)? else { return Ok(()) };
    while let Some((row, _)) = rows.next_row()? {
        each(row)?;
    }
    Ok(())
}

/// Reads games.csv whole: for tests. Everything else goes row by row
/// ([`Rows`], [`for_each_row`]), so that no pass holds a folder's rows.
#[cfg(test)]
pub fn read_games_csv(path: &Path) -> anyhow::Result<Vec<GameRow>> {
    let mut rows = Vec::new();
    for_each_row(path, |row| {
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// The length of `file` up to and including its last line break.
fn complete_len(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = vec![0u8; 64 << 10];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.read_exact_at(part, start)?;
        if let Some(at) = memchr::memrchr(b'\n', part) {
            return Ok(start + at as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Cuts a last line without its newline from `path` (what a crash leaves
/// behind mid-write), saying so.
pub fn repair_torn_tail(path: &Path, reporter: &dyn Reporter) -> anyhow::Result<()> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error).with_context(|| format!("cannot open {}", path.display())),
    };
    let len = file.metadata()?.len();
    let complete =
        complete_len(&mut file).with_context(|| format!("cannot read {}", path.display()))?;
    if complete < len {
        let message = format!(
            "dropping an unfinished last line of {} (left by an interrupted write)",
            path.display()
        );
        reporter.report(&Event::Warning { message: &message });
        file.set_len(complete).with_context(|| format!("cannot repair {}", path.display()))?;
    }
    Ok(())
}

/// Rewrites games.csv keeping its header and the rows `keep` picks, in
/// file order; the others are appended to `aside` (with the header if it is
/// new). Streams: memory does not grow with the file. Returns how many
/// rows were set aside.
pub(super) fn set_aside(
    path: &Path,
    aside: &Path,
    keep: impl FnMut(&GameRow) -> bool,
) -> anyhow::Result<u64> {
    move_rows(path, aside, keep)
}

fn move_rows(
    path: &Path,
    aside: &Path,
    mut keep: impl FnMut(&GameRow) -> bool,
) -> anyhow::Result<u64> {
    let Some(mut rows) = Rows::open(path)? else { return Ok(0) };
    let source = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // Half a copy never stands (a full disk least of all): `whole_file`.
    arena_base::whole_file::replace_with(path, 0o666, |kept| -> anyhow::Result<u64> {
        let mut header = vec![0; rows.header_end() as usize];
        source.read_exact_at(&mut header, 0)?;
        kept.write_all(&header)
            .with_context(|| format!("cannot write beside {}", path.display()))?;
        let new_aside = !aside.exists();
        let mut moved = std::io::BufWriter::new(
            File::options()
                .create(true)
                .append(true)
                .open(aside)
                .with_context(|| format!("cannot open {}", aside.display()))?,
        );
        if new_aside {
            moved.write_all(&header)?;
        }
        let mut bytes = Vec::new();
        let mut count = 0;
        while let Some((row, range)) = rows.next_row()? {
            bytes.resize((range.end - range.start) as usize, 0);
            source.read_exact_at(&mut bytes, range.start)?;
            if keep(&row) {
                kept.write_all(&bytes)
            } else {
                count += 1;
                moved.write_all(&bytes)
            }
            .with_context(|| format!("cannot write beside {}", path.display()))?;
        }
        moved.into_inner().map_err(|error| error.into_error())?.sync_all()?;
        Ok(count)
    })
    .with_context(|| format!("cannot replace {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::tests::row;

    #[test]
    fn one_parser_reads_row_after_row_from_their_bytes() {
        let mut first = row("a", "b", "seat1");
        first.forfeit_detail = "a line,\nwith \"quotes\" and a comma".into();
        let second = row("c", "d", "seat2");
        let with_header = first.csv_line(true).unwrap();
        let header_end = with_header.iter().position(|&byte| byte == b'\n').unwrap() + 1;
        let headers = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&with_header[..header_end])
            .headers()
            .unwrap()
            .clone();
        let mut parser = RowParser::new(headers);
        for _ in 0..3 {
            assert_eq!(parser.parse(&with_header[header_end..]).unwrap(), first);
            assert_eq!(parser.parse(&second.csv_line(false).unwrap()).unwrap(), second);
        }
        assert!(parser.parse(b"").is_err());
    }
}
