//! The leaderboard page opened in a real headless browser (Chromium): it
//! runs without a console error, shows the right bot on top, and its replay
//! steps through a game. Chromium comes from the system's packages: where
//! it is missing and this test runs as root with apt-get, it installs it
//! (non-interactively); elsewhere it says why it cannot run and returns.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A Chromium on PATH, installed first where that is possible.
fn chromium() -> Result<PathBuf, String> {
    let find = || {
        ["chromium", "chromium-browser", "google-chrome"].into_iter().find_map(|name| {
            let output = Command::new("sh").args(["-c", &format!("command -v {name}")]).output();
            output.ok().filter(|output| output.status.success()).map(|output| {
                PathBuf::from(String::from_utf8_lossy(&output.stdout).trim().to_owned())
            })
        })
    };
    if let Some(found) = find() {
        return Ok(found);
    }
    let root = std::fs::read_to_string("/proc/self/status")
        .is_ok_and(|status| status.lines().any(|line| line.starts_with("Uid:\t0\t")));
    if !root || !Path::new("/usr/bin/apt-get").exists() {
        return Err("no Chromium on PATH, and installing it needs root and apt-get".into());
    }
    let install = |args: &[&str]| {
        Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").status()
    };
    let installed = install(&["install", "-y", "--no-install-recommends", "chromium"]);
    if !installed.is_ok_and(|status| status.success()) {
        let _ = install(&["update"]);
        let _ = install(&["install", "-y", "--no-install-recommends", "chromium"]);
    }
    find().ok_or_else(|| "apt-get could not install chromium".into())
}

/// The page's DOM after its scripts ran, and what Chromium said on stderr.
fn open(
    browser: &Path,
    page: &Path,
    fragment: &str,
    screenshot: Option<&Path>,
) -> (String, String) {
    let url = format!("file://{}{fragment}", page.display());
    let profile = tempfile::tempdir().unwrap();
    let mut command = Command::new(browser);
    command.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1200,2400",
    ]);
    command.arg(format!("--user-data-dir={}", profile.path().display()));
    match screenshot {
        Some(path) => command.arg(format!("--screenshot={}", path.display())),
        None => command.arg("--dump-dom"),
    };
    let output = command.arg(&url).output().expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Chromium, or `None` with the reason said where it cannot run.
fn browser() -> Option<PathBuf> {
    chromium()
        .map_err(|why| {
            eprintln!("skipped: the leaderboard page's browser test cannot run here: {why}");
        })
        .ok()
}

/// Fails if the page's script wrote to the console or threw.
fn assert_quiet_console(console: &str) {
    for line in console.lines() {
        assert!(
            !line.contains(":CONSOLE") && !line.contains("Uncaught"),
            "the page wrote to the console: {line}"
        );
    }
}

/// The text of the element with `id`, its tags removed.
fn text_of(dom: &str, id: &str) -> String {
    let start = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id} in the page"));
    let open_end = start + dom[start..].find('>').unwrap() + 1;
    let mut depth = 0usize;
    let mut text = String::new();
    let mut rest = &dom[open_end..];
    let mut in_tag = false;
    let mut tag = String::new();
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match (in_tag, c) {
            (false, '<') => {
                in_tag = true;
                tag.clear();
            }
            (true, '>') => {
                in_tag = false;
                if tag.starts_with('/') {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                } else if !tag.ends_with('/') {
                    depth += 1;
                }
                text.push(' ');
            }
            (true, c) => tag.push(c),
            (false, c) => text.push(c),
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_leaderboard_page_works_in_a_browser() {
    let Some(browser) = browser() else { return };
    let folder = tempfile::tempdir().unwrap();
    let strong = common::rust_strong_bot().to_str().unwrap().to_owned();
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    let file = folder.path().join("league.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\nseed = 4\ngames_per_pair = 10\nout = \"results\"\n\
             [[bot]]\nname = \"random-1\"\ncommand = [{random:?}]\n\
             [[bot]]\nname = \"strong\"\ncommand = [{strong:?}]\n\
             [[bot]]\nname = \"random-2\"\ncommand = [{random:?}, \"--quiet\"]\n"
        ),
    )
    .unwrap();
    let page = folder.path().join("leaderboard.html");
    let run = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", file.to_str().unwrap(), "--html", page.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));

    let (dom, console) = open(&browser, &page, "#game=3&step=2", None);
    assert!(dom.contains("data-ready=\"true\""), "the page's script did not finish:\n{console}");
    assert_quiet_console(&console);
    let standings = text_of(&dom, "standings");
    let first_row = standings.split("95% interval").nth(1).unwrap_or_default().trim().to_owned();
    assert!(first_row.starts_with("1 strong"), "strong-bot is not on top: {standings}");

    // The link opened game 3 at step 2; its text grows step by step.
    let rows = common::read_games_csv(&folder.path().join("results"));
    let game = rows.iter().find(|row| &row["game_index"] == "3").expect("a game 3");
    assert_eq!(
        text_of(&dom, "replay-title"),
        format!("Game 3: {} (seat 1) against {} (seat 2)", &game["seat1"], &game["seat2"])
    );
    let position = text_of(&dom, "replay-position");
    assert!(position.starts_with("step 2 of "), "{position}");
    let step_two = text_of(&dom, "replay-text");
    let (dom, _) = open(&browser, &page, "#game=3&step=3", None);
    let step_three = text_of(&dom, "replay-text");
    assert!(
        step_three.starts_with(&step_two) && step_three.len() > step_two.len(),
        "{step_two}\n---\n{step_three}"
    );
    let told = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["replay", folder.path().join("results").to_str().unwrap(), "--game", "3"])
        .output()
        .unwrap();
    let told =
        String::from_utf8_lossy(&told.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        told.starts_with(&step_three),
        "the page tells game 3 otherwise than arena replay:\n{step_three}\n---\n{told}"
    );

    // A picture of the page, for whoever wants to look (ARENA_PAGE_SCREENSHOT=FILE).
    if let Ok(path) = std::env::var("ARENA_PAGE_SCREENSHOT") {
        open(&browser, &page, "#game=3&step=4", Some(Path::new(&path)));
        assert!(Path::new(&path).exists());
    }
}

#[test]
fn the_page_replays_a_game_programs_game_in_a_browser() {
    let Some(browser) = browser() else { return };
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("results");
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    let arena = |args: &[&str]| {
        let run = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .current_dir(common::repo_dir())
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8_lossy(&run.stdout).into_owned()
    };
    let game = "examples/games/connect-four/game.py";
    let bot = common::PYTHON_RANDOM_BOT;
    arena(&[
        "match",
        game,
        bot,
        &random,
        "--games",
        "4",
        "--seed",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let page = folder.path().join("leaderboard.html");
    arena(&["report", out.to_str().unwrap(), "--html", page.to_str().unwrap()]);

    let (dom, console) = open(&browser, &page, "#game=2&step=4", None);
    assert!(dom.contains("data-ready=\"true\""), "the page's script did not finish:\n{console}");
    assert_quiet_console(&console);
    let position = text_of(&dom, "replay-position");
    assert!(position.starts_with("step 4 of "), "{position}");
    // The game program's own words: the opening, then each turn's disc.
    let told = text_of(&dom, "replay-text");
    assert!(told.starts_with("Connect Four — seed "), "{told}");
    assert!(told.contains("6 rows, 7 columns, 4 in a line to win."), "{told}");
    assert_eq!(
        told.matches("drops a disc in column").count(),
        2,
        "two turns by step 4 (the title and the opening grid first): {told}"
    );
    let replay = arena(&["replay", out.join("transcripts/game-000002.jsonl").to_str().unwrap()]);
    let replay = replay.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        replay.starts_with(&told),
        "the page tells the game otherwise than arena replay:\n{told}\n---\n{replay}"
    );
}
