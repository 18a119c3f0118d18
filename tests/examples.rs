//! The example CI workflow (examples/leaderboard.yml) run locally: its steps
//! are examples/leaderboard.sh subcommands, which this test runs as the
//! workflow does (two shards, a merge, a report), twice, as two pushes
//! would, with the results folders kept in between as the cache keeps them.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::Command;

fn step(results: &Path, league: &Path, args: &[&str]) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("bash")
        .arg(repo.join("examples/leaderboard.sh"))
        .args(args)
        .env("ARENA", env!("CARGO_BIN_EXE_arena"))
        .env("LEAGUE", league)
        .env("RESULTS", results)
        // The workflow's secret.
        .env("ARENA_SEED_KEY", "the leaderboard's secret")
        .current_dir(repo)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "leaderboard.sh {}: {stdout}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_example_workflow_runs_its_steps() {
    let workflow = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/leaderboard.yml"),
    )
    .unwrap();
    for needed in [
        "examples/leaderboard.sh shard ${{ matrix.shard }} 2",
        "examples/leaderboard.sh merge 2",
        "examples/leaderboard.sh report",
        "persist-credentials: false",
        "ARENA_SEED_KEY: ${{ secrets.ARENA_SEED_KEY }}",
        "actions/cache@",
        "$GITHUB_STEP_SUMMARY",
        "results/leaderboard.html",
    ] {
        assert!(workflow.contains(needed), "the workflow lacks `{needed}`");
    }

    let folder = tempfile::tempdir().unwrap();
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    let strong = common::rust_strong_bot().to_str().unwrap().to_owned();
    let league = folder.path().join("league.toml");
    std::fs::write(
        &league,
        format!(
            "game = \"number-snatch\"\nseed = 2\ngames_per_pair = 4\n\
             [[bot]]\nname = \"random\"\ncommand = [{random:?}]\n\
             [[bot]]\nname = \"strong\"\ncommand = [{strong:?}]\n\
             [[bot]]\nname = \"quiet\"\ncommand = [{random:?}, \"--quiet\"]\n"
        ),
    )
    .unwrap();
    let results = folder.path().join("results");
    for push in 1..=2 {
        step(&results, &league, &["shard", "1", "2"]);
        step(&results, &league, &["shard", "2", "2"]);
        step(&results, &league, &["merge", "2"]);
        step(&results, &league, &["report"]);
        assert_eq!(common::read_games_csv(&results.join("league")).len(), 12, "push {push}");
        let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
        assert!(summary.contains("| 1 |") && summary.contains("strong"), "{summary}");
        assert!(
            summary.contains("### Crosstable") && summary.contains("### Settings"),
            "{summary}"
        );
        let page = std::fs::read_to_string(results.join("leaderboard.html")).unwrap();
        assert!(page.contains("\"name\":\"strong\""));
        let history = std::fs::read_to_string(results.join("league/history.jsonl")).unwrap();
        assert_eq!(history.lines().count(), push, "one history line per run:\n{history}");
    }
}
