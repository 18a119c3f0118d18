//! Reading a bot's output one line at a time without ever buffering more
//! than the line limit.

use tokio::io::{AsyncRead, AsyncReadExt};

/// What went wrong instead of a complete line.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The stream ended before a complete line.
    #[error("the output closed")]
    Closed,
    /// A line longer than `limit` bytes.
    #[error("a line longer than {limit} bytes")]
    TooLong {
        /// The line limit, terminator excluded.
        limit: usize,
    },
    /// Reading the stream failed.
    #[error("reading failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Splits an async byte stream into lines of at most `limit` bytes
/// (terminator excluded). `\n` ends a line; a `\r` before it is dropped.
///
/// [`LineReader::next_line`] is cancel-safe: bytes read before a cancelled
/// call stay buffered for the next one, so it can race a deadline.
#[derive(Debug)]
pub struct LineReader<R> {
    source: R,
    buffer: Vec<u8>,
    /// Start of the unconsumed bytes in `buffer`.
    start: usize,
    /// How far past `start` has been searched for a newline already.
    scanned: usize,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of `source` with a line limit of `limit` bytes.
    pub fn new(source: R, limit: usize) -> LineReader<R> {
        LineReader { source, buffer: Vec::with_capacity(4096), start: 0, scanned: 0, limit }
    }

    /// The next complete line, without its terminator.
    pub async fn next_line(&mut self) -> Result<&[u8], LineError> {
        self.forget_handed_out();
        loop {
            if let Some(found) = self.scan() {
                return found.map(|end| &self.buffer[..end]);
            }
            // Read into spare capacity only: `read_buf` is cancel-safe and
            // never leaves unread bytes behind in the buffer.
            self.buffer.reserve_exact(self.room());
            let count = self.source.read_buf(&mut self.buffer).await?;
            if count == 0 {
                return Err(LineError::Closed);
            }
        }
    }

    /// The next complete line if it has been received already (or the
    /// error it is), without reading.
    pub fn buffered_line(&mut self) -> Option<Result<&[u8], LineError>> {
        self.forget_handed_out();
        self.scan().map(|found| found.map(|end| &self.buffer[..end]))
    }

    /// Whether a whole line (or too long a line) has been received, to be
    /// had from [`LineReader::buffered_line`].
    pub fn has_line(&mut self) -> bool {
        self.forget_handed_out();
        self.find().is_some()
    }

    /// Adds to the buffer what `read` reads, given the buffer and the most
    /// it may add (what the line limit leaves): its count, 0 at the end.
    pub fn read_with(
        &mut self,
        read: impl FnOnce(&mut Vec<u8>, usize) -> std::io::Result<usize>,
    ) -> std::io::Result<usize> {
        self.forget_handed_out();
        let room = self.room();
        read(&mut self.buffer, room)
    }

    /// Drops the line handed out by the previous call.
    fn forget_handed_out(&mut self) {
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
    }

    /// Looks for the first line's `\n` in the buffer, searching each byte
    /// once over calls (a search stops at the `\n`, where the next one
    /// finds it again): where it is, or the error of a line already too
    /// long, or `None` while the line is incomplete.
    fn find(&mut self) -> Option<Result<usize, LineError>> {
        match memchr::memchr(b'\n', &self.buffer[self.scanned..]) {
            Some(offset) => {
                self.scanned += offset;
                Some(Ok(self.scanned))
            }
            None => {
                self.scanned = self.buffer.len();
                // One byte of slack for a `\r` before the newline.
                (self.buffer.len() > self.limit + 1)
                    .then_some(Err(LineError::TooLong { limit: self.limit }))
            }
        }
    }

    /// Takes the first line if it is whole: where it ends (its terminator
    /// left out), having marked it handed out; or the line's error; or
    /// `None` while it is incomplete.
    fn scan(&mut self) -> Option<Result<usize, LineError>> {
        let end = match self.find()? {
            Ok(end) => end,
            Err(error) => return Some(Err(error)),
        };
        self.start = end + 1;
        self.scanned = 0;
        let line_end = if end > 0 && self.buffer[end - 1] == b'\r' { end - 1 } else { end };
        if line_end > self.limit {
            return Some(Err(LineError::TooLong { limit: self.limit }));
        }
        Some(Ok(line_end))
    }

    /// How much more may be read without passing the line limit (and its
    /// terminator), in reads of at most 64 KiB.
    fn room(&self) -> usize {
        (self.limit + 2 - self.buffer.len()).min(64 * 1024)
    }

    /// Bytes received after the last complete line (for error reports).
    pub fn partial_line(&self) -> &[u8] {
        &self.buffer[self.start..]
    }
}
