//! The box against a determined bot: the attacks a denylist sandbox let
//! through (kernel interfaces Landlock and a syscall denylist do not cover),
//! each run with `--no-sandbox`, where it must work, and with the default
//! sandbox, where it must fail. tests/sandbox.rs holds the older classes;
//! tests/cpu_share.rs the CPU starvation one; both also run as an
//! unprivileged user there.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::time::Duration;

use common::Scratch;
use common::hostile::{attack, attack_in, both_ways, victim_copy};

/// chmod and utime are outside Landlock: the opponent's program must not
/// even exist in the box.
#[test]
fn a_bot_cannot_change_the_mode_of_its_opponents_program() {
    use std::os::unix::fs::MetadataExt;
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let victim = victim_copy(&scratch);
        let before = std::fs::metadata(&victim).expect("the victim");
        let argument = format!("path:{}", victim.display());
        let attack = attack_in(
            scratch,
            "tests/fixtures/hostile.py",
            "change-file",
            Some(&argument),
            sandbox,
            &[],
        );
        let after = std::fs::metadata(&victim).expect("the victim");
        assert_eq!(attack.succeeded(), !sandbox, "sandbox {sandbox}: {}", attack.outcome);
        assert_eq!(after.mode() & 0o777 == 0, !sandbox, "sandbox {sandbox}");
        assert_eq!(after.mtime() == before.mtime(), sandbox, "sandbox {sandbox}");
        if sandbox {
            assert!(attack.outcome.contains("No such file"), "{}", attack.outcome);
        }
    }
}

#[test]
fn a_bot_cannot_change_the_mode_of_the_results_logs() {
    let (open, closed) = both_ways("chmod-results", None);
    let mode = |attack: &common::hostile::Attack| {
        std::fs::metadata(attack.scratch.out().join("logs")).expect("logs").permissions().mode()
    };
    assert_eq!(mode(&open) & 0o777, 0);
    assert_ne!(mode(&closed) & 0o777, 0);
    // Let the scratch folder be removed.
    std::fs::set_permissions(
        open.scratch.out().join("logs"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod back");
}

/// inotify and listing are outside Landlock: a bot watching its opponent's
/// folder would see which file it opens each turn.
#[test]
fn a_bot_cannot_watch_or_list_its_opponents_folder() {
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let victim = victim_copy(&scratch);
        let folder = victim.parent().expect("the victim's folder").to_owned();
        let argument = format!("path:{}", folder.display());
        let attack = attack_in(
            scratch,
            "tests/fixtures/hostile.py",
            "watch-folder",
            Some(&argument),
            sandbox,
            &[],
        );
        assert_eq!(attack.succeeded(), !sandbox, "sandbox {sandbox}: {}", attack.outcome);
        if !sandbox {
            assert!(attack.outcome.contains("random_bot.py"), "{}", attack.outcome);
        }
    }
    // A folder both boxes show (the system's): a watch there would tell one
    // bot when the other opens a file in it.
    let (_, closed) = both_ways("watch-folder", Some("path:/usr/lib"));
    assert!(closed.outcome.contains("Function not implemented"), "{}", closed.outcome);
}

/// A datagram to a unix socket by path reaches host services (/dev/log).
#[test]
fn a_bot_cannot_send_datagrams_to_the_hosts_unix_sockets() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("log.sock");
    let socket = UnixDatagram::bind(&path).expect("a datagram socket");
    socket.set_read_timeout(Some(Duration::from_millis(500))).expect("a timeout");
    let argument = format!("path:{}", path.display());
    let mut buffer = [0; 16];
    let open = attack("sendto-unix", Some(&argument), false);
    assert!(open.succeeded(), "{}", open.outcome);
    assert_eq!(socket.recv(&mut buffer).expect("the datagram"), 5);
    let closed = attack("sendto-unix", Some(&argument), true);
    assert!(closed.outcome.starts_with("failed"), "{}", closed.outcome);
    assert!(socket.recv(&mut buffer).is_err(), "a datagram came through the sandbox");
}

/// io_uring performs socket(), connect() and more inside the kernel, where
/// no filter on those system calls sees them.
#[test]
fn a_bot_cannot_make_sockets_through_io_uring() {
    let (_, closed) = both_ways("io-uring-socket", None);
    assert!(closed.outcome.contains("Function not implemented"), "{}", closed.outcome);
}

/// The calls a box's first process may still make (its half of the filter
/// allows them) are refused to the bot by the half it loads before exec.
#[test]
fn a_bot_cannot_make_the_calls_its_boxs_first_process_makes() {
    let (_, closed) = both_ways("box-calls", None);
    for call in ["unshare", "sched_setaffinity", "setresuid"] {
        assert!(
            closed.outcome.contains(&format!("{call}: Function not implemented")),
            "{call}: {}",
            closed.outcome
        );
    }
}

/// The run's seed is on arena's command line, which /proc shows to every
/// process that can see arena's.
#[test]
fn a_bot_cannot_read_the_arenas_command_line() {
    let open = attack_in(
        Scratch::new(),
        "tests/fixtures/hostile.py",
        "arena-command-line",
        None,
        false,
        &[],
    );
    assert!(open.succeeded() && open.outcome.contains("seed is 8"), "{}", open.outcome);
    let closed = attack("arena-command-line", None, true);
    assert!(closed.outcome.starts_with("failed"), "{}", closed.outcome);
}

/// A memory attack that the box stops: the bot is killed (its forfeit
/// names the memory limit) or refused (its report says so).
fn assert_memory_attack_stopped(name: &str) {
    // Holding its memory takes a moment; on a loaded machine, more.
    let limit = ["--memory-limit", "256MiB", "--move-timeout", "20s"];
    let open = attack_in(Scratch::new(), "tests/fixtures/hostile.py", name, None, false, &limit);
    assert!(open.succeeded(), "{name} without the sandbox: {}", open.outcome);
    let closed = attack_in(Scratch::new(), "tests/fixtures/hostile.py", name, None, true, &limit);
    closed.run.assert_success();
    assert!(!closed.succeeded(), "{name} held its memory in the sandbox: {}", closed.outcome);
    let row = &closed.rows[0];
    if closed.outcome.is_empty() {
        assert_eq!(&row["forfeiter"], "hostile", "{name}: {}", &row["forfeit_detail"]);
        assert!(
            row["forfeit_detail"].contains("over its memory limit (256 MiB)"),
            "{name}: {}",
            &row["forfeit_detail"]
        );
    } else {
        assert!(closed.outcome.starts_with("failed"), "{name}: {}", closed.outcome);
    }
    closed.scratch.assert_fixture_processes_gone();
}

#[test]
fn a_bot_cannot_hold_shared_memory_past_its_limit() {
    assert_memory_attack_stopped("hoard-shared");
}

#[test]
fn a_bot_cannot_hold_memfd_memory_past_its_limit() {
    assert_memory_attack_stopped("hoard-memfd");
}

#[test]
fn a_bot_cannot_hold_system_v_memory_past_its_limit() {
    assert_memory_attack_stopped("hoard-sysv");
}

#[test]
fn a_bot_cannot_hold_stack_mappings_past_its_limit() {
    assert_memory_attack_stopped("hoard-growsdown");
}

/// A hundred processes, each in a session of its own and the child of the
/// one before: outside a box the orphan sweeps lose the race; in a box
/// they all die with it.
#[test]
fn a_bot_cannot_outlive_the_arena_through_a_chain_of_sessions() {
    let open = attack("session-chain", None, false);
    assert!(open.succeeded(), "{}", open.outcome);
    let recorded = common::recorded_pids(open.scratch.out().as_path());
    let survivors = common::surviving(&recorded);
    common::kill_all(&survivors);
    assert!(!survivors.is_empty(), "no link of the chain outlived the arena without the sandbox");
    let closed = attack("session-chain", None, true);
    closed.run.assert_success();
    assert!(closed.succeeded(), "the chain could not start in the box: {}", closed.outcome);
    closed.scratch.assert_fixture_processes_gone();
}

/// What a bot leaves in its scratch goes with the box, whatever its mode;
/// a setuid program in it serves nobody.
#[test]
fn a_bot_leaves_nothing_behind() {
    let name = format!("arena-litter-{}", std::process::id());
    let left = std::env::temp_dir().join(&name);
    let open = attack("litter", Some(&name), false);
    assert!(open.succeeded(), "{}", open.outcome);
    assert!(left.join("sh").exists(), "the attack left nothing without the sandbox");
    std::fs::set_permissions(left.join("locked"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod back");
    std::fs::remove_dir_all(&left).expect("removing what it left");
    let mounts_before = host_mounts();
    let closed = attack("litter", Some(&name), true);
    closed.run.assert_success();
    assert!(closed.succeeded(), "the bot could not write its scratch: {}", closed.outcome);
    assert!(!left.exists(), "the box left {} behind", left.display());
    assert_no_scratch_left();
    // A box's mounts are made in its own mount namespace: none reaches the
    // machine's.
    assert_eq!(host_mounts(), mounts_before);
}

/// The mount points of the machine's mount namespace.
fn host_mounts() -> Vec<String> {
    let table = std::fs::read_to_string("/proc/self/mountinfo").expect("the mount table");
    let mut points: Vec<String> =
        table.lines().filter_map(|line| line.split(' ').nth(4)).map(str::to_owned).collect();
    points.sort();
    points
}

/// No scratch folder of a sandboxed run stays in the temporary folder.
fn assert_no_scratch_left() {
    let leftovers: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .expect("the temporary folder")
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.starts_with("arena-bots-"))
        .filter(|name| {
            let pid = name.trim_start_matches("arena-bots-").split('-').next().unwrap_or("");
            !Path::new(&format!("/proc/{pid}")).exists()
        })
        .collect();
    assert!(leftovers.is_empty(), "scratch folders of ended runs: {leftovers:?}");
}

/// A box's scratch is a tmpfs of a fixed size.
#[test]
fn a_bot_cannot_fill_the_disk_through_its_scratch() {
    let (_, closed) = both_ways("fill-scratch", None);
    assert!(closed.outcome.contains("No space left"), "{}", closed.outcome);
}

/// Both seats hostile: whatever one leaves, the other looks for.
fn talk(name: &str, argument: Option<&str>, sandbox: bool) -> Vec<String> {
    let scratch = Scratch::new();
    let out = scratch.out();
    let hostile = match argument {
        Some(argument) => format!("tests/fixtures/hostile.py {name} {argument}"),
        None => format!("tests/fixtures/hostile.py {name}"),
    };
    let out_text = out.to_str().expect("UTF-8").to_owned();
    let mut args = vec![
        "match",
        "number-snatch",
        hostile.as_str(),
        hostile.as_str(),
        "--games",
        "1",
        "--seed",
        "4",
        "--name1",
        "hostile",
        "--name2",
        "other",
        "--out",
        out_text.as_str(),
    ];
    if !sandbox {
        args.push("--no-sandbox");
    }
    scratch.arena(&args).assert_success();
    let mut outcomes = Vec::new();
    for seat in ["seat1-hostile", "seat2-other"] {
        let log = out.join(format!("logs/game-000001-{seat}.log"));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let prefix = format!("attack {name}: ");
        outcomes
            .extend(text.lines().filter_map(|line| line.strip_prefix(&prefix)).map(str::to_owned));
    }
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    scratch.assert_fixture_processes_gone();
    outcomes
}

/// The key both seats use for System V shared memory.
const TALK_KEY: libc::key_t = 0x4152_454E;

fn remove_talk_segment() -> bool {
    // SAFETY: looks up and removes a segment by key; no memory is touched.
    unsafe {
        let segment = libc::shmget(TALK_KEY, 0, 0);
        segment >= 0 && libc::shmctl(segment, libc::IPC_RMID, std::ptr::null_mut()) == 0
    }
}

/// The two seats must not talk: System V shared memory is per IPC
/// namespace (and a segment left behind would carry notes to the next run).
#[test]
fn the_two_seats_cannot_talk_through_system_v_memory() {
    remove_talk_segment();
    let open = talk("talk-sysv", None, false);
    assert!(open.iter().any(|outcome| outcome.starts_with("succeeded")), "{open:?}");
    assert!(remove_talk_segment(), "no segment outlived the run without the sandbox");
    let closed = talk("talk-sysv", None, true);
    assert!(closed.iter().all(|outcome| outcome.starts_with("failed")), "{closed:?}");
    assert!(!remove_talk_segment(), "a segment of the sandboxed run outlived it");
}

/// Abstract unix sockets belong to a network namespace.
#[test]
fn the_two_seats_cannot_talk_through_abstract_sockets() {
    let name = format!("test-{}", std::process::id());
    let open = talk("talk-unix", Some(&name), false);
    assert!(open.iter().any(|outcome| outcome.starts_with("succeeded")), "{open:?}");
    let closed = talk("talk-unix", Some(&name), true);
    assert!(closed.iter().all(|outcome| outcome.starts_with("failed")), "{closed:?}");
}

/// A command word naming a file inside `.git` is refused before any game
/// (without the sandbox, the bot reads it).
#[test]
fn a_path_in_the_command_inside_git_is_refused() {
    for sandbox in [false, true] {
        let scratch = Scratch::new();
        let checkout = scratch.out().with_file_name("checkout");
        std::fs::create_dir_all(checkout.join(".git")).expect("a .git folder");
        std::fs::write(checkout.join(".git/config"), "token = secret\n").expect("a config");
        common::hostile::copy_bot_to(&checkout);
        // Named as itself, inside the bot's own folder.
        let config = checkout.join(".git/config").to_str().expect("UTF-8").to_owned();
        let hostile = checkout.join("hostile.py").to_str().expect("UTF-8").to_owned();
        let attack = attack_in(scratch, &hostile, "read-file", Some(&config), sandbox, &[]);
        if sandbox {
            assert_eq!(attack.run.status.code(), Some(2), "{:?}", attack.run);
            assert!(attack.run.stderr.contains("inside a `.git` folder"), "{}", attack.run.stderr);
            assert!(attack.rows.is_empty());
        } else {
            attack.run.assert_success();
            assert!(attack.succeeded(), "{}", attack.outcome);
        }
    }
}

/// A tournament file sets the scratch size (`scratch_limit`): the run says
/// it, and a bot that fills its scratch runs out of room there (it would
/// write 63 MiB into the default's 64).
#[test]
fn a_tournament_file_sets_the_scratch_size() {
    let scratch = Scratch::new();
    let file = scratch.out().with_file_name("scratch.toml");
    let hostile = common::repo_dir().join("tests/fixtures/hostile.py");
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\ngames_per_pair = 2\nscratch_limit = \"8MiB\"\n\n[[bot]]\nname = \"hostile\"\ncommand = [\"python3\", {hostile:?}, \"fill-scratch\"]\n\n[[bot]]\nname = \"b\"\ncommand = [\"{bot}\"]\n"
        ),
    )
    .expect("a tournament file");
    let out = scratch.out();
    let run = scratch.arena([
        "run",
        file.to_str().expect("UTF-8"),
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    assert!(run.stdout.contains("scratch 8 MiB"), "{}", run.stdout);
    let mut outcomes = Vec::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("logs") {
        let text = std::fs::read_to_string(entry.expect("a log").path()).expect("a log's text");
        outcomes.extend(
            text.lines()
                .filter_map(|line| line.strip_prefix("attack fill-scratch: "))
                .map(str::to_owned),
        );
    }
    assert!(!outcomes.is_empty(), "a report of the attack: {outcomes:?}");
    for outcome in &outcomes {
        let written: u64 = outcome
            .split_once("No space left on device after ")
            .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("the scratch filled up: {outcome}"));
        assert!((4..=8).contains(&written), "{written} MiB in an 8 MiB scratch: {outcome}");
    }
}

/// What a box shows whole (the system folders, an interpreter's
/// installation) never shows the results or the tournament file inside it;
/// a bot installed in a system folder is not hidden there (nothing in the
/// system folders changes for a bot), and the run says so; and a home
/// folder is never shown whole.
#[test]
fn the_results_stay_hidden_inside_the_system_folders() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        panic!("this test needs root: it writes in /opt and /root (CI runs as root)");
    }
    let place = Scratch::new();
    let opt = tempfile::Builder::new()
        .prefix("arena-test-")
        .tempdir_in("/opt")
        .expect("a folder in /opt");
    let out = opt.path().join("out");
    let opponent_folder = opt.path().join("opponent");
    std::fs::create_dir(&opponent_folder).expect("a folder");
    let opponent = opponent_folder.join("random_bot.py");
    std::fs::copy(common::repo_dir().join("bots/python/random_bot.py"), &opponent).expect("a copy");
    let opponent_command = format!("python3 {}", opponent.display());
    // The results folder exists without the sandbox (games.csv is empty
    // until the first game ends); in the box it is not there at all.
    let read = |target: &Path, sandbox: bool| {
        let hostile = format!("tests/fixtures/hostile.py read-file path:{}", target.display());
        let out_text = out.to_str().expect("UTF-8");
        let mut args = vec![
            "match",
            "number-snatch",
            hostile.as_str(),
            opponent_command.as_str(),
            "--name1",
            "hostile",
            "--games",
            "1",
            "--fresh",
            "--out",
            out_text,
        ];
        if !sandbox {
            args.push("--no-sandbox");
        }
        let run = place.arena(args);
        run.assert_success();
        if sandbox {
            assert!(
                run.stderr.contains("lie in a system folder, which every box shows"),
                "{}",
                run.stderr
            );
        }
        common::hostile::hostile_outcome(&out, "read-file")
    };
    let results = out.join("games.csv");
    let open = read(&results, false);
    assert!(open.contains("reads as empty") || open.starts_with("succeeded"), "{open}");
    let closed = read(&results, true);
    assert!(closed.contains("No such file"), "{closed}");
    // Another bot installed in a system folder: every box shows it.
    assert!(read(&opponent, false).starts_with("succeeded"));
    let closed = read(&opponent, true);
    assert!(closed.starts_with("succeeded"), "{closed}");
    // A program found in PATH in a folder of a home (no `lib` beside its
    // `bin`: not an interpreter's installation) shows its own folder only.
    let home = tempfile::Builder::new()
        .prefix(".arena-test-")
        .tempdir_in("/root")
        .expect("a folder in /root");
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).expect("a folder");
    std::fs::write(home.path().join("credentials"), "token = secret\n").expect("a secret");
    let fixtures = common::repo_dir().join("tests/fixtures");
    let wrapper = bin.join("hostile-bot");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec python3 {} read-file path:{}\n",
            fixtures.join("hostile.py").display(),
            home.path().join("credentials").display()
        ),
    )
    .expect("a wrapper");
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let out = place.out().join("home");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "match",
            "number-snatch",
            "hostile-bot",
            &opponent_command,
            "--name1",
            "hostile",
            "--games",
            "1",
        ])
        .args(["--out", out.to_str().expect("UTF-8")])
        .arg(format!("--allow-read={}", fixtures.display()))
        .env("PATH", path)
        .current_dir(common::repo_dir())
        .output()
        .expect("the arena runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome = common::hostile::hostile_outcome(&out, "read-file");
    assert!(outcome.starts_with("failed"), "{outcome}");
}
