//! The steps of a box's start, named for a message when one fails.

use std::ffi::c_int;
use std::io;

/// The step of a box's start that failed, reported with its errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Failed {
    Namespaces = 21,
    Cgroup = 22,
    Hide = 23,
    Pipes = 24,
    Isolate = 1,
    Open,
    Identity,
    Root,
    Scratch,
    Proc,
    Devices,
    Folder,
    View,
    Link,
    Pivot,
    ReadOnly,
    WorkingFolder,
    StartBot,
    Stdio,
    BotIdentity,
    Limits,
    Landlock,
    Seccomp,
    Exec,
}

impl Failed {
    pub(super) fn from_code(code: u32) -> Failed {
        const ALL: [Failed; 24] = [
            Failed::Namespaces,
            Failed::Cgroup,
            Failed::Hide,
            Failed::Pipes,
            Failed::Isolate,
            Failed::Open,
            Failed::Identity,
            Failed::Root,
            Failed::Scratch,
            Failed::Proc,
            Failed::Devices,
            Failed::Folder,
            Failed::View,
            Failed::Link,
            Failed::Pivot,
            Failed::ReadOnly,
            Failed::WorkingFolder,
            Failed::StartBot,
            Failed::Stdio,
            Failed::BotIdentity,
            Failed::Limits,
            Failed::Landlock,
            Failed::Seccomp,
            Failed::Exec,
        ];
        ALL.into_iter().find(|step| *step as u32 == code).unwrap_or(Failed::Isolate)
    }

    /// What the step does, for a message: "mounting /proc".
    pub fn doing(self) -> &'static str {
        match self {
            Failed::Namespaces => "making the box's namespaces",
            Failed::Cgroup => "joining the box's cgroup",
            Failed::Hide => "hiding a path inside a view of the box",
            Failed::Pipes => "making the box's pipes",
            Failed::Isolate => "isolating the box (session, mount propagation)",
            Failed::Open => "opening a path the box shows",
            Failed::Identity => "taking the box's user id",
            Failed::Root => "mounting the box's root",
            Failed::Scratch => "mounting the box's /tmp",
            Failed::Proc => "mounting the box's /proc",
            Failed::Devices => "making the box's /dev",
            Failed::Folder => "making a folder in the box",
            Failed::View => "showing a host path in the box",
            Failed::Link => "making a link in the box",
            Failed::Pivot => "entering the box's root",
            Failed::ReadOnly => "making the box's root read-only",
            Failed::WorkingFolder => "entering the working folder",
            Failed::StartBot => "starting the bot in the box",
            Failed::Stdio => "connecting the bot's pipes",
            Failed::BotIdentity => "taking the bot's user id",
            Failed::Limits => "setting the bot's resource limits",
            Failed::Landlock => "restricting the bot with Landlock",
            Failed::Seccomp => "loading the system call filter",
            Failed::Exec => "running the program",
        }
    }
}

/// A box's start that failed: the step and the system's error.
#[derive(Debug)]
pub struct StartFailure {
    pub step: Failed,
    pub error: io::Error,
}

pub(super) fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)
}

/// Turns a system call's result into the step it failed at.
pub(super) fn at(step: Failed, result: c_int) -> Result<c_int, (Failed, i32)> {
    if result < 0 { Err((step, errno())) } else { Ok(result) }
}
