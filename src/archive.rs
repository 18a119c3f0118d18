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
//! game's transcript as `transcripts.archive#N`. Below, "game" in names
//! means that number.
//!
//! Integers are little-endian. The archive is the truth and the index a
//! shortcut: opening for append checks the index against the archive,
//! indexes frames the index missed, and cuts a frame torn by a crash, so a
//! run killed at any point resumes with every complete frame. A game played
//! twice (its row was lost in a crash, so it was replayed) has two frames;
//! the later one is the game's transcript, as its row is the later one.
//!
//! LZ4 rather than DEFLATE: it compresses a transcript about five times
//! faster for a third more bytes, and the archive's thread shares the
//! machine's CPUs with the games. Archives written with DEFLATE frames stay
//! readable, and new frames may follow them.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use flate2::read::DeflateDecoder;

/// The archive's file name in a results folder.
pub const ARCHIVE_FILE: &str = "transcripts.archive";
/// The index's file name in a results folder.
pub const INDEX_FILE: &str = "transcripts.index";

/// The magic of the frames written now: the transcript as an LZ4 block.
const MAGIC_LZ4: &[u8; 4] = b"ATR2";
/// The magic of DEFLATE frames, which earlier versions wrote.
const MAGIC_DEFLATE: &[u8; 4] = b"ATR1";
const HEADER_BYTES: u64 = 4 + 8 + 4 + 4 + 4;
const INDEX_ENTRY_BYTES: u64 = 16;
/// The longest transcript a frame holds (a frame stores lengths as u32).
pub const MAX_TRANSCRIPT_BYTES: usize = u32::MAX as usize;

/// Why the archive could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The archive or its index.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The archive holds no frame of that game.
    #[error("{}: no transcript of game {game}", path.display())]
    NoSuchGame {
        /// The archive.
        path: PathBuf,
        /// The game asked for.
        game: u64,
    },
    /// A frame is whole but its bytes are not what was written.
    #[error("{}: the frame of game {game} at byte {offset} is damaged ({what})", path.display())]
    Damaged {
        /// The archive.
        path: PathBuf,
        /// The game whose frame it is.
        game: u64,
        /// Where the frame starts.
        offset: u64,
        /// What is wrong with it.
        what: &'static str,
    },
    /// A transcript too long for a frame's length field.
    #[error("transcript of game {game} is {bytes} bytes, more than a frame holds")]
    TooLong {
        /// The game.
        game: u64,
        /// Its transcript's length.
        bytes: usize,
    },
}

/// One game's transcript, compressed and ready to append. Compressing is
/// the expensive part, so workers do it before taking the writer's lock.
pub struct Frame {
    game: u64,
    bytes: Vec<u8>,
}

impl Frame {
    /// Compresses game `game`'s transcript into a frame.
    pub fn compress(game: u64, transcript: &[u8]) -> Result<Frame, ArchiveError> {
        if transcript.len() > MAX_TRANSCRIPT_BYTES {
            return Err(ArchiveError::TooLong { game, bytes: transcript.len() });
        }
        // The header's room first; the block follows it.
        let header_len = HEADER_BYTES as usize;
        let mut bytes =
            vec![0; header_len + lz4_flex::block::get_maximum_output_size(transcript.len())];
        let compressed_len = lz4_flex::block::compress_into(transcript, &mut bytes[header_len..])
            .expect("the buffer holds the largest block");
        bytes.truncate(header_len + compressed_len);
        let stored = &bytes[header_len..];
        let stored_len = u32::try_from(stored.len())
            .map_err(|_| ArchiveError::TooLong { game, bytes: transcript.len() })?;
        let checksum = crc32fast::hash(stored);
        let mut header = [0u8; HEADER_BYTES as usize];
        header[..4].copy_from_slice(MAGIC_LZ4);
        header[4..12].copy_from_slice(&game.to_le_bytes());
        header[12..16].copy_from_slice(&(transcript.len() as u32).to_le_bytes());
        header[16..20].copy_from_slice(&stored_len.to_le_bytes());
        header[20..24].copy_from_slice(&checksum.to_le_bytes());
        bytes[..HEADER_BYTES as usize].copy_from_slice(&header);
        Ok(Frame { game, bytes })
    }
}

/// A frame's header, read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    codec: Codec,
    game: u64,
    transcript_len: u32,
    stored_len: u32,
    checksum: u32,
}

impl Header {
    fn parse(bytes: &[u8; HEADER_BYTES as usize]) -> Option<Header> {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let codec = match &bytes[..4] {
            magic if magic == MAGIC_LZ4 => Codec::Lz4,
            magic if magic == MAGIC_DEFLATE => Codec::Deflate,
            _ => return None,
        };
        Some(Header {
            codec,
            game: u64::from_le_bytes(bytes[4..12].try_into().unwrap()),
            transcript_len: u32_at(12),
            stored_len: u32_at(16),
            checksum: u32_at(20),
        })
    }

    fn frame_len(&self) -> u64 {
        HEADER_BYTES + u64::from(self.stored_len)
    }
}

/// How a frame's stored bytes are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Lz4,
    Deflate,
}

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
    /// Opens (or creates) the archive in `folder` for appending, after
    /// repairing what a crash may have left: index entries past the last
    /// complete frame are dropped, frames the index missed are indexed, and
    /// a torn last frame is cut off.
    pub fn open(folder: &Path) -> Result<ArchiveWriter, ArchiveError> {
        let archive_path = folder.join(ARCHIVE_FILE);
        let index_path = folder.join(INDEX_FILE);
        let io_error = |path: &Path| {
            let path = path.to_owned();
            move |source| ArchiveError::Io { path, source }
        };
        let open = |path: &Path| {
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
        };
        let mut archive = open(&archive_path).map_err(io_error(&archive_path))?;
        let mut index = open(&index_path).map_err(io_error(&index_path))?;

        let archive_len = archive.metadata().map_err(io_error(&archive_path))?.len();
        let mut entries = read_index(&mut index).map_err(io_error(&index_path))?;
        // Trust the index up to its last entry whose frame is whole.
        let mut end = 0;
        while let Some(&(_, offset)) = entries.last() {
            match read_header(&mut archive, offset, archive_len).map_err(io_error(&archive_path))? {
                Some(header) => {
                    end = offset + header.frame_len();
                    break;
                }
                None => {
                    entries.pop();
                }
            }
        }
        // Frames after it were written but not indexed.
        let listed = entries.len();
        while let Some(header) =
            read_header(&mut archive, end, archive_len).map_err(io_error(&archive_path))?
        {
            entries.push((header.game, end));
            end += header.frame_len();
        }
        if end < archive_len {
            archive.set_len(end).map_err(io_error(&archive_path))?;
        }
        // Drop the index's torn or untrusted tail, then list what it missed.
        index.set_len(listed as u64 * INDEX_ENTRY_BYTES).map_err(io_error(&index_path))?;
        index.seek(SeekFrom::End(0)).map_err(io_error(&index_path))?;
        let missed: Vec<u8> = entries[listed..]
            .iter()
            .flat_map(|(game, offset)| [game.to_le_bytes(), offset.to_le_bytes()])
            .flatten()
            .collect();
        index.write_all(&missed).map_err(io_error(&index_path))?;
        archive.seek(SeekFrom::Start(end)).map_err(io_error(&archive_path))?;
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
        self.archive
            .write_all(&bytes)
            .map_err(|source| ArchiveError::Io { path: self.archive_path.clone(), source })?;
        let mut entries = Vec::with_capacity(frames.len() * INDEX_ENTRY_BYTES as usize);
        for frame in frames {
            entries.extend_from_slice(&frame.game.to_le_bytes());
            entries.extend_from_slice(&self.end.to_le_bytes());
            self.end += frame.bytes.len() as u64;
        }
        self.index
            .write_all(&entries)
            .map_err(|source| ArchiveError::Io { path: self.index_path.clone(), source })
    }

    /// Appends a frame, then its index entry. A failure leaves at worst a
    /// torn frame, which the next open cuts off.
    pub fn append(&mut self, frame: &Frame) -> Result<(), ArchiveError> {
        self.archive
            .write_all(&frame.bytes)
            .map_err(|source| ArchiveError::Io { path: self.archive_path.clone(), source })?;
        let mut entry = [0u8; INDEX_ENTRY_BYTES as usize];
        entry[..8].copy_from_slice(&frame.game.to_le_bytes());
        entry[8..].copy_from_slice(&self.end.to_le_bytes());
        self.end += frame.bytes.len() as u64;
        self.index
            .write_all(&entry)
            .map_err(|source| ArchiveError::Io { path: self.index_path.clone(), source })
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

/// Appends transcripts from a thread of its own, so that compressing and
/// writing them costs the games nothing where a CPU is free. Transcripts
/// are handed over in batches (waking a thread per game would cost more
/// than a short game), and batches queue up to a bound, beyond which the
/// games wait for the disk. A crash loses the batch in hand: the games
/// whose rows name a missing transcript are played again on resume.
pub struct ArchiveSink {
    sender: Option<mpsc::SyncSender<Batch>>,
    thread: Option<JoinHandle<Result<(), ArchiveError>>>,
    next: u64,
    batch: Vec<(u64, Vec<u8>)>,
    batch_bytes: usize,
    batch_started: std::time::Instant,
}

/// Transcripts with their numbers, handed to the archive's thread at once.
type Batch = Vec<(u64, Vec<u8>)>;

/// Batches waiting for the archive's thread at most.
const SINK_QUEUE: usize = 16;
/// A batch is handed over at this many transcripts, this many bytes, or
/// this long after its first transcript, whichever comes first.
const BATCH_GAMES: usize = 64;
const BATCH_BYTES: usize = 1 << 20;
const BATCH_AGE: std::time::Duration = std::time::Duration::from_millis(250);

impl ArchiveSink {
    /// Opens the archive of `folder` (repairing it, see
    /// [`ArchiveWriter::open`]) and starts its thread; transcripts get
    /// numbers from `next` on.
    ///
    /// With `cpu`, the thread runs there only (a CPU no game runs on);
    /// without, it runs only when the CPUs would be idle, so it never
    /// preempts a game.
    pub fn start(
        folder: &Path,
        next: u64,
        cpu: Option<usize>,
    ) -> Result<ArchiveSink, ArchiveError> {
        let mut writer = ArchiveWriter::open(folder)?;
        let (sender, receiver) = mpsc::sync_channel::<Batch>(SINK_QUEUE);
        let thread = std::thread::Builder::new()
            .name("arena-archive".into())
            .spawn(move || {
                match cpu {
                    Some(cpu) => crate::os::pin_current_thread(cpu),
                    // Sharing the games' CPUs: it runs when they wait, and
                    // when its queue is full they wait for it.
                    None => crate::os::run_current_thread_when_idle(),
                }
                for batch in receiver {
                    let frames = batch
                        .iter()
                        .map(|(number, transcript)| Frame::compress(*number, transcript))
                        .collect::<Result<Vec<_>, _>>()?;
                    writer.append_all(&frames)?;
                }
                Ok(())
            })
            .map_err(|source| ArchiveError::Io { path: folder.join(ARCHIVE_FILE), source })?;
        Ok(ArchiveSink {
            sender: Some(sender),
            thread: Some(thread),
            next,
            batch: Vec::with_capacity(BATCH_GAMES),
            batch_bytes: 0,
            batch_started: std::time::Instant::now(),
        })
    }

    /// Queues a transcript and returns its number.
    pub fn add(&mut self, transcript: Vec<u8>) -> Result<u64, ArchiveError> {
        let number = self.next;
        self.next += 1;
        if self.batch.is_empty() {
            self.batch_started = std::time::Instant::now();
        }
        self.batch_bytes += transcript.len();
        self.batch.push((number, transcript));
        if self.batch.len() >= BATCH_GAMES
            || self.batch_bytes >= BATCH_BYTES
            || self.batch_started.elapsed() >= BATCH_AGE
        {
            self.hand_over()?;
        }
        Ok(number)
    }

    /// Sends the batch in hand to the thread.
    fn hand_over(&mut self) -> Result<(), ArchiveError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_GAMES));
        self.batch_bytes = 0;
        let sent = self.sender.as_ref().map(|sender| sender.send(batch));
        if !matches!(sent, Some(Ok(()))) {
            // The thread stopped: its error says why.
            self.sender = None;
            self.finish()?;
            return Err(ArchiveError::Io {
                path: PathBuf::from(ARCHIVE_FILE),
                source: io::Error::other("the archive's writer has stopped"),
            });
        }
        Ok(())
    }

    /// Writes what is queued and stops the thread.
    pub fn finish(&mut self) -> Result<(), ArchiveError> {
        if self.sender.is_some() {
            self.hand_over()?;
        }
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for ArchiveSink {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Reads transcripts back by game number.
pub struct ArchiveReader {
    archive: File,
    path: PathBuf,
    len: u64,
    /// Each game's latest frame.
    offsets: HashMap<u64, u64>,
}

impl ArchiveReader {
    /// Opens the archive of `folder` without changing it. Frames the index
    /// does not list yet (a run still going, or one that crashed) are found
    /// by reading on from the last listed frame.
    pub fn open(folder: &Path) -> Result<ArchiveReader, ArchiveError> {
        let path = folder.join(ARCHIVE_FILE);
        let index_path = folder.join(INDEX_FILE);
        let io_error = |path: &Path| {
            let path = path.to_owned();
            move |source| ArchiveError::Io { path, source }
        };
        let mut archive = File::open(&path).map_err(io_error(&path))?;
        let len = archive.metadata().map_err(io_error(&path))?.len();
        let entries = match File::open(&index_path) {
            Ok(mut index) => read_index(&mut index).map_err(io_error(&index_path))?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(error) => return Err(io_error(&index_path)(error)),
        };
        let mut offsets = HashMap::with_capacity(entries.len());
        let mut end = 0;
        for &(game, offset) in &entries {
            if let Some(header) = read_header(&mut archive, offset, len).map_err(io_error(&path))? {
                offsets.insert(game, offset);
                end = end.max(offset + header.frame_len());
            }
        }
        while let Some(header) = read_header(&mut archive, end, len).map_err(io_error(&path))? {
            offsets.insert(header.game, end);
            end += header.frame_len();
        }
        Ok(ArchiveReader { archive, path, len, offsets })
    }

    /// The highest transcript number in the archive (0 when empty).
    pub fn highest(&self) -> u64 {
        self.offsets.keys().copied().max().unwrap_or(0)
    }

    /// Whether transcript `game` is in the archive.
    pub fn contains(&self, game: u64) -> bool {
        self.offsets.contains_key(&game)
    }

    /// The game numbers with a transcript, in order.
    #[cfg(test)]
    pub fn games(&self) -> Vec<u64> {
        let mut games: Vec<u64> = self.offsets.keys().copied().collect();
        games.sort_unstable();
        games
    }

    /// The transcript of game `game`, checked against its checksum.
    pub fn read(&mut self, game: u64) -> Result<Vec<u8>, ArchiveError> {
        let offset = *self
            .offsets
            .get(&game)
            .ok_or_else(|| ArchiveError::NoSuchGame { path: self.path.clone(), game })?;
        let io_error = |source| ArchiveError::Io { path: self.path.clone(), source };
        let damaged = |what| ArchiveError::Damaged { path: self.path.clone(), game, offset, what };
        let header = read_header(&mut self.archive, offset, self.len)
            .map_err(io_error)?
            .ok_or_else(|| damaged("its header is unreadable"))?;
        let mut stored = vec![0; header.stored_len as usize];
        self.archive.read_exact(&mut stored).map_err(io_error)?;
        if crc32fast::hash(&stored) != header.checksum {
            return Err(damaged("checksum mismatch"));
        }
        let expected_len = header.transcript_len as usize;
        let transcript = match header.codec {
            Codec::Lz4 => {
                let mut transcript = vec![0; expected_len];
                lz4_flex::block::decompress_into(&stored, &mut transcript)
                    .map_err(|_| damaged("it does not decompress"))
                    .map(|len| {
                        transcript.truncate(len);
                        transcript
                    })
            }
            Codec::Deflate => {
                let mut transcript = Vec::with_capacity(expected_len);
                DeflateDecoder::new(stored.as_slice())
                    .read_to_end(&mut transcript)
                    .map_err(|_| damaged("it does not decompress"))
                    .map(|_| transcript)
            }
        }?;
        if transcript.len() != expected_len {
            return Err(damaged("its length differs from its header's"));
        }
        Ok(transcript)
    }
}

fn read_index(index: &mut File) -> io::Result<Vec<(u64, u64)>> {
    let mut bytes = Vec::new();
    index.seek(SeekFrom::Start(0))?;
    index.read_to_end(&mut bytes)?;
    // A torn last entry is dropped with the rest of what follows it.
    Ok(bytes
        .chunks_exact(INDEX_ENTRY_BYTES as usize)
        .map(|entry| {
            let game = u64::from_le_bytes(entry[..8].try_into().unwrap());
            let offset = u64::from_le_bytes(entry[8..].try_into().unwrap());
            (game, offset)
        })
        .collect())
}

/// The header of the frame at `offset`, if a whole frame lies there (the
/// file is long enough for its header and stored bytes). Leaves the file
/// positioned at the frame's stored bytes.
fn read_header(archive: &mut File, offset: u64, archive_len: u64) -> io::Result<Option<Header>> {
    if offset.checked_add(HEADER_BYTES).is_none_or(|header_end| header_end > archive_len) {
        return Ok(None);
    }
    let mut bytes = [0u8; HEADER_BYTES as usize];
    archive.seek(SeekFrom::Start(offset))?;
    archive.read_exact(&mut bytes)?;
    Ok(Header::parse(&bytes).filter(|header| offset + header.frame_len() <= archive_len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn transcript(game: u64) -> Vec<u8> {
        let mut text = format!("{{\"type\":\"header\",\"game\":{game}}}\n");
        for turn in 0..50 {
            text.push_str(&format!("{{\"type\":\"send\",\"at\":{},\"turn\":{turn}}}\n", turn * 13));
        }
        text.into_bytes()
    }

    fn write_games(folder: &Path, games: impl IntoIterator<Item = u64>) {
        let mut writer = ArchiveWriter::open(folder).unwrap();
        for game in games {
            writer.append(&Frame::compress(game, &transcript(game)).unwrap()).unwrap();
        }
    }

    #[test]
    fn transcripts_read_back_as_written_and_smaller_on_disk() {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), 1..=40);
        write_games(folder.path(), 41..=60);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=60).collect::<Vec<_>>());
        for game in [1, 17, 40, 41, 60] {
            assert_eq!(reader.read(game).unwrap(), transcript(game));
        }
        let written: usize = (1..=60).map(|game| transcript(game).len()).sum();
        let stored = fs::metadata(folder.path().join(ARCHIVE_FILE)).unwrap().len() as usize;
        assert!(stored * 3 < written, "{stored} bytes stored for {written}");
        assert!(matches!(reader.read(61), Err(ArchiveError::NoSuchGame { game: 61, .. })));
    }

    #[test]
    fn a_torn_frame_is_cut_and_every_whole_one_kept() {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), 1..=10);
        let archive_path = folder.path().join(ARCHIVE_FILE);
        let whole = fs::metadata(&archive_path).unwrap().len();
        // A crash in the middle of game 11's frame, before its index entry.
        let frame = Frame::compress(11, &transcript(11)).unwrap();
        let mut file = OpenOptions::new().append(true).open(&archive_path).unwrap();
        file.write_all(&frame.bytes[..frame.bytes.len() / 2]).unwrap();
        drop(file);

        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=10).collect::<Vec<_>>(), "a reader skips the torn frame");
        assert_eq!(reader.read(10).unwrap(), transcript(10));

        write_games(folder.path(), [11, 12]);
        assert!(fs::metadata(&archive_path).unwrap().len() > whole);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=12).collect::<Vec<_>>());
        assert_eq!(reader.read(11).unwrap(), transcript(11));
        assert_eq!(reader.read(12).unwrap(), transcript(12));
    }

    #[test]
    fn frames_the_index_missed_are_found_and_a_lost_index_rebuilt() {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), 1..=5);
        let index_path = folder.path().join(INDEX_FILE);
        // A crash between a frame and its index entry, and a torn entry.
        let index = fs::read(&index_path).unwrap();
        fs::write(&index_path, &index[..index.len() - 16 - 16 + 5]).unwrap();
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=5).collect::<Vec<_>>());
        assert_eq!(reader.read(5).unwrap(), transcript(5));

        fs::remove_file(&index_path).unwrap();
        write_games(folder.path(), [6]);
        assert_eq!(fs::metadata(&index_path).unwrap().len(), 6 * 16);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=6).collect::<Vec<_>>());
        assert_eq!(reader.read(3).unwrap(), transcript(3));
    }

    #[test]
    fn a_replayed_game_reads_as_its_last_frame() {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), [1, 2]);
        let mut writer = ArchiveWriter::open(folder.path()).unwrap();
        writer.append(&Frame::compress(2, b"replayed\n").unwrap()).unwrap();
        drop(writer);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.read(2).unwrap(), b"replayed\n");
        assert_eq!(reader.games(), vec![1, 2]);
    }

    /// A frame as earlier versions wrote it: the transcript as raw DEFLATE.
    fn deflate_frame(game: u64, transcript: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(transcript).unwrap();
        let stored = encoder.finish().unwrap();
        let mut frame = MAGIC_DEFLATE.to_vec();
        frame.extend_from_slice(&game.to_le_bytes());
        frame.extend_from_slice(&(transcript.len() as u32).to_le_bytes());
        frame.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        frame.extend_from_slice(&crc32fast::hash(&stored).to_le_bytes());
        frame.extend_from_slice(&stored);
        frame
    }

    #[test]
    fn an_archive_of_deflate_frames_reads_and_takes_new_frames() {
        let folder = tempfile::tempdir().unwrap();
        let old: Vec<u8> =
            (1..=3).flat_map(|game| deflate_frame(game, &transcript(game))).collect();
        fs::write(folder.path().join(ARCHIVE_FILE), old).unwrap();
        write_games(folder.path(), [4, 5]);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.games(), (1..=5).collect::<Vec<_>>());
        for game in 1..=5 {
            assert_eq!(reader.read(game).unwrap(), transcript(game));
        }
    }

    #[test]
    fn a_damaged_frame_is_reported_not_misread() {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), [1, 2]);
        let archive_path = folder.path().join(ARCHIVE_FILE);
        let mut bytes = fs::read(&archive_path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0xff;
        fs::write(&archive_path, bytes).unwrap();
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(reader.read(1).unwrap(), transcript(1));
        let error = reader.read(2).unwrap_err();
        assert!(matches!(error, ArchiveError::Damaged { game: 2, .. }), "{error}");
        assert!(error.to_string().contains(ARCHIVE_FILE), "{error}");
    }
}
