//! The leaderboard page opened in a real headless browser (Chromium): it
//! runs without a console error, shows the right bot on top, and its replay
//! steps through a game; it fits a phone's width (400 px) and a desktop's
//! (1280 px) without sideways scrolling; a game's link (its seats and
//! round) shows the same game after the league grows; the games table
//! names winners, filters by bot and lists the newest first; the rating
//! chart has axes; a crashed bot's stderr shows only where allowed.
//! Chromium comes from the system's packages: where it is missing and
//! these tests run as root with apt-get, they install it
//! (non-interactively); elsewhere they fail, naming the package (as
//! tests/kits.rs does for the kits' toolchains): a browser test that
//! passes without a browser would say the page works when nothing looked.

#[allow(dead_code)]
mod common;
#[path = "common/devtools.rs"]
mod devtools;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A Chromium on PATH, installed first where that is possible; the test
/// fails, naming the package, where there is none.
fn chromium() -> PathBuf {
    find_chromium().unwrap_or_else(|why| {
        panic!(
            "the leaderboard page's browser tests need Chromium: {why}; install Debian's \
             `chromium` package (as root: `apt-get install chromium`, or `bash .ci/install`)"
        )
    })
}

fn find_chromium() -> Result<PathBuf, String> {
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
    let browser = chromium();
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
    for line in console.lines() {
        assert!(
            !line.contains(":CONSOLE") && !line.contains("Uncaught"),
            "the page wrote to the console: {line}"
        );
    }
    let standings = text_of(&dom, "standings");
    let first_row = standings.split("95% interval").nth(1).unwrap_or_default().trim().to_owned();
    assert!(first_row.starts_with("1 strong"), "strong-bot is not on top: {standings}");

    // The link opened game 3 at step 2; its text grows step by step.
    let rows = common::read_games_csv(&folder.path().join("results"));
    let game = rows.iter().find(|row| &row["game_index"] == "3").expect("a game 3");
    let outcome = match &game["winner"] {
        "" => "draw".to_owned(),
        winner => format!("{winner} won"),
    };
    assert_eq!(
        text_of(&dom, "replay-title"),
        format!(
            "Game 3 (round {}): {} (seat 1) against {} (seat 2), {outcome}",
            &game["round"], &game["seat1"], &game["seat2"]
        )
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

/// A league of three bots (a fourth is added first in the file later, so
/// every game's number changes), run into `folder/results`.
fn league(folder: &Path, bots: &[(&str, &str)], games_per_pair: u32) -> PathBuf {
    let mut text = format!(
        "game = \"number-snatch\"\nseed = 4\ngames_per_pair = {games_per_pair}\nout = \"results\"\n"
    );
    for (name, command) in bots {
        text.push_str(&format!("[[bot]]\nname = \"{name}\"\ncommand = {command}\n"));
    }
    let file = folder.join("league.toml");
    std::fs::write(&file, text).unwrap();
    file
}

fn arena(args: &[&str]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_arena")).args(args).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8_lossy(&run.stdout).into_owned()
}

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_page_fits_a_phone_and_a_desktop_and_its_game_links_outlive_the_leagues_growth() {
    let chromium = chromium();
    let folder = tempfile::tempdir().unwrap();
    let random = format!("[{:?}]", common::rust_random_bot().to_str().unwrap());
    let quiet = format!("[{:?}, \"--quiet\"]", common::rust_random_bot().to_str().unwrap());
    let strong = format!("[{:?}]", common::rust_strong_bot().to_str().unwrap());
    let three = [
        ("random-one", random.as_str()),
        ("strong", strong.as_str()),
        ("random-two", quiet.as_str()),
    ];
    let file = league(folder.path(), &three, 4);
    let page = folder.path().join("leaderboard.html");
    arena(&["run", file.to_str().unwrap(), "--html", page.to_str().unwrap(), "--quiet"]);
    let url = |fragment: &str| format!("file://{}{fragment}", page.display());

    let mut browser = devtools::Browser::start(&chromium);
    for (width, mobile) in [(400, true), (1280, false)] {
        browser.resize(width, mobile);
        browser.open(&url(""));
        let inner = browser.eval("innerWidth");
        assert_eq!(inner, serde_json::json!(width));
        let scroll = browser.eval("document.documentElement.scrollWidth").as_u64().unwrap();
        assert!(scroll <= u64::from(width), "{width} px: the page is {scroll} px wide");
        // The standings' Elo is on screen without scrolling, at any width.
        let elo_right = browser.eval(
            "[...document.querySelectorAll('#standings th')].find((th) => th.textContent === 'Elo').getBoundingClientRect().right",
        );
        assert!(elo_right.as_f64().unwrap() <= f64::from(width), "{width} px: Elo at {elo_right}");
        // Every table fits or scrolls inside its own box.
        let overflowing = browser.eval(
            "[...document.querySelectorAll('table')].filter((table) => table.closest('.scroll, .games-list') === null && table.getBoundingClientRect().right > innerWidth).length",
        );
        assert_eq!(overflowing, serde_json::json!(0), "{width} px");
        let updated = browser.text("updated");
        assert!(
            updated.len() == 20 && updated.ends_with(" UTC") && updated.starts_with("20"),
            "{updated}"
        );
    }
    assert!(browser.console.is_empty(), "{:?}", browser.console);

    // A link by number opens the game, and the address becomes its lasting
    // link (seats and round), following the replay's step.
    browser.resize(1280, false);
    browser.open(&url("#game=3&step=2"));
    let link = browser.eval("location.hash").as_str().unwrap().to_owned();
    assert!(
        link.starts_with("#seat1=") && link.contains("&round=") && link.ends_with("&step=2"),
        "{link}"
    );
    let title = browser.text("replay-title");
    let told = browser.text("replay-text");
    assert!(title.starts_with("Game 3 (round "), "{title}");
    browser.eval("document.getElementById('replay-next').click()");
    let stepped = browser.eval("location.hash").as_str().unwrap().to_owned();
    assert_eq!(stepped, link.replace("&step=2", "&step=3"));

    // The games table: winners by name, newest first, a filter by bot.
    let rows: Vec<Vec<String>> = serde_json::from_value(browser.eval(
        "[...document.querySelectorAll('#games tbody tr')].map((row) => [...row.cells].map((cell) => cell.textContent))",
    ))
    .unwrap();
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0][0], "12", "newest first");
    for row in &rows {
        assert!(
            row[4] == row[2] || row[4] == row[3] || row[4] == "draw" || row[4] == "both lost",
            "the winner column names a seat's bot: {row:?}"
        );
    }
    browser.eval(
        "const pick = document.getElementById('games-bot'); pick.value = 'strong'; pick.onchange()",
    );
    let filtered: Vec<Vec<String>> = serde_json::from_value(browser.eval(
        "[...document.querySelectorAll('#games tbody tr')].map((row) => [...row.cells].map((cell) => cell.textContent))",
    ))
    .unwrap();
    assert_eq!(filtered.len(), 8);
    assert!(filtered.iter().all(|row| row[2] == "strong" || row[3] == "strong"), "{filtered:?}");
    browser.eval("const order = document.getElementById('games-order'); order.value = 'oldest'; order.onchange()");
    assert_eq!(browser.eval("document.querySelector('#games tbody td').textContent"), "1");
    // A replay link of the table opens its game and becomes the address.
    browser.eval("document.querySelector('#games tbody a').click()");
    browser.wait_for("location.hash.endsWith('&step=1')");
    assert!(browser.text("replay-title").starts_with("Game 1 (round 1): "));

    // The league grows: a bot added first in the file and more games per
    // pairing renumber every game; the link still shows the same game.
    let four = [("newcomer", random.as_str()), three[0], three[1], three[2]];
    let file = league(folder.path(), &four, 6);
    arena(&["run", file.to_str().unwrap(), "--html", page.to_str().unwrap(), "--quiet"]);
    browser.open(&url(&link));
    let grown_title = browser.text("replay-title");
    let number = |title: &str| title.split_whitespace().nth(1).unwrap().to_owned();
    assert_ne!(number(&grown_title), "3", "the league's growth renumbered the game: {grown_title}");
    assert_eq!(
        grown_title.split_once(" (round ").unwrap().1,
        title.split_once(" (round ").unwrap().1,
        "the same seats, round and winner"
    );
    assert_eq!(browser.text("replay-text"), told, "the same game, at the same step");
    let replayed = arena(&[
        "replay",
        folder.path().join("results").to_str().unwrap(),
        "--game",
        &number(&grown_title),
    ]);
    assert!(words(&replayed).starts_with(&words(&told)), "{told}\n---\n{replayed}");
    // The old number now names another game; the page says what a lasting
    // link cannot find.
    browser.open(&url("#seat1=strong&seat2=newcomer&round=99"));
    assert!(browser.text("replay-title").contains("is not among the games this page replays"));

    // Two runs: the chart has its axes, a label per run and a legend, its
    // labels as large on a phone as on a desktop.
    for (width, mobile) in [(400, true), (1280, false)] {
        browser.resize(width, mobile);
        browser.open(&url(""));
        let smallest = browser.eval(
            "Math.min(...[...document.querySelectorAll('#history svg text')].map((text) => text.getBoundingClientRect().height))",
        );
        assert!(smallest.as_f64().unwrap() >= 12.0, "{width} px: chart labels {smallest} px high");
        let scroll = browser.eval("document.documentElement.scrollWidth").as_u64().unwrap();
        assert!(scroll <= u64::from(width), "{width} px: the page is {scroll} px wide");
    }
    let chart = browser.eval(
        "[...document.querySelectorAll('#history svg text')].map((text) => text.textContent).join('|')",
    );
    let chart = chart.as_str().unwrap();
    for label in ["Elo", "run 1", "run 2", "run (oldest first)"] {
        assert!(chart.split('|').any(|text| text == label), "no `{label}` on the chart: {chart}");
    }
    assert_eq!(browser.eval("document.querySelectorAll('#history ul.legend li').length"), 4);
    assert!(browser.console.is_empty(), "{:?}", browser.console);
}

#[test]
fn a_crashed_bots_stderr_shows_on_the_page_only_when_allowed() {
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("results");
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "match",
            "number-snatch",
            "tests/fixtures/dies_with_words.py",
            &random,
            "--games",
            "2",
        ])
        .args(["--out", out.to_str().unwrap()])
        .current_dir(common::repo_dir())
        .output()
        .unwrap();
    let page = |extra: &[&str]| {
        let path = folder.path().join("page.html");
        let mut args = vec!["report", out.to_str().unwrap(), "--html", path.to_str().unwrap()];
        args.extend(extra);
        arena(&args);
        std::fs::read_to_string(path).unwrap()
    };
    let public = page(&[]);
    assert!(public.contains("exited with status 2"), "the crash is told");
    assert!(!public.contains("model.bin"), "a visitor sees no stderr");
    assert!(public.contains("what it wrote to stderr is not shown here"));
    let allowed = page(&["--show-stderr"]);
    assert!(allowed.contains("error: model.bin: no such file"), "the maintainer allowed it");
    let refused = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["report", out.to_str().unwrap(), "--show-stderr"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "--show-stderr is about the page");
}

/// A match of a game written as a program (Connect Four, in Python): the
/// page replays it step by step in the game's own words, as `arena
/// replay` tells it.
#[test]
fn the_page_replays_a_game_programs_game_in_a_browser() {
    let chromium = chromium();
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("results");
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    let in_repo = |args: &[&str]| {
        let run = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .current_dir(common::repo_dir())
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8_lossy(&run.stdout).into_owned()
    };
    let game = "examples/games/connect-four/game.py";
    let out_arg = out.to_str().unwrap();
    let bot = common::PYTHON_RANDOM_BOT;
    in_repo(&["match", game, bot, &random, "--games", "4", "--seed", "2", "--out", out_arg]);
    let page = folder.path().join("leaderboard.html");
    in_repo(&["report", out_arg, "--html", page.to_str().unwrap()]);

    let mut browser = devtools::Browser::start(&chromium);
    browser.resize(1280, false);
    browser.open(&format!("file://{}#game=2&step=4", page.display()));
    let position = browser.text("replay-position");
    assert!(position.starts_with("step 4 of "), "{position}");
    // The game program's own words: the opening, then each turn's disc.
    let told = words(&browser.text("replay-text"));
    assert!(told.starts_with("Connect Four — seed "), "{told}");
    assert!(told.contains("6 rows, 7 columns, 4 in a line to win."), "{told}");
    assert_eq!(
        told.matches("drops a disc in column").count(),
        2,
        "two turns by step 4 (the title and the opening grid first): {told}"
    );
    assert!(browser.console.is_empty(), "{:?}", browser.console);
    let replay = in_repo(&["replay", out.join("transcripts/game-000002.jsonl").to_str().unwrap()]);
    assert!(
        words(&replay).starts_with(&told),
        "the page tells the game otherwise than arena replay:\n{told}\n---\n{replay}"
    );
}
