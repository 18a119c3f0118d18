//! Starting a program on a second thread while the calling one starts
//! another: a start waits until its program has exec'd (and a box's, until
//! its root is built), and two such waits overlap where the machine has a
//! CPU to spare.
//!
//! The second thread is the calling thread's own, made on its first use
//! and ended when the calling thread ends: a box's first process dies with
//! the thread that started it (`PR_SET_PDEATHSIG`), so it must not be a
//! pool's thread that ends when idle. It runs on the CPUs the calling
//! thread ran on when it was made, so a pinned worker's programs are
//! pinned with it, and has its programs born where the calling thread has
//! (`os::start_programs_here`).

use std::sync::mpsc;

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// The calling thread's second thread, through which it sends jobs.
struct Alongside {
    jobs: mpsc::Sender<Job>,
}

impl Alongside {
    fn new() -> std::io::Result<Alongside> {
        let (jobs, incoming) = mpsc::channel::<Job>();
        let (cpus, here) =
            (arena_system::os::allowed_cpus(), arena_system::os::starts_programs_here());
        std::thread::Builder::new().name("arena-starter".into()).spawn(move || {
            arena_system::os::keep_current_thread_on(&cpus);
            arena_system::os::start_programs_here(here);
            // Ends when the calling thread ends (its sender is dropped).
            while let Ok(job) = incoming.recv() {
                job();
            }
        })?;
        Ok(Alongside { jobs })
    }
}

thread_local! {
    static ALONGSIDE: std::cell::OnceCell<Option<Alongside>> = const { std::cell::OnceCell::new() };
}

/// Runs `start` on the calling thread's second thread, inside the calling
/// thread's runtime; the answer comes back through the receiver. `None`
/// where no second thread can be made (run `start` here instead).
pub(crate) fn start_alongside<T: Send + 'static>(
    start: impl FnOnce() -> T + Send + 'static,
) -> Option<oneshot::Receiver<T>> {
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let (answer, answered) = oneshot::channel();
    let job: Job = Box::new(move || {
        let _inside = runtime.enter();
        let _ = answer.send(start());
    });
    ALONGSIDE.with(|cell| {
        let alongside = cell.get_or_init(|| Alongside::new().ok()).as_ref()?;
        alongside.jobs.send(job).ok()
    })?;
    Some(answered)
}
