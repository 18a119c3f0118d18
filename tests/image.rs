//! The image and the Kubernetes example, as far as a machine without a
//! container engine can check them: the Dockerfile is read instruction by
//! instruction (every COPY source exists and is in the build context, every
//! stage it copies from is defined, every RUN step is shell that parses, the
//! build stage holds every workspace member), and the Indexed Job's pod
//! command runs here once per completion index, then the merge and report
//! its comment names: the shards' standings equal one machine's.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

/// One instruction of a Dockerfile: its keyword (upper case), its flags
/// (`--from=build`) and the rest of its line, continuation lines joined.
#[derive(Debug)]
struct Instruction {
    keyword: String,
    flags: Vec<String>,
    arguments: String,
    line: usize,
}

/// The instructions of a Dockerfile, as Docker reads them: a line ending
/// in `\` goes on on the next, and comment lines (also inside a
/// continuation) are dropped.
fn instructions(text: &str) -> Vec<Instruction> {
    let mut found = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && pending.is_none()) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((index + 1, String::new()));
        let (body, continues) = match trimmed.strip_suffix('\\') {
            Some(body) => (body, true),
            None => (trimmed, false),
        };
        joined.push_str(body);
        joined.push(' ');
        if continues {
            pending = Some((start, joined));
            continue;
        }
        let joined = joined.trim();
        let (keyword, rest) = joined.split_once(char::is_whitespace).unwrap_or((joined, ""));
        let mut flags = Vec::new();
        let mut rest = rest.trim_start();
        while let Some(flag_start) = rest.strip_prefix("--") {
            let (flag, after) =
                flag_start.split_once(char::is_whitespace).unwrap_or((flag_start, ""));
            flags.push(flag.to_owned());
            rest = after.trim_start();
        }
        found.push(Instruction {
            keyword: keyword.to_ascii_uppercase(),
            flags,
            arguments: rest.to_owned(),
            line: start,
        });
    }
    assert!(pending.is_none(), "the Dockerfile ends inside a continued line");
    found
}

/// The patterns of .dockerignore (comments and blank lines left out).
fn docker_ignored(repo: &Path) -> Vec<String> {
    std::fs::read_to_string(repo.join(".dockerignore"))
        .expect("a .dockerignore at the repository's root (the build context)")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn shell_parses(shell: &str, script: &str) -> Result<(), String> {
    let output = Command::new(shell).args(["-n", "-c", script]).output().expect("the shell runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn the_dockerfile_builds_from_what_the_repository_holds() {
    let repo = common::repo_dir();
    let path = repo.join("examples/image/Dockerfile");
    let text = std::fs::read_to_string(&path).unwrap();
    let ignored = docker_ignored(repo);
    for needed in [".git", "target", "results"] {
        assert!(ignored.iter().any(|pattern| pattern == needed), ".dockerignore lacks {needed}");
    }
    let known = [
        "FROM",
        "RUN",
        "COPY",
        "ADD",
        "WORKDIR",
        "ENV",
        "ARG",
        "CMD",
        "ENTRYPOINT",
        "LABEL",
        "USER",
        "EXPOSE",
        "VOLUME",
        "SHELL",
        "STOPSIGNAL",
        "HEALTHCHECK",
        "ONBUILD",
    ];
    let mut stages: Vec<String> = Vec::new();
    let mut build_stage_copies: Vec<String> = Vec::new();
    let mut runs = String::new();
    for instruction in instructions(&text) {
        let at = format!("Dockerfile line {}", instruction.line);
        assert!(known.contains(&instruction.keyword.as_str()), "{at}: {}", instruction.keyword);
        match instruction.keyword.as_str() {
            "FROM" => {
                let words: Vec<&str> = instruction.arguments.split_whitespace().collect();
                match words.as_slice() {
                    [_image, as_word, name] if as_word.eq_ignore_ascii_case("as") => {
                        stages.push((*name).to_owned())
                    }
                    [_image] => stages.push(String::new()),
                    other => panic!("{at}: FROM {other:?}"),
                }
            }
            "RUN" => {
                assert!(!instruction.arguments.starts_with('['), "{at}: RUN in exec form");
                for shell in ["sh", "bash"] {
                    if let Err(error) = shell_parses(shell, &instruction.arguments) {
                        panic!("{at}: {shell} -n refuses `{}`: {error}", instruction.arguments);
                    }
                }
                runs.push_str(&instruction.arguments);
                runs.push('\n');
            }
            "COPY" | "ADD" => {
                let words: Vec<&str> = instruction.arguments.split_whitespace().collect();
                assert!(words.len() >= 2, "{at}: COPY needs a source and a destination");
                let sources = &words[..words.len() - 1];
                if let Some(from) = instruction.flags.iter().find_map(|f| f.strip_prefix("from=")) {
                    assert!(
                        stages.iter().any(|stage| stage == from),
                        "{at}: COPY --from={from}, a stage not defined before it ({stages:?})"
                    );
                    continue;
                }
                for source in sources {
                    if *source != "." {
                        assert!(repo.join(source).exists(), "{at}: COPY {source}: no such file");
                        let first = source.split('/').next().unwrap();
                        assert!(
                            !ignored.iter().any(|pattern| pattern == first),
                            "{at}: COPY {source}, which .dockerignore leaves out"
                        );
                    }
                    if stages.len() == 1 {
                        build_stage_copies.push(source.trim_end_matches('/').to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    assert!(stages.len() >= 2 && stages[0] == "build", "a build stage, then the image: {stages:?}");
    assert!(runs.contains("cargo build --release --locked"), "{runs}");
    for runtime in ["python3", "nodejs", "default-jdk-headless", "g++", "golang-go"] {
        assert!(runs.contains(runtime), "the image does not install {runtime}");
    }
    assert!(runs.contains("arena build \"$LEAGUE\""), "the image does not build the league's bots");

    // The build stage copies everything the workspace builds from.
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(repo.join("Cargo.toml")).unwrap()).unwrap();
    let members = manifest["workspace"]["members"].as_array().unwrap();
    for member in members {
        let member = member.as_str().unwrap();
        let needed: Vec<String> = if member == "." {
            vec!["Cargo.toml".into(), "Cargo.lock".into(), "src".into()]
        } else {
            // A glob member (`crates/*`) is copied as its folder.
            vec![member.trim_end_matches("/*").to_owned()]
        };
        for path in needed {
            assert!(
                build_stage_copies.iter().any(|copied| copied == &path),
                "the build stage lacks {path} (copied: {build_stage_copies:?})"
            );
        }
    }
    assert!(!repo.join("build.rs").exists(), "a build script the build stage does not copy");
}

/// The value at `keys` in a YAML document (a number indexes a sequence).
fn at<'a>(document: &'a Yaml, keys: &[&str]) -> &'a Yaml {
    keys.iter().fold(document, |value, key| match key.parse::<usize>() {
        Ok(index) => &value[index],
        Err(_) => &value[*key],
    })
}

#[test]
fn the_kubernetes_job_runs_its_shards_and_they_merge_into_one_machines_results() {
    let repo = common::repo_dir();
    let text = std::fs::read_to_string(repo.join("examples/k8s-indexed-job.yaml")).unwrap();
    let documents = YamlLoader::load_from_str(&text).expect("the Job parses as YAML");
    let job = &documents[0];
    assert_eq!(at(job, &["kind"]).as_str(), Some("Job"));
    assert_eq!(at(job, &["spec", "completionMode"]).as_str(), Some("Indexed"));
    let completions = at(job, &["spec", "completions"]).as_i64().unwrap();
    let container = at(job, &["spec", "template", "spec", "containers", "0"]);
    let image = container["image"].as_str().unwrap();
    let readme = std::fs::read_to_string(repo.join("examples/image/README.md")).unwrap();
    assert!(
        readme.contains(&format!("-t {image} .")),
        "the Job's image {image} is not the one the image's README builds"
    );
    assert_eq!(container["workingDir"].as_str(), Some("/league"));
    let command: Vec<&str> =
        container["command"].as_vec().unwrap().iter().map(|word| word.as_str().unwrap()).collect();
    let env = container["env"].as_vec().unwrap();
    let variable =
        |name: &str| env.iter().find(|entry| entry["name"].as_str() == Some(name)).cloned();
    let key_ref = variable("ARENA_SEED_KEY").expect("the shards get the seed key");
    assert!(!key_ref["valueFrom"]["secretKeyRef"]["name"].is_badvalue(), "from a secret");
    assert_eq!(variable("RESULTS").unwrap()["value"].as_str(), Some("/results"));
    let merge_count = format!("examples/leaderboard.sh merge {completions}");
    assert!(text.contains(&merge_count), "the Job's comment does not say `{merge_count}`");

    // Each pod's command, run here from the repository (the image's
    // /league), its volume a temporary folder.
    let folder = tempfile::tempdir().unwrap();
    let league = write_league(folder.path());
    let results = folder.path().join("results");
    let key = "the cluster's secret";
    let run = |program: &str, args: &[String], extra: &[(&str, String)]| {
        let output = Command::new(program)
            .args(args)
            .current_dir(repo)
            .env("ARENA", env!("CARGO_BIN_EXE_arena"))
            .env("LEAGUE", &league)
            .env("RESULTS", &results)
            .env("ARENA_SEED_KEY", key)
            .envs(extra.iter().map(|(name, value)| (*name, value)))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let (program, args) = command.split_first().unwrap();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    for index in 0..completions {
        run(program, &args, &[("JOB_COMPLETION_INDEX", index.to_string())]);
    }
    let script = repo.join("examples/leaderboard.sh").to_str().unwrap().to_owned();
    run("bash", &[script.clone(), "merge".into(), completions.to_string()], &[]);
    run("bash", &[script, "report".into()], &[]);

    let single = folder.path().join("single");
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", league.to_str().unwrap(), "--out", single.to_str().unwrap(), "--quiet"])
        .env("ARENA_SEED_KEY", key)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let merged = results.join("league");
    for file in ["standings.csv", "crosstable.csv"] {
        assert_eq!(
            std::fs::read_to_string(merged.join(file)).unwrap(),
            std::fs::read_to_string(single.join(file)).unwrap(),
            "{file} of {completions} pods differs from one machine's"
        );
    }
    let without_timing = |rows: Vec<common::Row>| -> Vec<String> {
        rows.iter()
            .map(|row| {
                ["game_index", "round", "seat1", "seat2", "seed", "winner", "reason", "score1"]
                    .map(|column| row[column].to_owned())
                    .join(",")
            })
            .collect()
    };
    assert_eq!(
        without_timing(common::read_games_csv(&merged)),
        without_timing(common::read_games_csv(&single))
    );
    assert!(results.join("leaderboard.html").exists() && results.join("summary.md").exists());
}

/// A small league of the Rust bots, in `folder`.
fn write_league(folder: &Path) -> std::path::PathBuf {
    let random = common::rust_random_bot().to_str().unwrap().to_owned();
    let strong = common::rust_strong_bot().to_str().unwrap().to_owned();
    let league = folder.join("league.toml");
    std::fs::write(
        &league,
        format!(
            "game = \"number-snatch\"\nseed = 5\ngames_per_pair = 6\n\
             [[bot]]\nname = \"random\"\ncommand = [{random:?}]\n\
             [[bot]]\nname = \"strong\"\ncommand = [{strong:?}]\n\
             [[bot]]\nname = \"quiet\"\ncommand = [{random:?}, \"--quiet\"]\n"
        ),
    )
    .unwrap();
    league
}
