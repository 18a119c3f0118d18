//! Signals that end arena: a run stops starting games and ends the running
//! ones (their bots killed), leaving its results resumable.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Mutex;

/// Every signal whose default would end arena on the spot, leaving its
/// bots running: Ctrl-C, kill, a closed terminal, Ctrl-\ and the user ones.
const ENDING: [fn() -> SignalKind; 6] = [
    SignalKind::interrupt,
    SignalKind::terminate,
    SignalKind::hangup,
    SignalKind::quit,
    SignalKind::user_defined1,
    SignalKind::user_defined2,
];

/// Listens for the signals that end arena, from creation on.
pub struct Interrupt {
    signals: Mutex<Vec<Signal>>,
}

impl Interrupt {
    pub fn listen() -> std::io::Result<Interrupt> {
        let signals = ENDING.iter().map(|kind| signal(kind())).collect::<Result<_, _>>()?;
        Ok(Interrupt { signals: Mutex::new(signals) })
    }

    /// Completes when one of the signals arrives (or has arrived since the
    /// last call), or when arena's standard output closes: nobody reads the
    /// run any more, so it stops as on Ctrl-C, its results resumable.
    pub async fn wait(&self) {
        let mut signals = self.signals.lock().await;
        let any_signal = AnySignal(&mut signals);
        tokio::select! {
            () = any_signal => {}
            () = crate::stdout::wait_closed() => {}
        }
    }
}

/// Ready when any of the signals has arrived.
struct AnySignal<'a>(&'a mut Vec<Signal>);

impl Future for AnySignal<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        for signal in self.0.iter_mut() {
            if signal.poll_recv(context).is_ready() {
                return Poll::Ready(());
            }
        }
        Poll::Pending
    }
}
