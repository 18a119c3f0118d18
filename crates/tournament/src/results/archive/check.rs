//! Checking a whole archive when its results folder is resumed: every
//! frame read and its CRC verified, damaged bytes skipped to the next
//! whole frame, the index verified against the frames and rebuilt if it
//! disagrees.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use super::frame::{INDEX_ENTRY_BYTES, Window, index_entries, index_entry};
use super::{ARCHIVE_FILE, ArchiveError, INDEX_FILE};
use arena_base::bits::BitSet;

/// What [`check`] found.
#[derive(Debug, Default)]
pub struct Checked {
    /// The transcript numbers of the whole frames.
    pub present: BitSet,
    /// The highest of them (0 when there is none).
    pub highest: u64,
    /// Whole frames.
    pub frames: u64,
    /// Stretches that held no whole frame (offset, bytes), skipped: the
    /// frames after them are kept.
    pub skipped: Vec<(u64, u64)>,
    /// Bytes at the end that held no whole frame (a frame torn by a
    /// crash), cut off.
    pub cut: u64,
    /// Whether the index disagreed with the frames and was written anew.
    pub index_rebuilt: bool,
}

/// Walks every frame of the archive in `folder` (there must be one):
/// records the numbers of the whole frames, skips what is damaged to the
/// next whole frame, cuts a torn tail, and rewrites the index if it does
/// not list exactly the whole frames, each at its place with its number.
pub fn check(folder: &Path) -> Result<Checked, ArchiveError> {
    let archive_path = folder.join(ARCHIVE_FILE);
    let index_path = folder.join(INDEX_FILE);
    let archive = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&archive_path)
        .map_err(ArchiveError::io(&archive_path))?;
    let len = archive.metadata().map_err(ArchiveError::io(&archive_path))?.len();
    let mut index = match File::open(&index_path) {
        Ok(index) => Some(BufReader::new(index)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(ArchiveError::io(&index_path)(error)),
    };
    let mut checked = Checked::default();
    // Whether every entry the index has matches its frame, how many it
    // has, and the first frame it lacks (what a crash between a frame and
    // its entry leaves: added without a word).
    let (mut agrees, mut listed, mut first_unlisted) = (index.is_some(), 0u64, None);
    let end = walk(&archive, 0, len, &mut checked, |number, offset| {
        let mut entry = [0u8; INDEX_ENTRY_BYTES as usize];
        let read = index.as_mut().is_some_and(|index| index.read_exact(&mut entry).is_ok());
        if read {
            listed += 1;
            agrees &= index_entries(&entry).next() == Some((number, offset));
        } else {
            first_unlisted.get_or_insert(offset);
        }
        Ok(())
    })
    .map_err(ArchiveError::io(&archive_path))?;
    // An entry past the frames (but a torn one) is wrong too.
    let mut rest = [0u8; INDEX_ENTRY_BYTES as usize];
    agrees &= index.as_mut().is_none_or(|index| index.read_exact(&mut rest).is_err());
    drop(index);
    if end < len {
        checked.cut = len - end;
        archive.set_len(end).map_err(ArchiveError::io(&archive_path))?;
    }
    if !agrees {
        rebuild_index(&archive, end, &index_path).map_err(ArchiveError::io(&index_path))?;
        checked.index_rebuilt = true;
    } else if let Some(from) = first_unlisted {
        complete_index(&archive, from, end, listed, &index_path)
            .map_err(ArchiveError::io(&index_path))?;
    }
    Ok(checked)
}

/// Walks the whole frames of `archive` from `from` (a frame's start) to
/// `len`, telling `found` each one's number and offset and counting them
/// in `checked`; returns where the last whole frame ends.
fn walk(
    archive: &File,
    from: u64,
    len: u64,
    checked: &mut Checked,
    mut found: impl FnMut(u64, u64) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    let mut window = Window::new(archive, len);
    let mut offset = from;
    let mut end = from;
    while offset < len {
        let (at, header) = match window.whole_frame_at(offset)? {
            Some(header) => (offset, header),
            None => match window.next_whole_frame(offset + 1)? {
                Some((at, header)) => {
                    checked.skipped.push((offset, at - offset));
                    (at, header)
                }
                None => break,
            },
        };
        found(header.number, at)?;
        checked.frames += 1;
        checked.highest = checked.highest.max(header.number);
        insert_number(&mut checked.present, header.number, checked.frames);
        offset = at + header.frame_len();
        end = offset;
    }
    Ok(end)
}

/// Adds `number` to `present` unless it is far beyond any number an
/// archive of `frames` frames gives out (a damaged header's): the set
/// holds a bit per number, so such a number would take memory for
/// nothing. Its frame stays in the index.
fn insert_number(present: &mut BitSet, number: u64, frames: u64) {
    if number <= frames.saturating_mul(16).saturating_add(1 << 20) {
        present.insert(number);
    }
}

/// Writes the index of the whole frames of `archive` up to `end` anew.
fn rebuild_index(archive: &File, end: u64, index_path: &Path) -> std::io::Result<()> {
    arena_base::whole_file::replace_with(index_path, 0o666, |out| {
        let mut ignored = Checked::default();
        walk(archive, 0, end, &mut ignored, |number, offset| {
            out.write_all(&index_entry(number, offset))
        })
        .map(drop)
    })
}

/// Adds to the index (which lists its first `listed` frames rightly) the
/// frames from `from` to `end`.
fn complete_index(
    archive: &File,
    from: u64,
    end: u64,
    listed: u64,
    index_path: &Path,
) -> std::io::Result<()> {
    let index = OpenOptions::new().write(true).open(index_path)?;
    // A torn last entry goes.
    index.set_len(listed * INDEX_ENTRY_BYTES)?;
    let mut out = BufWriter::new(OpenOptions::new().append(true).open(index_path)?);
    let mut ignored = Checked::default();
    walk(archive, from, end, &mut ignored, |number, offset| {
        out.write_all(&index_entry(number, offset))
    })?;
    out.into_inner().map_err(|error| error.into_error())?.sync_all()
}
