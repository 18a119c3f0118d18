//! Appending frames to the archive and their entries to its index.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::frame::{Frame, INDEX_ENTRY_BYTES, Window, index_entries, index_entry};
use super::{ARCHIVE_FILE, ArchiveError, INDEX_FILE};

/// Appends frames; one per results folder, held by the run that owns the
/// folder's lock.
pub struct ArchiveWriter {
    archive: File,
    index: File,
    archive_path: PathBuf,
    index_path: PathBuf,
    /// Where the next frame goes.
    end: u64,
}

impl ArchiveWriter {
    /// Opens (or creates) the archive in `folder` for appending. The index
    /// is trusted up to its last entry whose frame is in place and carries
    /// the entry's number ([`super::check`] verifies every frame, and runs
    /// first when a folder is resumed); whole frames after it are indexed,
    /// and a tail that holds no whole frame (torn by a crash) is cut.
    pub fn open(folder: &Path) -> Result<ArchiveWriter, ArchiveError> {
        let archive_path = folder.join(ARCHIVE_FILE);
        let index_path = folder.join(INDEX_FILE);
        let open = |path: &Path| {
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
        };
        let mut archive = open(&archive_path).map_err(ArchiveError::io(&archive_path))?;
        let mut index = open(&index_path).map_err(ArchiveError::io(&index_path))?;
        let archive_len = archive.metadata().map_err(ArchiveError::io(&archive_path))?.len();
        let index_len = index.metadata().map_err(ArchiveError::io(&index_path))?.len();

        // The index's last entries, read from its end until one holds.
        let mut window = Window::new(&archive, archive_len);
        let mut listed = index_len / INDEX_ENTRY_BYTES;
        let mut end = 0;
        let mut entry = [0u8; INDEX_ENTRY_BYTES as usize];
        while listed > 0 {
            index
                .seek(SeekFrom::Start((listed - 1) * INDEX_ENTRY_BYTES))
                .map_err(ArchiveError::io(&index_path))?;
            index.read_exact(&mut entry).map_err(ArchiveError::io(&index_path))?;
            let (number, offset) = index_entries(&entry).next().expect("one entry");
            let header = window.header_at(offset).map_err(ArchiveError::io(&archive_path))?;
            if let Some(header) = header.filter(|header| header.number == number) {
                end = offset + header.frame_len();
                break;
            }
            listed -= 1;
        }
        // Frames after it were written but not indexed.
        let mut missed = Vec::new();
        while let Some((offset, header)) =
            window.next_whole_frame(end).map_err(ArchiveError::io(&archive_path))?
        {
            missed.extend_from_slice(&index_entry(header.number, offset));
            end = offset + header.frame_len();
        }
        drop(window);
        if end < archive_len {
            archive.set_len(end).map_err(ArchiveError::io(&archive_path))?;
        }
        // Drop the index's torn or untrusted tail, then list what it missed.
        index.set_len(listed * INDEX_ENTRY_BYTES).map_err(ArchiveError::io(&index_path))?;
        index.seek(SeekFrom::End(0)).map_err(ArchiveError::io(&index_path))?;
        index.write_all(&missed).map_err(ArchiveError::io(&index_path))?;
        archive.seek(SeekFrom::Start(end)).map_err(ArchiveError::io(&archive_path))?;
        Ok(ArchiveWriter { archive, index, archive_path, index_path, end })
    }

    /// Appends frames with one write, then their index entries with
    /// another. A failure leaves at worst torn frames, which the next open
    /// cuts off, or frames without entries, which it indexes.
    pub fn append_all(&mut self, frames: &[Frame]) -> Result<(), ArchiveError> {
        let mut bytes = Vec::with_capacity(frames.iter().map(|frame| frame.bytes.len()).sum());
        for frame in frames {
            bytes.extend_from_slice(&frame.bytes);
        }
        self.archive.write_all(&bytes).map_err(ArchiveError::io(&self.archive_path))?;
        let mut entries = Vec::with_capacity(frames.len() * INDEX_ENTRY_BYTES as usize);
        for frame in frames {
            entries.extend_from_slice(&index_entry(frame.number, self.end));
            self.end += frame.bytes.len() as u64;
        }
        self.index.write_all(&entries).map_err(ArchiveError::io(&self.index_path))
    }

    /// Appends a frame, then its index entry.
    #[cfg(test)]
    pub fn append(&mut self, frame: &Frame) -> Result<(), ArchiveError> {
        self.append_all(std::slice::from_ref(frame))
    }
}
