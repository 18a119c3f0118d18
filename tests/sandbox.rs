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
use std::os::unix::net::UnixListener;
use std::process::Command;
use std::time::Duration;

use common::hostile::{
    Attack, VICTIM, attack, attack_in, both_ways, hostile_outcome, play_hostile, victim_copy,
};
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

/// Seen from the victim's side, not only from the attacker's report.
#[test]
fn a_bot_cannot_renice_its_opponent() {
    let (open, closed) = both_ways("renice-opponent", None);
    assert!(open.outcome.contains("nice 19"), "{}", open.outcome);
    let victims_end = |attack: &Attack| {
        let log = attack.scratch.out().join(format!("logs/game-000001-seat2-{VICTIM}.log"));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .find_map(|line| line.strip_prefix("the victim, ending at nice "))
            .unwrap_or_else(|| panic!("no end in the victim's log {}:\n{text}", log.display()))
            .to_owned()
    };
    assert_eq!(victims_end(&open), "19");
    assert_ne!(victims_end(&closed), "19");
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

/// What a socket's buffer holds no memory limit counts: a buffer keeps
/// the kernel's default size.
#[test]
fn a_bot_cannot_raise_its_socket_buffers() {
    both_ways("socket-buffers", None);
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
        common::hostile::copy_bot_to(&checkout);
        let config = format!("path:{}", checkout.join(".git/config").display());
        let hostile = checkout.join("hostile.py").to_str().expect("UTF-8").to_owned();
        let attack = attack_in(scratch, &hostile, "read-file", Some(&config), sandbox, &[]);
        assert_eq!(attack.succeeded(), !sandbox, "sandbox {sandbox}: {}", attack.outcome);
        attack.run.assert_success();
    }
}

/// Whatever the sandbox, a program arena starts holds nothing but 0, 1
/// and 2: every other descriptor is closed at its exec. The control is a
/// program given descriptor 9 the way the arena is given it here, which
/// holds it.
#[test]
fn a_bot_inherits_no_file_descriptor_of_the_arena() {
    use std::os::unix::process::CommandExt;
    let folder = tempfile::tempdir().expect("a folder");
    let held = std::fs::File::create(folder.path().join("held")).expect("a file");
    let held_fd = std::os::fd::AsRawFd::as_raw_fd(&held);
    let mut control = Command::new("ls");
    control.arg("-l").arg("/proc/self/fd/");
    // SAFETY: dup2 between fork and exec.
    unsafe {
        control.pre_exec(move || {
            if libc::dup2(held_fd, 9) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let listed = String::from_utf8_lossy(&control.output().expect("ls runs").stdout).into_owned();
    assert!(listed.contains(" 9 -> ") && listed.contains("held"), "{listed}");
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
        assert!(outcome.starts_with("failed"), "sandbox {sandbox}: {outcome}");
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
    // Not named as a word of the command (that is refused before any
    // game: tests/declared_view.rs), so the run plays.
    both_ways("connect-unix", Some(&format!("path:{}", path.display())));
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
            assert!(run.stdout.contains("sandbox: a box per program"), "{}", run.stdout);
            for row in read_games_csv(&out) {
                assert_eq!(&row["reason"], "normal", "{game}: {}", &row["forfeit_detail"]);
            }
        }
    }
}
