//! Where a bot's stderr goes: the current game's log file, capped, and
//! the last lines kept in memory for a crash's report.

use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use super::super::LogFile;

/// What comes of a program's stderr past a game's cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastCap {
    /// Nothing more of the game is read: the program's writes wait once
    /// its pipe is full (its own time runs meanwhile), so a bot's flood
    /// costs arena nothing; the next game's log reads on.
    Unread,
    /// Read and dropped: a game program, which the tournament file chose,
    /// is never held up by its own log.
    Dropped,
}

/// Where a bot's stderr goes: the current game's log file, capped in size.
/// The file is created on the first byte, so silent bots cost no file.
pub(super) struct StderrLog {
    path: Option<LogFile>,
    file: Option<Box<dyn Write + Send>>,
    /// The file made for this game, once something was written: `path`,
    /// or a name beside it when an earlier game's log has that one.
    pub(super) created: Option<PathBuf>,
    written: u64,
    /// Bytes read in this game, logged or not.
    read: u64,
    cap: u64,
    past_cap: PastCap,
    /// Wakes the drain that waits at the cap, when the next game's log
    /// begins.
    resumed: Arc<tokio::sync::Notify>,
    pub(super) tail: StderrTail,
    /// Why logging stopped in this game, until someone takes it to tell.
    pub(super) lost: Option<String>,
    /// Whether the line a JVM begins with in a box is still to be left
    /// out, at the start of the first bytes.
    jvm_note: bool,
    /// What the program wrote before its first game's log was named (up
    /// to the cap): a program may write as it starts, before the referee
    /// names the log of the game it starts for, which then begins with it.
    /// `None` once a log was named.
    early: Option<Vec<u8>>,
}

/// The last [`STDERR_TAIL`] bytes a bot wrote to stderr, logged or not:
/// what a crash report quotes and looks at to name a limit the bot ran
/// into. It is kept in memory as the bytes pass rather than read back from
/// the log, which may not exist (no results folder, nothing asked), may
/// have stopped at its cap or failed to be written, and belongs to a game
/// rather than to the process.
#[derive(Debug, Default)]
pub(super) struct StderrTail {
    pub(super) bytes: Vec<u8>,
    /// Whether bytes before the kept ones were dropped (the first kept
    /// line may then be the end of a longer one).
    pub(super) cut: bool,
}

/// Bytes of stderr kept in a [`StderrTail`], at least: a runtime's fatal
/// error comes before its stack dump (Go's "fatal error: runtime: out of
/// memory" before every goroutine's stack, Node's "JavaScript heap out of
/// memory" before its native frames), which may run to kilobytes.
const STDERR_TAIL: usize = 16 * 1024;

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(STDERR_TAIL);
        self.cut |= keep < bytes.len();
        self.bytes.extend_from_slice(&bytes[bytes.len() - keep..]);
        // Up to twice as much between trims, so that a bot writing a line
        // at a time does not move the whole tail with each.
        if self.bytes.len() > 2 * STDERR_TAIL {
            self.cut = true;
            self.bytes.drain(..self.bytes.len() - STDERR_TAIL);
        }
    }
}

impl StderrLog {
    /// A log for a program's stderr, `boxed` when the program runs in a
    /// sandbox (where a JVM begins with a line of its own).
    pub(super) fn new(cap: u64, past_cap: PastCap, boxed: bool) -> StderrLog {
        StderrLog {
            path: None,
            file: None,
            created: None,
            written: 0,
            read: 0,
            cap,
            past_cap,
            resumed: Arc::default(),
            tail: StderrTail::default(),
            lost: None,
            jvm_note: boxed,
            early: Some(Vec::new()),
        }
    }

    pub(super) fn write(&mut self, mut bytes: &[u8]) {
        self.read = self.read.saturating_add(bytes.len() as u64);
        if std::mem::take(&mut self.jvm_note) {
            bytes = without_jvm_note(bytes);
        }
        self.tail.push(bytes);
        if self.path.is_none() {
            if let Some(early) = &mut self.early {
                let room = (self.cap as usize).saturating_sub(early.len());
                early.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            return;
        }
        self.log(bytes);
    }

    /// Writes `bytes` to this game's log, up to the cap.
    fn log(&mut self, bytes: &[u8]) {
        let Some(path) = &self.path else { return };
        // Nothing to write makes no file (a silent program's early bytes
        // are none): a file a game costs the filesystem more than the game.
        if bytes.is_empty() || self.written >= self.cap {
            return;
        }
        if self.file.is_none() {
            match path.create() {
                Ok((file, created)) => {
                    self.file = Some(file);
                    self.created = Some(created);
                }
                Err(error) => return self.give_up(&path.path(), &error),
            }
        }
        let Some(file) = &mut self.file else { return };
        let room = (self.cap - self.written) as usize;
        let kept = &bytes[..bytes.len().min(room)];
        // A log that cannot be written is not worth failing a game over,
        // but it is said, with its path.
        if let Err(error) = file.write_all(kept) {
            let path = path.path();
            return self.give_up(&path, &error);
        }
        self.written += kept.len() as u64;
        if self.written >= self.cap {
            let _ = writeln!(
                file,
                "\n[arena: stderr cut at {} bytes; the rest was discarded]",
                self.cap
            );
        }
    }

    /// Stops logging this game, saying why once.
    fn give_up(&mut self, path: &Path, error: &std::io::Error) {
        self.lost.get_or_insert(format!(
            "cannot write {}: {error}; the rest of this bot's stderr in this game is dropped",
            path.display()
        ));
        self.file = None;
        self.path = None;
    }

    pub(super) fn switch_to(&mut self, path: Option<LogFile>) {
        self.file = None;
        self.created = None;
        self.written = 0;
        self.read = 0;
        let named = path.is_some();
        self.path = path;
        if named && let Some(early) = self.early.take() {
            self.read = early.len() as u64;
            self.log(&early);
        }
        self.resumed.notify_one();
    }

    /// The most bytes read of a game.
    pub(super) fn cap(&self) -> u64 {
        self.cap
    }

    /// Whether this game's cap is reached: nothing more is read of it.
    pub(super) fn full(&self) -> bool {
        self.past_cap == PastCap::Unread && self.read >= self.cap
    }

    /// At the cap, what wakes the drain when the next game begins.
    pub(super) fn wait_when_full(&self) -> Option<Arc<tokio::sync::Notify>> {
        self.full().then(|| Arc::clone(&self.resumed))
    }

    /// How many bytes may still be read in this game.
    pub(super) fn room(&self) -> u64 {
        match self.past_cap {
            PastCap::Unread => self.cap.saturating_sub(self.read),
            PastCap::Dropped => u64::MAX,
        }
    }
}

/// `bytes`, the first a boxed process wrote to stderr, without the line a
/// JVM begins with there ([`arena_system::sandbox::JVM_NOTE`]).
fn without_jvm_note(bytes: &[u8]) -> &[u8] {
    match bytes.strip_prefix(arena_system::sandbox::JVM_NOTE) {
        Some(rest) => {
            rest.iter().position(|&byte| byte == b'\n').map_or(bytes, |end| &rest[end + 1..])
        }
        None => bytes,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::StderrLogFile;

    /// A log kept in memory, as a test's results folder.
    #[derive(Clone, Default)]
    struct Kept {
        name: &'static str,
        bytes: Arc<Mutex<Option<Vec<u8>>>>,
    }

    struct Into(Kept);

    impl Write for Into {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.bytes.lock().unwrap().get_or_insert_default().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl StderrLogFile for Kept {
        fn create(&self) -> std::io::Result<(Box<dyn Write + Send>, PathBuf)> {
            self.bytes.lock().unwrap().get_or_insert_default();
            Ok((Box::new(Into(self.clone())), self.path()))
        }
        fn path(&self) -> PathBuf {
            PathBuf::from(self.name)
        }
    }

    impl Kept {
        fn text(&self) -> Option<String> {
            self.bytes.lock().unwrap().as_ref().map(|bytes| String::from_utf8_lossy(bytes).into())
        }
    }

    /// What a program writes as it starts, before the referee names its
    /// first game's log, begins that log (a loaded machine starts the
    /// program before the log is named more often than not).
    #[test]
    fn what_a_program_writes_before_its_first_log_is_named_begins_it() {
        let first = Kept { name: "game-000001-seat1-a.log", ..Kept::default() };
        let second = Kept { name: "game-000002-seat1-a.log", ..Kept::default() };
        let mut log = StderrLog::new(1000, PastCap::Unread, false);
        log.write(b"pid 7\n");
        log.switch_to(Some(LogFile::new(first.clone())));
        log.write(b"game 1\n");
        log.switch_to(Some(LogFile::new(second.clone())));
        log.write(b"game 2\n");
        assert_eq!(first.text().as_deref(), Some("pid 7\ngame 1\n"));
        assert_eq!(second.text().as_deref(), Some("game 2\n"));
    }

    /// A program that writes nothing has no log, whether or not it wrote
    /// before its first log was named.
    #[test]
    fn a_silent_program_makes_no_log() {
        let mut log = StderrLog::new(1000, PastCap::Unread, false);
        let games = [Kept::default(), Kept::default()];
        for game in &games {
            log.switch_to(Some(LogFile::new(game.clone())));
            log.write(b"");
        }
        assert!(games.iter().all(|game| game.text().is_none()));
        assert_eq!(log.created, None);
    }

    /// Past the cap nothing more is logged, and the log says where it was
    /// cut.
    #[test]
    fn a_log_stops_at_its_cap_and_says_so() {
        let kept = Kept { name: "game.log", ..Kept::default() };
        let mut log = StderrLog::new(8, PastCap::Unread, false);
        log.switch_to(Some(LogFile::new(kept.clone())));
        log.write(b"0123456789");
        assert!(log.full());
        assert_eq!(
            kept.text().as_deref(),
            Some("01234567\n[arena: stderr cut at 8 bytes; the rest was discarded]\n")
        );
    }
}
