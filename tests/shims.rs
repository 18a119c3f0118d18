//! A bot whose interpreter PATH gives through a version manager's shim: the
//! shim is resolved once, at load, to the program its manager chooses (a
//! start never goes through the shim or the manager), and which program
//! that is belongs to the bot's fingerprint: when the manager chooses
//! another version, the bot is another.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A version manager in the style of pyenv: `root/bin/fakeenv which NAME`
/// prints the program the file `root/choice` names, and `fakeenv exec`
/// (what its shim runs) leaves a mark that it ran; its shim is
/// `root/shims/python3`; two "versions" under `root/versions/`, each a
/// link to the machine's own python3.
struct Manager {
    root: PathBuf,
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Manager {
    fn new(folder: &Path) -> Manager {
        let root = folder.join("manager");
        let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.exists())
            .expect("a python3 in the system folders");
        for version in ["3.a", "3.b"] {
            let bin = root.join("versions").join(version).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::create_dir_all(root.join("versions").join(version).join("lib")).unwrap();
            std::os::unix::fs::symlink(&python, bin.join("python3")).unwrap();
        }
        let choice = root.join("choice");
        let mark = root.join("exec-ran");
        executable(
            &root.join("bin/fakeenv"),
            &format!(
                "#!/bin/sh\ncase \"$1\" in\n  which) echo \"{root}/versions/$(cat {choice})/bin/$2\" ;;\n  \
                 exec) touch {mark}; shift; name=$1; shift; exec \"{root}/versions/$(cat {choice})/bin/$name\" \"$@\" ;;\nesac\n",
                root = root.display(),
                choice = choice.display(),
                mark = mark.display()
            ),
        );
        executable(
            &root.join("shims/python3"),
            &format!(
                "#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\nexec \"{}\" exec \"$program\" \"$@\"\n",
                root.join("bin/fakeenv").display()
            ),
        );
        let manager = Manager { root };
        manager.choose("3.a");
        manager
    }

    fn choose(&self, version: &str) {
        std::fs::write(self.root.join("choice"), version).unwrap();
    }

    fn ran(&self) -> bool {
        self.root.join("exec-ran").exists()
    }

    /// PATH with the shims first, as a manager's setup puts them.
    fn path(&self) -> String {
        format!("{}:/usr/local/bin:/usr/bin:/bin", self.root.join("shims").display())
    }
}

fn arena(folder: &Path, manager: &Manager, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(folder)
        .env("PATH", manager.path())
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The fingerprint `arena bots` lists for the bot `shimmed`.
fn fingerprint(folder: &Path, manager: &Manager) -> String {
    let output = arena(folder, manager, &["bots", "league.toml"]);
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .find_map(|line| line.strip_suffix("  shimmed"))
        .unwrap_or_else(|| panic!("no line for `shimmed`"))
        .to_owned()
}

#[test]
fn a_shimmed_interpreter_is_resolved_once_and_its_version_is_part_of_the_bot() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let manager = Manager::new(folder.path());
    let bot = folder.path().join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::copy(common::repo_dir().join("bots/python/random_bot.py"), bot.join("bot.py"))
        .unwrap();
    let rust = common::rust_random_bot().display().to_string();
    std::fs::write(
        folder.path().join("league.toml"),
        format!(
            "game = \"number-snatch\"\nseed = 2\ngames_per_pair = 4\nout = \"results\"\nrestart = \"every-game\"\n\
             [[bot]]\nname = \"shimmed\"\ndir = \"bot\"\ncommand = [\"python3\", \"bot.py\"]\n\
             [[bot]]\nname = \"rust\"\ncommand = [{rust:?}]\n"
        ),
    )
    .unwrap();

    let first = fingerprint(folder.path(), &manager);
    assert_eq!(fingerprint(folder.path(), &manager), first, "the same choice, the same bot");
    manager.choose("3.b");
    let other = fingerprint(folder.path(), &manager);
    assert_ne!(other, first, "another version the manager chooses is another bot");
    manager.choose("3.a");
    assert_eq!(fingerprint(folder.path(), &manager), first);

    // Four games, each starting the bot afresh, in its box: the program
    // the manager chose is started directly, never the shim.
    let run = arena(folder.path(), &manager, &["run", "league.toml", "--quiet"]);
    assert!(run.status.success(), "{}", text(&run));
    let rows = common::read_games_csv(&folder.path().join("results"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
    assert!(!manager.ran(), "no start went through the shim");
    // The version chosen changes between runs: the folder's bot changed.
    manager.choose("3.b");
    let rerun = arena(folder.path(), &manager, &["run", "league.toml"]);
    assert!(rerun.status.success(), "{}", text(&rerun));
    assert!(
        text(&rerun).contains("bot `shimmed` is a new version ("),
        "the resumed folder says the bot changed: {}",
        text(&rerun)
    );
}
