//! The OS layer on Linux.

mod cpu;
mod pipe;
mod plain;
mod process;
pub mod sandbox;
mod terminal;

pub use cpu::{
    allowed_cpus, ask_short_slice, keep_current_thread_on, own_usage, pin_current_thread,
    run_current_thread_when_idle, start_programs_here, starts_programs_here,
};
pub use pipe::{pidfd_of, read_available, wait_readable, write_available};
pub use plain::spawn_plain;
pub use process::{
    ProcStat, become_subreaper, descendants_of, kill_group, kill_process_and_group, last_pid,
    read_stat, reading_stdin, reap_by_pid, user_ids,
};
pub use terminal::EchoOff;
