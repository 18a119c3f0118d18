//! A bot's boxes: each start's, made when it is asked for, or ahead of need
//! for a bot that starts again and again (a bot restarted every game, or
//! after each forfeit): what a box is does not depend on the game, so its
//! namespaces, ids, cgroup and root are made while the previous game plays,
//! and a start only tells the waiting box to start its bot.
//!
//! Boxes made ahead are made on a thread of arena's own that lives as long
//! as arena (a box's first process dies with the thread that made it), and
//! each waits with nothing of its bot running: no code of the bot's runs
//! before its game asks for it. A box whose bot ended by itself comes back
//! to serve the bot's next process (its first process has killed what the
//! bot left and made its scratch folders and IPC namespace anew), where the
//! box is a user of its own (with arena's user id in every box, the first
//! process is the bot's user); a box that was killed does not. A box made ahead or given back and never used ends with its bot's
//! sandbox (the end of the run), or with arena.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::bot::environment;
use super::boxed::{self, BoxPlan, BoxProcess, BoxStart};
use super::landlock::InBoxRuleset;
use super::started::{BoxEnd, Handle, ProcessEnd, Recycler, Returned, StartError, Started};
use super::{Sandbox, cgroup, ids, spawn, watchdog};
use crate::sandbox::SandboxError;

/// The most boxes kept waiting for one bot (one per game it may be in at
/// once, and one more while the last one given back makes itself new:
/// three cover a bot in both seats or two workers).
const MOST_SPARES: usize = 3;

/// What a box is made for: one start's command (a box made ahead is used
/// only for the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Inputs {
    pub(super) program: CString,
    pub(super) argv: Vec<CString>,
    pub(super) workdir: PathBuf,
    pub(super) env: Vec<(String, String)>,
}

/// A box made for `inputs`, with what it holds until it ends.
struct Spare {
    inputs: Inputs,
    process: BoxProcess,
    cgroup: Option<cgroup::Lease>,
    network: boxed::Network,
    /// The network namespace it entered (one of its bot's free ones).
    joined: Option<OwnedFd>,
    /// Made on the maker's thread (see [`BotBoxes::prepare`]).
    lasting: bool,
}

/// One bot's boxes.
pub(super) struct BotBoxes {
    sandbox: Arc<Sandbox>,
    plan: Arc<BoxPlan>,
    /// Under root, the network namespaces its ended boxes made, which its
    /// next boxes enter: a box is alone in its namespace while it runs,
    /// and leaves nothing in it when it ends.
    free_networks: Arc<Mutex<Vec<OwnedFd>>>,
    spares: Mutex<Vec<Spare>>,
    /// Boxes being made ahead.
    making: AtomicUsize,
    starts: AtomicU64,
    /// Who its boxes are on the host.
    ids: ids::BoxIds,
}

type Job = Box<dyn FnOnce() + Send>;

/// The thread that makes boxes ahead of need; it never ends.
fn maker() -> &'static Mutex<Sender<Job>> {
    static MAKER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    MAKER.get_or_init(|| {
        let (jobs, incoming) = channel::<Job>();
        std::thread::Builder::new()
            .name("arena-box-maker".into())
            .spawn(move || {
                while let Ok(job) = incoming.recv() {
                    job();
                }
            })
            .expect("the box maker's thread starts");
        Mutex::new(jobs)
    })
}

impl BotBoxes {
    pub(super) fn new(sandbox: Arc<Sandbox>, plan: BoxPlan, ids: ids::BoxIds) -> BotBoxes {
        BotBoxes {
            sandbox,
            plan: Arc::new(plan),
            free_networks: Arc::default(),
            spares: Mutex::default(),
            making: AtomicUsize::new(0),
            starts: AtomicU64::new(0),
            ids,
        }
    }

    /// Starts a process of the bot for `inputs`: in a box waiting for them
    /// if there is one (one ready at once first), else in one made now; and
    /// from its second start on, has the next made ahead.
    pub(super) fn start(self: &Arc<Self>, inputs: Inputs) -> Result<Started, StartError> {
        let spare = {
            let mut spares = self.spares.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let fits = |spare: &Spare| spare.inputs == inputs;
            let found = spares
                .iter()
                .position(|spare| fits(spare) && spare.process.looks_ready())
                .or_else(|| spares.iter().position(fits));
            found.map(|at| spares.swap_remove(at))
        };
        let started = match spare {
            // A box that waited may have ended meanwhile: a new one then.
            Some(spare) => self.go(spare).or_else(|_| self.go(self.prepare_lasting(&inputs)?)),
            None => self.go(self.prepare_lasting(&inputs)?),
        };
        if self.starts.fetch_add(1, Ordering::Relaxed) >= 1 {
            self.make_ahead(inputs);
        }
        started
    }

    /// Has a box for `inputs` made on the maker's thread, unless one for
    /// them waits (ready, or making itself new: the box of a bot that ends
    /// by itself comes back, ready at once where the bot left its scratch
    /// alone) or is being made. More would be made only to end: a bot keeps
    /// at most [`MOST_SPARES`] waiting, and each box made and ended costs
    /// milliseconds of the machine.
    fn make_ahead(self: &Arc<Self>, inputs: Inputs) {
        let waiting = self
            .spares
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .any(|spare| spare.inputs == inputs);
        if waiting || self.making.load(Ordering::Relaxed) >= 1 {
            return;
        }
        self.making.fetch_add(1, Ordering::Relaxed);
        // A run that ends meanwhile makes none.
        let boxes: Weak<BotBoxes> = Arc::downgrade(self);
        let job: Job = Box::new(move || {
            let Some(boxes) = boxes.upgrade() else { return };
            // A failure here is told by the start that makes its box then.
            if let Ok(spare) = boxes.prepare(&inputs, true) {
                boxes.keep(spare);
            }
            boxes.making.fetch_sub(1, Ordering::Relaxed);
        });
        let sender = maker().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        if sender.send(job).is_err() {
            self.making.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Makes a box for `inputs` now, on the maker's thread (so that it may
    /// serve again), waiting for it; on this thread if the maker is gone.
    fn prepare_lasting(self: &Arc<Self>, inputs: &Inputs) -> Result<Spare, StartError> {
        let (made, box_made) = std::sync::mpsc::sync_channel(1);
        let boxes = Arc::clone(self);
        let wanted = inputs.clone();
        let job: Job = Box::new(move || {
            let _ = made.send(boxes.prepare(&wanted, true));
        });
        let sender = maker().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        match sender.send(job) {
            Ok(()) => box_made.recv().unwrap_or_else(|_| self.prepare(inputs, false)),
            Err(_) => self.prepare(inputs, false),
        }
    }

    /// Keeps `spare` waiting for a start, unless enough wait (then it ends).
    fn keep(&self, spare: Spare) {
        let mut spares = self.spares.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if spares.len() < MOST_SPARES {
            spares.push(spare);
        }
    }

    /// Makes a box for `inputs`, up to its bot's start.
    /// `lasting` when made on the maker's thread: a box dies with the thread
    /// that made it, and only one made there may serve another worker's
    /// game once its bot ends (a worker's thread ends with its last game).
    fn prepare(&self, inputs: &Inputs, lasting: bool) -> Result<Spare, StartError> {
        let sandbox = &self.sandbox;
        let limits = &sandbox.settings.limits;
        let cgroup = match &sandbox.cgroups {
            Some(cgroups) => Some(cgroups.lease().map_err(|error| {
                SandboxError::Setup(format!("cannot make a cgroup for a bot: {error}"))
            })?),
            None => None,
        };
        let (network, joined) = self.network();
        let start = BoxStart {
            plan: Arc::clone(&self.plan),
            program: inputs.program.clone(),
            argv: inputs.argv.clone(),
            envp: environment(b"/tmp", &inputs.env, limits.memory)?,
            workdir: CString::new(inputs.workdir.as_os_str().as_encoded_bytes())
                .map_err(|_| SandboxError::Setup("a NUL byte in the working folder".into()))?,
            rlimits: sandbox.rlimits(),
            landlock: sandbox.protections.landlock_abi.map(|abi| {
                let writable: Vec<&str> = boxed::SCRATCH
                    .iter()
                    .copied()
                    .chain(self.plan.writable.iter().map(String::as_str))
                    .collect();
                InBoxRuleset::new(abi, &writable, &boxed::DEVICES, sandbox.settings.network)
            }),
            filters: sandbox.box_filters.clone(),
            scratch_options: CString::new(format!("size={},mode=1777", limits.scratch))
                .expect("no NUL in a number"),
            command_line: sandbox.command_line.clone(),
            ids: self.ids.clone(),
            network,
            cgroup_joins: cgroup.as_ref().map(|cgroup| cgroup.join_files()).unwrap_or_default(),
        };
        let process = boxed::prepare(&start).map_err(failed)?;
        Ok(Spare { inputs: inputs.clone(), process, cgroup, network, joined, lasting })
    }

    /// Starts the bot of a box made for it, on the calling thread's CPUs.
    fn go(self: &Arc<Self>, spare: Spare) -> Result<Started, StartError> {
        // A box that serves again counts its cgroup's limits from its last
        // process's end (`Lease::reached`).
        let Spare { inputs, mut process, cgroup, network, joined, lasting } = spare;
        let sandbox = &self.sandbox;
        let cpus = crate::os::allowed_cpus();
        let pipes = process.go(Some(&cpus)).map_err(failed)?;
        // Past this point a failure drops `process`, which ends the box.
        let keeping = |doing: &'static str| move |error| StartError::Box { doing, error };
        let network = match (network, joined) {
            (boxed::Network::Join(_), Some(namespace)) => Some(namespace),
            (boxed::Network::Own, _) if matches!(self.ids, ids::BoxIds::Root) => {
                // Kept for the bot's next boxes (see `free_networks`).
                std::fs::File::open(format!("/proc/{}/ns/net", process.pid)).ok().map(OwnedFd::from)
            }
            _ => None,
        };
        let watch = match cgroup {
            Some(_) => None,
            None => {
                let pidfd = process.pidfd().map_err(keeping("watching the box's memory"))?;
                Some(watchdog::Watch::first_process(
                    process.pid,
                    pidfd,
                    sandbox.settings.limits.memory,
                ))
            }
        };
        let killer = process.pidfd().map_err(keeping("keeping the box's descriptor"))?;
        let pidfd = process.pidfd().map_err(keeping("keeping the box's descriptor"))?;
        let life = Arc::default();
        let home = Box::new(GiveBack { boxes: Arc::downgrade(self), inputs });
        Ok(Started {
            handle: Handle::Box { pidfd: killer, pid: process.pid, life: Arc::clone(&life) },
            spawned: spawn::Spawned {
                pid: process.pid,
                pidfd,
                stdin: pipes.stdin,
                stdout: pipes.stdout,
                stderr: pipes.stderr,
            },
            ending: ProcessEnd::Box(BoxEnd {
                process,
                cgroup,
                watch,
                network: network.map(|namespace| (namespace, Arc::clone(&self.free_networks))),
                life,
                home,
                // Where the box's first process is the bot's own user, the
                // bot could reach it (signals) and the folders it makes.
                lasting: lasting && self.ids.own(),
                bot_status: None,
            }),
        })
    }

    /// The network a new box of this bot gets, and the namespace it enters
    /// (taken from the bot's free ones, given back when the box ends).
    fn network(&self) -> (boxed::Network, Option<OwnedFd>) {
        if self.sandbox.settings.network {
            return (boxed::Network::Host, None);
        }
        // Only root may enter a namespace it did not make.
        if !matches!(self.ids, ids::BoxIds::Root) {
            return (boxed::Network::Own, None);
        }
        match self.free_networks.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop() {
            Some(namespace) => (boxed::Network::Join(namespace.as_raw_fd()), Some(namespace)),
            None => (boxed::Network::Own, None),
        }
    }
}

/// A box's failure to start, as a start error.
fn failed(failure: boxed::StartFailure) -> StartError {
    match failure.step {
        boxed::Failed::Exec => StartError::Exec(failure.error),
        step => StartError::Box { doing: step.doing(), error: failure.error },
    }
}

/// Where a box goes back to after its bot's end: the bot's waiting boxes.
struct GiveBack {
    boxes: Weak<BotBoxes>,
    inputs: Inputs,
}

impl Recycler for GiveBack {
    fn give_back(self: Box<Self>, returned: Option<Returned>) {
        let (Some(returned), Some(boxes)) = (returned, self.boxes.upgrade()) else { return };
        let inputs = self.inputs;
        let Returned { process, cgroup, network } = returned;
        let (network, joined) = match network {
            Some(namespace) => (boxed::Network::Join(namespace.as_raw_fd()), Some(namespace)),
            None if boxes.sandbox.settings.network => (boxed::Network::Host, None),
            None => (boxed::Network::Own, None),
        };
        boxes.keep(Spare { inputs, process, cgroup, network, joined, lasting: true });
    }
}
