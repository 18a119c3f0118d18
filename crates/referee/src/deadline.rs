//! A reusable deadline for the replies of one bot.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::time::{Instant, Sleep};

/// Fires at the deadline last set, like a fresh `sleep_until` for every
/// reply, but moves its timer only when the new deadline is earlier.
///
/// Deadlines mostly move later (each is "now plus the limit"), so one timer
/// armed at an early deadline serves many fast replies; when it fires early
/// it is rearmed for the real deadline. Registering a timer for every reply
/// costs more than the rest of reading that reply.
#[derive(Debug)]
pub struct Deadline {
    timer: Pin<Box<Sleep>>,
    at: Instant,
}

impl Deadline {
    pub fn new(at: Instant) -> Deadline {
        Deadline { timer: Box::pin(tokio::time::sleep_until(at)), at }
    }

    /// Moves the deadline to `at`.
    pub fn set(&mut self, at: Instant) {
        self.at = at;
        // The timer may fire early (see `poll_expired`), never late.
        if self.timer.deadline() > at {
            self.timer.as_mut().reset(at);
        }
    }

    /// Ready once the deadline has passed.
    pub fn poll_expired(&mut self, context: &mut Context<'_>) -> Poll<()> {
        loop {
            ready!(self.timer.as_mut().poll(context));
            if self.timer.deadline() >= self.at {
                return Poll::Ready(());
            }
            self.timer.as_mut().reset(self.at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn fires_at_the_last_deadline_set_whether_earlier_or_later() {
        let start = Instant::now();
        let mut deadline = Deadline::new(start + Duration::from_secs(1));
        deadline.set(start + Duration::from_secs(3));
        std::future::poll_fn(|context| deadline.poll_expired(context)).await;
        assert_eq!(Instant::now() - start, Duration::from_secs(3));

        deadline.set(Instant::now() + Duration::from_secs(10));
        deadline.set(Instant::now() + Duration::from_secs(2));
        std::future::poll_fn(|context| deadline.poll_expired(context)).await;
        assert_eq!(Instant::now() - start, Duration::from_secs(5));
    }
}
