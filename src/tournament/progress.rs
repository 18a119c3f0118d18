//! Progress of a run: a bar on a terminal, plain lines otherwise (as in CI).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Shows games done, rate and time left.
pub struct Progress {
    total: u64,
    done: u64,
    moves: u64,
    started: Instant,
    /// CPU used before the first game, so the figure covers playing only.
    usage_at_start: Usage,
    display: Display,
}

enum Display {
    Bar(ProgressBar),
    /// A line at most every `every`, and one at the end.
    Lines {
        last: Instant,
        every: Duration,
    },
}

impl Progress {
    /// `total` games to play now, `already` done by earlier runs.
    pub fn new(total: u64, already: u64) -> Progress {
        let display = if std::io::stdout().is_terminal() {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}  {msg}",
                )
                .expect("a valid template"),
            );
            Display::Bar(bar)
        } else {
            Display::Lines { last: Instant::now(), every: Duration::from_secs(2) }
        };
        if already > 0 {
            crate::say!("resuming: {already} games already in games.csv, {total} to play");
        }
        Progress {
            total,
            done: 0,
            moves: 0,
            started: Instant::now(),
            usage_at_start: own_usage(),
            display,
        }
    }

    /// One more game, of `plies` moves; `note` is printed above the progress.
    pub fn game_done(&mut self, plies: u32, note: Option<&str>) {
        self.done += 1;
        self.moves += u64::from(plies);
        match &mut self.display {
            Display::Bar(bar) => {
                bar.inc(1);
                if let Some(note) = note {
                    bar.println(note);
                }
            }
            Display::Lines { last, every } => {
                if let Some(note) = note {
                    crate::say!("{note}");
                }
                if last.elapsed() >= *every || self.done == self.total {
                    *last = Instant::now();
                    crate::say!("{}", self.line());
                }
            }
        }
    }

    fn line(&self) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 { self.done as f64 / elapsed } else { 0.0 };
        let left = self.total - self.done;
        let eta = if rate > 0.0 { format!("{:.0}s", left as f64 / rate) } else { "?".to_owned() };
        format!(
            "progress: {}/{} games ({:.0}%), {rate:.1} games/s, ETA {eta}",
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64
        )
    }

    pub fn finish(&self) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let usage = own_usage();
        let user = usage.user_seconds - self.usage_at_start.user_seconds;
        let system = usage.system_seconds - self.usage_at_start.system_seconds;
        let per_move = |seconds: f64| 1e6 * seconds / self.moves.max(1) as f64;
        crate::say!(
            "played {} games ({} moves) in {elapsed:.2}s: {:.0} games/s; arena's own CPU {:.1} us per move ({:.1} user + {:.1} system); peak memory {} MiB",
            self.done,
            self.moves,
            self.done as f64 / elapsed.max(1e-9),
            per_move(user + system),
            per_move(user),
            per_move(system),
            usage.peak_rss_kib / 1024,
        );
    }
}

/// CPU time and peak memory of this process (all threads, no children).
pub struct Usage {
    pub user_seconds: f64,
    pub system_seconds: f64,
    pub peak_rss_kib: u64,
}

pub fn own_usage() -> Usage {
    // SAFETY: getrusage fills the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    Usage {
        user_seconds: seconds(usage.ru_utime),
        system_seconds: seconds(usage.ru_stime),
        peak_rss_kib: usage.ru_maxrss.max(0) as u64,
    }
}
