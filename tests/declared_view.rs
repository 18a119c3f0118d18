//! What a box shows is declared, never inferred from a bot's command: the
//! attacks that named paths in a command to widen its own box or narrow
//! another's. A command naming a file of the system (the C library, a
//! package folder of Python) hides nothing from the other bots; one naming
//! a path outside its view (the opponent's program, a host folder with
//! sockets, a file of arena's user) is refused before the first game; and
//! no host unix socket answers from a box, whatever folder is shown. Each
//! attack works without the sandbox; as root and as an unprivileged user.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use common::hostile::{attack_in, victim_copy};
use common::unprivileged::Unprivileged;
use common::{Scratch, read_games_csv, repo_dir};

/// The C library and Python's `json` package, as the system has them.
fn system_files() -> (PathBuf, PathBuf) {
    let libc =
        ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6"]
            .iter()
            .map(PathBuf::from)
            .find(|path| path.exists())
            .expect("the C library");
    let output = std::process::Command::new("python3")
        .args(["-c", "import json, os; print(os.path.dirname(json.__file__))"])
        .output()
        .expect("python3 runs");
    let json = PathBuf::from(String::from_utf8(output.stdout).expect("UTF-8").trim());
    assert!(json.is_dir(), "{}", json.display());
    (libc, json)
}

/// A league of four (a bot whose command names the C library and Python's
/// json package, and three honest bots in Python, JavaScript and Rust):
/// every game is played to its end. A box that hid whatever another
/// bot's command named gave the honest ones an empty libc and json.
fn league_of_four(base: &Path, random_rs: &str, python: &str, node: &str) -> String {
    let (libc, json) = system_files();
    let file = base.join("league.toml");
    std::fs::write(
        &file,
        format!(
            r#"game = "number-snatch"
games_per_pair = 2
move_timeout = "5s"

[[bot]]
name = "namer"
command = ["python3", "{python}", "--log-level={}", "{}"]

[[bot]]
name = "py"
command = ["python3", "{python}"]

[[bot]]
name = "js"
command = ["node", "{node}"]

[[bot]]
name = "rs"
command = ["{random_rs}"]
"#,
            libc.display(),
            json.display()
        ),
    )
    .expect("a tournament file");
    file.to_str().expect("UTF-8").to_owned()
}

fn assert_every_game_played(out: &Path) {
    let rows = read_games_csv(out);
    assert_eq!(rows.len(), 12, "6 pairings of 2 games");
    for row in rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
}

#[test]
fn a_command_naming_system_files_hides_nothing_from_other_bots() {
    let scratch = Scratch::new();
    let base = scratch.out().with_file_name("league");
    std::fs::create_dir_all(&base).expect("a folder");
    let python = repo_dir().join("bots/python/random_bot.py");
    let node = repo_dir().join("bots/javascript/random_bot.js");
    let file = league_of_four(
        &base,
        common::rust_random_bot().to_str().expect("UTF-8"),
        python.to_str().expect("UTF-8"),
        node.to_str().expect("UTF-8"),
    );
    let out = scratch.out();
    let run = scratch.arena(["run", &file, "--out", out.to_str().expect("UTF-8")]);
    run.assert_success();
    assert_every_game_played(&out);
    // And unprivileged.
    let place = Unprivileged::new();
    let out = place.out("league");
    let file = league_of_four(place.base(), "./random-bot", "random_bot.py", "random_bot.js");
    let run = place.arena(&["run", &file, "--out", out.to_str().expect("UTF-8")]);
    run.assert_success();
    assert_every_game_played(&out);
}

/// `path` (a file or folder), named by a word of the hostile bot's command
/// as `read-file`'s argument: without the sandbox the bot reads it; with
/// it the run is refused before any game, naming the bot and the path.
fn assert_named_path_refused(path: &Path, said: &str) {
    let word = path.to_str().expect("UTF-8");
    let open =
        attack_in(Scratch::new(), "tests/fixtures/hostile.py", "read-file", Some(word), false, &[]);
    assert!(open.succeeded(), "{}: {}", path.display(), open.outcome);
    let closed =
        attack_in(Scratch::new(), "tests/fixtures/hostile.py", "read-file", Some(word), true, &[]);
    assert_eq!(closed.run.status.code(), Some(2), "{:?}", closed.run);
    let stderr = &closed.run.stderr;
    assert!(stderr.contains("bot `hostile`") && stderr.contains(word), "{stderr}");
    assert!(stderr.contains(said), "`{said}` not said: {stderr}");
    assert!(closed.rows.is_empty(), "no game is played");
}

#[test]
fn a_command_naming_the_opponents_program_is_refused() {
    let scratch = Scratch::new();
    let victim = victim_copy(&scratch);
    assert_named_path_refused(&victim, "does not show");
    // Its folder likewise.
    let folder = victim.parent().expect("a folder").to_owned();
    let word = folder.to_str().expect("UTF-8");
    let closed =
        attack_in(Scratch::new(), "tests/fixtures/hostile.py", "read-file", Some(word), true, &[]);
    assert_eq!(closed.run.status.code(), Some(2), "{:?}", closed.run);
    drop(scratch);
}

#[test]
fn a_command_naming_a_file_of_arenas_user_is_refused() {
    let home = tempfile::Builder::new()
        .prefix(".arena-test-ssh-")
        .tempdir_in(std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| "/root".into()))
        .expect("a folder in the home");
    let key = home.path().join("id_rsa");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\n").expect("a key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert_named_path_refused(&key, "read_paths");
}

/// A unix socket listening in `folder`, that answers every connection.
fn listening_socket(folder: &Path, mode: u32) -> (PathBuf, std::thread::JoinHandle<()>) {
    let path = folder.join("service.sock");
    let listener = UnixListener::bind(&path).expect("a socket");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    let serving = std::thread::spawn(move || {
        listener.set_nonblocking(true).expect("non-blocking");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < until {
            if listener.accept().is_ok() {
                continue;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    });
    (path, serving)
}

/// A host socket in a folder the command names: refused before any game.
/// In a folder the box shows (a read path the maintainer gave), it does
/// not answer: no unix socket but a pair's is made in a box.
#[test]
fn no_host_socket_answers_from_a_box() {
    let folder = tempfile::Builder::new().prefix("arena-test-run-").tempdir().expect("a folder");
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (socket, _serving) = listening_socket(folder.path(), 0o666);
    let word = socket.to_str().expect("UTF-8");
    let hostile = "tests/fixtures/hostile.py";
    let open = attack_in(Scratch::new(), hostile, "connect-unix", Some(word), false, &[]);
    assert!(open.succeeded(), "{}", open.outcome);
    // Named in the command (as `--run=/run` names a folder): refused.
    let named = format!("--run={}", folder.path().display());
    let closed = attack_in(Scratch::new(), hostile, "connect-unix", Some(&named), true, &[]);
    assert_eq!(closed.run.status.code(), Some(2), "{:?}", closed.run);
    assert!(closed.run.stderr.contains("does not show"), "{}", closed.run.stderr);
    // Shown, by the maintainer's read path: no answer.
    let allowed = format!("--allow-read={}", folder.path().display());
    let shown = format!("path:{word}");
    let closed =
        attack_in(Scratch::new(), hostile, "connect-unix", Some(&shown), true, &[&allowed]);
    closed.run.assert_success();
    assert!(closed.outcome.starts_with("failed"), "{}", closed.outcome);
}

/// Unprivileged, with a supplementary group the arena's user is in: a
/// socket of that group (0660) answers the user without the sandbox, and
/// from no box; the run says that bots keep the group.
#[test]
fn a_socket_of_arenas_group_does_not_answer_an_unprivileged_box() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        panic!(
            "this test needs root: it runs the arena as uid 65534 in a group of its own (CI runs as root)"
        );
    }
    const GROUP: u32 = 4242;
    let place = Unprivileged::new();
    let folder = place.base().join("run");
    std::fs::create_dir(&folder).expect("a folder");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (socket, _serving) = listening_socket(&folder, 0o660);
    std::os::unix::fs::chown(&socket, Some(0), Some(GROUP)).expect("chown");
    let word = format!("path:{}", socket.display());
    let allowed = format!("--allow-read={}", folder.display());
    let attack = |sandbox: bool| {
        let out = place.out(if sandbox { "closed" } else { "open" });
        let hostile = format!("fixtures/hostile.py connect-unix {word}");
        let mut args = vec![
            "match",
            "number-snatch",
            hostile.as_str(),
            "python3 random_bot.py",
            "--games",
            "1",
            "--name1",
            "hostile",
            "--out",
            out.to_str().expect("UTF-8"),
            allowed.as_str(),
        ];
        if !sandbox {
            args.push("--no-sandbox");
        }
        let run = place.arena_in_groups(&args, &[GROUP]);
        run.assert_success();
        (run, common::hostile::hostile_outcome(&out, "connect-unix"))
    };
    let (_, open) = attack(false);
    assert!(open.starts_with("succeeded"), "{open}");
    let (run, closed) = attack(true);
    assert!(closed.starts_with("failed"), "{closed}");
    assert!(run.stderr.contains("supplementary groups"), "{}", run.stderr);
    // A sandbox required is refused: it cannot be had here.
    let out = place.out("required");
    let run = place.arena_in_groups(
        &[
            "match",
            "number-snatch",
            "python3 random_bot.py",
            "python3 random_bot.py",
            "--games",
            "1",
            "--require-sandbox",
            "--out",
            out.to_str().expect("UTF-8"),
        ],
        &[GROUP],
    );
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(run.stderr.contains("supplementary groups"), "{}", run.stderr);
}
