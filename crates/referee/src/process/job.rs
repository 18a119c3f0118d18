//! A program run to its end rather than spoken with (a bot's build): no
//! input, its stdout and stderr handed on as they come, killed with
//! everything it started at its time limit or once it ends.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use super::super::reaper;
use super::{BotCommand, BotOutput, CommandError, start};
use arena_system::sandbox::LimitReached;

/// How a program run to its end ended.
#[derive(Clone, Copy, Debug)]
pub struct JobEnd {
    /// Its exit status; after the time limit, that of its killing.
    pub status: ExitStatus,
    /// A limit its box saw it reach.
    pub reached: Option<LimitReached>,
    /// Whether the time limit passed first (it was killed then).
    pub timed_out: bool,
}

/// How long output is still read once the program has exited.
const OUTPUT_AFTER_EXIT: Duration = Duration::from_secs(1);

/// Bytes read from an output at once.
const CHUNK: usize = 16 * 1024;

/// Runs `command` with its input closed, giving each piece of its stdout
/// and stderr to `output` as it comes (in order within each), until it
/// exits or `limit` passes; then kills its box or process group (what it
/// started in the background goes too) and waits for the end.
pub async fn run_to_end(
    command: &BotCommand,
    limit: Duration,
    mut output: impl FnMut(&[u8]),
) -> Result<JobEnd, CommandError> {
    let started = start::start(command)?;
    let start::Started { pid, stdin, stdout, stderr, mut exit, sandbox, .. } = started;
    drop(stdin);
    let kill = || match &sandbox {
        Some((_, handle)) => handle.kill(),
        None => arena_system::os::kill_group(pid),
    };
    let leaves_orphans = sandbox.as_ref().is_none_or(|(_, handle)| handle.may_leave_orphans());
    // Both outputs until both end: a program's output ends when it and
    // whatever it started that holds the pipes are gone.
    let output = std::cell::RefCell::new(&mut output);
    let pump = |mut stream: BotOutput| {
        let output = &output;
        async move {
            let mut chunk = Vec::with_capacity(CHUNK);
            while let Ok(1..) = stream.read_buf(&mut chunk).await {
                (output.borrow_mut())(&chunk);
                chunk.clear();
            }
        }
    };
    let copy = async {
        tokio::join!(pump(stdout), pump(stderr));
    };
    tokio::pin!(copy);
    // Output left open by what the program left behind outside a box gets
    // a moment once the program has exited, not the whole limit.
    let timed_out = tokio::time::timeout(limit, async {
        tokio::select! {
            () = &mut copy => {
                exit.wait().await;
            }
            _ = exit.wait() => {
                let _ = tokio::time::timeout(OUTPUT_AFTER_EXIT, &mut copy).await;
            }
        }
    })
    .await
    .is_err();
    kill();
    let ended = exit.wait().await;
    if leaves_orphans {
        reaper::request_sweep();
    }
    Ok(JobEnd { status: ended.status, reached: ended.reached, timed_out })
}
