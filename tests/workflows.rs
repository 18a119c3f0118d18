//! The GitHub workflows of examples/, run here as far as this machine
//! allows: each parses as YAML with what GitHub needs; the league workflow
//! (leaderboard.yml) runs job by job on a fixture repository, twice, as two
//! pushes would (its caches kept between them), and publishes a page; the
//! pull-request workflow (pull-request.yml) finds the bots a pull request
//! adds or changes and writes its comment; the comment workflow
//! (pull-request-comment.yml) posts it once and updates it afterwards. The
//! actions themselves are stood in for by tests/common/actions.rs (checkout
//! clones the fixture repository, caches and artifacts are folders); every
//! `run:` script is the workflow's own.

#[path = "common/actions.rs"]
mod actions;
#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use actions::{Runner, git, scalar};
use serde_json::{Value, json};
use yaml_rust2::{Yaml, YamlLoader};

const WORKFLOWS: [&str; 3] =
    ["examples/leaderboard.yml", "examples/pull-request.yml", "examples/pull-request-comment.yml"];
const MARKER: &str = "<!-- arena bot gauntlet -->";

fn load(file: &str) -> Yaml {
    let text = std::fs::read_to_string(common::repo_dir().join(file)).unwrap();
    YamlLoader::load_from_str(&text).unwrap_or_else(|error| panic!("{file}: {error}")).remove(0)
}

fn steps(job: &Yaml) -> &Vec<Yaml> {
    job["steps"].as_vec().expect("steps")
}

#[test]
fn the_workflows_parse_and_hold_what_github_needs() {
    for file in WORKFLOWS {
        let workflow = load(file);
        assert!(workflow["name"].as_str().is_some(), "{file}: a name");
        assert!(!workflow["on"].is_badvalue(), "{file}: on");
        let permissions = workflow["permissions"].as_hash().expect("permissions set");
        assert!(!permissions.is_empty(), "{file}");
        for (id, job) in workflow["jobs"].as_hash().expect("jobs") {
            let id = id.as_str().unwrap();
            assert_eq!(job["runs-on"].as_str(), Some("ubuntu-latest"), "{file}: {id}");
            for step in steps(job) {
                let run = step["run"].as_str();
                let uses = step["uses"].as_str();
                assert!(run.is_some() != uses.is_some(), "{file}: {id}: a step runs or uses");
                if let Some(uses) = uses {
                    let version = uses.split_once('@').map(|(_, version)| version);
                    assert!(
                        version.is_some_and(|version| version.starts_with('v')),
                        "{file}: {uses}: pin a version"
                    );
                }
                if let Some(run) = run {
                    // The script with its expressions as plain words.
                    let script = run.replace("${{", "X").replace("}}", "X");
                    let parsed = Command::new("bash").args(["-n", "-c", &script]).output().unwrap();
                    assert!(
                        parsed.status.success(),
                        "{file}: {id}: `{run}`: {}",
                        String::from_utf8_lossy(&parsed.stderr)
                    );
                }
                for (key, _) in step["with"].as_hash().into_iter().flatten() {
                    assert!(key.as_str().is_some());
                }
            }
        }
    }

    let league = load("examples/leaderboard.yml");
    for trigger in ["push", "schedule", "workflow_dispatch"] {
        assert!(!league["on"][trigger].is_badvalue(), "the league runs on {trigger}");
    }
    let shards: Vec<String> = league["jobs"]["play"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(scalar)
        .collect();
    assert_eq!(
        shards.len().to_string(),
        scalar(&league["env"]["SHARDS"]),
        "the matrix lists SHARDS shards"
    );
    let play = &league["jobs"]["play"];
    assert!(
        steps(play)
            .iter()
            .any(|step| step["env"]["ARENA_SEED_KEY"].as_str()
                == Some("${{ secrets.ARENA_SEED_KEY }}")),
        "the shards key their seeds with the secret"
    );
    // Bots are built in a job of their own, without the secret; the job
    // that holds it builds nothing.
    let holds_secret =
        |job: &Yaml| {
            steps(job).iter().any(|step| {
                step["env"].as_hash().into_iter().flatten().any(|(_, value)| {
                    value.as_str().is_some_and(|value| value.contains("secrets."))
                })
            })
        };
    let builds = |job: &Yaml| {
        steps(job).iter().any(|step| {
            step["run"].as_str().is_some_and(|run| run.contains("leaderboard.sh build"))
        })
    };
    let bots = &league["jobs"]["bots"];
    assert!(builds(bots) && !holds_secret(bots), "the bots job builds, without the secret");
    assert!(holds_secret(play) && !builds(play), "the play job holds the secret, builds nothing");
    for (id, job) in league["jobs"].as_hash().unwrap() {
        assert!(!builds(job) || !holds_secret(job), "{id:?}: a build beside the secret");
    }
    let deploy = &league["jobs"]["deploy"];
    assert_eq!(deploy["permissions"]["pages"].as_str(), Some("write"));
    assert_eq!(deploy["permissions"]["id-token"].as_str(), Some("write"));
    assert_eq!(deploy["environment"]["name"].as_str(), Some("github-pages"));
    assert_eq!(league["permissions"]["contents"].as_str(), Some("read"));

    // The pull request's code runs with no secret and no right to write;
    // the workflow that may comment runs none of it.
    let text =
        std::fs::read_to_string(common::repo_dir().join("examples/pull-request.yml")).unwrap();
    assert!(!text.contains("secrets."), "pull-request.yml must not see a secret");
    let pull_request = load("examples/pull-request.yml");
    assert!(!pull_request["on"]["pull_request"].is_badvalue());
    assert_eq!(pull_request["permissions"].as_hash().unwrap().len(), 1);
    let comment = load("examples/pull-request-comment.yml");
    assert_eq!(
        comment["on"]["workflow_run"]["workflows"][0].as_str(),
        pull_request["name"].as_str(),
        "the comment workflow follows the gauntlet's"
    );
    let job = &comment["jobs"]["comment"];
    assert!(
        steps(job).iter().all(|step| step["uses"]
            .as_str()
            .is_none_or(|uses| !uses.starts_with("actions/checkout"))),
        "the comment workflow checks out nothing"
    );
}

/// A repository of bots: the league file names a Python bot, the Rust
/// strong bot and a bot built by its own build.sh.
fn fixture_repository(folder: &Path) -> PathBuf {
    let repo = folder.join("league-repo");
    let arena = common::repo_dir();
    std::fs::create_dir_all(repo.join("tournaments")).unwrap();
    std::fs::create_dir_all(repo.join("bots/random")).unwrap();
    std::fs::create_dir_all(repo.join("bots/built")).unwrap();
    std::fs::copy(arena.join("bots/python/random_bot.py"), repo.join("bots/random/random_bot.py"))
        .unwrap();
    std::fs::copy(arena.join("bots/python/random_bot.py"), repo.join("bots/built/bot.py")).unwrap();
    std::fs::write(repo.join("bots/built/build.sh"), "cp bot.py bot\nchmod +x bot\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "/results\n/bots/built/bot\n").unwrap();
    let strong = common::rust_strong_bot().to_str().unwrap().to_owned();
    std::fs::write(
        repo.join("tournaments/league.toml"),
        format!(
            "game = \"number-snatch\"\nseed = 3\ngames_per_pair = 4\nout = \"../results/league\"\n\n\
             [[bot]]\nname = \"random-py\"\ncommand = [\"python3\", \"../bots/random/random_bot.py\"]\n\n\
             [[bot]]\nname = \"strong\"\ncommand = [{strong:?}]\n\n\
             [[bot]]\nname = \"built\"\ndir = \"../bots/built\"\nbuild = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]\n"
        ),
    )
    .unwrap();
    std::fs::write(repo.join("README.md"), "Our league.\n").unwrap();
    git(&["init", "--quiet"], &repo);
    commit(&repo, "the league")
}

fn commit(repo: &Path, message: &str) -> PathBuf {
    git(&["add", "-A"], repo);
    git(&["commit", "--quiet", "-m", message], repo);
    repo.to_owned()
}

fn head(repo: &Path) -> String {
    git(&["rev-parse", "HEAD"], repo)
}

/// What the workflows' first job would have built and cached: arena and
/// the scripts the other jobs run.
fn kit(folder: &Path) -> PathBuf {
    let kit = folder.join("kit");
    std::fs::create_dir_all(&kit).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_arena"), kit.join("arena")).unwrap();
    for script in ["leaderboard.sh", "pull-request.sh"] {
        std::fs::copy(common::repo_dir().join("examples").join(script), kit.join(script)).unwrap();
    }
    std::fs::copy(common::rust_random_bot(), kit.join("random-bot")).unwrap();
    std::fs::copy(common::rust_strong_bot(), kit.join("strong-bot")).unwrap();
    kit
}

/// The key the workflows cache arena's kit under (hashFiles is a stand-in).
const KIT_KEY: &str = "arena-Linux-sources-5";

fn no_other_action(uses: &str, _: &BTreeMap<String, String>, _: &Path) -> BTreeMap<String, String> {
    panic!("the workflow uses {uses}, which the stand-in runner does not do")
}

fn league_run(
    root: &Path,
    repo: &Path,
    secret: Option<&str>,
) -> (Runner, Vec<actions::JobOutcome>) {
    // A workflow run's artifacts are its own; caches stay.
    let _ = std::fs::remove_dir_all(root.join("artifacts"));
    let _ = std::fs::remove_dir_all(root.join("jobs"));
    let mut runner =
        Runner::new(&common::repo_dir().join("examples/leaderboard.yml"), repo, &head(repo), root);
    if let Some(secret) = secret {
        runner.secrets.insert("ARENA_SEED_KEY".into(), secret.into());
    }
    let outcomes = runner.run(&mut no_other_action);
    (runner, outcomes)
}

fn assert_all_succeeded(outcomes: &[actions::JobOutcome]) {
    for outcome in outcomes {
        assert!(outcome.success, "job {} failed:\n{}", outcome.name, outcome.log);
    }
}

#[test]
fn the_league_workflow_publishes_the_league_and_a_push_replays_only_what_changed() {
    let folder = tempfile::tempdir().unwrap();
    let repo = fixture_repository(folder.path());
    let root = folder.path().join("actions");
    std::fs::create_dir_all(&root).unwrap();

    // Without the secret, the shards stop and say what to set.
    let first = Runner::new(
        &common::repo_dir().join("examples/leaderboard.yml"),
        &repo,
        &head(&repo),
        &root,
    );
    first.seed_cache(KIT_KEY, &kit(folder.path()));
    let (_, outcomes) = league_run(&root, &repo, None);
    let failed =
        outcomes.iter().find(|outcome| !outcome.success).expect("a job fails without the secret");
    assert!(failed.name.starts_with("play"), "{}", failed.name);
    assert!(
        failed.log.contains("::error::Set the repository secret ARENA_SEED_KEY"),
        "{}",
        failed.log
    );

    let (runner, outcomes) = league_run(&root, &repo, Some("the league's secret"));
    assert_all_succeeded(&outcomes);
    let names: Vec<&str> = outcomes.iter().map(|outcome| outcome.name.as_str()).collect();
    assert_eq!(
        names,
        ["arena", "bots", "play (1)", "play (2)", "play (3)", "play (4)", "report", "deploy"]
    );
    let site = root.join("artifacts/github-pages");
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(page.contains("\"name\":\"built\"") && page.contains("\"name\":\"strong\""));
    let summary = std::fs::read_to_string(site.join("summary.md")).unwrap();
    assert!(summary.contains("strong") && summary.contains("### Crosstable"), "{summary}");
    assert!(
        runner.summaries["report"].contains("### Crosstable"),
        "the job summary has the Markdown"
    );
    let standings = std::fs::read_to_string(site.join("standings.csv")).unwrap();
    assert_eq!(standings.lines().count(), 4, "{standings}");
    let report_workspace = &runner.workspaces["report"];
    let history =
        std::fs::read_to_string(report_workspace.join("results/league/history.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 1);
    let first_games = common::read_games_csv(&report_workspace.join("results/league"));
    assert_eq!(first_games.len(), 12, "three pairings of 4 games");

    // A push that changes the built bot's sources: only its pairings are
    // played again (the shards resume their cached folders), and the
    // history grows by one run.
    let bot = repo.join("bots/built/bot.py");
    let mut source = std::fs::read_to_string(&bot).unwrap();
    source.push_str("\n# tuned\n");
    std::fs::write(&bot, source).unwrap();
    commit(&repo, "tune the built bot");
    let (runner, outcomes) = league_run(&root, &repo, Some("the league's secret"));
    assert_all_succeeded(&outcomes);
    let report_workspace = &runner.workspaces["report"];
    let history =
        std::fs::read_to_string(report_workspace.join("results/league/history.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 2, "{history}");
    let second_games = common::read_games_csv(&report_workspace.join("results/league"));
    assert_eq!(second_games.len(), 12);
    let set_aside: usize = (1..=4)
        .map(|shard| {
            let path = runner.workspaces[&format!("play ({shard})")]
                .join(format!("results/shard-{shard}/set-aside.csv"));
            std::fs::read_to_string(path).map_or(0, |text| text.lines().count().saturating_sub(1))
        })
        .sum();
    assert_eq!(set_aside, 8, "the built bot's 8 games are set aside and played again");
    let kept = |rows: &[common::Row]| -> Vec<String> {
        rows.iter()
            .filter(|row| !row["pairing"].contains("built"))
            .map(|row| {
                format!(
                    "{} {} {} {}",
                    &row["game_index"], &row["winner"], &row["duration_ms"], &row["transcript"]
                )
            })
            .collect()
    };
    assert_eq!(kept(&first_games), kept(&second_games), "the other pairing was not played again");
}

/// The pull request's comment and the job outcomes, for a head commit.
fn pull_request_run(
    root: &Path,
    repo: &Path,
    base: &str,
) -> (Vec<actions::JobOutcome>, String, String) {
    let _ = std::fs::remove_dir_all(root.join("artifacts"));
    let _ = std::fs::remove_dir_all(root.join("jobs"));
    let mut runner =
        Runner::new(&common::repo_dir().join("examples/pull-request.yml"), repo, &head(repo), root);
    runner.event = json!({"pull_request": {"number": 7, "base": {"sha": base}}});
    let outcomes = runner.run(&mut no_other_action);
    let artifact = root.join("artifacts/bot-gauntlet-comment");
    let comment = std::fs::read_to_string(artifact.join("comment.md"))
        .unwrap_or_else(|_| panic!("no comment; {:#?}", outcomes));
    let number = std::fs::read_to_string(artifact.join("pull-request")).unwrap();
    (outcomes, comment, number)
}

#[test]
fn a_pull_request_gets_its_new_bots_checked_and_played_in_one_comment() {
    let folder = tempfile::tempdir().unwrap();
    let repo = fixture_repository(folder.path());
    let base = head(&repo);
    let root = folder.path().join("actions");
    std::fs::create_dir_all(&root).unwrap();
    Runner::new(&common::repo_dir().join("examples/pull-request.yml"), &repo, &base, &root)
        .seed_cache(KIT_KEY, &kit(folder.path()));

    // A pull request that touches no bot plays nothing.
    git(&["checkout", "--quiet", "-b", "docs"], &repo);
    std::fs::write(repo.join("README.md"), "Our league, explained.\n").unwrap();
    commit(&repo, "docs");
    let (outcomes, comment, number) = pull_request_run(&root, &repo, &base);
    assert_all_succeeded(&outcomes);
    assert_eq!(number.trim(), "7");
    assert!(comment.starts_with(MARKER), "{comment}");
    assert!(
        comment.contains("No bot of `tournaments/league.toml` is added or changed"),
        "{comment}"
    );

    // One that adds a bot, adds a broken one and changes the built bot.
    git(&["checkout", "--quiet", "-b", "bots", &base], &repo);
    let arena = common::repo_dir();
    std::fs::create_dir_all(repo.join("bots/newbie")).unwrap();
    std::fs::create_dir_all(repo.join("bots/broken")).unwrap();
    std::fs::copy(arena.join("bots/python/random_bot.py"), repo.join("bots/newbie/newbie.py"))
        .unwrap();
    std::fs::copy(
        arena.join("tests/fixtures/illegal_move.py"),
        repo.join("bots/broken/illegal_move.py"),
    )
    .unwrap();
    std::fs::copy(arena.join("tests/fixtures/botlib.py"), repo.join("bots/broken/botlib.py"))
        .unwrap();
    let bot = repo.join("bots/built/bot.py");
    let source = std::fs::read_to_string(&bot).unwrap() + "\n# a better bot\n";
    std::fs::write(&bot, source).unwrap();
    let file = repo.join("tournaments/league.toml");
    let league = std::fs::read_to_string(&file).unwrap()
        + "\n[[bot]]\nname = \"newbie\"\ncommand = [\"python3\", \"../bots/newbie/newbie.py\"]\n\
           \n[[bot]]\nname = \"broken\"\ncommand = [\"python3\", \"../bots/broken/illegal_move.py\"]\n";
    std::fs::write(&file, league).unwrap();
    commit(&repo, "two bots, and a better built bot");
    let (outcomes, comment, _) = pull_request_run(&root, &repo, &base);
    let gauntlet = outcomes.iter().find(|outcome| outcome.name == "gauntlet").unwrap();
    assert!(!gauntlet.success, "a bot that fails its check fails the job:\n{}", gauntlet.log);
    assert!(comment.starts_with(MARKER), "{comment}");
    let row = |name: &str| {
        comment
            .lines()
            .find(|line| line.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{comment}"))
            .to_owned()
    };
    assert!(
        row("newbie").contains("| added |") && row("newbie").ends_with("| — | passed |"),
        "{}",
        row("newbie")
    );
    assert!(
        row("broken").contains("| added |") && row("broken").ends_with("| failed |"),
        "{}",
        row("broken")
    );
    assert!(
        row("built").contains("| changed (was `") && row("built").ends_with("| built | passed |"),
        "{}",
        row("built")
    );
    for unchanged in ["random-py", "strong"] {
        assert!(
            !comment.contains(&format!("| {unchanged} |")),
            "{unchanged} did not change:\n{comment}"
        );
    }
    let against =
        comment.split("#### Against the league").nth(1).expect("the gauntlet's standings");
    for bot in ["newbie", "broken", "built", "random-py", "strong"] {
        assert!(against.contains(bot), "{bot} is not in the standings:\n{against}");
    }
    assert!(comment.contains("<details><summary>`arena check` of `broken`</summary>"), "{comment}");
    assert!(comment.contains("Checking `broken` as tournaments/league.toml runs it"), "{comment}");
    assert!(!comment.contains("results: "), "the gauntlet's folder is no news on the pull request");
    assert!(
        comment.contains("FAIL") && comment.contains("424242"),
        "the failed check is shown:\n{comment}"
    );
    // Nothing a bot wrote can open a tag in the comment.
    let details = comment.split("<details>").nth(1).unwrap();
    assert!(!details.contains("<b") && !details.contains("<script"), "{details}");

    // The comment workflow posts it: once, then updates its own comment.
    let mut poster = Poster::new(folder.path(), &root, &repo);
    let calls = poster.post(json!([]), &head(&repo));
    assert_eq!(calls.iter().filter(|call| call[0] == "create").count(), 1, "{calls:?}");
    let created = calls.iter().find(|call| call[0] == "create").unwrap();
    assert_eq!(created[1], 7);
    assert_eq!(created[2].as_str().unwrap(), comment);
    let comments = json!([
        {"id": 5, "user": {"login": "someone"}, "body": format!("{MARKER}\nnot ours")},
        {"id": 42, "user": {"login": "github-actions[bot]"}, "body": format!("{MARKER}\nthe last push's")},
    ]);
    let calls = poster.post(comments.clone(), &head(&repo));
    assert!(calls.iter().all(|call| call[0] != "create"), "{calls:?}");
    let updated: Vec<&Value> = calls.iter().filter(|call| call[0] == "update").collect();
    assert_eq!(updated.len(), 1, "{calls:?}");
    assert_eq!(updated[0][1], 42, "only its own comment is updated");
    // A pull request that moved on gets no comment about an older commit.
    let calls = poster.post(comments, "0123456789abcdef0123456789abcdef01234567");
    assert!(calls.iter().all(|call| call[0] != "create" && call[0] != "update"), "{calls:?}");

    // One that widens the boxes along with its bot: told, and played with
    // the base's settings (the bot's read_paths left out, the network
    // closed).
    git(&["checkout", "--quiet", "-b", "wider", &base], &repo);
    let source = std::fs::read_to_string(&bot).unwrap() + "\n# wider\n";
    std::fs::write(&bot, source).unwrap();
    let league = std::fs::read_to_string(&file).unwrap().replacen(
        "games_per_pair = 4\n",
        "games_per_pair = 4\nnetwork = true\nbuild_network = true\nmemory_limit = \"8GiB\"\n",
        1,
    ) + "read_paths = [\"../../README.md\"]\n";
    std::fs::write(&file, league).unwrap();
    commit(&repo, "a wider box for the built bot");
    let (outcomes, comment, _) = pull_request_run(&root, &repo, &base);
    assert!(outcomes.iter().all(|outcome| outcome.success), "{outcomes:#?}\n{comment}");
    let widened = comment.split("#### Sandbox settings not taken").nth(1).unwrap_or_else(|| {
        panic!("the comment says the sandbox settings were not taken:\n{comment}")
    });
    for said in [
        "`network`: true here, false in the base file",
        "`build_network`: true here, false in the base file",
        "the limits: memory 8 GiB, ",
        "bot `built`'s `read_paths`",
    ] {
        assert!(widened.contains(said), "{said}:\n{comment}");
    }
    let built = comment.lines().find(|line| line.starts_with("| built |")).unwrap_or_default();
    assert!(built.ends_with("| built | passed |"), "{comment}");
}

/// Runs pull-request-comment.yml with its github-script run by node
/// against a stand-in of GitHub's API.
struct Poster {
    folder: PathBuf,
    root: PathBuf,
    repo: PathBuf,
}

impl Poster {
    fn new(folder: &Path, root: &Path, repo: &Path) -> Poster {
        Poster { folder: folder.to_owned(), root: root.to_owned(), repo: repo.to_owned() }
    }

    /// The API calls the script made, with `comments` on the pull request
    /// and `pull_head` its head commit now.
    fn post(&mut self, comments: Value, pull_head: &str) -> Vec<Value> {
        let _ = std::fs::remove_dir_all(self.root.join("jobs"));
        let run_head = head(&self.repo);
        let mut runner = Runner::new(
            &common::repo_dir().join("examples/pull-request-comment.yml"),
            &self.repo,
            &run_head,
            &self.root,
        );
        runner.event = json!({"workflow_run": {"event": "pull_request", "conclusion": "failure", "id": 1, "head_sha": run_head}});
        let state = json!({"comments": comments, "head": pull_head, "run_head": run_head});
        let calls_file = self.folder.join("calls.json");
        let harness = self.folder.join("harness.js");
        std::fs::write(&harness, HARNESS).unwrap();
        let mut handler = |uses: &str, with: &BTreeMap<String, String>, workspace: &Path| {
            assert_eq!(uses, "actions/github-script");
            let script = self.folder.join("script.js");
            std::fs::write(&script, &with["script"]).unwrap();
            let ran = Command::new("node")
                .arg(&harness)
                .arg(&script)
                .current_dir(workspace)
                .env("STATE", state.to_string())
                .env("CALLS", &calls_file)
                .output()
                .expect("node runs");
            assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
            BTreeMap::new()
        };
        let outcomes = runner.run(&mut handler);
        assert_all_succeeded(&outcomes);
        serde_json::from_str::<Vec<Value>>(&std::fs::read_to_string(&calls_file).unwrap()).unwrap()
    }
}

/// Runs a github-script body with the arguments the action gives it, and
/// records the API calls it makes.
const HARNESS: &str = r#"
const fs = require('fs');
const state = JSON.parse(process.env.STATE);
const calls = [];
const github = {
  rest: {
    pulls: { get: async () => ({ data: { head: { sha: state.head } } }) },
    issues: {
      listComments: 'listComments',
      updateComment: async (a) => { calls.push(['update', a.comment_id, a.body]); },
      createComment: async (a) => { calls.push(['create', a.issue_number, a.body]); return { data: { id: 99 } }; },
    },
  },
  paginate: async (method, args) => { calls.push(['list', method, args.issue_number]); return state.comments; },
};
const context = { repo: { owner: 'owner', repo: 'league' }, payload: { workflow_run: { head_sha: state.run_head } } };
const core = {
  info: (message) => calls.push(['info', message]),
  setFailed: (message) => { calls.push(['failed', message]); process.exitCode = 1; },
};
const script = fs.readFileSync(process.argv[2], 'utf8');
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('require', 'github', 'context', 'core', script)(require, github, context, core)
  .then(() => fs.writeFileSync(process.env.CALLS, JSON.stringify(calls)));
"#;
