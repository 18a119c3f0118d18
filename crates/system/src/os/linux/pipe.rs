//! Waiting for a pipe on the calling thread, without the async reactor: for
//! an answer nothing else on the thread needs to run while it is awaited
//! (the game program's; see `BotProcess::receive_on_thread`). A `poll` and
//! a `read` cost less than the reactor's round of `epoll_wait`, wake-up and
//! task switch, once per turn; and a line that fits a pipe is written with
//! one `write`, without the reactor's bookkeeping.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// Which of `fds` have something to read, or have closed (a pidfd: its
/// process has ended), waiting at most `timeout` for one of them to;
/// `None` when the wait failed (a signal arrived) or timed out.
pub fn wait_readable(fds: [RawFd; 3], timeout: Duration) -> Option<[bool; 3]> {
    let mut polled = fds.map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
    // Rounded up: a wait must never end before its deadline.
    let millis = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    // SAFETY: `polled` is three valid pollfd records that outlive the call.
    let ready = unsafe { libc::poll(polled.as_mut_ptr(), 3, millis) };
    (ready > 0).then(|| polled.map(|entry| entry.revents != 0))
}

/// A pidfd of process `pid` (readable once it has ended), for
/// [`wait_readable`].
pub fn pidfd_of(pid: u32) -> std::io::Result<OwnedFd> {
    let pid =
        libc::pid_t::try_from(pid).map_err(|_| std::io::Error::from_raw_os_error(libc::ESRCH))?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; nothing else is touched.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, libc::PIDFD_NONBLOCK) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Reads what `fd` holds, at most `most` bytes, into `buffer`'s spare room
/// (grown to fit): the count read, 0 at the end of the input, an error of
/// kind `WouldBlock` when a non-blocking descriptor has nothing yet.
pub fn read_available(fd: RawFd, buffer: &mut Vec<u8>, most: usize) -> std::io::Result<usize> {
    buffer.reserve_exact(most);
    let spare = buffer.spare_capacity_mut();
    let room = spare.len().min(most);
    // SAFETY: the kernel writes at most `room` bytes into spare capacity
    // that `buffer` owns; only the count it reports is marked initialised.
    let count = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), room) };
    if count < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let count = count as usize;
    // SAFETY: `count` bytes past the old length were just written.
    unsafe { buffer.set_len(buffer.len() + count) };
    Ok(count)
}

/// Writes what of `bytes` a non-blocking `fd` takes now: the count written,
/// an error of kind `WouldBlock` when it takes nothing yet.
pub fn write_available(fd: RawFd, bytes: &[u8]) -> std::io::Result<usize> {
    // SAFETY: the kernel reads at most `bytes.len()` bytes from `bytes`.
    let count = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if count < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(count as usize)
}
