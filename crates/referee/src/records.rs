//! What the referee hands a game's records to. The referee makes the
//! bytes of a transcript and passes on what a program writes to stderr;
//! naming, creating and replacing files is the results folder's owner's
//! (arena-tournament's `results::FileLayout`), through these traits, so
//! that one module decides every path and every write of a results folder.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Keeps a finished game's transcript.
pub trait TranscriptKeeper: Send + Sync {
    /// Keeps `transcript` (the game's whole JSON Lines) whole or not at
    /// all, or says in words (naming the file) why it could not.
    fn keep(&self, transcript: &[u8]) -> Result<(), String>;
}

/// A program's stderr log of one game, made only when the program first
/// writes to stderr: most bots never do, and a file a game would cost the
/// filesystem more than the game.
pub trait StderrLogFile: Send + Sync {
    /// Makes the log: where its bytes go, and the path it was given (a new
    /// file: never one an earlier game wrote).
    fn create(&self) -> std::io::Result<(Box<dyn Write + Send>, PathBuf)>;

    /// Where the log is (or would be), for messages.
    fn path(&self) -> PathBuf;
}

/// A program's stderr log of one game, shared by the referee and the
/// program's stderr drain.
#[derive(Clone)]
pub struct LogFile(Arc<dyn StderrLogFile>);

impl LogFile {
    /// The log `file` makes.
    pub fn new(file: impl StderrLogFile + 'static) -> LogFile {
        LogFile(Arc::new(file))
    }

    /// Makes the log (see [`StderrLogFile::create`]).
    pub fn create(&self) -> std::io::Result<(Box<dyn Write + Send>, PathBuf)> {
        self.0.create()
    }

    /// Where the log is, or would be.
    pub fn path(&self) -> PathBuf {
        self.0.path()
    }
}

impl std::fmt::Debug for LogFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LogFile").field(&self.path()).finish()
    }
}
