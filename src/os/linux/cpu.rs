//! CPUs: where threads run, and what they cost.

use super::super::Usage;

/// The CPUs this process may run on.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills the set it is given.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        set
    };
    // SAFETY: CPU_ISSET reads the set filled above.
    (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect()
}

/// Keeps the calling thread on `cpu`; processes it spawns inherit this.
/// Failure only costs speed, so it is ignored.
pub fn pin_current_thread(cpu: usize) {
    // SAFETY: builds a CPU set on the stack and applies it to this thread (0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Lets the calling thread run only on CPUs nothing else wants
/// (`SCHED_IDLE`), so it never preempts a game. Failure only costs speed,
/// so it is ignored.
pub fn run_current_thread_when_idle() {
    // SAFETY: sets the calling thread's (0) policy from a parameter on the stack.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

/// CPU time and peak memory of this process (all threads, no children).
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
