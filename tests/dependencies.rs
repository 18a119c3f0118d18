//! Bots with dependencies play in the box with nothing to set: a Python bot
//! run by a virtual environment's interpreter in its folder (made from the
//! system's Python or from a pyenv one) sees the environment's packages and
//! the installation it was made from; a JavaScript bot sees the
//! node_modules beside it, or its project's where a tournament file makes
//! the project its folder (`dir`). As root and as an unprivileged user. An
//! environment outside the bot's folder is refused before the first game,
//! naming it: the box would not show it. A bot that opens its own data
//! file by a path relative to where it runs is told it runs elsewhere.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::unprivileged::Unprivileged;
use common::{Run, Scratch, read_games_csv};

/// A bot that plays the move its package chooses: it fails to start
/// without the package.
const BOT: &str = r#"
import json, random, sys
import arenatestpkg

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(message["seed"])
        print(json.dumps({"type": "ready", "id": message["id"]}), flush=True)
    elif message["type"] == "move":
        move = arenatestpkg.choose(message["legal_moves"], rng)
        print(json.dumps({"type": "move", "id": message["id"], "move": move}), flush=True)
"#;

const PACKAGE: &str = "def choose(legal, rng):\n    return rng.choice(legal)\n";

const JS_BOT: &str = r#"
const choose = require("arenatestpkg");
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    process.stdout.write(JSON.stringify({ type: "ready", id: message.id }) + "\n");
  } else if (message.type === "move") {
    process.stdout.write(JSON.stringify({ type: "move", id: message.id, move: choose(message.legal_moves) }) + "\n");
  }
});
"#;

const JS_PACKAGE: &str = "module.exports = (legal) => legal[0];\n";

/// A bot in `folder/bot` with a virtual environment made by `python` in
/// `at` (below `folder`), holding the package `arenatestpkg`; returns the
/// environment's `python`.
fn environment_at(python: &str, folder: &Path, at: &str) -> PathBuf {
    let venv = folder.join(at);
    let made = Command::new(python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python makes a virtual environment");
    assert!(made.success(), "{python} -m venv failed");
    let interpreter = venv.join("bin/python");
    let output = Command::new(&interpreter)
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .expect("the environment's python runs");
    let site = PathBuf::from(String::from_utf8(output.stdout).expect("UTF-8").trim());
    std::fs::create_dir_all(site.join("arenatestpkg")).expect("a package folder");
    std::fs::write(site.join("arenatestpkg/__init__.py"), PACKAGE).expect("the package");
    std::fs::create_dir_all(folder.join("bot")).expect("a folder");
    std::fs::write(folder.join("bot/bot.py"), BOT).expect("the bot");
    interpreter
}

/// [`environment_at`] with the environment in the bot's folder, as
/// `bot/.venv`.
fn environment(python: &str, folder: &Path) -> PathBuf {
    environment_at(python, folder, "bot/.venv")
}

/// A JavaScript project in `folder`: the bot at its root (`bot.js`) and in
/// src/ (`src/bot.js`), its package in node_modules/ at the root.
fn node_project(folder: &Path) -> PathBuf {
    std::fs::create_dir_all(folder.join("src")).expect("a folder");
    std::fs::create_dir_all(folder.join("node_modules/arenatestpkg")).expect("a folder");
    std::fs::write(folder.join("node_modules/arenatestpkg/index.js"), JS_PACKAGE)
        .expect("the package");
    std::fs::write(folder.join("package.json"), "{\"name\": \"bot\"}\n").expect("package.json");
    std::fs::write(folder.join("src/bot.js"), JS_BOT).expect("the bot");
    std::fs::write(folder.join("bot.js"), JS_BOT).expect("the bot");
    folder.join("bot.js")
}

/// A tournament file in `folder` of the project's bot in src/, its folder
/// the project (`dir`), against the Python random bot.
fn project_league(folder: &Path, project: &Path, random_bot: &str) -> PathBuf {
    let file = folder.join("project.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"number-snatch\"\ngames_per_pair = 2\n\n[[bot]]\nname = \"js\"\ndir = \"{}\"\ncommand = [\"node\", \"src/bot.js\"]\n\n[[bot]]\nname = \"random\"\ncommand = [\"python3\", \"{random_bot}\"]\n",
            project.display()
        ),
    )
    .expect("a tournament file");
    file
}

fn assert_played(run: &Run, out: &Path) {
    run.assert_success();
    assert!(run.stdout.contains("sandbox: a box per program"), "{}", run.stdout);
    for row in read_games_csv(out) {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
    }
}

/// The interpreter pyenv runs for `python3`, when pyenv is what PATH has.
fn pyenv_python() -> Option<String> {
    let output =
        Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().ok()?;
    let executable = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    executable.contains("/.pyenv/").then_some(executable)
}

#[test]
fn bots_with_dependencies_play_in_the_box() {
    let scratch = Scratch::new();
    let base = scratch.out().with_file_name("bots");
    let mut pythons = vec!["/usr/bin/python3".to_owned()];
    pythons.extend(pyenv_python());
    for (index, python) in pythons.iter().enumerate() {
        let folder = base.join(format!("python-{index}"));
        std::fs::create_dir_all(&folder).expect("a folder");
        let interpreter = environment(python, &folder);
        let command = format!("{} {}", interpreter.display(), folder.join("bot/bot.py").display());
        let out = scratch.out().join(format!("venv-{index}"));
        let run = scratch.arena([
            "match",
            "number-snatch",
            &command,
            "python3 bots/python/random_bot.py",
            "--games",
            "2",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        assert_played(&run, &out);
        // The same bot run as a script whose #! line names the environment.
        let script = folder.join("bot/bot-script.py");
        std::fs::write(&script, format!("#!{}\n{BOT}", interpreter.display())).expect("a script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let out = scratch.out().join(format!("shebang-{index}"));
        let run = scratch.arena([
            "match",
            "number-snatch",
            script.to_str().expect("UTF-8"),
            "python3 bots/python/random_bot.py",
            "--games",
            "2",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        assert_played(&run, &out);
    }
    let bot = node_project(&base.join("node"));
    let command = format!("node {}", bot.display());
    let out = scratch.out().join("node");
    let run = scratch.arena([
        "match",
        "number-snatch",
        &command,
        "python3 bots/python/random_bot.py",
        "--games",
        "2",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_played(&run, &out);
    let random_bot = common::repo_dir().join("bots/python/random_bot.py");
    let file = project_league(&base, &base.join("node"), random_bot.to_str().expect("UTF-8"));
    let out = scratch.out().join("project");
    let run = scratch.arena([
        "run",
        file.to_str().expect("UTF-8"),
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_played(&run, &out);
}

/// An environment the bot's command names outside its folder is refused
/// before any game, naming the word and what to do; the bot plays once the
/// environment is a path every bot may read.
#[test]
fn an_environment_outside_the_bots_folder_is_refused_by_name() {
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("apart");
    std::fs::create_dir_all(&folder).expect("a folder");
    let interpreter = environment_at("/usr/bin/python3", &folder, "env/venv");
    let command = format!("{} {}", interpreter.display(), folder.join("bot/bot.py").display());
    let out = scratch.out();
    let out_text = out.to_str().expect("UTF-8");
    let args = ["match", "number-snatch", &command, "python3 bots/python/random_bot.py"];
    let run = scratch.arena(args.iter().copied().chain(["--games", "2", "--out", out_text]));
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    for words in
        [interpreter.to_str().expect("UTF-8"), "does not show", "read_paths", "--allow-read"]
    {
        assert!(run.stderr.contains(words), "`{words}` not said:\n{}", run.stderr);
    }
    assert!(!out.join("games.csv").exists() || read_games_csv(&out).is_empty());
    let allowed = format!("--allow-read={}", folder.join("env").display());
    let run =
        scratch.arena(args.iter().copied().chain(["--games", "2", "--out", out_text, &allowed]));
    assert_played(&run, &out);
}

#[test]
fn bots_with_dependencies_play_in_the_box_when_the_arena_is_unprivileged() {
    let place = Unprivileged::new();
    let folder = place.base().join("venv-bot");
    std::fs::create_dir(&folder).expect("a folder");
    let interpreter = environment("/usr/bin/python3", &folder);
    let node = node_project(&place.base().join("node-bot"));
    for (name, command) in [
        ("venv", format!("{} {}", interpreter.display(), folder.join("bot/bot.py").display())),
        ("node", format!("node {}", node.display())),
    ] {
        let out = place.out(name);
        let run = place.arena(&[
            "match",
            "number-snatch",
            &command,
            "python3 random_bot.py",
            "--games",
            "2",
            "--out",
            out.to_str().expect("UTF-8"),
        ]);
        assert_played(&run, &out);
    }
}

/// A bot that reads a data file beside it, by a path relative to where it
/// runs: `arena check` run from another folder says why it crashed (it
/// runs in arena's working directory, not its own folder) and how to name
/// the file; the same bot naming the file from its own path plays.
#[test]
fn a_bot_that_opens_its_file_from_the_wrong_folder_is_told_why() {
    let scratch = Scratch::new();
    let folder = scratch.out().with_file_name("my_bot");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("config.json"), r#"{"first": true}"#).unwrap();
    let bot = |name: &str, path: &str| {
        let script = format!(
            "import json, pathlib, sys\nconfig = json.load(open({path}))\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'start':\n        print(json.dumps({{'type': 'ready', 'id': m['id']}}), flush=True)\n    elif m['type'] == 'move':\n        print(json.dumps({{'type': 'move', 'id': m['id'], 'move': m['legal_moves'][0]}}), flush=True)\n"
        );
        let file = folder.join(name);
        std::fs::write(&file, script).unwrap();
        format!("python3 {}", file.display())
    };
    let relative = bot("relative.py", "'config.json'");
    let check = scratch.arena(["check", "--game", "number-snatch", &relative]);
    assert_ne!(check.status.code(), Some(0), "{}", check.stdout);
    assert!(check.stdout.contains("FileNotFoundError"), "the error is quoted: {}", check.stdout);
    assert!(
        check.stdout.contains("not in the folder of its program")
            && check.stdout.contains("pathlib.Path(__file__).parent"),
        "{}",
        check.stdout
    );
    let own = bot("own.py", "pathlib.Path(__file__).parent / 'config.json'");
    let fixed = scratch.arena(["check", "--game", "number-snatch", &own]);
    assert_eq!(fixed.status.code(), Some(0), "{}{}", fixed.stdout, fixed.stderr);
}
