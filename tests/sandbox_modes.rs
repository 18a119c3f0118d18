//! The sandbox as the machine allows it: the arena run by an unprivileged
//! user, without namespaces, or with a sandbox required that the machine
//! cannot give; no cgroup outliving its run; the short time slice of every
//! program, whatever the mode. A bot's folder or program the box's user
//! cannot reach: tests/sandbox_reach.rs. The attacks themselves:
//! tests/sandbox.rs.

#[allow(dead_code)]
mod common;

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::hostile::{VICTIM, hostile_outcome, reported_outcome};
use common::unprivileged::Unprivileged;
use common::{PYTHON_RANDOM_BOT, Scratch, read_games_csv, repo_dir};

/// The same attacks, and honest bots in every game, the arena run by an
/// unprivileged user (uid 65534 through setpriv when the tests run as
/// root): each bot's box is made in a user namespace of arena's user, and
/// with no cgroup to write, memory falls back to resource limits and the
/// watchdog, CPU to a session per box; the run says so.
#[test]
fn attacks_fail_when_the_arena_runs_as_an_unprivileged_user() {
    let place = Unprivileged::new();
    let base = place.base();
    let run = |args: &[&str]| {
        let run = place.arena(args);
        run.assert_success();
        assert!(run.stdout.contains("sandbox: a box per program"), "{}", run.stdout);
        assert!(
            run.stdout
                .contains("no cgroup (resource limits, a memory watchdog, a session per box)"),
            "{}",
            run.stdout
        );
        assert!(run.stderr.contains("lacks a cgroup arena may write"), "{}", run.stderr);
        run
    };
    // Honest bots play every game.
    for game in common::GAMES {
        for (first, second) in
            [("python3 random_bot.py", "./strong-bot"), ("node random_bot.js", "./random-bot")]
        {
            let out = place.out(&format!("{game}-{}", &second[2..]));
            let out = out.to_str().expect("UTF-8");
            run(&[
                "match",
                game,
                first,
                second,
                "--games",
                "2",
                "--move-timeout",
                "5s",
                "--out",
                out,
            ]);
            for row in read_games_csv(Path::new(out)) {
                assert_eq!(&row["reason"], "normal", "{game}: {}", &row["forfeit_detail"]);
            }
        }
    }
    let secret = base.join("secret.toml");
    std::fs::write(&secret, "token\n").expect("a secret");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = listener.local_addr().expect("an address").port().to_string();
    let socket_folder = tempfile::tempdir().expect("a folder");
    std::fs::set_permissions(socket_folder.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod");
    let datagrams = socket_folder.path().join("log.sock");
    let _datagram_socket = std::os::unix::net::UnixDatagram::bind(&datagrams).expect("a socket");
    std::fs::set_permissions(&datagrams, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    // The victim in a folder of its own, as a league's bots are.
    let victim_folder = base.join("victim");
    std::fs::create_dir(&victim_folder).expect("a folder");
    let victim = victim_folder.join("random_bot.py");
    std::fs::copy(base.join("random_bot.py"), &victim).expect("copying the victim");
    let path = |path: &Path| format!("path:{}", path.display());
    let cases: Vec<(&str, Option<String>)> = vec![
        ("kill-opponent", None),
        ("answer-for-opponent", None),
        ("ptrace-opponent", None),
        ("opponent-environment", None),
        ("renice-opponent", None),
        ("read-file", Some(path(&secret))),
        ("connect-tcp", Some(port.clone())),
        ("fork-many", None),
        ("change-file", Some(path(&victim))),
        ("chmod-results", None),
        ("watch-folder", Some(path(&victim_folder))),
        ("sendto-unix", Some(path(&datagrams))),
        ("io-uring-socket", None),
        ("arena-command-line", None),
        ("fill-scratch", None),
        ("hoard-shared", None),
        ("hoard-memfd", None),
        ("hoard-sysv", None),
        ("hoard-growsdown", None),
        ("socket-buffers", None),
    ];
    for (name, argument) in cases {
        let out = place.out(name);
        let hostile = match &argument {
            Some(argument) => format!("fixtures/hostile.py {name} {argument}"),
            None => format!("fixtures/hostile.py {name}"),
        };
        let out_text = out.to_str().expect("UTF-8");
        run(&[
            "match",
            "number-snatch",
            &hostile,
            "python3 victim/random_bot.py",
            "--name1",
            "hostile",
            "--name2",
            VICTIM,
            "--games",
            "1",
            "--move-timeout",
            "3s",
            "--memory-limit",
            "256MiB",
            "--seed",
            "8",
            "--out",
            out_text,
        ]);
        let rows = read_games_csv(&out);
        assert_ne!(&rows[0]["forfeiter"], VICTIM, "{name}: {}", &rows[0]["forfeit_detail"]);
        match reported_outcome(&out, name) {
            Some(outcome) => {
                assert!(outcome.starts_with("failed"), "{name} as an unprivileged user: {outcome}")
            }
            // Killed in the middle of it: by the memory watchdog, and said.
            None => assert!(
                rows[0]["forfeit_detail"].contains("over its memory limit (256 MiB)"),
                "{name}: {}",
                &rows[0]["forfeit_detail"]
            ),
        }
        assert!(std::fs::metadata(&victim).expect("the victim").permissions().mode() & 0o777 != 0);
    }
    // The two seats cannot talk, and a box's scratch goes with it.
    for (name, argument) in
        [("talk-sysv", "x"), ("talk-unix", "unprivileged"), ("litter", "arena-litter-unprivileged")]
    {
        let out = place.out(name);
        let hostile = format!("fixtures/hostile.py {name} {argument}");
        let out_text = out.to_str().expect("UTF-8");
        run(&["match", "number-snatch", &hostile, &hostile, "--games", "1", "--out", out_text]);
        for seat in ["seat1", "seat2"] {
            let log = std::fs::read_dir(out.join("logs"))
                .expect("logs")
                .flatten()
                .find(|entry| entry.file_name().to_string_lossy().contains(seat))
                .expect("a log of the seat");
            let text = std::fs::read_to_string(log.path()).expect("the log");
            let prefix = format!("attack {name}: ");
            let outcome =
                text.lines().find_map(|line| line.strip_prefix(&prefix)).expect("a report");
            let expected = if name == "litter" { "succeeded" } else { "failed" };
            assert!(outcome.starts_with(expected), "{name}, {seat}: {outcome}");
        }
    }
    assert!(!std::env::temp_dir().join("arena-litter-unprivileged").exists());
    // Nothing a box started outlives it.
    let out = place.out("session-chain");
    let out_text = out.to_str().expect("UTF-8");
    run(&[
        "match",
        "number-snatch",
        "fixtures/hostile.py session-chain",
        "python3 random_bot.py",
        "--name1",
        "hostile",
        "--games",
        "1",
        "--out",
        out_text,
    ]);
    assert!(
        reported_outcome(&out, "session-chain")
            .is_some_and(|outcome| outcome.starts_with("succeeded"))
    );
    common::assert_processes_gone(&common::recorded_pids(&out));
}

/// Where no box can be made (here: a user namespace that allows no nested
/// one, as a container or a distribution's policy may), bots run in the
/// fallback, which says so and what it lacks, and still stops the attacks
/// on the opponent, the game program, the files and the network, and a game
/// program's on the bots.
#[test]
fn the_fallback_without_namespaces_says_so_and_holds() {
    let scratch = Scratch::new();
    let honest = scratch.out().join("honest");
    run_without_namespaces(
        &[
            "match",
            "number-duel",
            PYTHON_RANDOM_BOT,
            "node bots/javascript/random_bot.js",
            "--games",
            "2",
        ],
        &honest,
    );
    for row in read_games_csv(&honest) {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
    let secret = scratch.out().with_file_name("tournament.toml");
    std::fs::write(&secret, "token\n").expect("a secret");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = listener.local_addr().expect("an address").port().to_string();
    let secret_argument = format!("path:{}", secret.display());
    let datagrams_folder = tempfile::tempdir().expect("a folder");
    let datagrams = datagrams_folder.path().join("log.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&datagrams).expect("a socket");
    socket.set_nonblocking(true).expect("non-blocking");
    let datagrams_argument = format!("path:{}", datagrams.display());
    let tiny = "tests/fixtures/games/tinygame.py";
    for (game, name, argument) in [
        ("number-snatch", "kill-opponent", None),
        ("number-snatch", "read-file", Some(secret_argument.as_str())),
        ("number-snatch", "connect-tcp", Some(port.as_str())),
        ("number-snatch", "sendto-unix", Some(datagrams_argument.as_str())),
        ("number-snatch", "sendmsg-unix", Some(datagrams_argument.as_str())),
        // A game program in the fallback: seen in /proc, out of reach.
        (tiny, "kill-game", None),
        (tiny, "answer-for-game", None),
        (tiny, "read-game-output", None),
        (tiny, "ptrace-game", None),
    ] {
        let out = scratch.out().join(name);
        let hostile = match argument {
            Some(argument) => format!("tests/fixtures/hostile.py {name} {argument}"),
            None => format!("tests/fixtures/hostile.py {name}"),
        };
        run_without_namespaces(
            &["match", game, &hostile, PYTHON_RANDOM_BOT, "--name1", "hostile", "--games", "1"],
            &out,
        );
        let outcome = hostile_outcome(&out, name);
        assert!(outcome.starts_with("failed"), "{name} in the fallback: {outcome}");
        assert_eq!(&read_games_csv(&out)[0]["reason"], "normal", "{name} in the fallback");
    }
    // Nor can a game program reach the bots there.
    let out = scratch.out().join("kill-bots");
    let game = format!("{tiny} --flaw kill-bots");
    run_without_namespaces(
        &["match", &game, PYTHON_RANDOM_BOT, PYTHON_RANDOM_BOT, "--games", "1"],
        &out,
    );
    let said = common::game_log(&out, 1);
    assert!(said.contains("kill-bots: killed 0 processes"), "{said}");
    assert_eq!(&read_games_csv(&out)[0]["reason"], "normal");
    assert!(socket.recv(&mut [0; 16]).is_err(), "a datagram reached the host's socket");
}

/// Runs the arena with `args` and `--out out` where no box can be made: in
/// a user namespace that allows no nested one. It must succeed in the
/// fallback, and say so.
fn run_without_namespaces(args: &[&str], out: &Path) {
    let output = Command::new("unshare")
        .args([
            "-U",
            "-r",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
        ])
        .arg(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .args(["--out", out.to_str().expect("UTF-8")])
        .current_dir(repo_dir())
        .output()
        .expect("unshare runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("sandbox: no box per program"), "{stdout}");
    assert!(stderr.contains("a box could not be made: making the box's namespaces"), "{stderr}");
}

/// Every program arena starts has a short time slice (100 us) before any
/// of its code runs, which makes a program woken by a request run at once,
/// ahead of the referee (docs/performance.md): in a box, in the fallback,
/// without a sandbox, and in a box of an unprivileged arena. The tests'
/// own process has the kernel's default, which is not that. On a kernel
/// without a slice per process (before Linux 6.12) both read 0, and where
/// the slice cannot be read at all both say so; the bots still play.
#[test]
fn every_program_runs_with_a_short_slice_whatever_the_sandbox() {
    let wanted = match own_slice() {
        Ok(0) => "slice: 0\n".to_owned(),
        Ok(default) => {
            assert_ne!(default, 100_000, "the tests' own slice is the kernel's default");
            "slice: 100000\n".to_owned()
        }
        Err(errno) => format!("slice: unreadable (errno {errno})\n"),
    };
    let said = |out: &Path, mode: &str| {
        let mut logs = 0;
        for entry in std::fs::read_dir(out.join("logs")).expect("the logs").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.contains("-seat") {
                let log = std::fs::read_to_string(entry.path()).expect("a bot's log");
                assert_eq!(log, wanted, "{mode}: {name}");
                logs += 1;
            }
        }
        assert_eq!(logs, 2, "{mode}: a log for each bot");
        assert_eq!(&read_games_csv(out)[0]["reason"], "normal", "{mode}");
    };
    let scratch = Scratch::new();
    let bot = "tests/fixtures/tells_slice.py";
    let one_game = ["match", "number-snatch", bot, bot, "--games", "1"];
    for (mode, extra) in [("in a box", None), ("without a sandbox", Some("--no-sandbox"))] {
        let out = scratch.out().join(mode.replace(' ', "-"));
        let mut args = one_game.to_vec();
        args.extend(extra);
        args.extend(["--out", out.to_str().expect("UTF-8")]);
        scratch.arena(&args).assert_success();
        said(&out, mode);
    }
    let fallback = scratch.out().join("fallback");
    run_without_namespaces(&one_game, &fallback);
    said(&fallback, "in the fallback");
    let place = Unprivileged::new();
    let out = place.out("slice");
    let bot = "fixtures/tells_slice.py";
    let run = place.arena(&[
        "match",
        "number-snatch",
        bot,
        bot,
        "--games",
        "1",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    assert!(run.stdout.contains("sandbox: a box per program"), "{}", run.stdout);
    said(&out, "in an unprivileged arena's box");
}

/// The time slice the scheduler gives this process, in nanoseconds, or
/// the errno `sched_getattr` fails with (as the bot's would).
fn own_slice() -> Result<u64, i32> {
    // `struct sched_attr` as the kernel's first version of it: the slice
    // (`sched_runtime`) is its sixth field, at byte 24.
    let mut attr = [0u64; 6];
    // SAFETY: sched_getattr fills the 48 bytes it is given.
    let read = unsafe { libc::syscall(libc::SYS_sched_getattr, 0, attr.as_mut_ptr(), 48u32, 0) };
    match read {
        0 => Ok(attr[3]),
        _ => Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0)),
    }
}

/// `--require-sandbox` (`sandbox = "required"`) runs where every
/// protection is in force and refuses, naming what is missing, where it is
/// not: an unprivileged arena may make no cgroup here.
#[test]
fn a_required_sandbox_refuses_what_is_missing() {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let scratch = Scratch::new();
    let out = scratch.out();
    let args = [
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "1",
        "--require-sandbox",
        "--out",
        out.to_str().expect("UTF-8"),
    ];
    if root {
        scratch.arena(args).assert_success();
    }
    let place = Unprivileged::new();
    let out = place.out("required");
    let refused = place.arena(&[
        "match",
        "number-snatch",
        "python3 random_bot.py",
        "python3 random_bot.py",
        "--games",
        "1",
        "--require-sandbox",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}\n{}", refused.stdout, refused.stderr);
    assert!(refused.stderr.contains("the sandbox is required"), "{}", refused.stderr);
    assert!(refused.stderr.contains("a cgroup arena may write"), "{}", refused.stderr);
    assert!(!out.join("games.csv").exists(), "games were played");
}

/// What the arena makes for boxes goes when it ends: no cgroup of an ended
/// run remains in any hierarchy.
#[test]
fn no_cgroup_outlives_its_run() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        "number-snatch",
        PYTHON_RANDOM_BOT,
        PYTHON_RANDOM_BOT,
        "--games",
        "2",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        assert!(
            run.stdout.contains("cgroup v1 limits") || run.stdout.contains("cgroup v2 limits"),
            "{}",
            run.stdout
        );
    }
    let mut left = Vec::new();
    let mut folders = vec![std::path::PathBuf::from("/sys/fs/cgroup")];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            match name.strip_prefix("arena-").and_then(|pid| pid.split('-').next()) {
                // A box's folder (or an older arena's run folder): its arena
                // must still be running.
                Some(pid) if !Path::new(&format!("/proc/{pid}")).exists() => {
                    left.push(entry.path())
                }
                Some(_) => {}
                None => folders.push(entry.path()),
            }
        }
    }
    assert!(left.is_empty(), "cgroups of ended runs: {left:?}");
}

/// The children arena `pid` has (box first processes, helpers), from /proc.
fn children_of(pid: u32) -> Vec<u32> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let parent = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1));
        if parent.and_then(|parent| parent.parse::<u32>().ok()) == Some(pid) {
            children.push(child);
        }
    }
    children
}

/// The box cgroup folders arena `pid` made, anywhere under /sys/fs/cgroup.
fn cgroups_of(pid: u32) -> Vec<std::path::PathBuf> {
    let prefix = format!("arena-{pid}-");
    let mut found = Vec::new();
    let mut folders = vec![std::path::PathBuf::from("/sys/fs/cgroup")];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                continue;
            }
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                found.push(entry.path());
            } else {
                folders.push(entry.path());
            }
        }
    }
    found
}

/// An arena killed (SIGKILL) while its bots restart every game, with boxes
/// made ahead waiting: nothing of it remains a moment later, no process of
/// a box (they die with it), no cgroup (removed by its cleaner), no mount
/// or System V object on the machine.
#[test]
fn nothing_outlives_an_arena_killed_with_boxes_made_ahead() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").expect("mounts").lines().count();
    let ipc =
        |table: &str| std::fs::read_to_string(format!("/proc/sysvipc/{table}")).unwrap_or_default();
    let ipc_before = [ipc("shm"), ipc("sem"), ipc("msg")];
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(repo_dir())
        .args([
            "match",
            "number-snatch",
            PYTHON_RANDOM_BOT,
            PYTHON_RANDOM_BOT,
            "--games",
            "400",
            "--restart-each-game",
            "--out",
            out.to_str().expect("UTF-8"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the arena starts");
    let pid = arena.id();
    let started = std::time::Instant::now();
    let played = || {
        std::fs::read_to_string(out.join("games.csv")).map(|text| text.lines().count()).unwrap_or(0)
    };
    while played() < 6 && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(played() >= 6, "the run played no games");
    let children = children_of(pid);
    assert!(children.len() >= 3, "boxes (and the cleaner) under arena: {children:?}");
    if unsafe { libc::geteuid() } == 0 {
        assert!(!cgroups_of(pid).is_empty(), "the boxes' cgroups");
    }
    arena.kill().expect("SIGKILL");
    arena.wait().expect("reaped");
    let gone = || {
        children.iter().all(|child| !std::path::Path::new(&format!("/proc/{child}")).exists())
            && cgroups_of(pid).is_empty()
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !gone() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let left: Vec<&u32> = children
        .iter()
        .filter(|child| std::path::Path::new(&format!("/proc/{child}")).exists())
        .collect();
    assert!(left.is_empty(), "processes left: {left:?}");
    assert_eq!(cgroups_of(pid), Vec::<std::path::PathBuf>::new(), "cgroups left");
    let mounts_after =
        std::fs::read_to_string("/proc/self/mountinfo").expect("mounts").lines().count();
    assert_eq!(mounts_after, mounts, "the machine's mounts");
    assert_eq!([ipc("shm"), ipc("sem"), ipc("msg")], ipc_before, "System V objects");
}
