//! Time controls: how long a seat may think, move by move.
//!
//! Three kinds, as a tournament or a command chooses:
//!
//! - a limit per move (arena's default): every reply is due within the
//!   same time;
//! - a game clock: a bank for the whole game, spent by each reply's think
//!   time and topped up by an increment after every accepted move (a move
//!   may also have a cap of its own);
//! - no limit at all, for debugging a bot by hand.
//!
//! A margin can be added to every deadline for loaded machines: it widens
//! what the referee waits for, never what a bot is told it has, so a bot
//! that plans to its stated time is not flagged by the machine's noise.
//! The clock is arithmetic on durations; the referee measures the time.

use std::time::Duration;

/// How a seat's time is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Each reply is due within `limit`.
    PerMove {
        /// The time for one reply.
        limit: Duration,
    },
    /// A bank per game plus an increment per move.
    Clock {
        /// Time for the whole game at its start.
        bank: Duration,
        /// Added after every accepted move.
        increment: Duration,
        /// The most one move may take, whatever the bank holds.
        move_cap: Option<Duration>,
    },
    /// No deadline (debugging only: a hung bot hangs the game).
    Unlimited,
}

/// One seat's clock during a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    margin: Duration,
    /// What the bank holds (only for [`TimeControl::Clock`]).
    bank_left: Duration,
}

/// A reply that came after the seat's time ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime {
    /// The time the seat had for this reply.
    pub allowed: Duration,
    /// Whether it was the game's bank that ran out (not a per-move limit).
    pub bank: bool,
}

impl Clock {
    /// A fresh clock for a new game; `margin` is added to every deadline.
    pub fn new(control: TimeControl, margin: Duration) -> Clock {
        let bank_left = match control {
            TimeControl::Clock { bank, .. } => bank,
            _ => Duration::ZERO,
        };
        Clock { control, margin, bank_left }
    }

    /// The time the seat has for its next reply, as it is told: `None`
    /// without a limit.
    pub fn allowance(&self) -> Option<Duration> {
        match self.control {
            TimeControl::PerMove { limit } => Some(limit),
            TimeControl::Clock { move_cap, .. } => {
                Some(move_cap.map_or(self.bank_left, |cap| cap.min(self.bank_left)))
            }
            TimeControl::Unlimited => None,
        }
    }

    /// How long the referee waits for the next reply: the allowance plus
    /// the margin (`None` without a limit).
    pub fn deadline(&self) -> Option<Duration> {
        self.allowance().map(|allowance| allowance.saturating_add(self.margin))
    }

    /// What the bank holds, for a game clock (sent to the bot with each
    /// request).
    pub fn bank_left(&self) -> Option<Duration> {
        matches!(self.control, TimeControl::Clock { .. }).then_some(self.bank_left)
    }

    /// Charges a reply that took `used`. Within the deadline, the bank
    /// pays what the reply used (never below zero: the margin is the
    /// referee's, not the bot's) and earns the increment; past it, the seat
    /// is out of time and the clock is left as it was.
    pub fn charge(&mut self, used: Duration) -> Result<(), OutOfTime> {
        let Some(allowance) = self.allowance() else { return Ok(()) };
        if used > allowance.saturating_add(self.margin) {
            let bank = match self.control {
                TimeControl::Clock { move_cap, .. } => {
                    move_cap.is_none_or(|cap| self.bank_left <= cap)
                }
                _ => false,
            };
            return Err(OutOfTime { allowed: allowance, bank });
        }
        if let TimeControl::Clock { increment, .. } = self.control {
            self.bank_left = self.bank_left.saturating_sub(used).saturating_add(increment);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    #[test]
    fn a_per_move_limit_is_the_same_for_every_move() {
        let mut clock = Clock::new(TimeControl::PerMove { limit: ms(100) }, ms(20));
        assert_eq!(clock.allowance(), Some(ms(100)));
        assert_eq!(clock.deadline(), Some(ms(120)));
        assert_eq!(clock.bank_left(), None);
        clock.charge(ms(99)).unwrap();
        clock.charge(ms(115)).unwrap();
        assert_eq!(clock.allowance(), Some(ms(100)));
        assert_eq!(clock.charge(ms(121)), Err(OutOfTime { allowed: ms(100), bank: false }));
    }

    #[test]
    fn a_game_clock_spends_the_bank_and_adds_the_increment() {
        let control = TimeControl::Clock { bank: ms(1000), increment: ms(50), move_cap: None };
        let mut clock = Clock::new(control, Duration::ZERO);
        assert_eq!(clock.bank_left(), Some(ms(1000)));
        clock.charge(ms(300)).unwrap();
        assert_eq!(clock.bank_left(), Some(ms(750)));
        clock.charge(ms(800)).unwrap_err();
        assert_eq!(clock.bank_left(), Some(ms(750)), "a late reply leaves the clock as it was");
        clock.charge(ms(750)).unwrap();
        assert_eq!(clock.bank_left(), Some(ms(50)), "spent to zero, then the increment");
        assert_eq!(clock.charge(ms(60)), Err(OutOfTime { allowed: ms(50), bank: true }));
    }

    #[test]
    fn a_move_cap_bounds_a_move_but_not_the_bank() {
        let control =
            TimeControl::Clock { bank: ms(1000), increment: ms(0), move_cap: Some(ms(200)) };
        let mut clock = Clock::new(control, Duration::ZERO);
        assert_eq!(clock.allowance(), Some(ms(200)));
        assert_eq!(clock.charge(ms(250)), Err(OutOfTime { allowed: ms(200), bank: false }));
        for _ in 0..4 {
            clock.charge(ms(200)).unwrap();
        }
        assert_eq!(clock.bank_left(), Some(ms(200)));
        clock.charge(ms(150)).unwrap();
        assert_eq!(clock.allowance(), Some(ms(50)), "the bank is now the tighter limit");
        assert_eq!(clock.charge(ms(60)), Err(OutOfTime { allowed: ms(50), bank: true }));
    }

    #[test]
    fn the_margin_widens_the_wait_but_is_never_banked() {
        let control = TimeControl::Clock { bank: ms(100), increment: ms(10), move_cap: None };
        let mut clock = Clock::new(control, ms(30));
        assert_eq!(clock.deadline(), Some(ms(130)));
        clock.charge(ms(120)).unwrap();
        assert_eq!(clock.bank_left(), Some(ms(10)), "overdraft floored at zero");
    }

    #[test]
    fn no_limit_never_runs_out() {
        let mut clock = Clock::new(TimeControl::Unlimited, ms(30));
        assert_eq!(clock.deadline(), None);
        clock.charge(Duration::from_secs(3600)).unwrap();
        assert_eq!(clock.allowance(), None);
    }
}
