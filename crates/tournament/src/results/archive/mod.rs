//! The transcript archive: every transcript of a results folder in one
//! append-only file, compressed game by game, with an index beside it.
//!
//! A file per transcript costs a file creation per game, which on common
//! disks takes longer than a short game, and a million-game league would
//! leave a million files. The archive appends one frame per game instead:
//!
//! ```text
//! transcripts.archive   frames, one per game, in the order games finished
//!   magic (4 bytes) | transcript number (u64) | transcript length (u32)
//!   | stored length (u32) | CRC-32 of the stored bytes (u32)
//!   | stored bytes: the transcript compressed as the magic says:
//!     "ATR2" an LZ4 block (written now), "ATR1" raw DEFLATE (read only)
//! transcripts.index     16 bytes per frame: transcript number (u64), frame offset (u64)
//! ```
//!
//! A transcript's number is unique in its folder and never reused (game
//! numbers change when bots join or leave a league); games.csv names a
//! game's transcript as `transcripts.archive#N`. Numbers grow in the order
//! frames are written, so the index is sorted by number and a transcript is
//! found by a binary search of it, without holding the index in memory.
//!
//! Integers are little-endian. The archive is the truth and the index a
//! shortcut: a frame found through the index is checked to carry the
//! number asked for (a damaged index never shows another game), and a
//! number the index cannot give is looked for in the archive itself.
//! [`check`] (run when a results folder is resumed) walks every frame: a
//! frame is whole when its magic, lengths and CRC agree; bytes that hold no
//! whole frame are skipped to the next whole one, never a reason to drop
//! what follows, and said with their place and size; only a tail that holds
//! no whole frame (what a crash leaves mid-write) is cut. A game played
//! twice has two frames; the later one is the game's transcript.
//!
//! LZ4 rather than DEFLATE: it compresses a transcript about five times
//! faster for a third more bytes, and the archive's thread shares the
//! machine's CPUs with the games. Archives written with DEFLATE frames stay
//! readable, and new frames may follow them.

mod check;
mod frame;
mod reader;
mod sink;
mod writer;

use std::io;
use std::path::PathBuf;

pub use check::{Checked, check};
pub use frame::Frame;
pub use reader::ArchiveReader;
pub use sink::{AfterFrames, ArchiveSink};
pub use writer::ArchiveWriter;

/// The archive's file name in a results folder.
pub const ARCHIVE_FILE: &str = "transcripts.archive";
/// The index's file name in a results folder.
pub const INDEX_FILE: &str = "transcripts.index";

/// The longest transcript a frame holds (a frame stores lengths as u32).
pub const MAX_TRANSCRIPT_BYTES: usize = u32::MAX as usize;

/// Why the archive could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Reading or writing a file failed.
    // The system's words are in the message, so not a source as well:
    // an error chain would say them twice.
    #[error("{}: {error}", path.display())]
    Io {
        /// The archive or its index.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The archive holds no whole frame of that transcript.
    #[error("{}: no transcript numbered {number}", path.display())]
    NoSuchTranscript {
        /// The archive.
        path: PathBuf,
        /// The transcript number asked for.
        number: u64,
    },
    /// A frame is whole but its bytes are not what was written.
    #[error("{}: the frame of transcript {number} at byte {offset} is damaged ({what})", path.display())]
    Damaged {
        /// The archive.
        path: PathBuf,
        /// The transcript number of the frame.
        number: u64,
        /// Where the frame starts.
        offset: u64,
        /// What is wrong with it.
        what: &'static str,
    },
    /// A transcript too long for a frame's length field.
    #[error("transcript {number} is {bytes} bytes, more than a frame holds")]
    TooLong {
        /// The transcript's number.
        number: u64,
        /// Its length.
        bytes: usize,
    },
}

impl ArchiveError {
    /// An I/O error of the file at `path`.
    fn io(path: &std::path::Path) -> impl Fn(io::Error) -> ArchiveError + '_ {
        move |error| ArchiveError::Io { path: path.to_owned(), error }
    }
}

/// How games.csv names transcript `number` of the folder's archive.
pub fn reference(number: u64) -> String {
    format!("{ARCHIVE_FILE}#{number}")
}

/// The transcript number a games.csv transcript cell names, if it names
/// one of the archive (rather than a file, or nothing).
pub fn parse_reference(cell: &str) -> Option<u64> {
    cell.strip_prefix(ARCHIVE_FILE)?.strip_prefix('#')?.parse().ok()
}

#[cfg(test)]
mod tests;
