//! Chess through examples/games/chess: game.py (python-chess from PyPI,
//! installed once into a venv under target/) passes `arena check-game`
//! from the start and from a FEN, and ends games by each rule it
//! documents; uci_bridge.py runs Stockfish as a bot in the sandbox, in a
//! match and in an SPRT that accepts H1, and stops loudly when its engine
//! fails; openings.py makes the shipped openings file from the shipped
//! EPD book, and a match plays its positions. Where PyPI cannot be reached
//! the tests that need the venv say so loudly and check nothing; without
//! Stockfish (Debian's `stockfish`) they fail, naming the package.

#[allow(dead_code)]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{Scratch, read_games_csv, repo_dir, require, transcript_of};
use serde_json::{Value, json};

/// python-chess's version the game is tested with.
const PYTHON_CHESS: &str = "chess==1.11.2";

/// Where Debian's `stockfish` package puts the engine.
const STOCKFISH: &str = "/usr/games/stockfish";

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A venv with python-chess, made once for the tests of this file (which
/// run at once: one makes it, the others wait); `None` where PyPI cannot
/// be reached (said on stderr).
fn venv() -> Option<PathBuf> {
    static VENV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    VENV.get_or_init(make_venv).clone()
}

fn make_venv() -> Option<PathBuf> {
    let check = "import chess; assert chess.__version__ == '1.11.2'";
    common::pypi::venv_with("chess-venv", PYTHON_CHESS, check, "tests/chess.rs")
}

fn game(venv: &Path) -> String {
    format!("{} examples/games/chess/game.py", venv.join("bin/python").display())
}

/// The bridge running Stockfish with `limits`.
fn stockfish(limits: &str) -> String {
    format!("python3 examples/games/chess/uci_bridge.py --engine {STOCKFISH} {limits}")
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn the_game_passes_check_game_from_the_start_and_from_a_fen() {
    let Some(venv) = venv() else { return };
    let scratch = Scratch::new();
    // The London System, black to move: seat 1 plays black.
    let london = "fen=rnbqkb1r/ppp1pppp/5n2/3p4/3P1B2/4P3/PPP2PPP/RN1QKBNR b KQkq - 0 3";
    for params in [vec![], vec!["--param", london, "--param", "max_plies=300"]] {
        let mut args = vec!["check-game", "--allow-read", text(&venv)];
        args.extend(params);
        let game = game(&venv);
        args.push(&game);
        let check = scratch.arena(args);
        assert_eq!(check.status.code(), Some(0), "{}{}", check.stdout, check.stderr);
        assert!(check.stdout.contains("All checks passed"), "{}", check.stdout);
    }
    // A position that is no FEN is refused before any game, by name.
    let bad = scratch.arena([
        "match",
        &game(&venv),
        "python3 bots/python/random_bot.py",
        "python3 bots/python/random_bot.py",
        "--param",
        "fen=not a position",
        "--allow-read",
        text(&venv),
        "--out",
        text(&scratch.out()),
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}{}", bad.stdout, bad.stderr);
    assert!(bad.stderr.contains("fen"), "{}", bad.stderr);
}

#[test]
fn two_stockfish_bridges_play_a_match_in_the_sandbox() {
    require(STOCKFISH, "stockfish");
    let Some(venv) = venv() else { return };
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "match",
        &game(&venv),
        &stockfish("--depth 8"),
        &stockfish("--nodes 1"),
        "--name1",
        "strong",
        "--name2",
        "weak",
        "--games",
        "2",
        "--param",
        "max_plies=150",
        "--allow-read",
        text(&venv),
        "--out",
        text(&out),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    let seat1: Vec<&str> = rows.iter().map(|row| &row["seat1"]).collect();
    assert_eq!(seat1, ["strong", "weak"], "each bot plays white once");
    for row in &rows {
        assert_eq!(&row["game"], "chess");
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
        let plies = row.number("plies");
        assert!((1..=150).contains(&plies), "{plies} plies");
        // Half-points: 2 for a win, 1 each for a draw.
        assert_eq!(row.number("score1") + row.number("score2"), 2);
        // A search of 8 plies beats one of a single node every time.
        assert_eq!(&row["winner"], "strong", "{}", run.stdout);
        let winner_seat = if row["seat1"] == row["winner"] { "score1" } else { "score2" };
        assert_eq!(row.number(winner_seat), 2);
    }
    // The leaderboard page replays both games, move by move, to the result.
    let page = out.with_extension("html");
    scratch.arena(["report", text(&out), "--html", text(&page)]).assert_success();
    let data = common::page_report(&page);
    assert_eq!(data["bots"][0]["name"], "strong");
    for (game, row) in data["games"].as_array().unwrap().iter().zip(&rows) {
        let turns = game["turns"].as_array().unwrap();
        assert!(turns.len() as u64 > row.number("plies"), "a turn a ply, and the start: {game}");
        let last = turns.last().unwrap().as_str().unwrap();
        assert!(last.contains("Winner: Player") && last.contains("(strong)"), "{last}");
    }
}

#[test]
fn an_sprt_of_a_deep_search_against_a_single_node_accepts_h1() {
    require(STOCKFISH, "stockfish");
    let Some(venv) = venv() else { return };
    let scratch = Scratch::new();
    let out = scratch.out();
    let run = scratch.arena([
        "sprt",
        &stockfish("--depth 8"),
        &stockfish("--nodes 1"),
        "--game",
        &game(&venv),
        "--openings",
        "examples/games/chess/openings/book.jsonl",
        "--param",
        "max_plies=200",
        "--elo0",
        "0",
        "--elo1",
        "50",
        "--seed",
        "1",
        "--allow-read",
        text(&venv),
        "--out",
        text(&out),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("H1 accepted"), "{}", run.stdout);
    let games = read_games_csv(&out).len();
    assert!((2..=60).contains(&games), "decided after {games} games");

    // The example's own SPRT file is sound (playing it takes 45 s).
    let bots = scratch.arena(["bots", "examples/games/chess/tournament.toml"]);
    bots.assert_success();
    assert!(bots.stdout.contains("  sf-4000\n") && bots.stdout.contains("  sf-1000\n"));
}

/// The game program itself, driven over its stdin and stdout.
struct GameProcess {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl GameProcess {
    fn start(venv: &Path) -> GameProcess {
        let mut child = Command::new(venv.join("bin/python"))
            .arg("examples/games/chess/game.py")
            .current_dir(repo_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("game.py starts");
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        GameProcess { child, lines, next_id: 1 }
    }

    fn ask(&mut self, mut request: Value) -> Value {
        request["id"] = json!(self.next_id);
        self.next_id += 1;
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let line = self.lines.recv_timeout(Duration::from_secs(20)).expect("an answer");
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], request["id"], "{line}");
        answer
    }

    fn init(&mut self, fen: &str, max_plies: u32, margin: u32) -> Value {
        let params = json!({"fen": fen, "max_plies": max_plies, "adjudicate_material": margin});
        self.ask(json!({"type": "init", "params": params, "seed": 0}))
    }

    /// Plays `moves` from `step`, each by the seat to move; the game must
    /// go on until the last.
    fn play(&mut self, mut step: Value, moves: &[&str]) -> Value {
        for (index, played) in moves.iter().enumerate() {
            assert_eq!(step["to_move"].as_array().unwrap().len(), 1, "over early: {step}");
            let seat = step["to_move"][0].as_u64().unwrap();
            let legal = &step["legal_moves"][seat as usize - 1];
            assert!(legal.as_array().unwrap().contains(&json!(played)), "{played} in {legal}");
            let request = json!({"type": "apply", "moves": [{"seat": seat, "move": played}]});
            step = self.ask(request);
            let over = step["to_move"] == json!([]);
            assert_eq!(over, index + 1 == moves.len(), "after {played}: {step}");
        }
        step
    }
}

impl Drop for GameProcess {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Games played to their end, a line each: what, the start (`START` for
/// the standard one), `max_plies` and `adjudicate_material`, the moves,
/// the winning seat (`-`: a draw) and the `end` both views give. A line
/// ending in `\` goes on in the next (Rust joins them).
const ENDINGS: &str = "
fool's mate | START | 600 0 | f2f3 e7e5 g2g4 d8h4 | 2 | checkmate
black mates, seat 1 | rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2 \
    | 600 0 | d8h4 | 1 | checkmate
stalemate | 7k/8/6K1/5Q2/8/8/8/8 w - - 0 1 | 600 0 | f5f7 | - | stalemate
king and bishop against king | 8/8/8/4k3/8/8/3r4/3BK3 w - - 0 1 | 600 0 | e1d2 | - \
    | insufficient material
the start three times | START | 600 0 | g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 | - \
    | threefold repetition
fifty moves | 8/8/8/4k3/8/8/8/R3K3 w - - 99 80 | 600 0 | a1a2 | - | fifty-move rule
a mate on the hundredth ply | 7k/8/6K1/8/8/8/8/R7 w - - 99 80 | 600 0 | a1a8 | 1 | checkmate
the move limit | START | 2 0 | e2e4 e7e5 | - | move limit
a queen ahead at the move limit | 4k3/8/8/8/8/8/8/Q3K3 w - - 0 1 | 1 5 | a1a2 | 1 \
    | move limit, 9 ahead in material
";

#[test]
fn games_end_by_each_rule_of_chess_and_by_adjudication() {
    let Some(venv) = venv() else { return };
    let mut game = GameProcess::start(&venv);
    for line in ENDINGS.lines().filter(|line| !line.is_empty()) {
        let fields: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [what, fen, limits, moves, winner, end] = fields[..] else { panic!("{line}") };
        let fen = if fen == "START" { START } else { fen };
        let (max_plies, margin) = limits.split_once(' ').unwrap();
        let (max_plies, margin) = (max_plies.parse().unwrap(), margin.parse().unwrap());
        let step = game.init(fen, max_plies, margin);
        assert_eq!(step["type"], "step", "{what}: {step}");
        assert_eq!(step["declares"], json!({"max_turns": max_plies}), "{what}");
        // Seat 1 plays the side to move at the start.
        let to_move = if fen.contains(" b ") { "black" } else { "white" };
        assert_eq!(step["views"][0]["you"], to_move, "{what}");
        let moves: Vec<&str> = moves.split(' ').collect();
        let last = game.play(step, &moves);
        // Half-points: 2 and 0 for a win, 1 each for a draw.
        let (winner, scores) = match winner {
            "-" => (Value::Null, [1, 1]),
            "1" => (json!(1), [2, 0]),
            _ => (json!(2), [0, 2]),
        };
        assert_eq!(last["result"], json!({"winner": winner}), "{what}: {last}");
        assert_eq!(last["scores"], json!(scores), "{what}");
        for view in last["views"].as_array().unwrap() {
            assert_eq!(view["end"], end, "{what}");
        }
    }
    // Positions that make no game are refused, naming the parameter.
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    for (fen, max_plies, param) in
        [("not a position", 600, "fen"), (mated, 600, "fen"), (START, 0, "max_plies")]
    {
        let answer = game.init(fen, max_plies, 0);
        assert_eq!(answer["type"], "refuse", "{fen}: {answer}");
        assert_eq!(answer["param"], param, "{fen}: {answer}");
    }
}

#[test]
fn the_epd_book_converts_to_the_shipped_openings_and_each_is_played() {
    require(STOCKFISH, "stockfish");
    let Some(venv) = venv() else { return };
    let converted = Command::new(venv.join("bin/python"))
        .args(["examples/games/chess/openings.py", "examples/games/chess/openings/book.epd"])
        .current_dir(repo_dir())
        .output()
        .unwrap();
    assert!(converted.status.success(), "{}", String::from_utf8_lossy(&converted.stderr));
    let jsonl = String::from_utf8(converted.stdout).unwrap();
    let shipped =
        std::fs::read_to_string(repo_dir().join("examples/games/chess/openings/book.jsonl"))
            .unwrap();
    assert_eq!(jsonl, shipped, "book.jsonl is openings.py's output for book.epd");
    let fens: Vec<String> = jsonl
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["params"]["fen"].to_string())
        .collect();
    assert_eq!(fens.len(), 16);

    let scratch = Scratch::new();
    let out = scratch.out();
    let book = scratch.out().with_file_name("book.jsonl");
    std::fs::write(&book, &jsonl).unwrap();
    let run = scratch.arena([
        "match",
        &game(&venv),
        &stockfish("--nodes 1"),
        &stockfish("--nodes 1"),
        "--openings",
        text(&book),
        "--games",
        "8",
        "--param",
        "max_plies=40",
        "--allow-read",
        text(&venv),
        "--out",
        text(&out),
    ]);
    run.assert_success();
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 8, "{}", run.stdout);
    for row in &rows {
        assert_eq!(&row["reason"], "normal", "{}", &row["forfeit_detail"]);
        // Round r plays the book's entry r, in both seat orders.
        let round = row.number("round") as usize;
        let header = &transcript_of(&out, row)[0];
        assert_eq!(header["params"]["fen"].to_string(), fens[round - 1], "round {round}");
    }
    let mut rounds: Vec<u64> = rows.iter().map(|row| row.number("round")).collect();
    rounds.sort();
    assert_eq!(rounds, [1, 1, 2, 2, 3, 3, 4, 4]);
}

/// The bridge run by hand with `engine` and `args`, `input` on its stdin:
/// its exit status and stderr.
fn bridge(engine: &str, args: &[&str], input: &str) -> (Option<i32>, String) {
    let mut child = Command::new("python3")
        .arg("examples/games/chess/uci_bridge.py")
        .args(["--engine", engine])
        .args(args)
        .current_dir(repo_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn the_bridge_stops_loudly_when_its_engine_fails() {
    let fen = START;
    let limits = json!({"startup_ms": 5000, "move_ms": 1000, "max_line_bytes": 65536});
    let start = json!({"type": "start", "id": 1, "protocol": 1, "game": "chess",
        "params": {"fen": fen}, "seat": 1, "seed": 1, "limits": limits});
    let moved = json!({"type": "move", "id": 2, "state": {"fen": fen, "you": "white"},
        "history": [], "legal_moves": ["e2e4"], "time_ms": 1000});
    let input = format!("{start}\n{moved}\n");

    let (status, stderr) = bridge("/nonexistent/engine", &[], &input);
    assert_ne!(status, Some(0), "{stderr}");
    assert!(stderr.contains("cannot start the engine /nonexistent/engine"), "{stderr}");

    // An engine that dies when asked to think.
    let scratch = Scratch::new();
    let fake = scratch.out().with_file_name("dies-on-go.sh");
    let script = "#!/bin/sh\nwhile read -r line; do case \"$line\" in\n\
        uci) echo 'id name dies-on-go'; echo uciok;;\n isready) echo readyok;;\n go*) exit 3;;\n\
        esac; done\n";
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (status, stderr) = bridge(text(&fake), &[], &input);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(
        stderr.contains("exited with status 3 while thinking on `go movetime 500`"),
        "{stderr}"
    );

    // An option the engine does not have is refused before any game.
    require(STOCKFISH, "stockfish");
    let (status, stderr) = bridge(STOCKFISH, &["--option", "No Such Thing=1"], &input);
    assert_ne!(status, Some(0), "{stderr}");
    assert!(stderr.contains("has no option `No Such Thing`"), "{stderr}");
}
