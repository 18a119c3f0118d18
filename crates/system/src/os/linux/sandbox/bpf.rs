//! A seccomp filter compiled as a search tree over system call numbers.
//!
//! A filter's cost is paid at every process start: the kernel converts it,
//! compiles it and then runs it once per system call number to build its
//! cache of calls that are always allowed. seccompiler (which an earlier
//! version used) emits one comparison after another, about 1,300
//! instructions for the allowlist, which cost 0.6 ms of each box's start;
//! ranges of allowed numbers in a binary tree take a few hundred, and the
//! kernel's cache still makes an allowed call free.

use std::collections::BTreeMap;

/// One classic BPF instruction (`struct sock_filter`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

// Instruction codes: class | operation | source (`linux/bpf_common.h`).
/// BPF_LD | BPF_W | BPF_ABS: load a 32-bit word of the call's data.
const BPF_LD_W_ABS: u16 = 0x20;
/// BPF_JMP | BPF_JA.
const BPF_JMP_JA: u16 = 0x05;
/// BPF_JMP | BPF_JEQ | BPF_K.
const BPF_JEQ_K: u16 = 0x15;
/// BPF_JMP | BPF_JGT | BPF_K.
const BPF_JGT_K: u16 = 0x25;
/// BPF_JMP | BPF_JGE | BPF_K.
const BPF_JGE_K: u16 = 0x35;
/// BPF_ALU | BPF_AND | BPF_K.
const BPF_ALU_AND_K: u16 = 0x54;
/// BPF_RET | BPF_K.
const BPF_RET_K: u16 = 0x06;

const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

/// Where `struct seccomp_data` keeps the call number, the architecture and
/// the arguments.
const NUMBER: u32 = 0;
const ARCH: u32 = 4;
const fn argument(index: u8) -> u32 {
    16 + 8 * index as u32
}

/// How one argument is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The low 32 bits equal the value.
    Eq32(u32),
    /// The low 32 bits differ from the value.
    Ne32(u32),
    /// All 64 bits, masked, equal the value.
    MaskedEq64 { mask: u64, value: u64 },
}

/// A condition on argument `argument` of the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    pub argument: u8,
    pub comparison: Comparison,
}

/// What the filter does with one call number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed whatever its arguments.
    Allow,
    /// Allowed when any of these conjunctions of conditions holds.
    When(Vec<Vec<Condition>>),
}

fn statement(code: u16, k: u32) -> Instruction {
    Instruction { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: usize, jf: usize) -> Instruction {
    let offset = |value: usize| u8::try_from(value).expect("a rule's jumps stay short");
    Instruction { code, jt: offset(jt), jf: offset(jf), k }
}

/// Compiles `table` for architecture `arch` (an `AUDIT_ARCH_*` value):
/// calls it lists are allowed (on their conditions), every other call and
/// every other architecture fails with `errno`. `reject_above`, when set,
/// refuses every number at or above it (the x32 numbers on x86-64).
pub fn compile(
    arch: u32,
    table: &BTreeMap<u32, Verdict>,
    errno: u16,
    reject_above: Option<u32>,
) -> Vec<Instruction> {
    let deny = statement(BPF_RET_K, SECCOMP_RET_ERRNO | u32::from(errno));
    let allow = statement(BPF_RET_K, SECCOMP_RET_ALLOW);
    let mut program = vec![
        statement(BPF_LD_W_ABS, ARCH),
        jump(BPF_JEQ_K, arch, 1, 0),
        deny,
        statement(BPF_LD_W_ABS, NUMBER),
    ];
    if let Some(limit) = reject_above {
        program.push(jump(BPF_JGE_K, limit, 0, 1));
        program.push(deny);
    }
    let ranges = ranges(table);
    program.extend(tree(&ranges, allow, deny));
    program
}

/// Consecutive numbers allowed whatever their arguments, merged, and each
/// conditional number on its own: `(first, last, verdict)`.
fn ranges(table: &BTreeMap<u32, Verdict>) -> Vec<(u32, u32, &Verdict)> {
    let mut ranges: Vec<(u32, u32, &Verdict)> = Vec::new();
    for (&number, verdict) in table {
        match ranges.last_mut() {
            Some((_, last, Verdict::Allow))
                if *verdict == Verdict::Allow && *last + 1 == number =>
            {
                *last = number;
            }
            _ => ranges.push((number, number, verdict)),
        }
    }
    ranges
}

/// The code that decides a number in the accumulator against `ranges`:
/// a binary tree of comparisons down to one range per leaf.
fn tree(
    ranges: &[(u32, u32, &Verdict)],
    allow: Instruction,
    deny: Instruction,
) -> Vec<Instruction> {
    match ranges {
        [] => vec![deny],
        [(first, last, verdict)] => {
            let action = match verdict {
                Verdict::Allow => vec![allow],
                Verdict::When(rules) => conditions(rules, allow, deny),
            };
            let mut code = Vec::new();
            if first == last {
                code.push(jump(BPF_JEQ_K, *first, 0, action.len()));
            } else {
                code.push(jump(BPF_JGE_K, *first, 0, action.len() + 1));
                code.push(jump(BPF_JGT_K, *last, action.len(), 0));
            }
            code.extend(action);
            code.push(deny);
            code
        }
        _ => {
            let middle = ranges.len() / 2;
            let below = tree(&ranges[..middle], allow, deny);
            let above = tree(&ranges[middle..], allow, deny);
            // At or above the pivot: over the code for the numbers below
            // (an unconditional jump, whose offset has 32 bits).
            let mut code = vec![
                jump(BPF_JGE_K, ranges[middle].0, 0, 1),
                statement(BPF_JMP_JA, below.len() as u32),
            ];
            code.extend(below);
            code.extend(above);
            code
        }
    }
}

/// The code that allows the call when any rule's conditions all hold, and
/// denies it otherwise. It reloads the call number at the end for nothing:
/// every path returns.
fn conditions(rules: &[Vec<Condition>], allow: Instruction, deny: Instruction) -> Vec<Instruction> {
    let mut code = Vec::new();
    for rule in rules {
        // Built from the end: a failed condition skips the rest of its
        // rule, landing on the next one.
        let mut tail = vec![allow];
        for condition in rule.iter().rev() {
            tail = [condition_code(condition, tail.len()), tail].concat();
        }
        code.extend(tail);
    }
    code.push(deny);
    code
}

/// One condition; on failure it jumps `skip` instructions past its own end.
fn condition_code(condition: &Condition, skip: usize) -> Vec<Instruction> {
    let low = argument(condition.argument);
    let high = low + 4;
    match condition.comparison {
        Comparison::Eq32(value) => {
            vec![statement(BPF_LD_W_ABS, low), jump(BPF_JEQ_K, value, 0, skip)]
        }
        Comparison::Ne32(value) => {
            vec![statement(BPF_LD_W_ABS, low), jump(BPF_JEQ_K, value, skip, 0)]
        }
        Comparison::MaskedEq64 { mask, value } => vec![
            statement(BPF_LD_W_ABS, high),
            statement(BPF_ALU_AND_K, (mask >> 32) as u32),
            jump(BPF_JEQ_K, (value >> 32) as u32, 0, skip + 3),
            statement(BPF_LD_W_ABS, low),
            statement(BPF_ALU_AND_K, mask as u32),
            jump(BPF_JEQ_K, value as u32, 0, skip),
        ],
    }
}

#[cfg(test)]
pub mod interpret {
    //! A classic BPF interpreter for the instructions above, to check what
    //! a compiled filter decides.

    use super::*;

    /// What `program` returns for a call: number, architecture, arguments.
    pub fn run(program: &[Instruction], number: u32, arch: u32, arguments: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&number.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (index, value) in arguments.iter().enumerate() {
            data[16 + 8 * index..24 + 8 * index].copy_from_slice(&value.to_le_bytes());
        }
        let mut accumulator = 0u32;
        let mut counter = 0usize;
        loop {
            let instruction = program[counter];
            counter += 1;
            match instruction.code {
                BPF_LD_W_ABS => {
                    let at = instruction.k as usize;
                    accumulator = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
                }
                BPF_ALU_AND_K => accumulator &= instruction.k,
                BPF_JMP_JA => counter += instruction.k as usize,
                BPF_RET_K => return instruction.k,
                code => {
                    let taken = match code {
                        BPF_JEQ_K => accumulator == instruction.k,
                        BPF_JGT_K => accumulator > instruction.k,
                        BPF_JGE_K => accumulator >= instruction.k,
                        other => panic!("unknown instruction {other:#x}"),
                    };
                    counter += usize::from(if taken { instruction.jt } else { instruction.jf });
                }
            }
        }
    }

    pub const ALLOW: u32 = SECCOMP_RET_ALLOW;
}

#[cfg(test)]
mod tests {
    use super::interpret::{ALLOW, run};
    use super::*;

    const ARCH: u32 = 0xC000_003E;

    #[test]
    fn the_tree_decides_every_number_as_the_table_says() {
        let mut table = BTreeMap::new();
        for number in [0, 1, 2, 3, 9, 10, 11, 60, 61, 100, 200, 201, 202, 435] {
            table.insert(number, Verdict::Allow);
        }
        table.insert(
            56,
            Verdict::When(vec![vec![Condition {
                argument: 0,
                comparison: Comparison::MaskedEq64 { mask: 0x7000_0000, value: 0 },
            }]]),
        );
        table.insert(
            16,
            Verdict::When(vec![vec![
                Condition { argument: 1, comparison: Comparison::Ne32(0x5412) },
                Condition { argument: 1, comparison: Comparison::Ne32(0x541C) },
            ]]),
        );
        table.insert(
            41,
            Verdict::When(vec![
                vec![Condition { argument: 0, comparison: Comparison::Eq32(1) }],
                vec![Condition { argument: 0, comparison: Comparison::Eq32(2) }],
            ]),
        );
        let program = compile(ARCH, &table, 38, Some(0x4000_0000));
        let denied = SECCOMP_RET_ERRNO | 38;
        for number in 0..500 {
            let expected = if table.get(&number) == Some(&Verdict::Allow) { ALLOW } else { denied };
            if table.get(&number).is_some_and(|verdict| *verdict != Verdict::Allow) {
                continue;
            }
            assert_eq!(run(&program, number, ARCH, [0; 6]), expected, "call {number}");
        }
        // Another architecture, and x32 numbers: denied.
        assert_eq!(run(&program, 0, 0x4000_0003, [0; 6]), denied);
        assert_eq!(run(&program, 0x4000_0000, ARCH, [0; 6]), denied);
        // Conditions: clone without and with a namespace flag.
        assert_eq!(run(&program, 56, ARCH, [0x11, 0, 0, 0, 0, 0]), ALLOW);
        assert_eq!(run(&program, 56, ARCH, [0x1000_0011, 0, 0, 0, 0, 0]), denied);
        assert_eq!(run(&program, 56, ARCH, [0x1_0000_0011, 0, 0, 0, 0, 0]), ALLOW);
        // Both conditions of a rule must hold.
        assert_eq!(run(&program, 16, ARCH, [0, 0x5401, 0, 0, 0, 0]), ALLOW);
        assert_eq!(run(&program, 16, ARCH, [0, 0x5412, 0, 0, 0, 0]), denied);
        assert_eq!(run(&program, 16, ARCH, [0, 0x541C, 0, 0, 0, 0]), denied);
        // Any rule may hold.
        assert_eq!(run(&program, 41, ARCH, [1, 0, 0, 0, 0, 0]), ALLOW);
        assert_eq!(run(&program, 41, ARCH, [2, 0, 0, 0, 0, 0]), ALLOW);
        assert_eq!(run(&program, 41, ARCH, [3, 0, 0, 0, 0, 0]), denied);
    }

    #[test]
    fn ranges_merge_consecutive_allowed_numbers_only() {
        let mut table = BTreeMap::new();
        for number in [1, 2, 3, 5] {
            table.insert(number, Verdict::Allow);
        }
        table.insert(4, Verdict::When(Vec::new()));
        let merged: Vec<(u32, u32)> =
            ranges(&table).into_iter().map(|(first, last, _)| (first, last)).collect();
        assert_eq!(merged, [(1, 3), (4, 4), (5, 5)]);
    }
}
