//! Progress of a run: a bar on a terminal, plain lines otherwise (as in CI).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Shows games done, rate and time left.
pub struct Progress {
    total: u64,
    done: u64,
    started: Instant,
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
            println!("resuming: {already} games already in games.csv, {total} to play");
        }
        Progress { total, done: 0, started: Instant::now(), display }
    }

    pub fn game_done(&mut self, note: Option<&str>) {
        self.done += 1;
        match &mut self.display {
            Display::Bar(bar) => {
                bar.inc(1);
                if let Some(note) = note {
                    bar.println(note);
                }
            }
            Display::Lines { last, every } => {
                if let Some(note) = note {
                    println!("{note}");
                }
                if last.elapsed() >= *every || self.done == self.total {
                    *last = Instant::now();
                    println!("{}", self.line());
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
        let elapsed = self.started.elapsed();
        println!("played {} games in {:.1}s", self.done, elapsed.as_secs_f64());
    }
}
