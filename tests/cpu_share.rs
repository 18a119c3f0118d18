//! CPU starvation: a bot that starts a hundred spinning processes, each in
//! a session of its own (the scheduler shares CPU between sessions before
//! processes) and free to run on any CPU, against an honest bot that needs
//! 150 ms of CPU a move. Without the sandbox the honest bot runs out of
//! time; in a box (a CPU cgroup per box, or one session per box where no
//! cgroup can be made) it plays on. A test binary of its own, so that the
//! spinning never slows other tests.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::sync::Mutex;

use common::unprivileged::Unprivileged;
use common::{Run, Scratch, read_games_csv};

/// The honest bot's time per move: three times what it needs when it
/// shares a CPU with the spinners' box, a sixth of what it needs when it
/// gets one share in fifty.
const MOVE_TIMEOUT: &str = "1500ms";

fn starve(
    arena: impl FnOnce(&[&str]) -> Run,
    hostile: &str,
    hungry: &str,
    out: &Path,
    sandbox: bool,
) {
    let out_text = out.to_str().expect("UTF-8");
    let mut args = vec![
        "match",
        "number-snatch",
        hostile,
        hungry,
        "--name1",
        "starver",
        "--name2",
        "hungry",
        "--games",
        "1",
        "--seed",
        "5",
        "--move-timeout",
        MOVE_TIMEOUT,
        "--out",
        out_text,
    ];
    if !sandbox {
        args.push("--no-sandbox");
    }
    arena(&args).assert_success();
}

/// One starvation at a time: two would starve each other's victims.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn hungry_forfeit(out: &Path) -> String {
    let row = &read_games_csv(out)[0];
    if &row["forfeiter"] == "hungry" { row["reason"].to_owned() } else { String::new() }
}

#[test]
fn a_bot_cannot_starve_its_opponent_of_cpu() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let out = scratch.out();
        starve(
            |args| scratch.arena(args),
            "tests/fixtures/hostile.py starve-cpu",
            "tests/fixtures/cpu_hungry.py 150",
            &out,
            sandbox,
        );
        let forfeit = hungry_forfeit(&out);
        let expected = if sandbox { "" } else { "timeout" };
        assert_eq!(
            forfeit,
            expected,
            "sandbox {sandbox}: {}",
            &read_games_csv(&out)[0]["forfeit_detail"]
        );
        // The spinners end with the run (killed with their box, or swept).
        scratch.assert_fixture_processes_gone();
    }
}

#[test]
fn a_bot_cannot_starve_its_opponent_of_cpu_when_the_arena_is_unprivileged() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let place = Unprivileged::new();
    // Both ways: the same user's run without the sandbox starves the bot.
    for sandbox in [false, true] {
        let out = place.out(if sandbox { "starve" } else { "starve-open" });
        starve(
            |args| place.arena(args),
            "fixtures/hostile.py starve-cpu",
            "fixtures/cpu_hungry.py 150",
            &out,
            sandbox,
        );
        let expected = if sandbox { "" } else { "timeout" };
        assert_eq!(
            hungry_forfeit(&out),
            expected,
            "sandbox {sandbox}: {}",
            &read_games_csv(&out)[0]["forfeit_detail"]
        );
    }
}
