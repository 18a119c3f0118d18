//! No resource grows with bot starts: ten thousand boxes started one after
//! another (a process per game) under an open-files limit of 128, which a
//! descriptor kept per start would exhaust within the first hundred games.

#[allow(dead_code)]
mod common;

use std::process::Command;

use common::{Scratch, read_games_csv};

#[test]
fn ten_thousand_bot_starts_fit_in_128_open_files() {
    let scratch = Scratch::new();
    let bot = common::rust_random_bot().to_str().expect("UTF-8").to_owned();
    let file = scratch.out().with_file_name("starts.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\nseed = 1\ngames_per_pair = 5000\nconcurrency = 1\nrestart = \"every-game\"\ntranscripts = false\nmove_timeout = \"5s\"\n\n[[bot]]\nname = \"a\"\ncommand = [\"{bot}\", \"--quiet\"]\n\n[[bot]]\nname = \"b\"\ncommand = [\"{bot}\", \"--quiet\"]\n"
        ),
    )
    .expect("a tournament file");
    let out = scratch.out();
    let output = Command::new("sh")
        .args(["-c", "ulimit -Sn 128 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_arena"))
        .args([
            "run",
            file.to_str().expect("UTF-8"),
            "--quiet",
            "--out",
            out.to_str().expect("UTF-8"),
        ])
        .current_dir(common::repo_dir())
        .output()
        .expect("the arena runs");
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 5000);
    assert!(rows.iter().all(|row| &row["reason"] == "normal"), "a game ended otherwise");
}

/// A bot limit above arena's own hard limit would fail every start: an
/// unprivileged arena refuses it at once, naming the limit and its key.
#[test]
fn a_bot_limit_above_the_arenas_own_is_refused_by_name() {
    let place = common::unprivileged::Unprivileged::new();
    let out = place.out("limits");
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let mut command = if root {
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--", "sh"]);
        command
    } else {
        Command::new("sh")
    };
    command
        .args(["-c", "ulimit -n 128 && exec ./arena \"$@\"", "sh"])
        .args(["match", "number-snatch", "./random-bot", "./random-bot", "--games", "1"])
        .args(["--out", out.to_str().expect("UTF-8")])
        .current_dir(place.base())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin");
    let output = common::unprivileged::output_of_copy(&mut command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .contains("the open files limit for bots (512) is above arena's own hard limit (128)")
            && stderr.contains("open_files_limit")
            && stderr.contains("ulimit -Hn"),
        "{stderr}"
    );
}
