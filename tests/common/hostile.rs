//! Running tests/fixtures/hostile.py against a victim: one attack per run,
//! with and without the sandbox, and what the attack reported.

use std::path::{Path, PathBuf};

use super::{Row, Run, Scratch, read_games_csv, repo_dir};

/// The victim: a copy of the Python starter bot, so that an attack on its
/// program file touches nothing in the repository.
pub const VICTIM: &str = "random_bot";

/// The game a hostile bot plays unless a test names another.
pub const GAME: &str = "number-snatch";

/// Copies the hostile bot (tests/fixtures/hostile.py and the modules it
/// imports) into `folder`, for a test that runs it from a folder of its own.
pub fn copy_bot_to(folder: &Path) {
    for file in ["hostile.py", "hostile_base.py", "hostile_limits.py", "botlib.py"] {
        std::fs::copy(repo_dir().join("tests/fixtures").join(file), folder.join(file))
            .expect("copying the hostile bot");
    }
}

/// One run of the hostile bot (seat 1 of a one-game match) against the
/// victim (seat 2).
pub struct Attack {
    pub scratch: Scratch,
    pub run: Run,
    pub rows: Vec<Row>,
    /// What the hostile bot reported: `succeeded: ...` or `failed: ...`.
    pub outcome: String,
}

impl Attack {
    pub fn succeeded(&self) -> bool {
        self.outcome.starts_with("succeeded")
    }

    pub fn victim_forfeit(&self) -> &str {
        let row = &self.rows[0];
        if &row["forfeiter"] == VICTIM { &row["reason"] } else { "" }
    }
}

/// A copy of the victim in the scratch folder; returns its path.
pub fn victim_copy(scratch: &Scratch) -> PathBuf {
    let folder = scratch.out().with_file_name("victim");
    std::fs::create_dir_all(&folder).expect("a folder for the victim");
    let copy = folder.join("random_bot.py");
    let bot = std::fs::read_to_string(repo_dir().join("bots/python/random_bot.py"))
        .expect("the Python random bot");
    // It writes to stderr at once, so that it has a log for an attacker
    // to look for (the kit itself writes none), and says its niceness as it
    // ends, so that a test sees what an attack did from the victim's side.
    let loud = "import atexit, os, sys\nprint('the victim, starting', file=sys.stderr, flush=True)\natexit.register(lambda: print(f'the victim, ending at nice {os.getpriority(os.PRIO_PROCESS, 0)}', file=sys.stderr, flush=True))\n";
    std::fs::write(&copy, format!("{loud}{bot}")).expect("copying the victim");
    copy
}

/// Runs `attack` (with `argument`) once, the sandbox on or off.
pub fn attack(name: &str, argument: Option<&str>, sandbox: bool) -> Attack {
    attack_in(Scratch::new(), "tests/fixtures/hostile.py", name, argument, sandbox, &[])
}

pub fn attack_in(
    scratch: Scratch,
    hostile: &str,
    name: &str,
    argument: Option<&str>,
    sandbox: bool,
    extra: &[&str],
) -> Attack {
    attack_in_game(scratch, GAME, hostile, name, argument, sandbox, extra)
}

/// [`attack_in`] on `game` (a built-in id or a game program's command).
pub fn attack_in_game(
    scratch: Scratch,
    game: &str,
    hostile: &str,
    name: &str,
    argument: Option<&str>,
    sandbox: bool,
    extra: &[&str],
) -> Attack {
    let out = scratch.out();
    let hostile_command = match argument {
        Some(argument) => format!("{hostile} {name} {}", shell_words::quote(argument)),
        None => format!("{hostile} {name}"),
    };
    let mut args = vec!["--seed", "8", "--name1", "hostile", "--name2", VICTIM];
    // The attack runs at the first move; a caller may give it longer.
    if !extra.contains(&"--move-timeout") {
        args.extend(["--move-timeout", "3s"]);
    }
    if !sandbox {
        args.push("--no-sandbox");
    }
    args.extend_from_slice(extra);
    let run = play_hostile_in(&scratch, game, &hostile_command, &args);
    // An attack on the results may leave games.csv unreadable: no rows then.
    let rows = std::panic::catch_unwind(|| read_games_csv(&out)).unwrap_or_default();
    let outcome = reported_outcome(&out, name).unwrap_or_default();
    Attack { scratch, run, rows, outcome }
}

/// Plays one game of Number Snatch: `hostile` (a command line) in seat 1
/// against a copy of the victim, with `extra` arguments.
pub fn play_hostile(scratch: &Scratch, hostile: &str, extra: &[&str]) -> Run {
    play_hostile_in(scratch, GAME, hostile, extra)
}

/// [`play_hostile`] on `game`.
pub fn play_hostile_in(scratch: &Scratch, game: &str, hostile: &str, extra: &[&str]) -> Run {
    let victim = format!("python3 {}", victim_copy(scratch).display());
    let out = scratch.out();
    let out = out.to_str().expect("a UTF-8 path");
    let mut args = vec!["match", game, hostile, &victim, "--games", "1", "--out", out];
    args.extend_from_slice(extra);
    scratch.arena(&args)
}

/// The hostile bot's report of `name` in its game log.
pub fn hostile_outcome(out: &Path, name: &str) -> String {
    reported_outcome(out, name).unwrap_or_else(|| {
        let log = out.join("logs/game-000001-seat1-hostile.log");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        panic!("no report of `{name}` in {}:\n{text}", log.display())
    })
}

/// The hostile bot's report of `name` in its game log, if it made one (a
/// bot killed in the middle of its attack makes none).
pub fn reported_outcome(out: &Path, name: &str) -> Option<String> {
    let log = out.join("logs/game-000001-seat1-hostile.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let prefix = format!("attack {name}: ");
    text.lines().find_map(|line| line.strip_prefix(&prefix)).map(str::to_owned)
}

/// Runs `name` with the sandbox off (it must succeed) and on (it must
/// fail); returns both runs.
pub fn both_ways(name: &str, argument: Option<&str>) -> (Attack, Attack) {
    both_ways_in(GAME, name, argument)
}

/// [`both_ways`] on `game`.
pub fn both_ways_in(game: &str, name: &str, argument: Option<&str>) -> (Attack, Attack) {
    let attack = |sandbox| {
        let hostile = "tests/fixtures/hostile.py";
        attack_in_game(Scratch::new(), game, hostile, name, argument, sandbox, &[])
    };
    let open = attack(false);
    assert!(open.succeeded(), "{name} without the sandbox: {}\n{:?}", open.outcome, open.run);
    let closed = attack(true);
    assert!(
        closed.outcome.starts_with("failed"),
        "{name} with the sandbox: {:?}\n{:?}",
        closed.outcome,
        closed.run
    );
    closed.run.assert_success();
    closed.scratch.assert_fixture_processes_gone();
    (open, closed)
}
