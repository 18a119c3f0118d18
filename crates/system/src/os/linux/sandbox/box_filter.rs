//! A bot's seccomp filter in two halves for a box, so that a start does
//! not compile the whole filter again: the kernel converts and compiles
//! (JIT) each filter a process loads, a fifth of what a box's first process
//! spent per start, while a loaded filter is inherited by every child.
//!
//! The box's first process loads [`BoxFilters::first`] once, when its
//! box is built: the bot's filter, with the calls the first process and
//! the bot's process before exec still make (mounts to make the scratch
//! anew, a new IPC namespace, the bot's CPUs, its user id) allowed. Each
//! bot's process loads [`BoxFilters::bot`] last before exec: a short
//! filter that allows everything but those calls, which it decides as the
//! bot's filter does. A call passes both filters exactly when the bot's
//! filter allows it (a process's filters must all allow a call), which a
//! test checks call by call.

use std::collections::BTreeMap;

use super::bpf::{self, Verdict};
use super::seccomp::{ARCH, Filter, Policy, number, table};

/// The calls the bot's filter refuses that a box's first process makes
/// after its filter is loaded (the scratch made anew, the IPC namespace
/// and its mount of the namespace's queues, the bot's CPUs) or the bot's process does before exec (its user id,
/// dropping its capabilities).
const FIRST_PROCESS_CALLS: [libc::c_long; 13] = [
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_sched_setaffinity,
    libc::SYS_setresuid,
    libc::SYS_setresgid,
    libc::SYS_capset,
];

/// The two halves of a bot's filter in a box.
pub struct BoxFilters {
    /// Loaded by the box's first process once.
    pub first: Filter,
    /// Loaded by each bot's process before exec.
    pub bot: Filter,
}

/// The halves of the filter of `policy`; `None` on an architecture the
/// filter does not know.
pub fn box_filters(policy: Policy) -> Option<BoxFilters> {
    let (arch, reject_above) = ARCH?;
    let bots = table(policy);
    let mut first = bots.clone();
    for call in FIRST_PROCESS_CALLS {
        first.insert(number(call), Verdict::Allow);
    }
    // Every number up to the highest the first half allows, as the bot's
    // filter decides it for the calls above and allowed for the rest (the
    // first half decides those); a number left out is refused.
    let highest = *first.keys().next_back()?;
    let reserved: Vec<u32> = FIRST_PROCESS_CALLS.iter().map(|&call| number(call)).collect();
    let mut bot = BTreeMap::new();
    for call in 0..=highest {
        if !reserved.contains(&call) {
            bot.insert(call, Verdict::Allow);
        } else if let Some(verdict) = bots.get(&call) {
            bot.insert(call, verdict.clone());
        }
    }
    let errno = libc::ENOSYS as u16;
    Some(BoxFilters {
        first: bpf::compile(arch, &first, errno, reject_above),
        bot: bpf::compile(arch, &bot, errno, reject_above),
    })
}

#[cfg(test)]
mod tests {
    use super::super::bpf::interpret::{ALLOW, run};
    use super::super::seccomp::filter;
    use super::*;

    /// Arguments to try each call with: zeros, all ones, and the values
    /// the bot's filter compares arguments with, in every position.
    fn arguments() -> Vec<[u64; 6]> {
        let mut values = vec![0, u64::MAX, 1, 2, 3, 0x10, 0x100];
        values.extend([
            libc::CLONE_NEWIPC as u64,
            (libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD) as u64,
            libc::F_SETLK as u64,
            libc::AF_UNIX as u64,
            libc::AF_INET as u64,
            libc::SOL_SOCKET as u64,
            libc::SO_SNDBUF as u64,
            libc::TIOCSTI,
        ]);
        let mut all = Vec::new();
        for &value in &values {
            for position in 0..6 {
                let mut arguments = [0; 6];
                arguments[position] = value;
                all.push(arguments);
            }
            all.push([value; 6]);
        }
        all
    }

    #[test]
    fn both_halves_allow_exactly_what_the_bots_filter_allows() {
        let arch = ARCH.expect("a known architecture").0;
        for boxed in [false, true] {
            for network in [false, true] {
                for memory_counted in [false, true] {
                    for locks in [false, true] {
                        let policy = Policy { boxed, network, memory_counted, locks };
                        let whole = filter(policy).unwrap();
                        let halves = box_filters(policy).unwrap();
                        let conditional = table(policy);
                        for call in 0..1100 {
                            // Arguments matter only where a verdict has
                            // conditions.
                            let tried = match conditional.get(&call) {
                                Some(Verdict::When(_)) => arguments(),
                                _ => vec![[0; 6], [u64::MAX; 6]],
                            };
                            for arguments in tried {
                                let allowed = |program: &[bpf::Instruction]| {
                                    run(program, call, arch, arguments) == ALLOW
                                };
                                assert_eq!(
                                    allowed(&halves.first) && allowed(&halves.bot),
                                    allowed(&whole),
                                    "call {call} with {arguments:?} under {policy:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_first_process_may_make_its_calls_and_the_bot_may_not() {
        let arch = ARCH.unwrap().0;
        let policy = Policy { boxed: true, network: false, memory_counted: true, locks: false };
        let halves = box_filters(policy).unwrap();
        for call in FIRST_PROCESS_CALLS {
            assert_eq!(run(&halves.first, number(call), arch, [0; 6]), ALLOW, "call {call}");
            assert_ne!(run(&halves.bot, number(call), arch, [0; 6]), ALLOW, "call {call}");
        }
        // What a bot makes most pays only the short half per start.
        assert!(halves.bot.len() < 60, "{} instructions", halves.bot.len());
    }
}
