//! The memory watchdog, where no cgroup counts a box's memory (the arena
//! run unprivileged): its reads of /proc cost arena at most a share of a
//! CPU per box, however many processes the box runs.

#[allow(dead_code)]
mod common;

use common::unprivileged::Unprivileged;

/// Arena's own CPU over a game of `bot` (about two seconds of its
/// thought) against the random bot, in seconds, and the game's length.
fn arena_cpu(place: &Unprivileged, bot: &str, name: &str) -> (f64, f64) {
    let out = place.out(name);
    let run = place.arena(&[
        "match",
        "number-snatch",
        bot,
        "python3 random_bot.py",
        "--games",
        "1",
        "--move-timeout",
        "5s",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    assert!(run.stdout.contains("a memory watchdog"), "no cgroup here: {}", run.stdout);
    let line = run.stdout.lines().find(|line| line.starts_with("played ")).expect("a summary");
    // "played 1 games (10 moves) in 2.31s: ...; arena's own CPU 812.3 us per move (...)"
    let number = |after: &str, until: char| -> f64 {
        let rest = &line[line.find(after).expect("the figure") + after.len()..];
        rest[..rest.find(until).expect("its end")].trim().parse().expect("a number")
    };
    let moves = number("games (", ' ');
    let seconds = number(") in ", 's');
    let per_move = number("own CPU ", ' ');
    (per_move * moves / 1e6, seconds)
}

#[test]
fn a_box_of_many_processes_costs_the_watchdog_a_bounded_share() {
    let place = Unprivileged::new();
    let (quiet, quiet_seconds) = arena_cpu(&place, "python3 fixtures/many_idle.py 0", "quiet");
    let (many, seconds) = arena_cpu(&place, "python3 fixtures/many_idle.py 120", "many");
    eprintln!(
        "arena's CPU: {many:.3} s in {seconds:.1} s with 120 idle processes, {quiet:.3} s in {quiet_seconds:.1} s without"
    );
    // Read every 50 ms, 121 processes cost arena about 3% of a CPU here;
    // bounded, a hundredth for the box (and the quiet game's own cost).
    assert!(
        many <= quiet + 0.02 * seconds,
        "arena's CPU: {many:.3} s in a {seconds:.1} s game with 120 idle processes, against {quiet:.3} s in {quiet_seconds:.1} s without"
    );
}
