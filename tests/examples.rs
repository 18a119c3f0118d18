//! The steps of every leaderboard example (examples/leaderboard.sh: the
//! GitHub workflow, the Kubernetes Job, the Slurm array) run as those do
//! (two shards, a merge, a report), twice, as two pushes would, with the
//! results folders kept in between as a cache keeps them. tests/workflows.rs
//! runs the workflow itself.

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
fn the_leaderboard_steps_run_as_two_pushes_would() {
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
