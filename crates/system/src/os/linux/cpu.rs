//! CPUs: where threads run, and what they cost.

use super::super::Usage;

/// The CPUs the calling thread may run on (a worker's one CPU where it is
/// pinned).
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
    keep_current_thread_on(&[cpu]);
}

/// Keeps the calling thread on `cpus` (those [`allowed_cpus`] gives another
/// thread, say); processes it spawns inherit this. Failure only costs
/// speed, so it is ignored.
pub fn keep_current_thread_on(cpus: &[usize]) {
    // SAFETY: builds a CPU set on the stack and applies it to this thread (0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus.iter().filter(|&&cpu| cpu < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

thread_local! {
    /// Whether the programs this thread starts outside a box are born on
    /// its CPU (see [`start_programs_here`]).
    static PROGRAMS_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Has the programs the calling thread starts outside a box born on the
/// CPU it runs on (each takes the thread's CPUs before exec), or (`false`,
/// the default) lets the kernel place them: on the least loaded CPU, the
/// better choice while a CPU is idle (a worker's two seats then start at
/// once), the worse where every CPU has a worker (the program is sent
/// across an interrupt, often behind another game's processes, while its
/// parent's CPU waits for its exec). A box's bot is always born on its
/// first process's CPU, which has nothing else to run until the exec.
pub fn start_programs_here(here: bool) {
    PROGRAMS_HERE.with(|cell| cell.set(here));
}

/// Whether the calling thread has its programs born on its CPU.
pub fn starts_programs_here() -> bool {
    PROGRAMS_HERE.with(std::cell::Cell::get)
}

/// The CPUs the calling thread may run on, as a set.
pub(super) fn current_cpus() -> Option<libc::cpu_set_t> {
    // SAFETY: sched_getaffinity fills the set on the stack, of its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let read = libc::syscall(
            libc::SYS_sched_getaffinity,
            0,
            std::mem::size_of::<libc::cpu_set_t>(),
            &raw mut set,
        );
        (read > 0).then_some(set)
    }
}

/// Keeps the calling thread on `cpus`; failure only costs speed. A raw
/// system call: for a child between clone and exec.
pub(super) fn set_cpus(cpus: &libc::cpu_set_t) {
    // SAFETY: passes a set of its own size.
    unsafe {
        libc::syscall(
            libc::SYS_sched_setaffinity,
            0,
            std::mem::size_of::<libc::cpu_set_t>(),
            std::ptr::from_ref(cpus),
        );
    }
}

/// The CPU the calling thread runs on alone, where `cpus` has it and has
/// others: the set a child is born with on its parent's CPU. Raw system
/// calls only.
pub(super) fn only_current_among(cpus: &libc::cpu_set_t) -> Option<libc::cpu_set_t> {
    let mut here: libc::c_uint = 0;
    // SAFETY: getcpu writes the CPU's number; the node is not asked for.
    let known = unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &raw mut here,
            std::ptr::null_mut::<libc::c_uint>(),
            std::ptr::null_mut::<libc::c_void>(),
        )
    } == 0;
    let here = here as usize;
    // SAFETY: CPU_COUNT, CPU_ISSET and CPU_SET stay within the set for a
    // number under its size.
    unsafe {
        if !known
            || here >= libc::CPU_SETSIZE as usize
            || libc::CPU_COUNT(cpus) < 2
            || !libc::CPU_ISSET(here, cpus)
        {
            return None;
        }
        let mut only_here: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(here, &mut only_here);
        Some(only_here)
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

/// The time slice a program arena starts asks the scheduler for: the
/// shortest the kernel takes (100 us; its default is longer, 1.4 ms on
/// this project's machine).
const PROGRAM_SLICE_NS: u64 = 100_000;

/// `struct sched_attr`, as the kernel's first version of it.
#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

const SCHED_ATTR_SIZE: u32 = std::mem::size_of::<SchedAttr>() as u32;

/// The scheduling attributes of thread `pid` (0: the calling one), made
/// ready to be set again: only those of the fair scheduler's policies,
/// which have a slice to ask for. A raw system call.
fn fair_attributes(pid: libc::pid_t) -> Option<SchedAttr> {
    let mut attr = SchedAttr::default();
    // SAFETY: sched_getattr fills the attributes on the stack, of the size
    // given.
    let read =
        unsafe { libc::syscall(libc::SYS_sched_getattr, pid, &mut attr, SCHED_ATTR_SIZE, 0) };
    let fair = [libc::SCHED_OTHER, libc::SCHED_BATCH, libc::SCHED_IDLE];
    if read != 0 || !fair.iter().any(|policy| *policy as u32 == attr.policy) {
        return None;
    }
    attr.size = SCHED_ATTR_SIZE;
    attr.flags &= libc::SCHED_FLAG_RESET_ON_FORK as u64;
    Some(attr)
}

/// Sets thread `pid`'s attributes. A raw system call.
fn set_attributes(pid: libc::pid_t, attr: &SchedAttr) {
    // SAFETY: sched_setattr reads the attributes, of the size they say.
    unsafe {
        libc::syscall(libc::SYS_sched_setattr, pid, attr, 0);
    }
}

/// Asks the scheduler for a short time slice for the calling process,
/// which the processes and threads it starts inherit. Since Linux 6.12 a
/// process woken by a request on arena's CPU then runs at once, ahead of
/// the referee that wrote it (a woken task with a shorter slice than the
/// running one preempts it), instead of when the referee next gives up
/// the CPU; every round trip with a program costs the machine less
/// (docs/performance.md). A CPU-bound program keeps its share: a slice
/// only says how long it runs at a time when others wait. Its policy and
/// nice value stay as they are. Older kernels ignore the slice, and a
/// failure only costs speed, so it is ignored. Raw system calls only: for
/// a child between fork and exec.
pub fn ask_short_slice() {
    if let Some(mut attr) = fair_attributes(0) {
        attr.runtime = PROGRAM_SLICE_NS;
        set_attributes(0, &attr);
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
