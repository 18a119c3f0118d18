//! A bot's folder or program that a box's user cannot reach, told by name
//! before any game: under root a box's bot is a user of its own, with only
//! the rights others have on host files.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{Scratch, read_games_csv, repo_dir};

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
