//! A player that runs inside arena rather than as a program, behind the
//! same [`BotProcess`] as a bot so that the referee cannot tell them apart.

use std::future::Future;
use std::os::unix::process::ExitStatusExt;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

use super::{BotProcess, Ended, Exit, Input, LineReader, Runner};

/// A player that runs inside arena (a person at the terminal, the built-in
/// random player) and speaks the protocol over an in-memory pipe, so the
/// referee treats it exactly as it treats a bot program.
#[derive(Clone)]
pub struct LocalPlayer {
    /// Shown where a command would be, e.g. `arena:human`.
    pub label: String,
    start: Arc<dyn Fn(LocalIo) -> LocalSession + Send + Sync>,
}

/// A local player's session: runs until the player is done.
type LocalSession = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A local player's ends of the pipe: it reads requests from `requests` and
/// writes replies to `replies`. Its session ends when `requests` closes.
pub struct LocalIo {
    /// Where the player reads what arena sends.
    pub requests: Box<dyn AsyncRead + Send + Unpin>,
    /// Where the player writes its replies.
    pub replies: Box<dyn AsyncWrite + Send + Unpin>,
}

impl LocalPlayer {
    /// `start` is called for each session with the player's ends of the
    /// pipe; the session lasts as long as the future it returns.
    pub fn new<F, Fut>(label: impl Into<String>, start: F) -> LocalPlayer
    where
        F: Fn(LocalIo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        LocalPlayer { label: label.into(), start: Arc::new(move |io| Box::pin(start(io))) }
    }
}

impl std::fmt::Debug for LocalPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalPlayer").field("label", &self.label).finish_non_exhaustive()
    }
}

impl BotProcess {
    /// Starts a session of a local player.
    pub fn local(player: &LocalPlayer, max_line_bytes: usize) -> BotProcess {
        let (referee_end, player_end) = tokio::io::duplex(64 * 1024);
        let (from_player, to_player) = tokio::io::split(referee_end);
        let (requests, replies) = tokio::io::split(player_end);
        let session =
            (player.start)(LocalIo { requests: Box::new(requests), replies: Box::new(replies) });
        let exit = Exit::new(tokio::spawn(async move {
            session.await;
            Ended::plain(ExitStatus::from_raw(0))
        }));
        BotProcess::with(
            Runner::Local,
            Input { writer: Box::new(to_player), fd: None },
            LineReader::new(Box::new(from_player), max_line_bytes),
            exit,
        )
    }
}
