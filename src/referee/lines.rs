//! Reading a bot's output one line at a time without ever buffering more
//! than the line limit.

use tokio::io::{AsyncRead, AsyncReadExt};

/// What went wrong instead of a complete line.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("the output closed")]
    Closed,
    #[error("a line longer than {limit} bytes")]
    TooLong { limit: usize },
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
    pub fn new(source: R, limit: usize) -> LineReader<R> {
        LineReader { source, buffer: Vec::with_capacity(4096), start: 0, scanned: 0, limit }
    }

    /// The next complete line, without its terminator.
    pub async fn next_line(&mut self) -> Result<&[u8], LineError> {
        // Drop the line handed out by the previous call.
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        loop {
            let pending = &self.buffer[self.scanned..];
            if let Some(offset) = memchr::memchr(b'\n', pending) {
                let end = self.scanned + offset;
                self.start = end + 1;
                self.scanned = 0;
                let line_end = if end > 0 && self.buffer[end - 1] == b'\r' { end - 1 } else { end };
                if line_end > self.limit {
                    return Err(LineError::TooLong { limit: self.limit });
                }
                return Ok(&self.buffer[..line_end]);
            }
            self.scanned = self.buffer.len();
            // One byte of slack for a `\r` before the newline.
            if self.buffer.len() > self.limit + 1 {
                return Err(LineError::TooLong { limit: self.limit });
            }
            // Read into spare capacity only: `read_buf` is cancel-safe and
            // never leaves unread bytes behind in the buffer.
            let room = (self.limit + 2 - self.buffer.len()).min(64 * 1024);
            self.buffer.reserve_exact(room);
            let count = self.source.read_buf(&mut self.buffer).await?;
            if count == 0 {
                return Err(LineError::Closed);
            }
        }
    }

    /// Bytes received after the last complete line (for error reports).
    pub fn partial_line(&self) -> &[u8] {
        &self.buffer[self.start..]
    }
}
