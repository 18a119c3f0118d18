//! Ctrl-C and SIGTERM: a run stops starting games and ends the running ones.

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Mutex;

/// Listens for SIGINT and SIGTERM from creation on.
pub struct Interrupt {
    signals: Mutex<(Signal, Signal)>,
}

impl Interrupt {
    pub fn listen() -> std::io::Result<Interrupt> {
        Ok(Interrupt {
            signals: Mutex::new((
                signal(SignalKind::interrupt())?,
                signal(SignalKind::terminate())?,
            )),
        })
    }

    /// Completes when either signal arrives (or has arrived since the last
    /// call), or when arena's standard output closes: nobody reads the run
    /// any more, so it stops as on Ctrl-C, its results resumable.
    pub async fn wait(&self) {
        let mut signals = self.signals.lock().await;
        let (interrupt, terminate) = &mut *signals;
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            () = crate::stdout::wait_closed() => {}
        }
    }
}
