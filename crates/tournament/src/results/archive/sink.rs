//! Appending transcripts from a thread of their own, each game's record
//! (its games.csv row) written after its transcript.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use super::frame::Frame;
use super::writer::ArchiveWriter;
use super::{ARCHIVE_FILE, ArchiveError};

/// What the sink writes once a batch's frames are in the archive: the
/// batch's records (games.csv rows), handed over as bytes, so that no
/// record stands before its transcript. The path names the file in errors.
pub struct AfterFrames {
    /// The records' file, named in errors.
    pub path: PathBuf,
    /// What writes the records to it.
    pub write: WriteRecords,
}

/// Writes records (bytes) to their file.
pub type WriteRecords = Box<dyn FnMut(&[u8]) -> io::Result<()> + Send>;

/// Appends transcripts from a thread of its own, so that compressing and
/// writing them costs the games nothing where a CPU is free. Transcripts
/// are handed over in batches (waking a thread per game would cost more
/// than a short game), and batches queue up to a bound, beyond which the
/// games wait for the disk. Each batch's records follow its frames, so a
/// crash loses a batch whole, rows and transcripts alike: those games are
/// simply played again on resume.
pub struct ArchiveSink {
    sender: Option<mpsc::SyncSender<Batch>>,
    thread: Option<JoinHandle<Result<(), ArchiveError>>>,
    next: u64,
    batch: Batch,
    batch_bytes: usize,
    batch_started: std::time::Instant,
}

/// Transcripts with their numbers, and the records that follow them.
#[derive(Default)]
struct Batch {
    transcripts: Vec<(u64, Vec<u8>)>,
    records: Vec<u8>,
}

/// Batches waiting for the archive's thread at most.
const SINK_QUEUE: usize = 16;
/// A batch is handed over at this many transcripts, this many bytes, or
/// this long after its first transcript, whichever comes first.
const BATCH_GAMES: usize = 64;
const BATCH_BYTES: usize = 1 << 20;
const BATCH_AGE: std::time::Duration = std::time::Duration::from_millis(250);

impl ArchiveSink {
    /// Opens the archive of `folder` for appending (see
    /// [`ArchiveWriter::open`]) and starts its thread; transcripts get
    /// numbers from `next` on, and each batch's records go to `after`.
    ///
    /// With `cpu`, the thread runs there only (a CPU no game runs on);
    /// without, it runs only when the CPUs would be idle, so it never
    /// preempts a game.
    pub fn start(
        folder: &Path,
        next: u64,
        cpu: Option<usize>,
        mut after: AfterFrames,
    ) -> Result<ArchiveSink, ArchiveError> {
        let mut writer = ArchiveWriter::open(folder)?;
        let (sender, receiver) = mpsc::sync_channel::<Batch>(SINK_QUEUE);
        let thread = std::thread::Builder::new()
            .name("arena-archive".into())
            .spawn(move || {
                match cpu {
                    Some(cpu) => arena_system::os::pin_current_thread(cpu),
                    // Sharing the games' CPUs: it runs when they wait, and
                    // when its queue is full they wait for it.
                    None => arena_system::os::run_current_thread_when_idle(),
                }
                for batch in receiver {
                    let frames = batch
                        .transcripts
                        .iter()
                        .map(|(number, transcript)| Frame::compress(*number, transcript))
                        .collect::<Result<Vec<_>, _>>()?;
                    writer.append_all(&frames)?;
                    (after.write)(&batch.records).map_err(ArchiveError::io(&after.path))?;
                }
                Ok(())
            })
            .map_err(|error| ArchiveError::Io {
                path: folder.join(ARCHIVE_FILE),
                error: io::Error::new(
                    error.kind(),
                    format!(
                        "cannot start the thread that writes it: {error} (the limit on processes and threads, `ulimit -u`, may be too low)"
                    ),
                ),
            })?;
        Ok(ArchiveSink {
            sender: Some(sender),
            thread: Some(thread),
            next,
            batch: Batch::default(),
            batch_bytes: 0,
            batch_started: std::time::Instant::now(),
        })
    }

    /// The number the next transcript gets.
    pub fn next_number(&self) -> u64 {
        self.next
    }

    /// Queues a transcript and the record to write after it; returns the
    /// transcript's number.
    pub fn add(&mut self, transcript: Vec<u8>, record: &[u8]) -> Result<u64, ArchiveError> {
        let number = self.next;
        self.next += 1;
        if self.batch.transcripts.is_empty() {
            self.batch_started = std::time::Instant::now();
        }
        self.batch_bytes += transcript.len();
        self.batch.transcripts.push((number, transcript));
        self.batch.records.extend_from_slice(record);
        if self.batch.transcripts.len() >= BATCH_GAMES
            || self.batch_bytes >= BATCH_BYTES
            || self.batch_started.elapsed() >= BATCH_AGE
        {
            self.hand_over()?;
        }
        Ok(number)
    }

    /// Queues a record that has no transcript (a game that was not
    /// played), written with the records of the batch in hand.
    pub fn add_record(&mut self, record: &[u8]) -> Result<(), ArchiveError> {
        if self.batch.transcripts.is_empty() && self.batch.records.is_empty() {
            self.batch_started = std::time::Instant::now();
        }
        self.batch.records.extend_from_slice(record);
        if self.batch_started.elapsed() >= BATCH_AGE {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Sends the batch in hand to the thread.
    fn hand_over(&mut self) -> Result<(), ArchiveError> {
        if self.batch.transcripts.is_empty() && self.batch.records.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        self.batch_bytes = 0;
        let sent = self.sender.as_ref().map(|sender| sender.send(batch));
        if !matches!(sent, Some(Ok(()))) {
            // The thread stopped: its error says why.
            self.sender = None;
            self.finish()?;
            return Err(ArchiveError::Io {
                path: PathBuf::from(ARCHIVE_FILE),
                error: io::Error::other("the archive's writer has stopped"),
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
