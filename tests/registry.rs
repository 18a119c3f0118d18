//! Every game in arena's list of games is everywhere a game must be: the
//! docs, the schema, the help texts, the example tournaments, the test
//! lists and the strong bot. The list is read from `arena games`, so a game
//! added to the registry and forgotten anywhere else fails here. (That the
//! starter kits and the strong bot play every game is checked by
//! tests/sandbox.rs, over `common::GAMES`, which must match the list.)

#[allow(dead_code)]
mod common;

use common::{Scratch, repo_dir};

fn game_ids() -> Vec<String> {
    let run = Scratch::new().arena(["games"]);
    run.assert_success();
    let ids: Vec<String> = run
        .stdout
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(ids.len() >= 5, "{}", run.stdout);
    ids
}

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(repo_dir().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

#[test]
fn every_game_is_documented_everywhere_a_game_is_listed() {
    let ids = game_ids();
    let rules = repo_file("docs/rules.md");
    let schema = repo_file("docs/protocol.schema.json");
    let mut missing = Vec::new();
    for id in &ids {
        for (file, text) in [
            ("README.md", repo_file("README.md")),
            ("protocol.md", repo_file("protocol.md")),
            ("tournaments/README.md", repo_file("tournaments/README.md")),
            ("docs/protocol.schema.json", schema.clone()),
        ] {
            if !text.contains(&format!("`{id}`")) && !text.contains(&format!("\"{id}\"")) {
                missing.push(format!("{file} does not name {id}"));
            }
        }
        if !rules.lines().any(|line| line.starts_with("## ") && line.contains(&format!("(`{id}`)")))
        {
            missing.push(format!("docs/rules.md has no section for {id}"));
        }
        if !repo_dir().join(format!("tournaments/{id}.toml")).is_file() {
            missing.push(format!("tournaments/{id}.toml is missing"));
        }
        if !common::GAMES.contains(&id.as_str()) {
            missing.push(format!("tests/common/mod.rs GAMES lacks {id}"));
        }
    }
    assert_eq!(common::GAMES.len(), ids.len(), "tests/common/mod.rs GAMES: {:?}", common::GAMES);
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn every_game_is_in_the_help_of_every_command_that_takes_one() {
    let ids = game_ids();
    for command in ["match", "play", "check", "sprt", "gauntlet"] {
        let run = Scratch::new().arena([command, "--help"]);
        run.assert_success();
        for id in &ids {
            assert!(run.stdout.contains(id.as_str()), "`arena {command} --help` lacks {id}");
        }
        // Listed last, so that the list does not read as closed.
        assert!(
            run.stdout.contains("- <COMMAND>:")
                && run.stdout.contains("a game program's command line"),
            "`arena {command} --help` does not say a game program's command is a game too"
        );
    }
}
