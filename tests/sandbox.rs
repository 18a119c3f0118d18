//! The sandbox against a hostile bot. tests/fixtures/hostile.py tries one
//! attack per run (on its opponent, the referee, the results or the machine)
//! and reports the outcome in its log. Each attack is run twice: with the
//! sandbox on it must fail, and with `--no-sandbox` it must succeed, which
//! shows that the sandbox is what stops it. Where an attack leaves a trace
//! (a forfeit, a changed file, a line on the arena's output), the trace is
//! checked too, not only the bot's word.

#[allow(dead_code)]
mod common;

use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::hostile::{
    Attack, VICTIM, attack, attack_in, both_ways, hostile_outcome, play_hostile, reported_outcome,
    victim_copy,
};
use common::unprivileged::Unprivileged;
use common::{PYTHON_RANDOM_BOT, Scratch, read_games_csv, read_transcript, repo_dir};

#[test]
fn a_bot_cannot_kill_its_opponent() {
    let (open, closed) = both_ways("kill-opponent", None);
    assert_eq!(open.victim_forfeit(), "crash", "{}", &open.rows[0]["forfeit_detail"]);
    assert_eq!(closed.victim_forfeit(), "", "{}", &closed.rows[0]["forfeit_detail"]);
    // In a box of its own the opponent does not even exist.
    assert!(closed.outcome.contains("no opponent found"), "{}", closed.outcome);
}

#[test]
fn a_bot_cannot_stop_its_opponent() {
    let (open, closed) = both_ways("stop-opponent", None);
    assert_eq!(open.victim_forfeit(), "timeout");
    assert_eq!(closed.victim_forfeit(), "");
}

#[test]
fn a_bot_cannot_kill_the_arena() {
    use std::os::unix::process::ExitStatusExt;
    // Without the sandbox the arena dies, before it can write the bot's log.
    let scratch = Scratch::new();
    let run = play_hostile(&scratch, "tests/fixtures/hostile.py kill-arena", &["--no-sandbox"]);
    assert_eq!(run.status.signal(), Some(9), "{run:?}");
    let closed = attack("kill-arena", None, true);
    closed.run.assert_success();
    assert!(!closed.succeeded(), "{}", closed.outcome);
    assert_eq!(closed.rows.len(), 1);
}

#[test]
fn a_bot_cannot_renice_its_opponent() {
    let (open, _) = both_ways("renice-opponent", None);
    assert!(open.outcome.contains("nice 19"), "{}", open.outcome);
}

#[test]
fn a_bot_cannot_answer_in_its_opponents_name() {
    let (open, closed) = both_ways("answer-for-opponent", None);
    assert_eq!(open.victim_forfeit(), "malformed");
    assert!(open.rows[0]["forfeit_detail"].contains("written by its opponent"));
    assert_eq!(closed.victim_forfeit(), "");
}

#[test]
fn a_bot_cannot_read_its_opponents_output() {
    both_ways("read-opponent-output", None);
}

#[test]
fn a_bot_cannot_trace_its_opponent() {
    both_ways("ptrace-opponent", None);
}

#[test]
fn a_bot_cannot_read_its_opponents_environment() {
    both_ways("opponent-environment", None);
}

#[test]
fn a_bot_cannot_read_its_opponents_log() {
    both_ways("opponent-log", None);
}

#[test]
fn a_bot_cannot_write_into_the_results() {
    let (open, closed) = both_ways("tamper-results", None);
    let csv = |attack: &Attack| {
        std::fs::read_to_string(attack.scratch.out().join("games.csv")).expect("games.csv")
    };
    assert!(csv(&open).contains("FAKE,ROW"));
    assert!(!csv(&closed).contains("FAKE"));
}

#[test]
fn a_bot_cannot_write_into_the_arenas_output() {
    let (open, closed) = both_ways("fake-arena-output", None);
    assert!(open.run.stdout.contains("FAKE-ARENA-LINE"), "{}", open.run.stdout);
    assert!(!closed.run.stdout.contains("FAKE"), "{}", closed.run.stdout);
}

#[test]
fn a_bot_cannot_change_its_opponents_program() {
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let victim = victim_copy(&scratch);
        let victim_path = format!("path:{}", victim.display());
        let attack = attack_in(
            scratch,
            "tests/fixtures/hostile.py",
            "tamper-file",
            Some(&victim_path),
            sandbox,
            &[],
        );
        let tampered = std::fs::read_to_string(&victim).expect("the victim").contains("# tampered");
        assert_eq!(tampered, !sandbox, "sandbox {sandbox}: {}", attack.outcome);
        assert_eq!(attack.succeeded(), !sandbox, "sandbox {sandbox}: {}", attack.outcome);
    }
}

#[test]
fn a_bot_cannot_read_files_outside_its_folder_nor_the_results() {
    let scratch = Scratch::new();
    let secret = scratch.out().with_file_name("tournament.toml");
    std::fs::write(&secret, "[[bot]]\nenv = { TOKEN = \"secret\" }\n").expect("a secret file");
    let secret = format!("path:{}", secret.display());
    let (_, closed) = both_ways("read-file", Some(&secret));
    assert!(closed.outcome.contains("No such file"), "{}", closed.outcome);
    let results = format!("path:{}", closed.scratch.out().join("games.csv").display());
    let closed = attack("read-file", Some(&results), true);
    assert!(!closed.succeeded(), "{}", closed.outcome);
}

/// A bot whose own folder is a checkout's root: it reads its own files, but
/// not the checkout's .git (where CI keeps a token).
#[test]
fn a_bot_in_a_checkouts_root_cannot_read_its_git_folder() {
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let checkout = scratch.out().with_file_name("checkout");
        std::fs::create_dir_all(checkout.join(".git")).expect("a .git folder");
        std::fs::write(checkout.join(".git/config"), "token = secret\n").expect("a config");
        for file in ["hostile.py", "botlib.py"] {
            std::fs::copy(repo_dir().join("tests/fixtures").join(file), checkout.join(file))
                .expect("copying the fixture");
        }
        let config = format!("path:{}", checkout.join(".git/config").display());
        let hostile = checkout.join("hostile.py").to_str().expect("UTF-8").to_owned();
        let attack = attack_in(scratch, &hostile, "read-file", Some(&config), sandbox, &[]);
        assert_eq!(attack.succeeded(), !sandbox, "sandbox {sandbox}: {}", attack.outcome);
        attack.run.assert_success();
    }
}

#[test]
fn a_bot_inherits_no_file_descriptor_of_the_arena() {
    use std::os::unix::process::CommandExt;
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let out = scratch.out();
        let victim = victim_copy(&scratch);
        let held = std::fs::File::create(out.with_file_name("held")).expect("a file");
        let held_fd = std::os::fd::AsRawFd::as_raw_fd(&held);
        let mut command = Command::new(env!("CARGO_BIN_EXE_arena"));
        command.current_dir(repo_dir()).args([
            "match",
            "number-snatch",
            "tests/fixtures/hostile.py inherited-files",
            &format!("python3 {}", victim.display()),
            "--games",
            "1",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        if !sandbox {
            command.arg("--no-sandbox");
        }
        // The arena gets descriptor 9 without close-on-exec, as a CI
        // runner's extra descriptors come.
        // SAFETY: dup2 between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(held_fd, 9) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let status = command.output().expect("the arena runs").status;
        assert!(status.success());
        let outcome = hostile_outcome(&out, "inherited-files");
        assert_eq!(outcome.starts_with("succeeded"), !sandbox, "sandbox {sandbox}: {outcome}");
        if !sandbox {
            assert!(outcome.contains("9=") && outcome.contains("held"), "{outcome}");
        }
    }
}

#[test]
fn a_bot_cannot_allocate_past_its_memory_limit() {
    let (_, closed) = both_ways("allocate", None);
    assert!(closed.outcome.contains("MemoryError"), "{}", closed.outcome);
}

#[test]
fn a_bot_cannot_fork_past_its_process_limit() {
    let (_, closed) = both_ways("fork-many", None);
    assert!(closed.outcome.contains("Resource temporarily unavailable"), "{}", closed.outcome);
}

#[test]
fn a_bot_cannot_write_past_its_file_size_limit() {
    let (_, closed) = both_ways("fill-disk", None);
    assert!(closed.outcome.contains("File too large"), "{}", closed.outcome);
}

#[test]
fn a_bot_cannot_join_the_arenas_process_group() {
    both_ways("join-arena-group", None);
}

#[test]
fn a_bot_cannot_connect_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = listener.local_addr().expect("its address").port().to_string();
    both_ways("connect-tcp", Some(&port));
}

#[test]
fn a_bot_cannot_send_udp() {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("a socket");
    let port = socket.local_addr().expect("its address").port().to_string();
    // Answers every datagram, so that the bot knows whether one left.
    let echo = std::thread::spawn(move || {
        socket.set_read_timeout(Some(Duration::from_secs(20))).expect("a timeout");
        let mut received = 0;
        let mut buffer = [0; 16];
        while let Ok((count, from)) = socket.recv_from(&mut buffer) {
            received += 1;
            let _ = socket.send_to(&buffer[..count], from);
            socket.set_read_timeout(Some(Duration::from_secs(8))).expect("a timeout");
        }
        received
    });
    both_ways("send-udp", Some(&port));
    // The datagram of the run without the sandbox, and no other.
    assert_eq!(echo.join().expect("the echo thread"), 1);
}

#[test]
fn a_bot_cannot_connect_to_the_machines_unix_sockets() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("service.sock");
    let _listener = UnixListener::bind(&path).expect("a unix socket");
    both_ways("connect-unix", Some(path.to_str().expect("UTF-8")));
}

/// A bot that runs into a limit forfeits, and the detail names the limit.
#[test]
fn a_bot_over_a_limit_forfeits_with_the_limit_named() {
    for (name, option, value, named) in [
        ("burn-cpu", "--cpu-limit", "1s", "over its CPU time limit (1s)"),
        ("exhaust-memory", "--memory-limit", "256MiB", "over its memory limit (256 MiB)"),
    ] {
        let scratch = Scratch::new();
        let out = scratch.out();
        let hostile = format!("tests/fixtures/hostile.py {name}");
        let run = play_hostile(&scratch, &hostile, &["--move-timeout", "20s", option, value]);
        run.assert_success();
        let rows = read_games_csv(&out);
        assert_eq!(&rows[0]["reason"], "crash", "{name}: {}", &rows[0]["forfeit_detail"]);
        assert!(
            rows[0]["forfeit_detail"].contains(named),
            "{name}: {}",
            &rows[0]["forfeit_detail"]
        );
    }
}

/// Whatever a bot writes, no control byte reaches the arena's output or a
/// CSV cell raw: the forfeit detail quotes the line with escapes.
#[test]
fn control_bytes_from_a_bot_are_escaped_everywhere() {
    for sandbox in [false, true] {
        let attack = attack("control-bytes", None, sandbox);
        attack.run.assert_success();
        let row = &attack.rows[0];
        assert_eq!(&row["forfeiter"], "hostile");
        let detail = &row["forfeit_detail"];
        assert!(detail.contains("\\u{1b}[2J") && detail.contains("\\u{202e}"), "{detail}");
        let csv = std::fs::read(attack.scratch.out().join("games.csv")).expect("games.csv");
        for output in [&csv, attack.run.stdout.as_bytes()] {
            assert!(!output.contains(&0x1b) && !output.contains(&0x07), "{}", attack.run.stdout);
        }
        assert!(!attack.run.stdout.contains('\u{202e}'));
    }
}

/// Each seat gets a seed of its own; with ARENA_SEED_KEY set, other seeds
/// again, and the same ones every run.
#[test]
fn each_seat_gets_its_own_seed_keyed_by_a_secret() {
    let seeds_of = |key: Option<&str>| {
        let scratch = Scratch::new();
        let out = scratch.out();
        let rust_bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
        let mut command = Command::new(env!("CARGO_BIN_EXE_arena"));
        command.current_dir(repo_dir()).args([
            "match",
            "number-snatch",
            &rust_bot,
            &rust_bot,
            "--games",
            "1",
            "--seed",
            "3",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        match key {
            Some(key) => command.env("ARENA_SEED_KEY", key),
            None => command.env_remove("ARENA_SEED_KEY"),
        };
        let output = command.output().expect("the arena runs");
        assert!(output.status.success());
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let said = if key.is_some() { "keyed by ARENA_SEED_KEY" } else { "folder's own" };
        assert!(stdout.contains(said), "{stdout}");
        let transcript = read_transcript(&out.join("transcripts/game-000001.jsonl"));
        let starts: Vec<u64> = transcript
            .iter()
            .filter(|line| line["type"] == "send" && line["msg"]["type"] == "start")
            .map(|line| line["msg"]["seed"].as_u64().expect("a seed"))
            .collect();
        assert_eq!(starts.len(), 2);
        assert_ne!(starts[0], starts[1], "both seats got the same seed");
        assert_ne!(starts[0], transcript[0]["seed"].as_u64().unwrap(), "a seat got the setup seed");
        assert_eq!(transcript[0]["seat_seeds"], serde_json::json!(starts));
        starts
    };
    let public = seeds_of(None);
    let secret = seeds_of(Some("a leaderboard's secret"));
    assert_ne!(public, secret);
    assert_eq!(secret, seeds_of(Some("a leaderboard's secret")));
}

/// The run says what protects the bots, and so do tournament.json and each
/// transcript's header.
#[test]
fn the_protections_in_force_are_said_out_loud() {
    let attack = attack("kill-opponent", None, true);
    let said = attack
        .run
        .stdout
        .lines()
        .find(|line| line.starts_with("sandbox: "))
        .unwrap_or_else(|| panic!("no sandbox line in:\n{}", attack.run.stdout))
        .to_owned();
    assert!(said.contains("landlock ABI") && said.contains("memory 1 GiB"), "{said}");
    let header = &read_transcript(&attack.scratch.out().join("transcripts/game-000001.jsonl"))[0];
    assert!(said.contains(header["sandbox"].as_str().expect("the header names the sandbox")));
    let open =
        attack_in(Scratch::new(), "tests/fixtures/hostile.py", "renice-opponent", None, false, &[]);
    assert!(open.run.stdout.contains("sandbox: off"), "{}", open.run.stdout);
    assert!(open.run.stderr.contains("warning: the sandbox is off"), "{}", open.run.stderr);
}

/// The starter kits and strong-bot play every game under the sandbox.
#[test]
fn honest_bots_play_every_game_in_the_sandbox() {
    let random_rust = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let strong = common::rust_strong_bot().to_str().expect("UTF-8").to_owned();
    for game in common::GAMES {
        for (first, second) in [
            (PYTHON_RANDOM_BOT, strong.as_str()),
            ("node bots/javascript/random_bot.js", random_rust.as_str()),
        ] {
            let scratch = Scratch::new();
            let out = scratch.out();
            let run = scratch.arena([
                "match",
                game,
                first,
                second,
                "--games",
                "2",
                "--move-timeout",
                "5s",
                "--out",
                out.to_str().expect("UTF-8"),
            ]);
            run.assert_success();
            assert!(run.stdout.contains("sandbox: a box per bot"), "{}", run.stdout);
            for row in read_games_csv(&out) {
                assert_eq!(&row["reason"], "normal", "{game}: {}", &row["forfeit_detail"]);
            }
        }
    }
}

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
        assert!(run.stdout.contains("sandbox: a box per bot"), "{}", run.stdout);
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
    let run_without_namespaces = |args: &[&str], out: &Path| {
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
        assert!(stdout.contains("sandbox: no box per bot"), "{stdout}");
        assert!(
            stderr.contains("a box could not be made: making the box's namespaces"),
            "{stderr}"
        );
    };
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
                // A run's folder: its arena must still be running.
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

/// Under root a box's bot is a user of its own, with only the rights
/// others have on host files: a bot kept in a folder closed to others
/// (`mktemp -d` makes such folders) is refused before any game, naming the
/// folder and what to do. Once the folder is open, the bot plays, and a
/// path to hide below a folder closed to others (here the results) needs
/// no stand-in, since the bot cannot reach it. Unprivileged, the bot is
/// arena's own user and plays either way.
#[test]
fn a_bot_in_a_folder_closed_to_others_is_told_which_folder() {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("bot");
    let private = folder.join("private");
    std::fs::create_dir_all(&private).expect("the bot's folder");
    std::fs::copy(repo_dir().join("bots/python/random_bot.py"), folder.join("random_bot.py"))
        .expect("copying the bot");
    let closed = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    closed(&private, 0o700);
    closed(&folder, 0o700);
    let bot = format!("python3 {}", folder.join("random_bot.py").display());
    let out = private.join("out");
    let play = || two_games(&scratch, &bot, &out);
    let refused = play();
    if root {
        assert_eq!(refused.status.code(), Some(2), "{}\n{}", refused.stdout, refused.stderr);
        let played = out.join("games.csv").exists() && !read_games_csv(&out).is_empty();
        assert!(!played, "games were played");
        let expected = format!("`{}` (mode 700) is closed to them", folder.display());
        assert!(refused.stderr.contains(&expected), "{}", refused.stderr);
        assert!(refused.stderr.contains("chmod o+rx"), "{}", refused.stderr);
        // `arena check` refuses it the same way, before saying what it
        // would check.
        let check = scratch.arena(["check", &bot, "--game", "number-snatch"]);
        assert_eq!(check.status.code(), Some(2), "{}\n{}", check.stdout, check.stderr);
        assert!(check.stderr.contains(&expected), "{}", check.stderr);
        assert!(check.stdout.is_empty(), "said before the refusal: {}", check.stdout);
    } else {
        refused.assert_success();
    }
    closed(&folder, 0o755);
    let played = play();
    played.assert_success();
    assert_eq!(read_games_csv(&out).len(), 2);
}

/// A program is executed by the box's user: under root, others need the
/// right to execute it, not only to read it (a copy of a compiled bot
/// made readable to all, `chmod 704`, could not start, and was told to
/// open it for reading).
#[test]
fn a_program_others_may_not_execute_is_told_so() {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("bot");
    std::fs::create_dir_all(&folder).expect("the bot's folder");
    let program = folder.join("bot");
    std::fs::copy(common::rust_random_bot(), &program).expect("copying the bot");
    let mode = |mode| {
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    mode(0o704);
    let bot = program.display().to_string();
    let out = scratch.out();
    let play = || two_games(&scratch, &bot, &out);
    let refused = play();
    if root {
        assert_eq!(refused.status.code(), Some(2), "{}\n{}", refused.stdout, refused.stderr);
        let expected = format!("`{bot}` (mode 704) is closed to them");
        assert!(refused.stderr.contains(&expected), "{}", refused.stderr);
        assert!(refused.stderr.contains("o+rx for a folder or a program"), "{}", refused.stderr);
    } else {
        refused.assert_success();
    }
    mode(0o755);
    play().assert_success();
    assert_eq!(read_games_csv(&scratch.out()).len(), 2);
    // Executing a compiled program needs no read right, through a link too.
    mode(0o711);
    let link = folder.join("bot-link");
    std::os::unix::fs::symlink(&program, &link).expect("a link to the bot");
    let through_link = two_games(&scratch, &link.display().to_string(), &out);
    through_link.assert_success();
    assert_eq!(read_games_csv(&scratch.out()).len(), 2);
}

/// Two games of Number Snatch between two copies of `bot`, into `out`
/// afresh.
fn two_games(scratch: &Scratch, bot: &str, out: &Path) -> common::Run {
    let out = out.to_str().expect("UTF-8");
    scratch.arena(["match", "number-snatch", bot, bot, "--games", "2", "--fresh", "--out", out])
}
