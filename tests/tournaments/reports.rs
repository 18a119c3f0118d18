//! What a user reads: mistakes in the file, standings, progress lines and
//! JSON lines.

use super::*;

#[test]
fn mistakes_in_the_file_are_refused_before_anything_is_written() {
    let scratch = Scratch::new();
    let bot = |name: &str| scratch.rust_bot(name);
    // Each case: the file's lines, the line the error must point to, and a
    // word the message must contain.
    let good_top = "game = \"number-snatch\"\nseed = 1\ngames_per_pair = 2\nout = \"out\"\n";
    let two_bots = [bot("a"), bot("b")];
    let missing = Bot { name: "b".into(), argv: vec!["./no-such-bot-program".into()] };
    let missing_script =
        Bot { name: "b".into(), argv: vec!["python3".into(), "bots/no_such_bot.py".into()] };
    let cases: Vec<(&str, String, usize, &str)> = vec![
        ("unknown key", tournament(&format!("{good_top}colour = 3\n"), &two_bots), 5, "colour"),
        (
            "wrong type",
            tournament(&good_top.replace("seed = 1", "seed = \"one\""), &two_bots),
            2,
            "seed: expected a whole number, such as 20, got the string \"one\"",
        ),
        ("duplicate name", tournament(good_top, &[bot("a"), bot("a")]), 11, "used twice"),
        ("empty name", tournament(good_top, &[bot("a"), bot("")]), 11, "empty"),
        ("one bot", tournament(good_top, &[bot("a")]), 6, "at least two"),
        (
            "odd games_per_pair",
            tournament(&good_top.replace("games_per_pair = 2", "games_per_pair = 3"), &two_bots),
            3,
            "games_per_pair",
        ),
        (
            "unknown game",
            tournament(&good_top.replace("number-snatch", "chess"), &two_bots),
            1,
            "chess",
        ),
        (
            "unknown parameter",
            tournament(&format!("{good_top}\n[params]\ncolour = 1\n"), &two_bots),
            // The parameter's own line, not the table's.
            7,
            "parameter `colour` of number-snatch: no such parameter",
        ),
        ("missing program", tournament(good_top, &[bot("a"), missing]), 12, "no-such-bot-program"),
        (
            "missing script",
            tournament(good_top, &[bot("a"), missing_script]),
            12,
            "bot `b`: command: script `",
        ),
    ];
    for (case, content, line, word) in cases {
        let file = scratch.write("bad.toml", &content);
        let run = scratch.run(&["run", file.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(2), "{case}: {run:?}");
        let located = format!("{}:{line}:", file.display());
        assert!(
            run.stderr.contains(&located),
            "{case}: the message does not point to {located}:\n{}\nthe file:\n{content}",
            run.stderr
        );
        assert!(run.stderr.contains(word), "{case}: `{word}` is not named: {}", run.stderr);
        assert!(!scratch.join("out").exists(), "{case}: the results folder was created");
    }
}

#[test]
fn markdown_standings_name_every_bot() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("alpha"), scratch.rust_bot("beta"), scratch.rust_bot("gamma")];
    let file = scratch.write(
        "t.toml",
        &tournament("game = \"number-claim\"\ngames_per_pair = 2\nout = \"out\"\n", &bots),
    );
    let markdown = scratch.join("standings.md");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--markdown", markdown.to_str().unwrap()]);
    let table = text(&markdown);
    let lines: Vec<&str> = table.lines().filter(|line| line.starts_with('|')).collect();
    assert!(lines.len() >= 2 + 3, "not a table with a row per bot:\n{table}");
    assert!(lines[1].contains("---"), "no header separator:\n{table}");
    for bot in &bots {
        assert!(
            lines[2..].iter().any(|line| line.contains(&format!("| {} |", bot.name))),
            "{} has no row:\n{table}",
            bot.name
        );
    }
}

#[test]
fn progress_without_a_terminal_is_plain_lines() {
    let scratch = Scratch::new();
    let (file, _) = finished_tournament(&scratch);
    let fresh = scratch.run_ok(&["run", file.to_str().unwrap(), "--fresh"]);
    assert!(
        fresh.stdout.lines().any(|line| line.starts_with("progress: 6/6 games")),
        "no final progress line:\n{}",
        fresh.stdout
    );
    for (stream, output) in [("stdout", &fresh.stdout), ("stderr", &fresh.stderr)] {
        assert!(!output.contains('\x1b'), "escape characters on {stream}: {output:?}");
        assert!(!output.contains('\r'), "carriage returns on {stream}: {output:?}");
    }
}

/// `--json`: stdout is JSON lines only, one finished-game event per game,
/// each carrying its games.csv row; `--quiet`: nothing on stdout at all.
#[test]
fn a_run_reports_as_json_lines_or_not_at_all() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("a"), scratch.python_bot("b")];
    let top = "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 4\nmove_timeout = \"1s\"\n";
    let file = scratch.write("t.toml", &tournament(top, &bots));
    let out = scratch.join("json");
    let run =
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--json"]);
    let events: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let kinds: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"run"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"complete"), "{kinds:?}");
    assert!(kinds.contains(&"started") && kinds.contains(&"finished"), "{kinds:?}");
    let finished: Vec<&serde_json::Value> =
        events.iter().filter(|event| event["type"] == "game_finished").collect();
    assert_eq!(finished.len(), 4);
    let rows = read_games_csv(&out);
    for event in &finished {
        let index = event["game"]["game_index"].as_u64().unwrap();
        let row = rows.iter().find(|row| row.number("game_index") == index).expect("a row");
        assert_eq!(event["game"]["winner"], row["winner"]);
        assert_eq!(event["game"]["outcome"], row["outcome"]);
        // No forfeit: the forfeit columns are null, as docs/running.md says.
        for column in ["forfeiter", "forfeit1", "forfeit2", "forfeit_detail"] {
            assert!(event["game"][column].is_null(), "{column}: {}", event["game"]);
        }
    }
    assert_eq!(events.last().unwrap()["out"], out.to_str().unwrap());

    let quiet = scratch.join("quiet");
    let run =
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", quiet.to_str().unwrap(), "-q"]);
    assert_eq!(run.stdout, "", "-q (--quiet) printed");
    assert_eq!(read_games_csv(&quiet).len(), 4);
    assert_same_results(&out, &quiet);
}
