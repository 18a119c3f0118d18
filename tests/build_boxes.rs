//! `arena build` runs each build in a box of its own: its folder writable,
//! nothing else of the host; no secret of arena's environment; no network
//! unless `build_network` grants it; nothing it starts outlives it; killed
//! at `build_timeout`. Each protection shown both ways (`--no-sandbox`
//! lets the same build through), as root and as uid 65534; and the C++,
//! Go and Java kits build in their boxes and play.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::unprivileged::Unprivileged;

/// What a hostile build tries: the seed key from its environment, a file
/// of another bot's folder, a file outside its own folder, a process left
/// behind (found by `MARKER` in its command line); then it makes its
/// program as an honest build would. What it saw goes into `seen.txt`,
/// in its own folder.
const REACHING_BUILD: &str = "\
echo \"key=${ARENA_SEED_KEY:-}\" > seen.txt
cat ../other/secret.txt >> seen.txt 2>/dev/null || echo 'no secret' >> seen.txt
echo escaped > ../../escaped.txt 2>/dev/null || echo 'no escape' >> seen.txt
setsid sh -c 'sleep 300; : MARKER' > /dev/null 2>&1 < /dev/null &
cp bot.py bot
chmod +x bot
";

const KEY: &str = "the league's secret key";

/// A league in `folder`: `built` (bots/built, built by `build.sh` from
/// `bot.py`) and `other` (bots/other, holding `secret.txt`), with `extra`
/// lines at the file's top.
fn write_league(folder: &Path, build: &str, marker: &str, extra: &str) {
    let repo = common::repo_dir();
    for bot in ["built", "other"] {
        std::fs::create_dir_all(folder.join("bots").join(bot)).unwrap();
        std::fs::copy(
            repo.join("bots/python/random_bot.py"),
            folder.join("bots").join(bot).join("bot.py"),
        )
        .unwrap();
    }
    std::fs::write(folder.join("bots/built/build.sh"), build.replace("MARKER", marker)).unwrap();
    std::fs::write(folder.join("bots/built/.gitignore"), "/bot\n/seen.txt\n/net.txt\n").unwrap();
    std::fs::write(folder.join("bots/other/secret.txt"), "the other bot's secret\n").unwrap();
    std::fs::write(
        folder.join("league.toml"),
        format!(
            "game = \"number-snatch\"\nseed = 3\ngames_per_pair = 2\nout = \"results\"\n{extra}\n\
             [[bot]]\nname = \"other\"\ndir = \"bots/other\"\ncommand = [\"python3\", \"bot.py\"]\n\
             [[bot]]\nname = \"built\"\ndir = \"bots/built\"\n\
             build = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]\n"
        ),
    )
    .unwrap();
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Processes whose command line holds `marker`, killed once counted.
fn processes_holding(marker: &str) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found += 1;
            // SAFETY: kill has no memory effects.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    found
}

/// What one hostile build achieved.
#[derive(Debug, PartialEq, Eq)]
struct Reached {
    key: bool,
    secret: bool,
    escaped: bool,
    left_behind: bool,
    built: bool,
}

fn reached(folder: &Path, marker: &str) -> Reached {
    // A process left behind has had time to start by now: arena waited
    // for the build's output to end, and the setsid child holds none.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let seen = std::fs::read_to_string(folder.join("bots/built/seen.txt")).unwrap_or_default();
    Reached {
        key: seen.contains(KEY),
        secret: seen.contains("the other bot's secret"),
        escaped: folder.join("escaped.txt").exists(),
        left_behind: processes_holding(marker) > 0,
        built: folder.join("bots/built/bot").exists(),
    }
}

fn arena_build(folder: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("build")
        .arg("league.toml")
        .args(args)
        .current_dir(folder)
        .env("ARENA_SEED_KEY", KEY)
        .output()
        .unwrap()
}

#[test]
fn a_build_reaches_nothing_past_its_folder_and_leaves_nothing_behind() {
    let boxed = tempfile::tempdir().unwrap();
    let marker = format!("arena-build-leftover-{}", std::process::id());
    write_league(boxed.path(), REACHING_BUILD, &marker, "");
    let output = arena_build(boxed.path(), &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("builds: sandbox: a box per program"), "{}", text(&output));
    let nothing =
        Reached { key: false, secret: false, escaped: false, left_behind: false, built: true };
    assert_eq!(reached(boxed.path(), &marker), nothing, "{}", text(&output));

    // The same build outside the box reaches all of it (arena still
    // sweeps what it left behind, as it does for an unboxed bot).
    let open = tempfile::tempdir().unwrap();
    write_league(open.path(), REACHING_BUILD, &marker, "");
    let output = arena_build(open.path(), &["--no-sandbox"]);
    assert!(output.status.success(), "{}", text(&output));
    let everything =
        Reached { key: true, secret: true, escaped: true, left_behind: false, built: true };
    assert_eq!(reached(open.path(), &marker), everything, "{}", text(&output));
}

#[test]
fn an_unprivileged_build_reaches_nothing_past_its_folder() {
    let place = Unprivileged::new().with_env("ARENA_SEED_KEY", KEY);
    let (uid, gid) = place.ids();
    let marker = format!("arena-build-unprivileged-{}", std::process::id());
    let build = |name: &str, args: &[&str]| {
        let folder = place.out(name);
        write_league(&folder, REACHING_BUILD, &marker, "");
        // The user's own league, as a checkout of theirs would be.
        let chown = Command::new("chown")
            .args(["-R", &format!("{uid}:{gid}")])
            .arg(&folder)
            .status()
            .unwrap();
        assert!(chown.success());
        let file = folder.join("league.toml");
        let mut arguments = vec!["build", file.to_str().unwrap()];
        arguments.extend_from_slice(args);
        let run = place.arena(&arguments);
        (folder, run)
    };
    let (folder, run) = build("boxed", &[]);
    assert!(run.status.success(), "{}{}", run.stdout, run.stderr);
    let found = reached(&folder, &marker);
    assert_eq!(
        (found.key, found.secret, found.escaped, found.built),
        (false, false, false, true),
        "{}{}",
        run.stdout,
        run.stderr
    );
    let (folder, run) = build("open", &["--no-sandbox"]);
    assert!(run.status.success(), "{}{}", run.stdout, run.stderr);
    let found = reached(&folder, &marker);
    assert_eq!(
        (found.key, found.secret, found.escaped, found.built),
        (true, true, true, true),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn a_build_gets_the_network_only_where_the_file_grants_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || for _ in listener.incoming() {});
    let build = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\" \
         && echo connected > net.txt\ncp bot.py bot\nchmod +x bot\n"
    );
    let connected = |extra: &str, args: &[&str]| {
        let folder = tempfile::tempdir().unwrap();
        write_league(folder.path(), &build, "", extra);
        let output = arena_build(folder.path(), args);
        (folder.path().join("bots/built/net.txt").exists(), text(&output))
    };
    let (closed, said) = connected("", &[]);
    assert!(!closed, "no network by default: {said}");
    assert!(said.contains("seccomp allowlist") && said.contains("; no network;"), "{said}");
    let (granted, said) = connected("build_network = true", &[]);
    assert!(granted, "build_network = true: {said}");
    assert!(said.contains("; network allowed;"), "{said}");
    let (flag, said) = connected("", &["--network"]);
    assert!(flag, "--network: {said}");
}

#[test]
fn a_build_past_its_time_is_killed_and_named() {
    let folder = tempfile::tempdir().unwrap();
    let marker = format!("arena-build-slow-{}", std::process::id());
    write_league(folder.path(), "sleep 60 # MARKER\n", &marker, "build_timeout = \"1s\"");
    let started = std::time::Instant::now();
    let output = arena_build(folder.path(), &[]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("bot `built`: build `sh build.sh` did not finish within 1s (build_timeout) and was killed"),
        "{said}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{said}");
    assert_eq!(processes_holding(&marker), 0, "the build's processes are gone");
    // A typo in the key is named with the file and line.
    let folder = tempfile::tempdir().unwrap();
    write_league(folder.path(), "true\n", "", "build_timeout = \"soon\"");
    let output = arena_build(folder.path(), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("league.toml:5"), "{}", text(&output));
    assert!(text(&output).contains("build_timeout"), "{}", text(&output));
}

/// The C++, Go and Java kits, copied without what they built, built by
/// `arena build` in their boxes and played.
#[test]
fn every_kit_builds_in_its_box_and_plays() {
    for (program, package) in
        [("g++", "g++"), ("go", "golang-go"), ("javac", "default-jdk-headless")]
    {
        common::require(program, package);
    }
    let folder = tempfile::tempdir().unwrap();
    let mut league = String::from(
        "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 2\nout = \"results\"\nconcurrency = 2\n",
    );
    for kit in ["cpp", "go", "java"] {
        let from = common::repo_dir().join("bots").join(kit);
        let to = folder.path().join(kit);
        copy_sources(&from, &to);
        league.push_str(&format!(
            "[[bot]]\nname = \"{kit}\"\ndir = \"{kit}\"\nbuild = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]\n"
        ));
    }
    std::fs::write(folder.path().join("league.toml"), league).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["build", "league.toml"])
        .current_dir(folder.path())
        .output()
        .unwrap();
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    for kit in ["cpp", "go", "java"] {
        assert!(said.contains(&format!("built `{kit}` in")), "{said}");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "league.toml", "--quiet"])
        .current_dir(folder.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let rows = common::read_games_csv(&folder.path().join("results"));
    assert_eq!(rows.len(), 6);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
}

/// `from`'s files, less its `build` folder, into `to` (modes kept).
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path: PathBuf = entry.path();
        if entry.file_name() == "build" || path.is_dir() {
            continue;
        }
        let target = to.join(entry.file_name());
        std::fs::copy(&path, &target).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// `--sandbox-from BASE`: the base file's sandbox settings are used, each
/// difference said; a bot's folder must lie inside the checkout.
#[test]
fn a_build_takes_its_box_from_the_base_file_when_asked() {
    let folder = tempfile::tempdir().unwrap();
    let build = "(cat /etc/hostname > hostname.txt) 2>/dev/null; cp bot.py bot\nchmod +x bot\n";
    write_league(
        folder.path(),
        build,
        "",
        "network = true\nbuild_network = true\nbuild_timeout = \"1h\"",
    );
    let base = folder.path().join("base");
    write_league(&base, build, "", "");
    let output = arena_build(folder.path(), &["--sandbox-from", "base/league.toml"]);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    for difference in [
        "arena: warning: sandbox-from base/league.toml: `network`: true here, false in the base file; the base file's is used",
        "`build_network`: true here, false in the base file",
        "`build_timeout`: 1h here, 10m in the base file",
    ] {
        assert!(said.contains(difference), "{difference}: {said}");
    }
    assert!(said.contains("; no network;"), "the base file's network: {said}");

    // A bot whose folder is the checkout itself, or outside it, is refused.
    std::fs::copy(folder.path().join("bots/other/bot.py"), folder.path().join("bot.py")).unwrap();
    let league = std::fs::read_to_string(folder.path().join("league.toml")).unwrap();
    std::fs::write(
        folder.path().join("league.toml"),
        league.replace("dir = \"bots/other\"", "dir = \".\""),
    )
    .unwrap();
    let output = arena_build(folder.path(), &["--sandbox-from", "base/league.toml"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("bot `other`: its dir ")
            && text(&output).contains("is not a folder inside"),
        "{}",
        text(&output)
    );
    // Without the flag the file's own settings hold.
    let output = arena_build(folder.path(), &[]);
    assert!(text(&output).contains("; network allowed;"), "{}", text(&output));
}
