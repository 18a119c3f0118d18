//! Players that run inside arena and speak the protocol over an in-memory
//! pipe ([`crate::LocalPlayer`]): the built-in random player, and a
//! person at the terminal.

mod human;
mod random;
mod reader;

pub use human::{SharedConsole, human};
pub use random::random_player;
pub use reader::reader;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, Lines};

use crate::LocalIo;

/// A local player's side of the protocol: requests in, replies out.
struct Session {
    requests: Lines<BufReader<Box<dyn tokio::io::AsyncRead + Send + Unpin>>>,
    replies: Box<dyn AsyncWrite + Send + Unpin>,
}

impl Session {
    fn new(io: LocalIo) -> Session {
        Session { requests: BufReader::new(io.requests).lines(), replies: io.replies }
    }

    /// The next message; `None` when the referee closed the session.
    async fn next(&mut self) -> Option<Value> {
        loop {
            let line = self.requests.next_line().await.ok()??;
            // The referee only sends JSON objects; skip anything else.
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                return Some(message);
            }
        }
    }

    /// Sends one reply line.
    async fn reply(&mut self, reply: Value) -> std::io::Result<()> {
        let mut line = reply.to_string();
        line.push('\n');
        self.replies.write_all(line.as_bytes()).await
    }
}
