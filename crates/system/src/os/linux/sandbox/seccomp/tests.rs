//! The allowlist's verdicts, checked with the BPF interpreter.

use super::super::bpf::interpret::{ALLOW, run};
use super::*;

fn decide(policy: Policy, call: libc::c_long, arguments: [u64; 6]) -> bool {
    let program = filter(policy).expect("a known architecture");
    run(&program, number(call), ARCH.unwrap().0, arguments) == ALLOW
}

const BOXED: Policy = Policy { boxed: true, network: false, memory_counted: true, locks: false };
const FALLBACK: Policy =
    Policy { boxed: false, network: false, memory_counted: false, locks: false };

#[test]
fn the_allowlist_lets_programs_run_and_refuses_what_escapes() {
    let unix = [libc::AF_UNIX as u64, libc::SOCK_STREAM as u64, 0, 0, 0, 0];
    let datagram = [libc::AF_UNIX as u64, libc::SOCK_DGRAM as u64, 0, 0, 0, 0];
    for call in [libc::SYS_read, libc::SYS_write, libc::SYS_mmap, libc::SYS_futex, libc::SYS_execve]
    {
        assert!(decide(BOXED, call, [0; 6]), "call {call}");
    }
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_ptrace,
        libc::SYS_bpf,
        libc::SYS_mount,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_keyctl,
        libc::SYS_setsid,
        libc::SYS_sched_setaffinity,
        libc::SYS_clone3,
        libc::SYS_process_vm_readv,
    ] {
        assert!(!decide(BOXED, call, [0; 6]), "call {call}");
    }
    let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
    assert!(decide(BOXED, libc::SYS_clone, [thread, 0, 0, 0, 0, 0]));
    assert!(!decide(BOXED, libc::SYS_clone, [libc::CLONE_NEWUSER as u64, 0, 0, 0, 0, 0]));
    assert!(!decide(BOXED, libc::SYS_ioctl, [0, libc::TIOCSTI, 0, 0, 0, 0]));
    assert!(decide(BOXED, libc::SYS_prlimit64, [0; 6]));
    assert!(!decide(BOXED, libc::SYS_prlimit64, [1234, 0, 0, 0, 0, 0]));
    // memfd and System V memory only where a cgroup counts them.
    assert!(decide(BOXED, libc::SYS_memfd_create, [0; 6]));
    assert!(!decide(FALLBACK, libc::SYS_memfd_create, [0; 6]));
    assert!(!decide(FALLBACK, libc::SYS_msgget, [0; 6]));
    assert!(!decide(BOXED, libc::SYS_inotify_init1, [0; 6]));
    // Unix sockets only as a pair of streams, in a box or not, with
    // the network or not: no socket of the host answers.
    let networked = Policy { network: true, ..FALLBACK };
    for policy in [BOXED, FALLBACK, networked] {
        assert!(decide(policy, libc::SYS_socketpair, unix));
        assert!(!decide(policy, libc::SYS_socketpair, datagram));
        assert!(!decide(policy, libc::SYS_socket, unix));
        assert!(!decide(policy, libc::SYS_socket, datagram));
    }
    // Outside a box without the network: no socket, no connect, no
    // sendto by address.
    let inet = [libc::AF_INET as u64, libc::SOCK_STREAM as u64, 0, 0, 0, 0];
    assert!(decide(BOXED, libc::SYS_socket, inet));
    assert!(decide(networked, libc::SYS_socket, inet));
    assert!(!decide(FALLBACK, libc::SYS_socket, inet));
    assert!(!decide(FALLBACK, libc::SYS_connect, [0; 6]));
    assert!(!decide(FALLBACK, libc::SYS_sendto, [3, 0, 5, 0, 0x1000, 16]));
    assert!(decide(FALLBACK, libc::SYS_sendto, [3, 0, 5, 0, 0, 0]));
    // Netlink for routes only.
    let netlink = |protocol| [libc::AF_NETLINK as u64, libc::SOCK_RAW as u64, protocol, 0, 0, 0];
    assert!(decide(BOXED, libc::SYS_socket, netlink(0)));
    assert!(!decide(BOXED, libc::SYS_socket, netlink(15)));
}

#[test]
fn nothing_shared_between_boxes_carries_bits() {
    for policy in [BOXED, FALLBACK] {
        // File locks and leases, directory notices; fcntl otherwise.
        for command in [5u64, 6, 7, 36, 37, 38, 1024, 1025, 1026] {
            assert!(!decide(policy, libc::SYS_fcntl, [3, command, 0, 0, 0, 0]), "{command}");
        }
        for command in [libc::F_GETFL, libc::F_SETFL, libc::F_DUPFD_CLOEXEC, libc::F_SETFD] {
            assert!(decide(policy, libc::SYS_fcntl, [3, command as u64, 0, 0, 0, 0]));
        }
        assert!(!decide(policy, libc::SYS_flock, [3, 2, 0, 0, 0, 0]));
        // The page cache: probes and eviction.
        for call in [libc::SYS_mincore, libc::SYS_fadvise64, libc::SYS_readahead, 451] {
            assert!(!decide(policy, call, [0; 6]), "call {call}");
        }
        const RWF_NOWAIT: u64 = 0x8;
        for call in [libc::SYS_preadv2, libc::SYS_pwritev2] {
            assert!(decide(policy, call, [3, 0, 1, 0, 0, 0]));
            assert!(!decide(policy, call, [3, 0, 1, 0, 0, RWF_NOWAIT]));
            assert!(!decide(policy, call, [3, 0, 1, 0, 0, RWF_NOWAIT | 1]));
        }
        assert!(decide(policy, libc::SYS_madvise, [0, 4096, libc::MADV_DONTNEED as u64, 0, 0, 0]));
        assert!(!decide(policy, libc::SYS_madvise, [0, 4096, 20, 0, 0, 0]));
        assert!(!decide(policy, libc::SYS_madvise, [0, 4096, 21, 0, 0, 0]));
    }
    // Socket buffers keep their size; other options are set.
    for policy in [BOXED, FALLBACK] {
        let sol = libc::SOL_SOCKET as u64;
        assert!(!decide(policy, libc::SYS_setsockopt, [3, sol, libc::SO_SNDBUF as u64, 0, 4, 0]));
        assert!(!decide(
            policy,
            libc::SYS_setsockopt,
            [3, sol, libc::SO_RCVBUFFORCE as u64, 0, 4, 0]
        ));
        assert!(decide(policy, libc::SYS_setsockopt, [3, sol, libc::SO_REUSEADDR as u64, 0, 4, 0]));
        assert!(decide(policy, libc::SYS_setsockopt, [3, 6, libc::SO_SNDBUF as u64, 0, 4, 0]));
    }
    // A build's box may lock (no opponent runs beside it).
    let build = Policy { locks: true, ..BOXED };
    assert!(decide(build, libc::SYS_flock, [3, 2, 0, 0, 0, 0]));
    assert!(decide(build, libc::SYS_fcntl, [3, libc::F_SETLK as u64, 0, 0, 0, 0]));
}

/// Well under the kernel's 4,096: the calls it allows whatever their
/// arguments are decided once and cached; the others walk it each time
/// (fcntl, madvise, the sockets: not a move's calls).
#[test]
fn the_filter_stays_small() {
    let program = filter(BOXED).expect("a known architecture");
    assert!(program.len() < 600, "{} instructions", program.len());
}
