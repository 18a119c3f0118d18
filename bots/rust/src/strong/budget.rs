//! How much a search may think about one move.
//!
//! The limit that normally stops a search is a count of work units (nodes
//! and scanned moves) in proportion to the request's `time_ms`, not the
//! clock, so the same request always gets the same reply. The clock is only
//! a safety net: a deadline far inside the move time stops a search on a
//! machine much slower than expected, where a late reply would lose anyway.

use std::time::{Duration, Instant};

/// The time a move request allows.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub time_ms: u64,
    pub deadline: Instant,
}

impl Limits {
    /// From the request's `time_ms`, received at `started`: the deadline is
    /// at a quarter of the time.
    pub fn new(time_ms: u64, started: Instant) -> Self {
        Limits { time_ms, deadline: started + Duration::from_millis(time_ms) / 4 }
    }

    /// A budget of `per_ms` units for each millisecond of the move time.
    pub fn budget(&self, per_ms: u64) -> Budget {
        Budget::new(per_ms.saturating_mul(self.time_ms), self.deadline)
    }
}

/// How often, in work units, the clock is looked at.
const CLOCK_EVERY: u64 = 4096;

#[derive(Debug)]
pub struct Budget {
    units_left: u64,
    deadline: Instant,
    until_clock: u64,
    exhausted: bool,
}

impl Budget {
    pub fn new(units: u64, deadline: Instant) -> Self {
        Budget { units_left: units, deadline, until_clock: CLOCK_EVERY, exhausted: false }
    }

    /// Spends `units`; false once the budget or the time is used up (and
    /// from then on).
    pub fn spend(&mut self, units: u64) -> bool {
        if self.exhausted {
            return false;
        }
        self.units_left = self.units_left.saturating_sub(units);
        self.until_clock = self.until_clock.saturating_sub(units);
        if self.until_clock == 0 {
            self.until_clock = CLOCK_EVERY;
            if Instant::now() >= self.deadline {
                self.exhausted = true;
            }
        }
        if self.units_left == 0 {
            self.exhausted = true;
        }
        !self.exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_when_the_units_are_spent() {
        let mut budget = Budget::new(10, Instant::now() + Duration::from_secs(60));
        assert!(budget.spend(9));
        assert!(!budget.spend(1));
        assert!(!budget.spend(0), "an exhausted budget stays exhausted");
    }

    #[test]
    fn stops_at_the_deadline() {
        let mut budget = Budget::new(u64::MAX, Instant::now());
        assert!(!budget.spend(CLOCK_EVERY));
    }
}

#[cfg(test)]
mod limits_tests {
    use super::*;

    #[test]
    fn the_budget_grows_with_the_move_time() {
        let limits = Limits::new(1000, Instant::now());
        let mut budget = limits.budget(3);
        assert!(budget.spend(2999));
        assert!(!budget.spend(1));
    }
}
