//! The system call filter every sandboxed bot process loads last before
//! exec: an allowlist of what programs in common languages call (Python,
//! node, the JVM, Go, C, C++, Rust), so that a kernel interface nobody
//! listed is closed rather than open. Anything else fails with `ENOSYS`,
//! which runtimes read as "not on this kernel" and work around (glibc falls
//! back from `clone3` to `clone` on it).
//!
//! Left out on purpose: io_uring (its operations bypass this filter),
//! keyrings, bpf, perf, ptrace and reading other processes' memory, every
//! mount and namespace call, kernel modules, clocks, swap, reboot, and file
//! handles. What the machine shares between boxes whatever their
//! namespaces is closed too, as it would carry bits from one seat to the
//! other: file locks (`flock`, record locks, leases: a lock on a file both
//! boxes see is seen by both, read-only or not), directory notices
//! (`F_NOTIFY`, as inotify), and the page cache (`mincore`, reads and
//! writes that fail when a page is not cached, `cachestat`, and eviction by
//! `posix_fadvise`, `readahead` and `madvise`'s cold and page-out advice);
//! and every unix socket but a pair's (`socket(AF_UNIX, ...)`: a host's
//! socket in a shown folder answers `connect` whatever the mount says). `setsid` is refused so that every process of a box stays in its
//! session, which the scheduler shares CPU by when no cgroup does;
//! `sched_setaffinity` so that a bot keeps the CPU it was given; inotify,
//! whose watches on a view shared by both seats (the system folders) would
//! tell one bot when the other opens a file. Without a cgroup to count
//! them, `memfd_create` and System V IPC are refused too (they hold memory
//! no per-process limit or watchdog sees), and stack mappings
//! (`MAP_GROWSDOWN`, outside the data limit). Calls that name another process
//! (priorities, limits) are allowed on the caller only.
//!
//! The kernel caches the verdict of calls the filter allows whatever their
//! arguments, so a bot's reads and writes pay nothing for it per move. The
//! filter is compiled by [`super::bpf`]; in a box it is loaded in two
//! halves ([`super::box_filter`]) so that a start compiles only a short one.

use std::collections::BTreeMap;

use super::bpf::{self, Comparison, Condition, Instruction, Verdict};

/// A compiled filter, ready to load.
pub type Filter = Vec<Instruction>;

/// What the filter allows beyond the common list.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The process is in a box with its own network namespace, mount
    /// namespace and IPC: sockets of any common family and `connect` reach
    /// only what is inside it.
    pub boxed: bool,
    /// The bot may use the host's network.
    pub network: bool,
    /// The box's memory is counted by a cgroup, which counts `memfd` files
    /// and System V shared memory too; without one they would escape the
    /// memory limit, and are refused.
    pub memory_counted: bool,
    /// File locks are allowed: a build's box (compilers and package
    /// managers lock their caches), where no opponent runs beside it.
    pub locks: bool,
}

/// Calls allowed whatever their arguments.
const ALLOWED: &[libc::c_long] = &[
    // Files and folders.
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_pwrite64,
    libc::SYS_preadv,
    libc::SYS_pwritev,
    libc::SYS_openat,
    libc::SYS_openat2,
    libc::SYS_close,
    libc::SYS_close_range,
    libc::SYS_lseek,
    libc::SYS_fstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_statfs,
    libc::SYS_fstatfs,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_getdents64,
    libc::SYS_readlinkat,
    libc::SYS_getcwd,
    libc::SYS_chdir,
    libc::SYS_fchdir,
    libc::SYS_mkdirat,
    libc::SYS_unlinkat,
    libc::SYS_renameat,
    libc::SYS_renameat2,
    libc::SYS_linkat,
    libc::SYS_symlinkat,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    libc::SYS_fchown,
    libc::SYS_fchownat,
    libc::SYS_utimensat,
    libc::SYS_truncate,
    libc::SYS_ftruncate,
    libc::SYS_fallocate,
    libc::SYS_fsync,
    libc::SYS_fdatasync,
    libc::SYS_sync_file_range,
    libc::SYS_dup,
    libc::SYS_dup3,
    libc::SYS_pipe2,
    libc::SYS_splice,
    libc::SYS_tee,
    libc::SYS_copy_file_range,
    libc::SYS_sendfile,
    libc::SYS_umask,
    libc::SYS_getxattr,
    libc::SYS_lgetxattr,
    libc::SYS_fgetxattr,
    libc::SYS_listxattr,
    libc::SYS_llistxattr,
    libc::SYS_flistxattr,
    // Waiting and events.
    libc::SYS_ppoll,
    libc::SYS_pselect6,
    libc::SYS_epoll_create1,
    libc::SYS_epoll_ctl,
    libc::SYS_epoll_pwait,
    libc::SYS_epoll_pwait2,
    libc::SYS_eventfd2,
    libc::SYS_timerfd_create,
    libc::SYS_timerfd_settime,
    libc::SYS_timerfd_gettime,
    libc::SYS_signalfd4,
    libc::SYS_futex,
    libc::SYS_futex_waitv,
    libc::SYS_set_robust_list,
    libc::SYS_get_robust_list,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_getitimer,
    libc::SYS_setitimer,
    libc::SYS_timer_create,
    libc::SYS_timer_settime,
    libc::SYS_timer_gettime,
    libc::SYS_timer_getoverrun,
    libc::SYS_timer_delete,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_sched_getparam,
    libc::SYS_sched_getscheduler,
    libc::SYS_sched_getattr,
    libc::SYS_sched_get_priority_max,
    libc::SYS_sched_get_priority_min,
    libc::SYS_sched_rr_get_interval,
    libc::SYS_getpriority,
    libc::SYS_ioprio_get,
    // Memory.
    libc::SYS_brk,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_msync,
    libc::SYS_mlock,
    libc::SYS_mlock2,
    libc::SYS_munlock,
    libc::SYS_mlockall,
    libc::SYS_munlockall,
    libc::SYS_membarrier,
    libc::SYS_rseq,
    libc::SYS_pkey_alloc,
    libc::SYS_pkey_free,
    libc::SYS_pkey_mprotect,
    libc::SYS_get_mempolicy,
    // Processes and threads.
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_wait4,
    libc::SYS_waitid,
    libc::SYS_getpid,
    libc::SYS_getppid,
    libc::SYS_gettid,
    libc::SYS_getpgid,
    libc::SYS_setpgid,
    libc::SYS_getsid,
    libc::SYS_set_tid_address,
    libc::SYS_getuid,
    libc::SYS_geteuid,
    libc::SYS_getgid,
    libc::SYS_getegid,
    libc::SYS_getresuid,
    libc::SYS_getresgid,
    libc::SYS_getgroups,
    libc::SYS_capget,
    libc::SYS_getrusage,
    libc::SYS_getrlimit,
    libc::SYS_setrlimit,
    libc::SYS_times,
    libc::SYS_sysinfo,
    libc::SYS_uname,
    libc::SYS_getcpu,
    libc::SYS_getrandom,
    libc::SYS_prctl,
    libc::SYS_seccomp,
    libc::SYS_landlock_create_ruleset,
    libc::SYS_landlock_add_rule,
    libc::SYS_landlock_restrict_self,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_sigaltstack,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigsuspend,
    libc::SYS_rt_sigpending,
    libc::SYS_rt_sigtimedwait,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    // Sockets (which `socket` and `socketpair` may make is decided below).
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_getsockname,
    libc::SYS_getpeername,
    libc::SYS_getsockopt,
    libc::SYS_shutdown,
    libc::SYS_recvfrom,
    libc::SYS_recvmsg,
    libc::SYS_recvmmsg,
    libc::SYS_sendmsg,
    libc::SYS_sendmmsg,
    // POSIX message queues: private to a box's IPC namespace (System V
    // IPC is decided below).
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
];

/// The calls of the older x86-64 interface that glibc, Go and others still
/// make there (aarch64 has only the newer ones above).
#[cfg(target_arch = "x86_64")]
const ALLOWED_X86_64: &[libc::c_long] = &[
    libc::SYS_open,
    libc::SYS_stat,
    libc::SYS_lstat,
    libc::SYS_access,
    libc::SYS_readlink,
    libc::SYS_getdents,
    libc::SYS_mkdir,
    libc::SYS_rmdir,
    libc::SYS_unlink,
    libc::SYS_rename,
    libc::SYS_link,
    libc::SYS_symlink,
    libc::SYS_chmod,
    libc::SYS_chown,
    libc::SYS_lchown,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_creat,
    libc::SYS_dup2,
    libc::SYS_pipe,
    libc::SYS_poll,
    libc::SYS_select,
    libc::SYS_epoll_create,
    libc::SYS_epoll_wait,
    libc::SYS_eventfd,
    libc::SYS_signalfd,
    libc::SYS_pause,
    libc::SYS_alarm,
    libc::SYS_time,
    libc::SYS_fork,
    libc::SYS_vfork,
    libc::SYS_getpgrp,
    libc::SYS_arch_prctl,
    libc::SYS_futimesat,
];
#[cfg(not(target_arch = "x86_64"))]
const ALLOWED_X86_64: &[libc::c_long] = &[];

/// Namespace flags of `clone`: a bot makes no namespace of its own.
const NAMESPACE_FLAGS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u64;

/// `personality` values programs set (Docker's list): queries, Linux,
/// 32-bit Linux, and the old kernel version (UNAME26).
const PERSONALITIES: [u64; 5] = [0, 0x0008, 0x0002_0000, 0x0002_0008, 0xffff_ffff];

/// The architecture this build filters for (`AUDIT_ARCH_*`), and the call
/// numbers above which another interface lies (x32 on x86-64).
#[cfg(target_arch = "x86_64")]
pub(super) const ARCH: Option<(u32, Option<u32>)> = Some((0xC000_003E, Some(0x4000_0000)));
#[cfg(target_arch = "aarch64")]
pub(super) const ARCH: Option<(u32, Option<u32>)> = Some((0xC000_00B7, None));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) const ARCH: Option<(u32, Option<u32>)> = None;

pub(super) fn number(call: libc::c_long) -> u32 {
    u32::try_from(call).expect("system call numbers are small")
}

fn eq(argument: u8, value: u64) -> Condition {
    Condition { argument, comparison: Comparison::Eq32(value as u32) }
}

fn ne(argument: u8, value: u64) -> Condition {
    Condition { argument, comparison: Comparison::Ne32(value as u32) }
}

fn masked(argument: u8, mask: u64, value: u64) -> Condition {
    Condition { argument, comparison: Comparison::MaskedEq64 { mask, value } }
}

/// Builds the filter for this machine's architecture; `None` on an
/// architecture it does not know.
pub fn filter(policy: Policy) -> Option<Filter> {
    let (arch, reject_above) = ARCH?;
    Some(bpf::compile(arch, &table(policy), libc::ENOSYS as u16, reject_above))
}

/// What the filter of `policy` allows, by call number.
pub(super) fn table(policy: Policy) -> BTreeMap<u32, Verdict> {
    let mut table: BTreeMap<u32, Verdict> = BTreeMap::new();
    for &call in ALLOWED.iter().chain(ALLOWED_X86_64) {
        table.insert(number(call), Verdict::Allow);
    }
    let when = |rules: Vec<Vec<Condition>>| Verdict::When(rules);
    // A new process or thread, never a new namespace.
    table.insert(number(libc::SYS_clone), when(vec![vec![masked(0, NAMESPACE_FLAGS, 0)]]));
    // Calls that may name another process: the caller only (pid 0).
    for call in [
        libc::SYS_prlimit64,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
    ] {
        table.insert(number(call), when(vec![vec![eq(0, 0)]]));
    }
    // setpriority(which, who, prio) and ioprio_set(which, who, prio):
    // the caller or its own group (who 0), never every process of a user.
    const IOPRIO_WHO_USER: u64 = 3;
    table.insert(
        number(libc::SYS_setpriority),
        when(vec![vec![ne(0, libc::PRIO_USER as u64), eq(1, 0)]]),
    );
    table.insert(number(libc::SYS_ioprio_set), when(vec![vec![ne(0, IOPRIO_WHO_USER), eq(1, 0)]]));
    // fcntl but locks, leases and directory notices.
    const F_OFD_GETLK: u64 = 36;
    const F_OFD_SETLK: u64 = 37;
    const F_OFD_SETLKW: u64 = 38;
    const F_SETLEASE: u64 = 1024;
    const F_GETLEASE: u64 = 1025;
    const F_NOTIFY: u64 = 1026;
    let shared_state = [
        libc::F_GETLK as u64,
        libc::F_SETLK as u64,
        libc::F_SETLKW as u64,
        F_OFD_GETLK,
        F_OFD_SETLK,
        F_OFD_SETLKW,
        F_SETLEASE,
        F_GETLEASE,
        F_NOTIFY,
    ];
    if policy.locks {
        table.insert(number(libc::SYS_fcntl), Verdict::Allow);
        table.insert(number(libc::SYS_flock), Verdict::Allow);
    } else {
        table.insert(
            number(libc::SYS_fcntl),
            when(vec![shared_state.iter().map(|&command| ne(1, command)).collect()]),
        );
    }
    // preadv2(fd, iov, count, pos_l, pos_h, flags), pwritev2 alike: not
    // RWF_NOWAIT, which fails for a page not cached.
    const RWF_NOWAIT: u64 = 0x8;
    for call in [libc::SYS_preadv2, libc::SYS_pwritev2] {
        table.insert(number(call), when(vec![vec![masked(5, RWF_NOWAIT, 0)]]));
    }
    // madvise but the advice that evicts a file's pages.
    const MADV_COLD: u64 = 20;
    const MADV_PAGEOUT: u64 = 21;
    table
        .insert(number(libc::SYS_madvise), when(vec![vec![ne(2, MADV_COLD), ne(2, MADV_PAGEOUT)]]));
    table.insert(
        number(libc::SYS_personality),
        when(PERSONALITIES.iter().map(|&value| vec![eq(0, value)]).collect()),
    );
    // Terminal commands, except typing into a terminal (TIOCSTI) and the
    // console's own (TIOCLINUX).
    table.insert(
        number(libc::SYS_ioctl),
        when(vec![vec![ne(1, libc::TIOCSTI), ne(1, libc::TIOCLINUX)]]),
    );
    if policy.memory_counted {
        for call in [
            libc::SYS_memfd_create,
            libc::SYS_shmget,
            libc::SYS_shmat,
            libc::SYS_shmdt,
            libc::SYS_shmctl,
            libc::SYS_semget,
            libc::SYS_semop,
            libc::SYS_semtimedop,
            libc::SYS_semctl,
            libc::SYS_msgget,
            libc::SYS_msgsnd,
            libc::SYS_msgrcv,
            libc::SYS_msgctl,
        ] {
            table.insert(number(call), Verdict::Allow);
        }
    } else {
        // A stack mapping (MAP_GROWSDOWN) escapes the data limit; only the
        // watchdog's next look would see it.
        const MAP_GROWSDOWN: u64 = 0x0100;
        table.insert(number(libc::SYS_mmap), when(vec![vec![masked(3, MAP_GROWSDOWN, 0)]]));
    }
    // A socket's buffers stay the kernel's default size: no memory limit
    // counts what they hold, so a box that raised them (to
    // net.core.wmem_max, megabytes) on its hundreds of sockets would hold
    // gigabytes outside its limit.
    table.insert(
        number(libc::SYS_setsockopt),
        when(vec![
            vec![ne(1, libc::SOL_SOCKET as u64)],
            [libc::SO_SNDBUF, libc::SO_RCVBUF, libc::SO_SNDBUFFORCE, libc::SO_RCVBUFFORCE]
                .iter()
                .map(|&option| ne(2, option as u64))
                .collect(),
        ]),
    );
    // Unix sockets only as a pair of streams: a datagram socket, made by a
    // pair, could send to a host socket by path through sendmsg, whose
    // address no filter sees; a stream pair's sends take no address.
    table.insert(
        number(libc::SYS_socketpair),
        when(vec![vec![eq(0, libc::AF_UNIX as u64), masked(1, 0xf, libc::SOCK_STREAM as u64)]]),
    );
    if policy.boxed || policy.network {
        // In a box, a network of its own (or the host's, where allowed);
        // netlink to read its routes and addresses (NETLINK_ROUTE).
        let mut families: Vec<Vec<Condition>> = [libc::AF_INET, libc::AF_INET6]
            .iter()
            .map(|&family| vec![eq(0, family as u64)])
            .collect();
        families.push(vec![eq(0, libc::AF_NETLINK as u64), eq(2, 0)]);
        table.insert(number(libc::SYS_socket), when(families));
        table.insert(number(libc::SYS_connect), Verdict::Allow);
        table.insert(number(libc::SYS_sendto), Verdict::Allow);
    } else {
        // Outside a box and without the network: no socket at all, and no
        // sending by address.
        table.insert(number(libc::SYS_sendto), when(vec![vec![masked(4, u64::MAX, 0)]]));
    }
    table
}

#[cfg(test)]
mod tests;
