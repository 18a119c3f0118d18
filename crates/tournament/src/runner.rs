//! Playing a tournament's pending games with `concurrency` games at once.
//!
//! Each worker is a thread with its own single-threaded runtime, so a game's
//! referee work and its bots' wake-ups stay on few CPUs. Workers take jobs
//! (runs of consecutive games of one pairing) from a shared queue and keep
//! their two bot processes alive from game to game; a process belongs to one
//! worker and so is never in two games at once. A worker records each game
//! it finishes itself, through the shared recorder (a mutex around
//! games.csv and the progress), so no game waits for another thread to be
//! written; only a failure that ends the run travels back to the calling
//! thread, on a channel.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, watch};

use super::Pending;
use super::Recorder;
use super::config::Tournament;
use super::schedule::Schedule;
use arena_referee::with_rules;
use arena_referee::{Bot, BotCommand, GameProgram, GameReport, Rules, Settings, play_game};

/// A run of consecutive setups of one pairing, played by one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The two bots, as indexes into the tournament's, in schedule order.
    pub pairing: [usize; 2],
    /// The setups to play, by number from 0.
    pub setups: Range<u64>,
}

/// Splits the wanted games into jobs: one per pairing with games to play,
/// then halved (at setup boundaries) until there are at least `concurrency`
/// jobs or jobs cannot shrink further.
pub fn jobs(schedule: &Schedule, pending: &Pending, concurrency: usize) -> VecDeque<Job> {
    let mut jobs: VecDeque<Job> = schedule
        .pairings()
        .filter_map(|pairing| {
            let wanted = |setup: &u64| {
                schedule.games_of(pairing, *setup..*setup + 1).any(|game| pending.wants(&game))
            };
            let first = (0..schedule.setups()).find(wanted)?;
            let last = (0..schedule.setups()).rev().find(wanted)?;
            Some(Job { pairing, setups: first..last + 1 })
        })
        .collect();
    while jobs.len() < concurrency {
        let Some(largest) =
            (0..jobs.len()).max_by_key(|&index| jobs[index].setups.end - jobs[index].setups.start)
        else {
            break;
        };
        let Range { start, end } = jobs[largest].setups.clone();
        if end - start <= 1 {
            break;
        }
        let middle = start + (end - start).div_ceil(2);
        jobs[largest].setups = start..middle;
        jobs.insert(largest + 1, Job { pairing: jobs[largest].pairing, setups: middle..end });
    }
    jobs
}

/// The jobs the workers take, in turn.
enum JobQueue {
    /// Runs of setups, as [`jobs`] splits them.
    Runs(VecDeque<Job>),
    /// One setup at a time, in schedule order: the games finish in about
    /// the order a stop rule counts them in (an SPRT counts pairs in setup
    /// order, so games far ahead of the others would be played in vain).
    InOrder(VecDeque<Job>),
}

impl JobQueue {
    fn pop(&mut self) -> Option<Job> {
        match self {
            JobQueue::Runs(jobs) => jobs.pop_front(),
            JobQueue::InOrder(jobs) => {
                let front = jobs.front_mut()?;
                let setup = front.setups.start;
                let job = Job { pairing: front.pairing, setups: setup..setup + 1 };
                front.setups.start += 1;
                if front.setups.is_empty() {
                    jobs.pop_front();
                }
                Some(job)
            }
        }
    }

    fn len(&self) -> u64 {
        match self {
            JobQueue::Runs(jobs) => jobs.len() as u64,
            JobQueue::InOrder(jobs) => {
                jobs.iter().map(|job| job.setups.end - job.setups.start).sum()
            }
        }
    }
}

/// Starts the workers, which record each finished game with `recorder`.
/// A failure that stops the run (a bot that cannot start, a results file
/// that cannot be written) arrives on the returned receiver, which closes
/// when every worker has finished. Sending `true` on `cancel` makes every
/// worker abandon its game and stop its bots. With `in_order`, games are
/// taken one setup at a time in schedule order (for a stop rule).
#[allow(clippy::too_many_arguments)]
pub(crate) fn start_workers(
    tournament: &Tournament,
    commands: Vec<BotCommand>,
    game_command: Option<BotCommand>,
    schedule: Arc<Schedule>,
    pending: Arc<Pending>,
    recorder: Arc<Mutex<Recorder>>,
    cancel: watch::Receiver<bool>,
    in_order: bool,
) -> (mpsc::UnboundedReceiver<anyhow::Error>, Vec<Worker>) {
    let queue = match in_order {
        true => JobQueue::InOrder(jobs(&schedule, &pending, 1)),
        false => JobQueue::Runs(jobs(&schedule, &pending, tournament.concurrency)),
    };
    let worker_count = (tournament.concurrency as u64).min(queue.len()).max(1) as usize;
    let queue = Arc::new(Mutex::new(queue));
    let (sender, receiver) = mpsc::unbounded_channel();
    let shared = Arc::new(WorkerShared {
        tournament: tournament.clone(),
        commands,
        game_command,
        schedule,
        pending,
        recorder,
        queue,
    });
    // Pinned only where bots are kept alive: a program started on its
    // worker's CPU runs its start-up there while the worker waits to start
    // the other seat's, where elsewhere both would run at once (and
    // starting a program costs more than a game's lines between quick bots).
    let pinned = tournament.pin && !tournament.restarts_every_game();
    let cpus = if pinned { arena_system::os::allowed_cpus() } else { Vec::new() };
    // Where every CPU has a worker, no CPU is idle for a program the
    // kernel would move there: programs are born on their worker's CPU
    // (see `os::start_programs_here`).
    let programs_here = worker_count >= arena_system::os::allowed_cpus().len();
    let mut handles = Vec::with_capacity(worker_count);
    // Every worker's runtime made before any worker starts a program: a
    // runtime is epoll instances and pipes, which a bot that exhausts its
    // user's quotas (arena's own, without subordinate ids) would otherwise
    // keep a later worker from making.
    let runtimes: Vec<_> = (0..worker_count)
        .map(|_| tokio::runtime::Builder::new_current_thread().enable_all().build())
        .collect();
    for (number, runtime) in runtimes.into_iter().enumerate() {
        let cpu = (!cpus.is_empty()).then(|| cpus[number % cpus.len()]);
        let shared = Arc::clone(&shared);
        let worker_sender = sender.clone();
        let cancel = cancel.clone();
        let playing = Arc::new(AtomicU64::new(0));
        let playing_here = Arc::clone(&playing);
        let started =
            std::thread::Builder::new().name(format!("arena-worker-{number}")).spawn(move || {
                if let Some(cpu) = cpu {
                    arena_system::os::pin_current_thread(cpu);
                }
                arena_system::os::start_programs_here(programs_here);
                let runtime = match runtime {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = worker_sender.send(worker_failed(number, "its runtime", &error));
                        return;
                    }
                };
                runtime.block_on(async {
                    let program = |game| {
                        let command =
                            shared.game_command.clone().expect("a game program has its command");
                        GameProgram::of(
                            game,
                            command,
                            shared.tournament.settings.program_settings(),
                        )
                    };
                    let game = shared.tournament.setup.game();
                    with_rules!(game, program, rules => {
                        work(&shared, &mut rules, worker_sender, cancel, &playing_here).await;
                        rules_done(&mut rules).await;
                    })
                });
            });
        match started {
            Ok(thread) => handles.push(Worker { thread, playing }),
            Err(error) => {
                // The workers started play on; the run stops on this error.
                let _ = sender.send(worker_failed(number, "its thread", &error));
                break;
            }
        }
    }
    (receiver, handles)
}

/// Why worker `number` could not start `what`, naming the limits that
/// commonly cause it.
fn worker_failed(number: usize, what: &str, error: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "game worker {} cannot start {what}: {error}; each game played at once needs a thread and a few open files besides its two bot processes: raise the limit on processes and threads (`ulimit -u`) or on open files (`ulimit -n`), or play fewer games at once (concurrency)",
        number + 1
    )
}

/// A worker thread, and the number of the game it is playing (0 between
/// games), to name the game if the thread fails.
pub(crate) struct Worker {
    pub thread: std::thread::JoinHandle<()>,
    pub playing: Arc<AtomicU64>,
}

fn lock(recorder: &Mutex<Recorder>) -> std::sync::MutexGuard<'_, Recorder> {
    recorder.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct WorkerShared {
    tournament: Tournament,
    /// Each bot's command, by bot index, in its sandbox.
    commands: Vec<BotCommand>,
    /// A game program's command, in the same sandbox.
    game_command: Option<BotCommand>,
    schedule: Arc<Schedule>,
    pending: Arc<Pending>,
    recorder: Arc<Mutex<Recorder>>,
    queue: Arc<Mutex<JobQueue>>,
}

/// Ends what a worker's rules keep running (a game program's process).
async fn rules_done<R: Rules>(rules: &mut R) {
    rules.stop().await;
}

/// One worker: jobs until the queue is empty or the run is cancelled.
async fn work<R: Rules>(
    shared: &WorkerShared,
    rules: &mut R,
    failures: mpsc::UnboundedSender<anyhow::Error>,
    cancel: watch::Receiver<bool>,
    playing: &AtomicU64,
) {
    let tournament = &shared.tournament;
    let settings: &Settings = &tournament.settings;
    // The processes this worker holds, by bot index: at most the two of the
    // current pairing.
    let mut held: Vec<(usize, Bot)> = Vec::new();
    // One wait for the whole run: it is polled whenever a game wakes, and a
    // wait that is already registered costs least to poll again.
    let mut watching = cancel.clone();
    let cancelled = watching.wait_for(|cancelled| *cancelled);
    tokio::pin!(cancelled);
    'jobs: loop {
        let Some(job) = shared.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop()
        else {
            break;
        };
        let pairing = job.pairing;
        for (index, bot) in &mut held {
            if !pairing.contains(index) {
                bot.stop(settings).await;
            }
        }
        held.retain(|(index, _)| pairing.contains(index));
        for index in pairing {
            if !held.iter().any(|(held_index, _)| *held_index == index) {
                let entry = &tournament.bots[index];
                let mut bot = Bot::new(entry.name.clone(), shared.commands[index].clone());
                bot.time_control = entry.time_control;
                held.push((index, bot));
            }
        }
        for game in shared.schedule.games_of(pairing, job.setups) {
            if !shared.pending.wants(&game) {
                continue;
            }
            if *cancel.borrow() {
                break 'jobs;
            }
            let [first, second] = &mut held[..] else { unreachable!("a pairing holds two bots") };
            let seated = if first.0 == game.seats[0] {
                [&mut first.1, &mut second.1]
            } else {
                [&mut second.1, &mut first.1]
            };
            playing.store(game.index, Ordering::Relaxed);
            let withdrawn = lock(&shared.recorder).withdrawn(&game);
            if withdrawn.iter().any(Option::is_some) {
                // Lost unplayed; the withdrawn bot's process, if one is
                // held, is of no more use.
                for (seat, why) in withdrawn.iter().enumerate() {
                    if why.is_some() {
                        seated[seat].stop(settings).await;
                    }
                }
                let report = GameReport::unplayed(game.seed, withdrawn);
                if let Err(error) = lock(&shared.recorder).record(&game, &report, None) {
                    let _ = failures.send(error);
                    break 'jobs;
                }
                continue;
            }
            // Each round its own setup: an openings file varies them.
            let setup = tournament.setup_of(game.round);
            let files = lock(&shared.recorder)
                .layout()
                .files(game.index, [&seated[0].name, &seated[1].name]);
            let outcome = tokio::select! {
                biased;
                _ = &mut cancelled => break 'jobs,
                outcome = play_game(rules, setup, seated, game.seed, game.round, settings, &files) => outcome,
            };
            let mut report = match outcome {
                Ok(report) => report,
                Err(error) => {
                    let _ = failures
                        .send(anyhow::Error::new(error).context("a bot could not be started"));
                    break 'jobs;
                }
            };
            if tournament.restarts_every_game() {
                stop_all(&mut held, settings).await;
            }
            let transcript = report.transcript.take();
            if let Err(error) = lock(&shared.recorder).record(&game, &report, transcript) {
                let _ = failures.send(error);
                break 'jobs;
            }
        }
    }
    stop_all(&mut held, settings).await;
}

/// Stops the held bots at the same time, so their exits overlap.
async fn stop_all(held: &mut [(usize, Bot)], settings: &Settings) {
    match held {
        [(_, first), (_, second)] => {
            tokio::join!(first.stop(settings), second.stop(settings));
        }
        others => {
            for (_, bot) in others {
                bot.stop(settings).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_follow_pairings_and_split_for_concurrency() {
        let everything = Pending::everything(&Schedule::new(3, 4, 1));
        let schedule = Schedule::new(3, 4, 1);
        let by_pairing = jobs(&schedule, &everything, 1);
        assert_eq!(by_pairing.len(), 3);
        assert!(by_pairing.iter().all(|job| job.setups == (0..2)));
        let two_bots = Schedule::new(2, 8, 1);
        let split = jobs(&two_bots, &Pending::everything(&two_bots), 2);
        assert_eq!(split.iter().map(|job| job.setups.clone()).collect::<Vec<_>>(), [0..2, 2..4]);
        let all: Vec<_> = jobs(&schedule, &everything, 8)
            .into_iter()
            .flat_map(|job| schedule.games_of(job.pairing, job.setups).collect::<Vec<_>>())
            .collect();
        assert_eq!(all, schedule.iter().collect::<Vec<_>>());
    }

    #[test]
    fn in_order_jobs_are_single_setups_in_schedule_order() {
        let schedule = Schedule::new(3, 4, 1);
        let mut queue = JobQueue::InOrder(jobs(&schedule, &Pending::everything(&schedule), 1));
        assert_eq!(queue.len(), 6);
        let mut games = Vec::new();
        while let Some(job) = queue.pop() {
            assert_eq!(job.setups.end - job.setups.start, 1);
            games.extend(schedule.games_of(job.pairing, job.setups));
        }
        assert_eq!(games, schedule.iter().collect::<Vec<_>>());
    }
}
