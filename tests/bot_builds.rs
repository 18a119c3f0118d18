//! Bots built by the command their `[[bot]]` declares: `arena build` runs
//! it in the bot's folder, a bot not yet built cannot play (the run says
//! how to build it), and a built bot's fingerprint (`arena bots`) is its
//! sources: the same before and after a build, changed by an edit.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A league of two bots in a folder of its own: `random` (the Python kit,
/// no build) and `built`, whose build.sh makes its program `bot` from
/// `bot.py` (left out by its .gitignore) after writing `marker` lines.
struct League {
    folder: tempfile::TempDir,
}

impl League {
    fn new(build: &str) -> League {
        let folder = tempfile::tempdir().unwrap();
        let repo = common::repo_dir();
        let bot = folder.path().join("bots/built");
        std::fs::create_dir_all(&bot).unwrap();
        std::fs::copy(repo.join("bots/python/random_bot.py"), bot.join("bot.py")).unwrap();
        std::fs::write(bot.join("build.sh"), build).unwrap();
        std::fs::write(bot.join(".gitignore"), "/bot\n").unwrap();
        let random = repo.join("bots/python/random_bot.py");
        std::fs::write(
            folder.path().join("league.toml"),
            format!(
                "game = \"number-snatch\"\nseed = 3\ngames_per_pair = 2\nout = \"results\"\n\
                 [[bot]]\nname = \"random\"\ncommand = [\"python3\", {random:?}]\n\
                 [[bot]]\nname = \"built\"\ndir = \"bots/built\"\n\
                 build = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]\n"
            ),
        )
        .unwrap();
        League { folder }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.folder.path().join(relative)
    }

    fn arena(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .current_dir(self.folder.path())
            .env("ARENA_SEED_KEY", "a test's key")
            .output()
            .unwrap()
    }

    /// `arena bots league.toml`, as name → fingerprint.
    fn fingerprints(&self) -> Vec<(String, String)> {
        let output = self.arena(&["bots", "league.toml"]);
        assert!(output.status.success(), "{}", text(&output));
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let (fingerprint, name) = line.split_once("  ").expect("FINGERPRINT  NAME");
                assert_eq!(fingerprint.len(), 64, "{line}");
                (name.to_owned(), fingerprint.to_owned())
            })
            .collect()
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const BUILD: &str = "echo compiling >&2\ncp bot.py bot\nchmod +x bot\n";

#[test]
fn a_bot_is_built_by_its_build_command_and_plays_only_once_built() {
    let league = League::new(BUILD);
    let before = league.fingerprints();
    assert_eq!(
        before.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(),
        ["random", "built"]
    );

    // Not built: refused before anything is played, with how to build it.
    let run = league.arena(&["run", "league.toml"]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    let said = text(&run);
    assert!(
        said.contains("bot `built` is not built: it has a build command (`sh build.sh`)")
            && said.contains("run `arena build league.toml` first"),
        "{said}"
    );
    assert!(!league.path("results/games.csv").exists());

    let build = league.arena(&["build", "league.toml"]);
    let said = text(&build);
    assert!(build.status.success(), "{said}");
    assert!(said.contains("building `built` in bots/built: sh build.sh"), "{said}");
    assert!(said.contains("compiling"), "the build's own output is shown: {said}");
    assert!(said.contains("built `built` in "), "{said}");
    assert!(!said.contains("warning"), "{said}");
    assert!(league.path("bots/built/bot").exists());
    // What the build made is no part of the bot's version.
    assert_eq!(league.fingerprints(), before);

    let run = league.arena(&["run", "league.toml"]);
    assert!(run.status.success(), "{}", text(&run));
    let rows = common::read_games_csv(&league.path("results"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }

    // An edit of its sources is a new version; of the other bot's, not.
    std::fs::write(league.path("bots/built/notes.txt"), "tuned\n").unwrap();
    let after = league.fingerprints();
    assert_eq!(after[0], before[0]);
    assert_ne!(after[1], before[1]);
}

/// A starter kit's way: the launcher `./bot` is in the folder before any
/// build, and runs what the build makes (`build/program`).
const LAUNCHER: &str = "#!/bin/sh\nexec python3 \"$(dirname \"$0\")/build/program\"\n";

#[test]
fn a_bot_whose_launcher_exists_before_its_build_is_refused_until_built() {
    let league = League::new("mkdir -p build\ncp bot.py build/program\n");
    let launcher = league.path("bots/built/bot");
    std::fs::write(&launcher, LAUNCHER).unwrap();
    std::fs::set_permissions(&launcher, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    std::fs::write(league.path("bots/built/.gitignore"), "/build/\n").unwrap();
    let refused = |what: &str| {
        let run = league.arena(&["run", "league.toml"]);
        let said = text(&run);
        assert_eq!(run.status.code(), Some(2), "{said}");
        assert!(said.contains(what) && said.contains("run `arena build league.toml`"), "{said}");
        assert!(!league.path("results/games.csv").exists(), "played: {said}");
    };
    refused("bot `built` is not built");
    assert!(league.arena(&["build", "league.toml"]).status.success());
    let run = league.arena(&["run", "league.toml", "--fresh"]);
    assert!(run.status.success(), "{}", text(&run));
    for row in common::read_games_csv(&league.path("results")) {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
    std::fs::remove_dir_all(league.path("results")).unwrap();
    // An edit after the build: built again before it plays.
    std::fs::write(league.path("bots/built/bot.py"), "print('edited')\n").unwrap();
    refused("bot `built`: its sources changed since it was last built (bot.py)");
    // So is another build command.
    let file = league.path("league.toml");
    let toml = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, toml.replace("[\"sh\", \"build.sh\"]", "[\"sh\", \"./build.sh\"]"))
        .unwrap();
    refused("its build command is now `sh ./build.sh`, and was `sh build.sh`");
}

#[test]
fn a_failed_build_names_the_bot_and_the_others_are_still_built() {
    let league = League::new("echo 'bot.cpp:3: error: expected ;' >&2\nexit 3\n");
    let other = league.path("bots/other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(league.path("bots/built/bot.py"), other.join("bot.py")).unwrap();
    std::fs::write(other.join("build.sh"), BUILD).unwrap();
    let file = league.path("league.toml");
    let mut toml = std::fs::read_to_string(&file).unwrap();
    toml.push_str(
        "[[bot]]\nname = \"other\"\ndir = \"bots/other\"\nbuild = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]\n",
    );
    std::fs::write(&file, toml).unwrap();

    let build = league.arena(&["build", "league.toml"]);
    let said = text(&build);
    assert_eq!(build.status.code(), Some(1), "{said}");
    assert!(said.contains("bot.cpp:3: error: expected ;"), "{said}");
    assert!(
        said.contains("arena: bot `built`: build `sh build.sh` failed in ")
            && said.contains("exit status: 3"),
        "{said}"
    );
    assert!(said.contains("built `other` in "), "{said}");
    assert!(said.contains("1 of 2 builds failed: built"), "{said}");
    assert!(other.join("bot").exists());

    let one = league.arena(&["build", "league.toml", "--bot", "other"]);
    assert!(one.status.success(), "{}", text(&one));
    let unknown = league.arena(&["build", "league.toml", "--bot", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown)
            .contains("--bot nobody: league.toml has no such bot (its bots: random, built, other)")
    );
    let plain = league.arena(&["build", "league.toml", "--bot", "random"]);
    assert!(plain.status.success());
    assert!(text(&plain).contains("bot `random` has no build command"), "{}", text(&plain));
}

#[test]
fn a_build_that_leaves_no_program_or_writes_into_its_sources_is_told() {
    // Built under another name than the command's.
    let league = League::new("cp bot.py program\n");
    let build = league.arena(&["build", "league.toml"]);
    let said = text(&build);
    assert_eq!(build.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "bot `built`: its build `sh build.sh` succeeded, but its command cannot run: program"
        ) && said.contains("bots/built/./bot` does not exist"),
        "{said}"
    );

    // Writes a file no .gitignore leaves out: every build a new version.
    let league = League::new(&format!("date +%N > stamp.txt\n{BUILD}"));
    let build = league.arena(&["build", "league.toml"]);
    let said = text(&build);
    assert!(build.status.success(), "{said}");
    assert!(
        said.contains(
            "warning: bot `built`: its build wrote files its fingerprint covers (stamp.txt)"
        ),
        "{said}"
    );
}

#[test]
fn listing_bots_needs_no_results_folder() {
    let league = League::new(BUILD);
    league.fingerprints();
    assert!(!Path::new(&league.path("results")).exists(), "arena bots made the results folder");
}

#[test]
fn check_takes_a_bot_of_a_league_as_the_league_runs_it() {
    let league = League::new(BUILD);
    let unbuilt =
        league.arena(&["check", "--league", "league.toml", "--bot", "built", "--games", "2"]);
    assert_eq!(unbuilt.status.code(), Some(2), "{}", text(&unbuilt));
    assert!(text(&unbuilt).contains("run `arena build league.toml` first"), "{}", text(&unbuilt));
    assert!(league.arena(&["build", "league.toml"]).status.success());
    let check =
        league.arena(&["check", "--league", "league.toml", "--bot", "built", "--games", "2"]);
    let said = text(&check);
    assert!(check.status.success(), "{said}");
    assert!(said.contains("Checking `built` as league.toml runs it"), "{said}");
    assert!(said.contains("2 games of number-snatch"), "the league's game only: {said}");
    assert!(said.contains("All checks passed."), "{said}");
    let unknown = league.arena(&["check", "--league", "league.toml", "--bot", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown).contains("(its bots: random, built)"), "{}", text(&unknown));
    let with_game = league.arena(&[
        "check",
        "--league",
        "league.toml",
        "--bot",
        "built",
        "--game",
        "number-duel",
    ]);
    assert_eq!(with_game.status.code(), Some(2), "the league's game is the game checked");
}
