//! Playing a tournament's pending games with `concurrency` games at once.
//!
//! Each worker is a thread with its own single-threaded runtime, so a game's
//! referee work and its bots' wake-ups stay on few CPUs. Workers take jobs
//! (runs of consecutive games of one pairing) from a shared queue and keep
//! their two bot processes alive from game to game; a process belongs to one
//! worker and so is never in two games at once. Results flow to the calling
//! thread, which writes games.csv and shows progress.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, watch};

use super::config::{Restart, Tournament};
use super::schedule::ScheduledGame;
use crate::games::{Game, parse_params};
use crate::referee::{Bot, CommandError, GameReport, Settings, play_game};
use crate::results::FileLayout;
use crate::with_game;

/// A run of consecutive games of one pairing, played by one worker.
type Job = Vec<ScheduledGame>;

/// What a worker reports back.
pub enum Played {
    Game(ScheduledGame, Box<GameReport>),
    /// A bot could not be started: the run cannot go on.
    Failed(CommandError),
}

/// Splits pending games into jobs: by pairing, then halved (at setup
/// boundaries) until there are at least `concurrency` jobs or jobs cannot
/// shrink further.
pub fn jobs(pending: Vec<ScheduledGame>, concurrency: usize) -> VecDeque<Job> {
    let mut jobs: VecDeque<Job> = VecDeque::new();
    for game in pending {
        match jobs.back_mut() {
            Some(job) if job[0].pairing == game.pairing => job.push(game),
            _ => jobs.push_back(vec![game]),
        }
    }
    while jobs.len() < concurrency {
        let Some(largest) = (0..jobs.len()).max_by_key(|&index| jobs[index].len()) else { break };
        if jobs[largest].len() <= 2 {
            break;
        }
        let half = (jobs[largest].len() / 2 + 1) & !1;
        let tail = jobs[largest].split_off(half);
        jobs.insert(largest + 1, tail);
    }
    jobs
}

/// Starts the workers. Reports arrive on the returned receiver; sending
/// `true` on `cancel` makes every worker abandon its game and stop its bots.
pub fn start_workers(
    tournament: &Tournament,
    pending: Vec<ScheduledGame>,
    layout: FileLayout,
    cancel: watch::Receiver<bool>,
) -> (mpsc::UnboundedReceiver<Played>, Vec<std::thread::JoinHandle<()>>) {
    let queue = Arc::new(Mutex::new(jobs(pending, tournament.concurrency)));
    let worker_count = tournament.concurrency.min(queue.lock().expect("fresh lock").len()).max(1);
    let (sender, receiver) = mpsc::unbounded_channel();
    let shared = Arc::new(WorkerShared { tournament: tournament.clone(), layout, queue });
    let handles = (0..worker_count)
        .map(|number| {
            let shared = Arc::clone(&shared);
            let sender = sender.clone();
            let cancel = cancel.clone();
            std::thread::Builder::new()
                .name(format!("arena-worker-{number}"))
                .spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("a worker runtime starts");
                    runtime.block_on(async {
                        with_game!(shared.tournament.game, G => work::<G>(&shared, sender, cancel).await)
                    });
                })
                .expect("a worker thread starts")
        })
        .collect();
    (receiver, handles)
}

struct WorkerShared {
    tournament: Tournament,
    layout: FileLayout,
    queue: Arc<Mutex<VecDeque<Job>>>,
}

/// One worker: jobs until the queue is empty or the run is cancelled.
async fn work<G: Game>(
    shared: &WorkerShared,
    results: mpsc::UnboundedSender<Played>,
    mut cancel: watch::Receiver<bool>,
) {
    let tournament = &shared.tournament;
    let settings: &Settings = &tournament.settings;
    let params: G::Params = parse_params(tournament.params.clone()).expect("checked when loading");
    // The processes this worker holds, by bot index: at most the two of the
    // current pairing.
    let mut held: Vec<(usize, Bot)> = Vec::new();
    'jobs: loop {
        let Some(job) =
            shared.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop_front()
        else {
            break;
        };
        let pairing = job[0].pairing;
        for (index, bot) in &mut held {
            if !pairing.contains(index) {
                bot.stop(settings).await;
            }
        }
        held.retain(|(index, _)| pairing.contains(index));
        for index in pairing {
            if !held.iter().any(|(held_index, _)| *held_index == index) {
                let entry = &tournament.bots[index];
                held.push((index, Bot::new(entry.name.clone(), entry.command())));
            }
        }
        for game in job {
            if *cancel.borrow() {
                break 'jobs;
            }
            let [first, second] = &mut held[..] else { unreachable!("a pairing holds two bots") };
            let seated = if first.0 == game.seats[0] {
                [&mut first.1, &mut second.1]
            } else {
                [&mut second.1, &mut first.1]
            };
            let names = [seated[0].name.clone(), seated[1].name.clone()];
            let files = shared.layout.files(game.index, [&names[0], &names[1]]);
            let outcome = tokio::select! {
                biased;
                _ = cancel.wait_for(|cancelled| *cancelled) => break 'jobs,
                outcome = play_game::<G>(seated, &params, game.seed, settings, &files) => outcome,
            };
            let report = match outcome {
                Ok(report) => report,
                Err(error) => {
                    let _ = results.send(Played::Failed(error));
                    break 'jobs;
                }
            };
            if tournament.restart == Restart::EveryGame {
                for (_, bot) in &mut held {
                    bot.stop(settings).await;
                }
            }
            if results.send(Played::Game(game, Box::new(report))).is_err() {
                break 'jobs;
            }
        }
    }
    for (_, bot) in &mut held {
        bot.stop(settings).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::schedule::round_robin;

    #[test]
    fn jobs_follow_pairings_and_split_for_concurrency() {
        let schedule = round_robin(3, 4, 1);
        let by_pairing = jobs(schedule.clone(), 1);
        assert_eq!(by_pairing.len(), 3);
        assert!(by_pairing.iter().all(|job| job.iter().all(|game| game.pairing == job[0].pairing)));
        let two_bots = jobs(round_robin(2, 8, 1), 2);
        assert_eq!(two_bots.len(), 2);
        // Splits keep both seat orders of a setup together.
        assert!(two_bots.iter().all(|job| job.len() % 2 == 0));
        let all: Vec<_> = jobs(schedule.clone(), 8).into_iter().flatten().collect();
        assert_eq!(all, schedule);
    }
}
