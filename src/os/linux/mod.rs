//! The OS layer on Linux.

mod cpu;
mod pipe;
mod process;
pub mod sandbox;
mod terminal;

pub use cpu::{
    allowed_cpus, ask_short_slice, own_usage, pin_current_thread, run_current_thread_when_idle,
    with_short_slice,
};
pub use pipe::{pidfd_of, read_available, wait_readable, write_available};
pub use process::{
    become_subreaper, children_of, kill_group, kill_process_and_group, read_stat, reading_stdin,
    reap_by_pid, user_ids,
};
pub use terminal::EchoOff;
