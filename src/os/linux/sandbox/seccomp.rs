//! The system call filter: what Landlock does not cover. Calls that act on
//! another process by pid (priorities, scheduling, limits), network sockets
//! and unix socket connections, keyrings, terminal input injection, and
//! file handles. A refused call fails with `EPERM`; everything else is
//! allowed.
//!
//! The threads that start bots carry this filter themselves (bots inherit
//! it at fork, which saves compiling it for every process), so it must
//! never refuse what the referee does: pipes, files, signals to its own
//! children, waiting, pinning itself to a CPU.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Builds the filter for this machine's architecture; `None` where
/// seccompiler does not know the architecture.
pub fn filter(network: bool) -> Result<Option<BpfProgram>, seccompiler::BackendError> {
    let Ok(arch) = TargetArch::try_from(std::env::consts::ARCH) else { return Ok(None) };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let when = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions);
    let arg = |index: u8, operator: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Qword, operator, value)
    };
    let low = |index: u8, operator: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, operator, value)
    };
    use SeccompCmpOp::{Eq, MaskedEq, Ne};

    // Acting on another process by its pid: pid 0 means the caller.
    for call in [
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_prlimit64,
    ] {
        rules.insert(call, vec![when(vec![low(0, Ne, 0)?])?]);
    }
    // setpriority(which, who, ...): only the caller itself or its own
    // group (who 0); never every process of the user.
    rules.insert(
        libc::SYS_setpriority,
        vec![when(vec![low(1, Ne, 0)?])?, when(vec![low(0, Eq, libc::PRIO_USER as u64)?])?],
    );
    const IOPRIO_WHO_USER: u64 = 3;
    rules.insert(
        libc::SYS_ioprio_set,
        vec![when(vec![low(1, Ne, 0)?])?, when(vec![low(0, Eq, IOPRIO_WHO_USER)?])?],
    );
    // Typing into a terminal, and terminal-specific commands.
    rules.insert(
        libc::SYS_ioctl,
        vec![when(vec![low(1, Eq, libc::TIOCSTI)?])?, when(vec![low(1, Eq, libc::TIOCLINUX)?])?],
    );
    // Shared kernel keyrings, files by handle (which bypass paths), and
    // kernel tracing facilities: none is needed to play.
    for call in [
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_perf_event_open,
        libc::SYS_bpf,
    ] {
        rules.insert(call, Vec::new());
    }
    if !network {
        // Only unix stream sockets (and socketpair, which is not filtered);
        // and no connecting, which would reach unix sockets of the host by
        // path (Landlock covers TCP, not those).
        rules.insert(
            libc::SYS_socket,
            vec![
                when(vec![low(0, Ne, libc::AF_UNIX as u64)?])?,
                when(vec![arg(1, MaskedEq(0xf), libc::SOCK_DGRAM as u64)?])?,
                when(vec![arg(1, MaskedEq(0xf), libc::SOCK_SEQPACKET as u64)?])?,
            ],
        );
        rules.insert(libc::SYS_connect, Vec::new());
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    Ok(Some(filter.try_into()?))
}
