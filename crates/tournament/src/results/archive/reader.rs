//! Reading transcripts back by number, without holding the index.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::frame::{Frame, Header, INDEX_ENTRY_BYTES, Window, index_entries};
use super::{ARCHIVE_FILE, ArchiveError, INDEX_FILE};

/// Reads transcripts back by number. Opening reads nothing but the files'
/// lengths; each transcript is found by a binary search of the index (its
/// entries are in number order), checked to be the frame of that number,
/// and else looked for in the archive itself: past the index's last frame
/// (a run still going, or one that crashed), then from the start (an index
/// that is damaged or not in order).
pub struct ArchiveReader {
    archive: File,
    path: PathBuf,
    len: u64,
    index: Option<File>,
    /// Entries in the index.
    entries: u64,
}

impl ArchiveReader {
    /// Opens the archive of `folder` without changing it.
    pub fn open(folder: &Path) -> Result<ArchiveReader, ArchiveError> {
        let path = folder.join(ARCHIVE_FILE);
        let index_path = folder.join(INDEX_FILE);
        let archive = File::open(&path).map_err(ArchiveError::io(&path))?;
        let len = archive.metadata().map_err(ArchiveError::io(&path))?.len();
        let index = match File::open(&index_path) {
            Ok(index) => Some(index),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(ArchiveError::io(&index_path)(error)),
        };
        let entries = match &index {
            Some(index) => {
                index.metadata().map_err(ArchiveError::io(&index_path))?.len() / INDEX_ENTRY_BYTES
            }
            None => 0,
        };
        Ok(ArchiveReader { archive, path, len, index, entries })
    }

    /// Index entry `at`.
    fn entry(&self, at: u64) -> io::Result<(u64, u64)> {
        let mut bytes = [0u8; INDEX_ENTRY_BYTES as usize];
        let index = self.index.as_ref().expect("entries come from an index");
        index.read_exact_at(&mut bytes, at * INDEX_ENTRY_BYTES)?;
        Ok(index_entries(&bytes).next().expect("one entry"))
    }

    /// The offset of the last index entry of `number`, by binary search.
    fn indexed(&self, number: u64) -> io::Result<Option<u64>> {
        let (mut low, mut high) = (0, self.entries);
        // The first entry above `number`; the one before it is the last
        // entry of `number`, if any.
        while low < high {
            let middle = low + (high - low) / 2;
            if self.entry(middle)?.0 <= number {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        if low == 0 {
            return Ok(None);
        }
        let (found, offset) = self.entry(low - 1)?;
        Ok((found == number).then_some(offset))
    }

    /// Where the frames the index lists end: after its last entry's frame.
    fn indexed_end(&self, window: &mut Window<'_>) -> io::Result<u64> {
        if self.entries == 0 {
            return Ok(0);
        }
        let (number, offset) = self.entry(self.entries - 1)?;
        Ok(match window.header_at(offset)? {
            Some(header) if header.number == number => offset + header.frame_len(),
            _ => 0,
        })
    }

    /// The last whole frame of `number` from `from` on, by walking frames.
    fn scan(
        window: &mut Window<'_>,
        number: u64,
        mut from: u64,
    ) -> io::Result<Option<(u64, Header)>> {
        let mut found = None;
        while let Some((offset, header)) = window.next_whole_frame(from)? {
            if header.number == number {
                found = Some((offset, header));
            }
            from = offset + header.frame_len();
        }
        Ok(found)
    }

    /// The frame of `number`: where it is and its header.
    fn locate(&self, number: u64) -> Result<(u64, Header), ArchiveError> {
        let io_error = ArchiveError::io(&self.path);
        let mut window = Window::small(&self.archive, self.len);
        if let Some(offset) = self.indexed(number).map_err(&io_error)?
            && let Some(header) = window.header_at(offset).map_err(&io_error)?
            && header.number == number
        {
            return Ok((offset, header));
        }
        // Not indexed (yet), or the index points elsewhere.
        let indexed_end = self.indexed_end(&mut window).map_err(&io_error)?;
        let found = match Self::scan(&mut window, number, indexed_end).map_err(&io_error)? {
            Some(found) => Some(found),
            None if indexed_end > 0 => Self::scan(&mut window, number, 0).map_err(&io_error)?,
            None => None,
        };
        found.ok_or_else(|| ArchiveError::NoSuchTranscript { path: self.path.clone(), number })
    }

    /// Whether transcript `number` is in the archive.
    #[cfg(test)]
    pub fn contains(&self, number: u64) -> bool {
        self.locate(number).is_ok()
    }

    /// Transcript `number`, checked against its checksum.
    pub fn read(&mut self, number: u64) -> Result<Vec<u8>, ArchiveError> {
        let (offset, header) = self.locate(number)?;
        let mut window = Window::small(&self.archive, self.len);
        window
            .transcript(offset, &header)
            .map_err(ArchiveError::io(&self.path))?
            .map_err(|what| ArchiveError::Damaged { path: self.path.clone(), number, offset, what })
    }

    /// Transcript `number`'s frame as it is stored (checked against its
    /// checksum), numbered `renumbered`: what `arena merge` copies into
    /// another archive without decompressing and compressing again.
    pub fn frame(&mut self, number: u64, renumbered: u64) -> Result<Frame, ArchiveError> {
        let (offset, header) = self.locate(number)?;
        let mut window = Window::small(&self.archive, self.len);
        let damaged =
            |what| ArchiveError::Damaged { path: self.path.clone(), number, offset, what };
        let bytes = window
            .bytes(offset, header.frame_len())
            .map_err(ArchiveError::io(&self.path))?
            .ok_or_else(|| damaged("it runs past the end of the file"))?;
        Frame::stored(bytes, renumbered).ok_or_else(|| damaged("checksum mismatch"))
    }
}
