//! Running the arena as an unprivileged user: when the tests run as root,
//! through `setpriv` as uid 65534, from a copy of what it needs in a folder
//! that user can read (the repository may be under root's home, mode 0700).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Run, repo_dir, rust_random_bot, rust_strong_bot};

/// A folder holding the arena, the fixtures and the bots, readable by
/// every user, with `runs/` writable by every user.
pub struct Unprivileged {
    place: tempfile::TempDir,
    root: bool,
    /// The user and group the arena runs as (under root).
    ids: (u32, u32),
    /// Variables set for every run.
    env: Vec<(String, String)>,
}

impl Unprivileged {
    pub fn new() -> Unprivileged {
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        let place =
            tempfile::Builder::new().prefix("arena-unprivileged-").tempdir().expect("a folder");
        let base = place.path();
        std::fs::set_permissions(base, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let fixtures = base.join("fixtures");
        std::fs::create_dir(&fixtures).expect("a folder");
        super::hostile::copy_bot_to(&fixtures);
        let copies: [(PathBuf, &str); 11] = [
            (repo_dir().join("tests/fixtures/many_idle.py"), "fixtures/many_idle.py"),
            (repo_dir().join("tests/fixtures/cpu_hungry.py"), "fixtures/cpu_hungry.py"),
            (repo_dir().join("tests/fixtures/tells_ids.py"), "fixtures/tells_ids.py"),
            (repo_dir().join("tests/fixtures/tells_slice.py"), "fixtures/tells_slice.py"),
            (repo_dir().join("tests/fixtures/leaves_traces.py"), "fixtures/leaves_traces.py"),
            (repo_dir().join("tests/fixtures/games/tinygame.py"), "fixtures/tinygame.py"),
            (repo_dir().join("bots/python/random_bot.py"), "random_bot.py"),
            (repo_dir().join("bots/javascript/random_bot.js"), "random_bot.js"),
            (rust_random_bot().to_owned(), "random-bot"),
            (rust_strong_bot().to_owned(), "strong-bot"),
            (PathBuf::from(env!("CARGO_BIN_EXE_arena")), "arena"),
        ];
        for (from, to) in copies {
            std::fs::copy(from, base.join(to)).expect("copying a program");
        }
        let runs = base.join("runs");
        std::fs::create_dir(&runs).expect("a folder");
        std::fs::set_permissions(&runs, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        Unprivileged { place, root, ids: (65534, 65534), env: Vec::new() }
    }

    /// The same folder, the arena run as user `uid` of group `gid` (as
    /// root; the tests' own user otherwise).
    pub fn as_user(uid: u32, gid: u32) -> Unprivileged {
        Unprivileged { ids: (uid, gid), ..Unprivileged::new() }
    }

    /// The same, with `key` set to `value` in every run's environment.
    pub fn with_env(mut self, key: &str, value: &str) -> Unprivileged {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// The user and group the arena runs as.
    pub fn ids(&self) -> (u32, u32) {
        self.ids
    }

    /// The folder everything is in (the runs' working folder).
    pub fn base(&self) -> &Path {
        self.place.path()
    }

    /// A results folder for `name` under `runs/`.
    pub fn out(&self, name: &str) -> PathBuf {
        self.base().join("runs").join(name)
    }

    /// Runs the arena copy with `args`, unprivileged, in the base folder,
    /// with the system's PATH (an interpreter under root's home is out of
    /// this user's reach).
    pub fn arena(&self, args: &[&str]) -> Run {
        self.arena_in_groups(args, &[])
    }

    /// [`Unprivileged::arena`] with `groups` as the user's supplementary
    /// groups (as root only; none otherwise).
    pub fn arena_in_groups(&self, args: &[&str], groups: &[u32]) -> Run {
        let arena = self.base().join("arena");
        let mut command = if self.root {
            let mut command = Command::new("setpriv");
            command.arg(format!("--reuid={}", self.ids.0)).arg(format!("--regid={}", self.ids.1));
            match groups {
                [] => command.arg("--clear-groups"),
                _ => command.arg(format!(
                    "--groups={}",
                    groups.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                )),
            };
            command.arg("--").arg(&arena);
            command
        } else {
            Command::new(&arena)
        };
        command.current_dir(self.base()).env("PATH", "/usr/local/bin:/usr/bin:/bin").args(args);
        command.envs(self.env.iter().map(|(key, value)| (key, value)));
        let started = std::time::Instant::now();
        let output = output_of_copy(&mut command);
        Run {
            status: output.status,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }
}

/// The output of `command`, which runs a program copied just now: another
/// test's thread forking while the copy was open for writing holds it open
/// for a moment, and until that child has exec'd the kernel says the file is
/// busy. Tried again then.
pub fn output_of_copy(command: &mut Command) -> std::process::Output {
    let mut output = command.output().expect("the arena runs");
    for _ in 0..50 {
        if !String::from_utf8_lossy(&output.stderr).contains("Text file busy") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        output = command.output().expect("the arena runs");
    }
    output
}
