//! The same results however a run is cut: at any concurrency, killed and
//! resumed, a torn last line, changed settings, a bot added or edited,
//! shards merged, a results folder moved.

use super::*;

#[test]
fn the_same_file_gives_the_same_results_at_any_concurrency() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("rs-a"), scratch.python_bot("py"), scratch.rust_bot("rs-b")];
    let top = "game = \"number-snatch\"\nseed = 11\ngames_per_pair = 6\nmove_timeout = \"1s\"\n";
    let one = scratch.write("one.toml", &tournament(top, &bots));
    let two = scratch.write("two.toml", &tournament(&format!("{top}concurrency = 2\n"), &bots));
    let mut folders = Vec::new();
    for (file, run) in [(&one, 1), (&one, 2), (&two, 1), (&two, 2)] {
        let out =
            scratch.join(&format!("out-{}-{run}", file.file_stem().unwrap().to_str().unwrap()));
        scratch.run_ok(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(read_games_csv(&out).len(), 3 * 6);
        folders.push(out);
    }
    // The games are not all alike (the comparison would prove little).
    let outcomes: BTreeSet<String> =
        read_games_csv(&folders[0]).iter().map(|row| row["winner"].to_owned()).collect();
    assert!(outcomes.len() > 1, "every game had the same winner: {outcomes:?}");
    for folder in &folders[1..] {
        assert_same_results(&folders[0], folder);
    }
}

#[test]
fn a_run_killed_twice_resumes_to_the_results_of_an_uninterrupted_run() {
    let scratch = Scratch::new();
    let marker = scratch.marker();
    let bots = [
        scratch.rust_bot("rs-a"),
        scratch.rust_bot("rs-b"),
        // 10 ms per move: its 40 games last long enough to be interrupted.
        scratch.paced_bot("py", &["--delay-ms", "10"]),
    ];
    let total = 3 * 20;
    let file = scratch.write(
        "league.toml",
        &tournament(
            "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 20\nmove_timeout = \"1s\"\nconcurrency = 2\nout = \"resumed\"\n",
            &bots,
        ),
    );
    let file = file.to_str().unwrap();
    let resumed = scratch.join("resumed");

    let mut arena = scratch.start(&["run", file]);
    wait_for_rows(&mut arena, &resumed, 3);
    kill_and_check_bots_exit(arena, &marker);
    let after_first = rows_written(&resumed);
    assert!(after_first < total, "the run finished before it could be killed");
    // ARCHITECTURE.md: a row is written only after its transcript, so a
    // SIGKILL leaves no row without one.
    for row in read_games_csv(&resumed) {
        let transcript = common::transcript_of(&resumed, &row);
        assert_eq!(transcript.last().unwrap()["type"], "result", "game {}", &row["game_index"]);
    }

    let mut arena = scratch.start(&["run", file]);
    wait_for_rows(&mut arena, &resumed, after_first + 3);
    kill_and_check_bots_exit(arena, &marker);
    let after_second = rows_written(&resumed);
    assert!(after_second < total, "the run finished before it could be killed");
    assert!(!resumed.join("standings.csv").exists(), "standings of an unfinished run");

    let last = scratch.run_ok(&["run", file]);
    // Rows whose transcripts a kill caught in hand are set aside and their
    // games played again; the others are kept.
    assert!(
        last.stdout.contains("resuming") || last.stderr.contains("lost their transcripts"),
        "{}{}",
        last.stdout,
        last.stderr
    );
    assert_eq!(read_games_csv(&resumed).len(), total);

    let uninterrupted = scratch.join("uninterrupted");
    scratch.run_ok(&["run", file, "--out", uninterrupted.to_str().unwrap()]);
    assert_same_results(&uninterrupted, &resumed);
    assert_transcripts_match_rows(&resumed);
}

#[test]
fn a_torn_last_line_is_dropped_and_the_game_played_again() {
    let scratch = Scratch::new();
    let (file, out) = finished_tournament(&scratch);
    let games_csv = out.join("games.csv");
    let complete = text(&games_csv);
    let lines: Vec<&str> = complete.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 1 + 6);

    // A finished folder with a torn row after its last one.
    let torn_row = &lines[3][..lines[3].len() / 2];
    std::fs::write(&games_csv, format!("{complete}{torn_row}")).unwrap();
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stderr.contains("unfinished last line"), "{}", run.stderr);
    assert_eq!(text(&games_csv), complete, "the torn line is not dropped cleanly");

    // A folder with three rows and half of the fourth.
    let partial: String = lines[..4].concat() + &lines[4][..lines[4].len() / 2];
    std::fs::write(&games_csv, partial).unwrap();
    std::fs::remove_file(out.join("standings.csv")).unwrap();
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("3 games already"), "{}", run.stdout);
    assert_eq!(read_games_csv(&out).len(), 6);
    let reference = scratch.join("reference");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", reference.to_str().unwrap()]);
    assert_same_results(&reference, &out);
}

#[test]
fn changed_settings_are_refused_unless_fresh() {
    let scratch = Scratch::new();
    let (file, out) = finished_tournament(&scratch);
    let original = text(&file);
    let before = text(&out.join("games.csv"));
    for (from, to, named) in [
        ("seed = 3", "seed = 4", "seed was 3"),
        ("games_per_pair = 6", "games_per_pair = 4", "games_per_pair was 6, now 4"),
    ] {
        std::fs::write(&file, original.replace(from, to)).unwrap();
        let refused = scratch.run(&["run", file.to_str().unwrap()]);
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        assert!(refused.stderr.contains(named), "no `{named}`: {}", refused.stderr);
        assert!(refused.stderr.contains("--fresh"), "{}", refused.stderr);
        assert_eq!(text(&out.join("games.csv")), before, "the refused run touched games.csv");
    }
    // More games per pair only adds games.
    std::fs::write(&file, original.replace("games_per_pair = 6", "games_per_pair = 8")).unwrap();
    let more = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(more.stdout.contains("6 games already in games.csv, 2 to play"), "{}", more.stdout);
    assert!(text(&out.join("tournament.json")).contains("\"games_per_pair\": 8"));
    std::fs::write(&file, original.replace("games_per_pair = 6", "games_per_pair = 4")).unwrap();
    let fresh = scratch.run_ok(&["run", file.to_str().unwrap(), "--fresh"]);
    assert!(!fresh.stdout.contains("resuming"), "{}", fresh.stdout);
    assert_eq!(read_games_csv(&out).len(), 4);
    assert!(text(&out.join("tournament.json")).contains("\"games_per_pair\": 4"));
}

#[test]
fn adding_a_bot_plays_only_its_games() {
    let scratch = Scratch::new();
    let mut bots = vec![scratch.rust_bot("a"), scratch.rust_bot("b"), scratch.rust_bot("c")];
    let top = "game = \"number-snatch\"\nseed = 9\ngames_per_pair = 4\nmove_timeout = \"1s\"\nout = \"out\"\n";
    let file = scratch.write("t.toml", &tournament(top, &bots));
    let out = scratch.join("out");
    scratch.run_ok(&["run", file.to_str().unwrap()]);
    let old = read_games_csv(&out);
    assert_eq!(old.len(), 3 * 4);
    let before = text(&out.join("games.csv"));

    bots.push(scratch.rust_bot("d"));
    scratch.write("t.toml", &tournament(top, &bots));
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("12 games already"), "{}", run.stdout);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 6 * 4);
    let new: Vec<&Row> =
        rows.iter().filter(|row| !old.iter().any(|o| key(o) == key(row))).collect();
    assert_eq!(new.len(), 3 * 4);
    assert!(new.iter().all(|row| row["seat1"] == *"d" || row["seat2"] == *"d"));
    // The old rows are untouched, to the byte (timings included).
    let after = text(&out.join("games.csv"));
    let lines: BTreeSet<&str> = after.lines().collect();
    for line in before.lines() {
        assert!(lines.contains(line), "an old row changed or is gone: {line}\nnow:\n{after}");
    }
    assert_transcripts_match_rows(&out);

    let reference = scratch.join("reference");
    scratch.run_ok(&["run", file.to_str().unwrap(), "--out", reference.to_str().unwrap()]);
    assert_same_results(&reference, &out);

    // A bot may come anywhere in the file: games are numbered anew, and the
    // results already played stay as they were.
    let results = |rows: &[Row]| -> BTreeMap<(String, String, String), String> {
        rows.iter()
            .map(|row| {
                (key(row), format!("{} {} {}", &row["winner"], &row["score1"], &row["score2"]))
            })
            .collect()
    };
    let before = results(&read_games_csv(&out));
    let mut front = vec![scratch.rust_bot("e")];
    front.extend(bots.iter().cloned());
    scratch.write("t.toml", &tournament(top, &front));
    let run = scratch.run_ok(&["run", file.to_str().unwrap()]);
    assert!(run.stdout.contains("24 games already in games.csv, 16 to play"), "{}", run.stdout);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 10 * 4);
    let after = results(&rows);
    for (game, result) in &before {
        assert_eq!(after.get(game), Some(result), "game {game:?} changed");
    }
    let numbers: Vec<u64> = rows.iter().map(|row| row["game_index"].parse().unwrap()).collect();
    assert_eq!(numbers, (1..=40).collect::<Vec<_>>());
}

#[test]
fn shards_merge_into_the_results_of_a_single_run() {
    let scratch = Scratch::new();
    let bots = [scratch.rust_bot("a"), scratch.rust_bot("b"), scratch.python_bot("py")];
    let file = scratch.write(
        "t.toml",
        &tournament(
            "game = \"numbers-war\"\nseed = 21\ngames_per_pair = 4\nmove_timeout = \"1s\"\nconcurrency = 2\n",
            &bots,
        ),
    );
    let file = file.to_str().unwrap();
    let mut shards = Vec::new();
    let mut seen = BTreeSet::new();
    for shard in 1..=3 {
        let out = scratch.join(&format!("shard{shard}"));
        scratch.run_ok(&[
            "run",
            file,
            "--shard",
            &format!("{shard}/3"),
            "--out",
            out.to_str().unwrap(),
        ]);
        let rows = read_games_csv(&out);
        assert_eq!(rows.len(), 4, "shard {shard}");
        for row in &rows {
            assert!(seen.insert(key(row)), "{:?} is in two shards", key(row));
        }
        shards.push(out.to_str().unwrap().to_owned());
    }
    let merged = scratch.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(shards.iter().map(String::as_str));
    scratch.run_ok(&args);

    let single = scratch.join("single");
    scratch.run_ok(&["run", file, "--out", single.to_str().unwrap()]);
    assert_same_results(&single, &merged);
    assert_transcripts_match_rows(&merged);
}

/// A league as a leaderboard repository holds one: the tournament file at
/// `root`, each bot a script of its own under `root/bots/`, named relative
/// to the file, and the results in `root/results`.
fn script_league(root: &Path, names: &[&str]) -> PathBuf {
    std::fs::create_dir_all(root.join("bots")).unwrap();
    let mut file = "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 2\nmove_timeout = \"2s\"\nconcurrency = 2\nout = \"results\"\n".to_owned();
    for name in names {
        std::fs::copy(
            repo().join("bots/python/random_bot.py"),
            root.join(format!("bots/{name}.py")),
        )
        .unwrap();
        file.push_str(&format!(
            "\n[[bot]]\nname = \"{name}\"\ncommand = [\"python3\", \"bots/{name}.py\"]\n"
        ));
    }
    let path = root.join("league.toml");
    std::fs::write(&path, file).unwrap();
    path
}

/// Copies a folder and everything in it.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn editing_one_bot_replays_exactly_its_pairings() {
    let scratch = Scratch::new();
    let root = scratch.join("league");
    let file = script_league(&root, &["a", "b", "c", "d"]);
    let file = file.to_str().unwrap();
    let out = root.join("results");
    scratch.run_ok(&["run", file]);
    let before = text(&out.join("games.csv"));
    assert_eq!(read_games_csv(&out).len(), 6 * 2);

    let again = scratch.run_ok(&["run", file]);
    assert!(again.stdout.contains("nothing to play: 12 games already in"), "{}", again.stdout);
    assert_eq!(text(&out.join("games.csv")), before, "an unchanged rerun touched games.csv");

    // An edit anywhere in the bot's script is a new version.
    let script = root.join("bots/c.py");
    std::fs::write(&script, text(&script) + "# tuned\n").unwrap();
    let edited = scratch.run_ok(&["run", file]);
    assert!(edited.stdout.contains("bot `c` is a new version"), "{}", edited.stdout);
    assert!(edited.stdout.contains("its 6 games are set aside"), "{}", edited.stdout);
    assert!(
        edited.stdout.contains("resuming: 6 games already in games.csv, 6 to play"),
        "{}",
        edited.stdout
    );
    let aside: Vec<Row> = common::read_csv(&out.join("set-aside.csv"));
    assert_eq!(aside.len(), 6);
    assert!(aside.iter().all(|row| row["seat1"] == *"c" || row["seat2"] == *"c"));
    assert_eq!(read_games_csv(&out).len(), 12);
    let after = text(&out.join("games.csv"));
    for line in before.lines().filter(|line| !line.contains(",c,") && !line.contains(" vs c")) {
        assert!(after.contains(line), "a game without c changed: {line}");
    }

    // Its environment is part of it too.
    let with_env = text(&root.join("league.toml")).replace(
        "command = [\"python3\", \"bots/a.py\"]",
        "command = [\"python3\", \"bots/a.py\"]\nenv = { DEPTH = \"3\" }",
    );
    std::fs::write(root.join("league.toml"), with_env).unwrap();
    let env_changed = scratch.run_ok(&["run", file]);
    assert!(env_changed.stdout.contains("bot `a` is a new version"), "{}", env_changed.stdout);
    assert!(env_changed.stdout.contains("6 to play"), "{}", env_changed.stdout);
}

#[test]
fn a_results_folder_resumes_and_merges_wherever_the_checkout_lives() {
    let scratch = Scratch::new();
    let first = scratch.join("checkout-1");
    let file = script_league(&first, &["a", "b", "c"]);
    let shard1 = first.join("shard1");
    scratch.run_ok(&[
        "run",
        file.to_str().unwrap(),
        "--shard",
        "1/2",
        "--out",
        shard1.to_str().unwrap(),
    ]);
    assert!(
        !text(&shard1.join("tournament.json")).contains(first.to_str().unwrap()),
        "tournament.json depends on where the checkout lives"
    );

    // Another clone somewhere else plays the other shard; a results folder
    // moved there (as a CI cache restores one) resumes.
    let second = scratch.join("elsewhere/checkout-2");
    copy_tree(&first, &second);
    // Share `shard` of 2 of the second checkout's league, into `out`.
    let play_shard = |shard: &str, out: &Path| {
        let league = second.join("league.toml");
        scratch.run_ok(&[
            "run",
            league.to_str().unwrap(),
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let resumed = play_shard("1/2", &second.join("shard1"));
    assert!(resumed.stdout.contains("nothing to play: 3 games already"), "{}", resumed.stdout);
    let shard2 = second.join("shard2");
    play_shard("2/2", &shard2);
    let merged = scratch.join("merged");
    scratch.run_ok(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        shard1.to_str().unwrap(),
        shard2.to_str().unwrap(),
    ]);
    assert_eq!(read_games_csv(&merged).len(), 6);

    // A shard played by another version of a bot is refused, and the
    // message says which bot and what differs.
    let script = second.join("bots/b.py");
    std::fs::write(&script, text(&script) + "# tuned\n").unwrap();
    let other = second.join("shard2-edited");
    play_shard("2/2", &other);
    let refused = scratch.run(&[
        "merge",
        "--out",
        scratch.join("merged-2").to_str().unwrap(),
        shard1.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(refused.stderr.contains("bot `b`: files (fingerprint)"), "{}", refused.stderr);
}

/// A bot edited while a run plays it is named at the end of that run, and
/// the next run plays its games again.
#[test]
fn a_bot_edited_during_a_run_is_named_at_its_end() {
    let scratch = Scratch::new();
    let root = scratch.join("league");
    let file = script_league(&root, &["a", "b"]);
    let longer = text(&file).replace("games_per_pair = 2", "games_per_pair = 300");
    std::fs::write(&file, longer).unwrap();
    let file = file.to_str().unwrap();
    let out = root.join("results");
    let mut arena = scratch.start(&["run", file]);
    wait_for_rows(&mut arena, &out, 2);
    let script = root.join("bots/a.py");
    std::fs::write(&script, text(&script) + "# tuned\n").unwrap();
    assert!(
        rows_written(&out) < 300,
        "the run ended before the edit, which proves nothing: make it longer"
    );
    let run = arena.wait();
    run.assert_success();
    assert!(run.stderr.contains("bot `a` changed while this run played"), "{}", run.stderr);
    assert!(!run.stderr.contains("bot `b` changed"), "{}", run.stderr);
    let again = scratch.run_ok(&["run", file]);
    assert!(again.stdout.contains("bot `a` is a new version"), "{}", again.stdout);
}
