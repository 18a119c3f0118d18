//! Bot processes under Ctrl-C and the restart policies, seen from outside.

use super::*;

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let scratch = Scratch::new();
    let marker = scratch.marker();
    let trace = scratch.join("starts.txt");
    let trace_arg = trace.to_str().unwrap();
    let bots = [
        scratch.rust_bot("rs"),
        // 20 ms per move: a game lasts about 100 ms, far longer than the
        // arena takes to act on the signal.
        // The trace as one word: a file named alone in the command is
        // part of the bot, and this one changes as the bot writes it.
        scratch.paced_bot(
            "py",
            &["--delay-ms", "20", &format!("--trace={trace_arg}"), "--name", "py"],
        ),
    ];
    let concurrency = 2;
    let total = 40;
    // A space in the name: the resume command must quote it.
    let file = scratch.write(
        "ctrl c.toml",
        &tournament(
            &format!(
                // The trace file is written by the bots: no sandbox.
                "game = \"number-snatch\"\ngames_per_pair = {total}\nmove_timeout = \"1s\"\nconcurrency = {concurrency}\nout = \"out\"\nsandbox = false\n"
            ),
            &bots,
        ),
    );
    let out = scratch.join("out");
    let mut arena = scratch.start(&["run", file.to_str().unwrap(), "--markdown", "standings.md"]);
    wait_for_rows(&mut arena, &out, 4);
    let bot_processes = processes_mentioning(&marker);
    let rows_at_signal = rows_written(&out);
    let starts_at_signal = text(&trace).lines().count();
    arena.signal(libc::SIGINT);
    let interrupted = arena.wait();
    assert_eq!(interrupted.status.code(), Some(130), "{interrupted:?}");
    assert!(interrupted.stdout.contains("interrupted"), "{}", interrupted.stdout);
    let hint = interrupted
        .stdout
        .lines()
        .find(|line| line.contains("arena run"))
        .unwrap_or_else(|| panic!("no resume command: {}", interrupted.stdout));
    let resume = shell_words::split(hint).expect("a command a shell can split");
    assert_eq!(resume[0], "arena", "{hint}");
    assert!(!scratch.join("standings.md").exists());

    // Every row is whole.
    let written = text(&out.join("games.csv"));
    assert!(written.ends_with('\n'), "games.csv ends in a partial row");
    let rows = read_games_csv(&out);
    assert!(rows.len() < total, "the run finished before it was interrupted");
    // Those running at the signal may end, and so may one per worker that
    // started in the moment before the arena acted on it (on a loaded
    // 2-core machine that moment can outlast a game).
    assert!(
        rows.len() <= rows_at_signal + 2 * concurrency,
        "{} rows after the signal, {rows_at_signal} before it: games went on",
        rows.len()
    );
    // No game started after the interruption (but for one per worker in
    // the moment the arena takes to act on it), and the games abandoned are
    // at most those that were running.
    let trace = text(&trace);
    let started_after = trace.lines().count() - starts_at_signal;
    assert!(started_after <= concurrency, "{started_after} games started after the signal");
    let starts: BTreeSet<(String, String)> = trace
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            (fields[1].to_owned(), fields[2].to_owned())
        })
        .collect();
    // The bot traces the seed its seat got, which the transcript's header
    // keeps beside the game's setup seed.
    let finished: BTreeSet<(String, String)> = rows
        .iter()
        .map(|row| {
            let seat = if row["seat1"] == *"py" { 1 } else { 2 };
            let header = common::transcript_of(&out, row).swap_remove(0);
            (header["seat_seeds"][seat - 1].to_string(), seat.to_string())
        })
        .collect();
    assert!(finished.is_subset(&starts));
    let abandoned = starts.difference(&finished).count();
    assert!(abandoned <= concurrency, "{abandoned} games started but not finished");
    assert_processes_gone(&bot_processes, &marker);

    // The command printed resumes the run.
    let resume: Vec<&str> = resume[1..].iter().map(String::as_str).collect();
    let resumed = scratch.run_ok(&resume);
    assert!(resumed.stdout.contains("resuming"), "{}", resumed.stdout);
    assert!(text(&scratch.join("standings.md")).contains("| py |"));
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), total);
    let keys: BTreeSet<_> = rows.iter().map(key).collect();
    assert_eq!(keys.len(), total, "a game is in games.csv twice");
}

/// The processes each bot wrote to its stderr logs (`pid NAMESPACE/PID`
/// lines), by game.
fn pids_in_logs(out: &Path) -> BTreeMap<String, BTreeMap<u64, BTreeSet<String>>> {
    let mut pids: BTreeMap<String, BTreeMap<u64, BTreeSet<String>>> = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("a logs folder").flatten() {
        let name = entry.file_name().into_string().expect("a UTF-8 file name");
        // game-000003-seat2-NAME.log
        let rest = name.strip_prefix("game-").expect("a game log");
        let (game, rest) = rest.split_once("-seat").expect("a seat");
        let bot = rest[2..].strip_suffix(".log").expect("a .log file");
        for line in text(&entry.path()).lines() {
            if let Some(pid) = line.strip_prefix("pid ") {
                pids.entry(bot.to_owned())
                    .or_default()
                    .entry(game.parse().expect("a game number"))
                    .or_default()
                    .insert(pid.to_owned());
            }
        }
    }
    pids
}

fn restart_tournament(scratch: &Scratch, restart: Option<&str>) -> BTreeMap<String, Vec<String>> {
    let bots = [
        scratch.paced_bot("one", &["--pid-to-stderr"]),
        scratch.paced_bot("two", &["--pid-to-stderr"]),
    ];
    let mut top =
        "game = \"number-snatch\"\ngames_per_pair = 4\nmove_timeout = \"1s\"\n".to_owned();
    if let Some(restart) = restart {
        top.push_str(&format!("restart = \"{restart}\"\n"));
    }
    let name = format!("{}.toml", restart.unwrap_or("default"));
    let file = scratch.write(&name, &tournament(&top, &bots));
    let out = scratch.join(&format!("out-{}", restart.unwrap_or("default")));
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let pids = pids_in_logs(&out);
    pids.into_iter()
        .map(|(bot, games)| {
            assert_eq!(games.len(), 4, "{bot} has no pid line for some games: {games:?}");
            let all = games.into_values().flat_map(|pids| {
                assert_eq!(pids.len(), 1, "one process per game");
                pids
            });
            (bot, all.collect())
        })
        .collect()
}

#[test]
fn every_game_restart_uses_fresh_processes_and_the_default_keeps_them() {
    let scratch = Scratch::new();
    let fresh = restart_tournament(&scratch, Some("every-game"));
    assert_eq!(fresh.len(), 2);
    for (bot, pids) in &fresh {
        let distinct: BTreeSet<_> = pids.iter().collect();
        assert_eq!(distinct.len(), 4, "{bot} reused a process: {pids:?}");
    }
    let kept = restart_tournament(&scratch, None);
    assert_eq!(kept.len(), 2);
    for (bot, pids) in &kept {
        let distinct: BTreeSet<_> = pids.iter().collect();
        assert_eq!(distinct.len(), 1, "{bot} was restarted: {pids:?}");
    }
}

#[test]
fn a_bot_is_restarted_after_a_timeout_and_plays_on() {
    let scratch = Scratch::new();
    let stalled = scratch.join("stalled");
    let bots = [
        scratch.rust_bot("rs"),
        // Sleeps 2.5 s on its first move, once in the whole tournament.
        scratch.paced_bot(
            "staller",
            &["--pid-to-stderr", "--stall-once", stalled.to_str().unwrap(), "2.5"],
        ),
    ];
    let file = scratch.write(
        "t.toml",
        &tournament(
            // The stall file is shared by the bot's processes: no sandbox.
            "game = \"number-snatch\"\ngames_per_pair = 6\nmove_timeout = \"1s\"\nout = \"out\"\nsandbox = false\n",
            &bots,
        ),
    );
    let out = scratch.join("out");
    scratch.run_ok(&["run", file.to_str().unwrap()]);
    let rows = read_games_csv(&out);
    let reasons: Vec<&str> = rows.iter().map(|row| &row["reason"]).collect();
    assert_eq!(reasons, ["timeout", "normal", "normal", "normal", "normal", "normal"]);
    assert_eq!(&rows[0]["forfeiter"], "staller");
    assert_eq!(&rows[0]["winner"], "rs");

    let games = pids_in_logs(&out).remove("staller").expect("the staller's logs");
    let pid_of = |game: u64| -> String {
        let pids = &games[&game];
        assert_eq!(pids.len(), 1, "game {game}: {pids:?}");
        pids.first().unwrap().clone()
    };
    assert_ne!(pid_of(1), pid_of(2), "the bot that timed out was not restarted");
    for game in 3..=6 {
        assert_eq!(pid_of(game), pid_of(2), "the bot was restarted without cause");
    }
}
