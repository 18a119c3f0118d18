//! Measuring a run while it plays: games, moves, time and arena's own CPU.
//! What is shown of it is the reporter's business (src/events.rs).

use std::time::Instant;

use crate::events::RunStats;

/// Counts what a run has played since it started.
pub struct Meter {
    done: u64,
    moves: u64,
    started: Instant,
    /// CPU used before the first game, so the figures cover playing only.
    usage_at_start: arena_system::os::Usage,
}

impl Meter {
    /// Starts measuring now.
    pub fn start() -> Meter {
        Meter {
            done: 0,
            moves: 0,
            started: Instant::now(),
            usage_at_start: arena_system::os::own_usage(),
        }
    }

    /// One more game, of `plies` moves; returns the games done so far.
    pub fn game_done(&mut self, plies: u32) -> u64 {
        self.done += 1;
        self.moves += u64::from(plies);
        self.done
    }

    /// What the run has cost so far.
    pub fn stats(&self) -> RunStats {
        let usage = arena_system::os::own_usage();
        RunStats {
            games: self.done,
            moves: self.moves,
            elapsed: self.started.elapsed(),
            user_seconds: usage.user_seconds - self.usage_at_start.user_seconds,
            system_seconds: usage.system_seconds - self.usage_at_start.system_seconds,
            peak_rss_kib: usage.peak_rss_kib,
        }
    }
}
