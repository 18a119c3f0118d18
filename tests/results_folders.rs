//! What makes a results folder's results mean what they say, with the
//! arena binary and real bots: a bot is known by every file its command
//! names; the settings that decide games and the seat-seed key are part
//! of the folder, so a resume or a merge under others is refused, naming
//! them; a folder written by an earlier arena still resumes; a damaged
//! archive or index loses only the damaged game, never shows another; an
//! interrupted merge leaves nothing; and limits arena cannot meet are
//! errors naming them.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{read_games_csv, repo_dir, rust_random_bot};
use serde_json::Value;

/// A folder for a test's files, and runs of the arena binary in it.
struct Folder {
    dir: tempfile::TempDir,
}

/// What a run said and how it ended.
struct Said {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Said {
    fn ok(self) -> Said {
        assert_eq!(self.code, Some(0), "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }

    fn refused(self, words: &[&str]) -> Said {
        assert_eq!(self.code, Some(2), "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        for word in words {
            assert!(self.stderr.contains(word), "`{word}` is not said:\n{}", self.stderr);
        }
        self
    }
}

impl Folder {
    fn new() -> Folder {
        Folder { dir: tempfile::tempdir().expect("a temporary folder") }
    }

    fn join(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The arena with `args`, from the repository root, with `env` set and
    /// ARENA_SEED_KEY unset unless `env` sets it.
    fn arena(&self, args: &[&str], env: &[(&str, &str)]) -> Said {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arena"));
        command.args(args).current_dir(repo_dir()).env_remove("ARENA_SEED_KEY");
        for (key, value) in env {
            command.env(key, value);
        }
        let Output { status, stdout, stderr } = command.output().expect("the arena runs");
        Said {
            code: status.code(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// A tournament file of Number Snatch between instant Rust bots `a`
    /// and `b`, with `top` as its first lines, its results in `out`.
    fn tournament(&self, name: &str, top: &str, out: &Path) -> PathBuf {
        let bot = rust_random_bot().to_str().unwrap();
        self.write(
            name,
            &format!(
                "game = \"number-snatch\"\nout = {out:?}\n{top}\n\n[[bot]]\nname = \"a\"\ncommand = [{bot:?}, \"--quiet\"]\n\n[[bot]]\nname = \"b\"\ncommand = [{bot:?}]\n"
            ),
        )
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn tournament_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap()).unwrap()
}

/// The seat seeds of every game of `out`, by game number.
fn seat_seeds(out: &Path) -> Vec<(String, Value)> {
    read_games_csv(out)
        .iter()
        .map(|row| {
            let header = common::transcript_of(out, row).swap_remove(0);
            (row["game_index"].to_owned(), header["seat_seeds"].clone())
        })
        .collect()
}

/// A bot named by an absolute path, or found in PATH, is its files: an
/// edit to them is a new version whose games are played again.
#[test]
fn an_edited_bot_named_by_absolute_path_or_found_in_path_replays_its_pairings() {
    let folder = Folder::new();
    let script = folder.write(
        "elsewhere/bot.py",
        &std::fs::read_to_string(repo_dir().join("bots/python/random_bot.py")).unwrap(),
    );
    let opponent = rust_random_bot().to_str().unwrap().to_owned();
    let out = folder.join("out");
    let by_path = format!("python3 {}", path(&script));
    let args = [
        "match",
        "number-snatch",
        &by_path,
        &opponent,
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        path(&out),
    ];
    folder.arena(&args, &[]).ok();
    assert!(folder.arena(&args, &[]).ok().stdout.contains("nothing to play: 4 games"));
    std::fs::write(&script, std::fs::read_to_string(&script).unwrap() + "\n# tuned\n").unwrap();
    let edited = folder.arena(&args, &[]).ok();
    assert!(edited.stdout.contains("is a new version"), "{}", edited.stdout);
    assert!(edited.stdout.contains("its 4 games are set aside"), "{}", edited.stdout);
    assert_eq!(read_games_csv(&out).len(), 4);

    // A program found in PATH, run with no file of its own, is the bot.
    let bin = folder.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("my-bot");
    let launcher = |extra: &str| format!("#!/bin/sh\n# {extra}\nexec {opponent:?} \"$@\"\n");
    std::fs::write(&program, launcher("first")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let search = format!("{}:{}", path(&bin), std::env::var("PATH").unwrap());
    let env = [("PATH", search.as_str())];
    let out = folder.join("in-path");
    let args = ["match", "number-snatch", "my-bot", &opponent, "--games", "2", "--out", path(&out)];
    folder.arena(&args, &env).ok();
    assert!(folder.arena(&args, &env).ok().stdout.contains("nothing to play"));
    std::fs::write(&program, launcher("second")).unwrap();
    let edited = folder.arena(&args, &env).ok();
    assert!(edited.stdout.contains("bot `my-bot` is a new version"), "{}", edited.stdout);
}

/// Without ARENA_SEED_KEY, a results folder keys its seat seeds with a
/// random key of its own, kept where bots never look (the folder) and
/// taken again on a resume: two folders of the same tournament give their
/// seats other seeds; one folder resumed keeps its own.
#[test]
fn a_folder_keys_seat_seeds_with_a_secret_of_its_own() {
    let folder = Folder::new();
    let bot = rust_random_bot().to_str().unwrap().to_owned();
    let run = |out: &Path, games: &str| {
        let args = [
            "match",
            "number-snatch",
            &bot,
            &bot,
            "--games",
            games,
            "--seed",
            "5",
            "--out",
            path(out),
        ];
        folder.arena(&args, &[]).ok()
    };
    let (one, two) = (folder.join("one"), folder.join("two"));
    let first = run(&one, "2");
    assert!(
        first.stdout.contains("seat seeds keyed by a new random key of the results folder's own"),
        "{}",
        first.stdout
    );
    run(&two, "2");
    let seeds_one = seat_seeds(&one);
    assert_ne!(seeds_one, seat_seeds(&two), "two folders gave the seats the same seeds");
    let key = one.join(".arena-seed-key");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    let fingerprint = tournament_json(&one)["seed_key"].as_str().unwrap().to_owned();
    assert_eq!(fingerprint.len(), 16);
    assert!(
        !std::fs::read_to_string(one.join("tournament.json"))
            .unwrap()
            .contains(std::fs::read_to_string(&key).unwrap().trim()),
        "tournament.json holds the key itself"
    );

    // A resume takes the folder's key: its new games go on with it.
    let resumed = run(&one, "4");
    assert!(resumed.stdout.contains("the results folder's own key"), "{}", resumed.stdout);
    let all = seat_seeds(&one);
    assert_eq!(all[..2], seeds_one[..]);
    assert_eq!(tournament_json(&one)["seed_key"], fingerprint.as_str());

    // --fresh draws a new key.
    let args = [
        "match",
        "number-snatch",
        &bot,
        &bot,
        "--games",
        "2",
        "--seed",
        "5",
        "--out",
        path(&one),
        "--fresh",
    ];
    folder.arena(&args, &[]).ok();
    assert_ne!(tournament_json(&one)["seed_key"], fingerprint.as_str());
}

/// The key is part of what a folder's games are: a resume or a merge under
/// another one is refused, naming it; so is a resume under another setting
/// that decides games, while one that may change (games at once) resumes.
#[test]
fn a_resume_or_merge_under_another_key_or_setting_is_refused_naming_it() {
    let folder = Folder::new();
    let bot = rust_random_bot().to_str().unwrap().to_owned();
    let key_file = folder.write("secrets/key", "a shared secret\n");
    let out = folder.join("out");
    let base =
        ["match", "number-snatch", &bot, &bot, "--games", "2", "--seed", "5", "--out", path(&out)];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    folder.arena(&with(&base, &["--seed-key-file", path(&key_file)]), &[]).ok();
    assert!(
        folder
            .arena(&with(&base, &["--seed-key-file", path(&key_file)]), &[])
            .ok()
            .stdout
            .contains("nothing to play")
    );
    // The same secret in ARENA_SEED_KEY is the same key.
    let same = folder.arena(&base, &[("ARENA_SEED_KEY", "a shared secret")]).ok();
    assert!(same.stdout.contains("nothing to play"), "{}", same.stdout);
    folder
        .arena(&base, &[("ARENA_SEED_KEY", "another secret")])
        .refused(&["the seat-seed key was", "different tournament"]);
    folder.arena(&base, &[]).refused(&["give the same key to resume it"]);

    let given = [("ARENA_SEED_KEY", "a shared secret")];
    folder
        .arena(&with(&base, &["--memory-limit", "512MiB"]), &given)
        .refused(&["sandbox.limits.memory was 1073741824, now 536870912"]);
    folder
        .arena(&with(&base, &["--restart-each-game"]), &given)
        .refused(&["restart was after-doubt, now every-game"]);
    folder
        .arena(&with(&base, &["--no-sandbox"]), &given)
        .refused(&["sandbox.mode was on, now off"]);
    let faster = folder.arena(&with(&base, &["--concurrency", "2"]), &given).ok();
    assert!(faster.stdout.contains("nothing to play"), "{}", faster.stdout);

    // Shards: each must be given the key, and shards under two keys do not merge.
    let file = folder.tournament("t.toml", "games_per_pair = 4", &folder.join("unused"));
    let shard = |number: &str, key: &str| {
        let out = folder.join(&format!("shard-{key}-{number}"));
        let args = ["run", path(&file), "--shard", number, "--out", path(&out)];
        folder.arena(&args, &[("ARENA_SEED_KEY", key)]).ok();
        out
    };
    folder
        .arena(&["run", path(&file), "--shard", "1/2", "--out", path(&folder.join("lone"))], &[])
        .refused(&["--shard", "ARENA_SEED_KEY", "--seed-key-file"]);
    let (one, two) = (shard("1/2", "k"), shard("2/2", "k"));
    let other = shard("2/2", "other");
    let summary = folder.join("merged.md");
    let merged = folder
        .arena(
            &[
                "merge",
                "--out",
                path(&folder.join("merged")),
                path(&one),
                path(&two),
                "--markdown",
                path(&summary),
            ],
            &[],
        )
        .ok();
    // The summary asked for is written, and named.
    assert!(summary.is_file());
    assert!(merged.stdout.contains(&format!("wrote {}", summary.display())), "{}", merged.stdout);
    folder
        .arena(&["merge", "--out", path(&folder.join("merged-2")), path(&one), path(&other)], &[])
        .refused(&["different tournament", "the seat-seed key was"]);
}

/// tournament.json as arena wrote it before it recorded every setting (no
/// `format`, the sandbox as its line, no key) resumes: what it did not
/// record is taken as the run's, and said; seat seeds keep the public
/// default that arena used then.
#[test]
fn a_folder_written_by_an_earlier_arena_resumes() {
    let folder = Folder::new();
    let out = folder.join("out");
    let file = folder.tournament("t.toml", "games_per_pair = 4\nseed = 2", &out);
    folder.arena(&["run", path(&file)], &[]).ok();
    // Back to the form of the earlier arena.
    let mut earlier = tournament_json(&out);
    let record = earlier.as_object_mut().unwrap();
    for key in [
        "format",
        "protocol",
        "restart",
        "seed_key",
        "concurrency",
        "pin",
        "transcripts",
        "stderr_cap",
    ] {
        record.remove(key);
    }
    let line = record.remove("protections").unwrap();
    record.insert("sandbox".into(), line);
    for key in ["openings", "sprt", "clock"] {
        if record[key].is_null() {
            record.remove(key);
        }
    }
    std::fs::write(out.join("tournament.json"), serde_json::to_vec_pretty(&earlier).unwrap())
        .unwrap();
    std::fs::remove_file(out.join(".arena-seed-key")).unwrap();

    let resumed = folder.arena(&["run", path(&file), "--games-per-pair", "6"], &[]).ok();
    assert!(
        resumed
            .stderr
            .contains("written by an earlier arena that did not record restart, sandbox, seed_key"),
        "{}",
        resumed.stderr
    );
    assert!(
        resumed.stdout.contains("keyed by the public default, as the earlier arena"),
        "{}",
        resumed.stdout
    );
    assert!(
        resumed.stdout.contains("4 games already in games.csv, 2 to play"),
        "{}",
        resumed.stdout
    );
    assert_eq!(tournament_json(&out)["format"], 3);
    assert_eq!(tournament_json(&out)["seed_key"], "public");
}

/// Where the frame of game `game` of `out` starts, from the index.
fn frame_offset(out: &Path, game: u64) -> u64 {
    let row = &read_games_csv(out)[game as usize - 1];
    let number: u64 = row["transcript"].rsplit('#').next().unwrap().parse().unwrap();
    let index = std::fs::read(out.join("transcripts.index")).unwrap();
    index
        .chunks_exact(16)
        .map(|entry| {
            let n = u64::from_le_bytes(entry[..8].try_into().unwrap());
            (n, u64::from_le_bytes(entry[8..].try_into().unwrap()))
        })
        .find(|(n, _)| *n == number)
        .unwrap()
        .1
}

/// One damaged frame in an archive whose index is lost costs its own
/// game, said with its cause, and no other: every other transcript stays
/// and no other game is played again.
#[test]
fn a_damaged_frame_in_an_archive_without_index_loses_that_game_only() {
    let folder = Folder::new();
    let out = folder.join("out");
    let file = folder.tournament("t.toml", "games_per_pair = 40\nseed = 4", &out);
    folder.arena(&["run", path(&file)], &[("ARENA_SEED_KEY", "k")]).ok();
    let before = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let at = frame_offset(&out, 17);
    let archive = out.join("transcripts.archive");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes[at as usize + 2] ^= 0xff;
    std::fs::write(&archive, &bytes).unwrap();
    std::fs::remove_file(out.join("transcripts.index")).unwrap();

    let resumed = folder.arena(&["run", path(&file)], &[("ARENA_SEED_KEY", "k")]).ok();
    assert!(resumed.stderr.contains("1 damaged part"), "{}", resumed.stderr);
    assert!(resumed.stderr.contains("every whole frame after them is kept"), "{}", resumed.stderr);
    assert!(resumed.stderr.contains("1 game of"), "{}", resumed.stderr);
    assert!(
        resumed.stdout.contains("39 games already in games.csv, 1 to play"),
        "{}",
        resumed.stdout
    );
    let after = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let kept = |text: &str, game: usize| text.lines().nth(game).unwrap().to_owned();
    for game in (1..=40).filter(|&game| game != 17) {
        assert_eq!(kept(&after, game), kept(&before, game), "game {game} changed");
    }
    for row in read_games_csv(&out) {
        assert_eq!(common::transcript_of(&out, &row).last().unwrap()["type"], "result");
    }
}

/// A damaged index never makes `arena replay` show another game: each game
/// is checked against its frame's own number and found in the archive.
#[test]
fn a_damaged_index_never_shows_another_game() {
    let folder = Folder::new();
    let out = folder.join("out");
    let file = folder.tournament("t.toml", "games_per_pair = 10\nseed = 4", &out);
    folder.arena(&["run", path(&file)], &[("ARENA_SEED_KEY", "k")]).ok();
    let replay = |game: &str| {
        folder.arena(&["replay", path(&out), "--game", game, "--jsonl"], &[]).ok().stdout
    };
    let told: Vec<String> = (1..=10).map(|game| replay(&game.to_string())).collect();
    let index = out.join("transcripts.index");
    let mut bytes = std::fs::read(&index).unwrap();
    // Every entry points at the frame after its own.
    let offsets: Vec<[u8; 8]> =
        bytes.chunks_exact(16).map(|entry| entry[8..].try_into().unwrap()).collect();
    for (at, entry) in bytes.chunks_exact_mut(16).enumerate() {
        entry[8..].copy_from_slice(&offsets[(at + 1) % offsets.len()]);
    }
    std::fs::write(&index, &bytes).unwrap();
    for game in 1..=10 {
        assert_eq!(replay(&game.to_string()), told[game - 1], "game {game}");
    }
    let missing = folder.arena(&["replay", path(&out), "--game", "11"], &[]);
    let missing = missing.refused(&["has no game 11 (it holds 10 games)"]);
    assert!(!missing.stderr.contains("transcript"), "{}", missing.stderr);
}

/// A merge stopped by Ctrl-C leaves no staging folder and no --out; one
/// killed outright leaves a staging folder that the next merge beside it
/// removes.
#[test]
fn an_interrupted_merge_leaves_nothing() {
    let folder = Folder::new();
    let file =
        folder.tournament("t.toml", "games_per_pair = 2\ntranscripts = false", &folder.join("x"));
    let shards = folder.join("shards");
    let (one, two) = (shards.join("one"), shards.join("two"));
    for (number, out) in [("1/2", &one), ("2/2", &two)] {
        let args = ["run", path(&file), "--shard", number, "--out", path(out)];
        folder.arena(&args, &[("ARENA_SEED_KEY", "k")]).ok();
    }
    // Many rows of no game of the tournament: the merge reads them all.
    let mut csv = std::fs::read_to_string(one.join("games.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap().to_owned();
    for round in 0..200_000 {
        csv.push_str(&row.replacen(",1,", &format!(",{},", round + 10), 1));
        csv.push('\n');
    }
    std::fs::write(one.join("games.csv"), csv).unwrap();
    let merged = shards.join("merged");
    let staging = || {
        std::fs::read_dir(&shards)
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(".arena-merge-"))
            .count()
    };
    let merge = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["merge", "--out", path(&merged), path(&one), path(&two)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while staging() == 0 && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(staging(), 1, "the merge made no staging folder");
    // SAFETY: a plain signal to the child this test started.
    unsafe { libc::kill(merge.id() as i32, libc::SIGINT) };
    let output = merge.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted"));
    assert_eq!(staging(), 0, "the interrupted merge left its staging folder");
    assert!(!merged.exists());

    // A merge killed outright: its staging folder goes with the next merge.
    let dead = shards.join(".arena-merge-dead");
    std::fs::create_dir_all(dead.join("transcripts")).unwrap();
    std::fs::write(dead.join(".arena-merge.lock"), "").unwrap();
    std::fs::write(one.join("games.csv"), std::fs::read_to_string(two.join("games.csv")).unwrap())
        .unwrap();
    let _ =
        folder.arena(&["merge", "--out", path(&merged), path(&one), path(&two), "--partial"], &[]);
    assert!(!dead.exists(), "a dead merge's staging folder is left");
    assert_eq!(staging(), 0);
}

/// Temporary files a killed run left in a results folder go with the next
/// run on it (and with --fresh).
#[test]
fn temporary_files_of_a_killed_run_are_removed() {
    let folder = Folder::new();
    let out = folder.join("out");
    let file = folder.tournament("t.toml", "games_per_pair = 2", &out);
    std::fs::create_dir_all(&out).unwrap();
    for name in ["games.csv.tmp-arena", "tournament.123.tmp-arena", "standings.9.tmp-arena"] {
        std::fs::write(out.join(name), "half").unwrap();
    }
    let keep = out.join("notes.txt");
    std::fs::write(&keep, "mine").unwrap();
    folder.arena(&["run", path(&file), "--fresh"], &[]).ok();
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp-arena"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(keep.exists(), "a file arena did not write was removed");
}

/// Limits arena cannot meet are errors that name them, never panics: a
/// schedule too large to hold (with its figures, exit 2), too few open
/// files for the games at once, and a #! line naming an interpreter that
/// is not there (exit 2, naming it).
#[test]
fn limits_and_missing_interpreters_are_errors_naming_them() {
    let folder = Folder::new();
    let mut text = String::from("game = \"number-snatch\"\ngames_per_pair = 10000000\n");
    for bot in 0..300 {
        text.push_str(&format!("\n[[bot]]\nname = \"b{bot}\"\ncommand = [\"cat\"]\n"));
    }
    let file = folder.write("huge.toml", &text);
    let huge = folder.arena(&["run", path(&file)], &[]).refused(&[
        "huge.toml:2:",
        "300 bots make 44,850 pairings",
        "448,500,000,000 games",
        "1,000,000,000",
    ]);
    assert!(!huge.stderr.contains("panicked"));

    let out = folder.join("few-files");
    let small = folder.tournament("t.toml", "games_per_pair = 40\nconcurrency = 8", &out);
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            &format!(
                "ulimit -Sn 40; exec {:?} run {:?}",
                env!("CARGO_BIN_EXE_arena"),
                path(&small)
            ),
        ])
        .current_dir(repo_dir())
        .env("ARENA_SEED_KEY", "k");
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("open files"), "{stderr}");

    let script = folder.write("bot.py", "#!/usr/bin/python9.99\nprint('hi')\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bot = rust_random_bot().to_str().unwrap().to_owned();
    let out = folder.join("m");
    folder
        .arena(&["match", "number-snatch", path(&script), &bot, "--out", path(&out)], &[])
        .refused(&["names the interpreter `/usr/bin/python9.99` in its #! line"]);
    let script = folder.write("env.py", "#!/usr/bin/env python9.99\nprint('hi')\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    folder
        .arena(&["match", "number-snatch", path(&script), &bot, "--out", path(&out)], &[])
        .refused(&["`python9.99` was not found in PATH"]);
}
