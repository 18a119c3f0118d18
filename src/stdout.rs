//! arena's standard output, written so that a closed or full one
//! (`arena run … | head -1`, `> /dev/full`) is not a crash: the first failed
//! write is remembered, later output is dropped, and the commands treat it
//! as an interrupt (games stop, bots are ended, results stay resumable) and
//! exit with status 141, as a program ended by SIGPIPE does.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

static CLOSED: AtomicBool = AtomicBool::new(false);
static CLOSING: Notify = Notify::const_new();

/// Exit status of a command whose standard output closed.
pub const EXIT_CLOSED: u8 = 141;

/// Writes `text` to standard output and flushes it, unless it has failed
/// before.
pub fn write(text: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out.write_fmt(text).and_then(|()| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
        CLOSING.notify_waiters();
    }
}

/// Whether a write to standard output has failed.
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Completes once standard output has failed.
pub async fn wait_closed() {
    loop {
        let notified = CLOSING.notified();
        if closed() {
            return;
        }
        notified.await;
    }
}

/// Like `println!`, to arena's standard output (see the module).
#[macro_export]
macro_rules! say {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Like `print!`, to arena's standard output (see the module).
#[macro_export]
macro_rules! say_raw {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}
