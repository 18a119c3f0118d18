//! A small stand-in for GitHub Actions, to run the example workflows here:
//! jobs in the order their `needs` give, a job per matrix entry, each step's
//! `run` script in bash with the job's environment, and the actions the
//! workflows use done by hand (checkout clones the fixture repository,
//! cache and artifacts are folders). Expressions (`${{ ... }}`, `if:`) are
//! evaluated by a small evaluator of the operators the workflows use.
//! Anything it does not know fails the test, so a workflow that grows
//! something new must teach it here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use yaml_rust2::{Yaml, YamlLoader};

#[path = "actions/expressions.rs"]
mod expressions;

use expressions::truthy;

/// An action the runner does not do itself: the test's handler gets its
/// `uses`, its evaluated `with` and the job's workspace, and gives its
/// outputs.
pub type Handler<'a> =
    dyn FnMut(&str, &BTreeMap<String, String>, &Path) -> BTreeMap<String, String> + 'a;

/// One workflow run.
pub struct Runner {
    /// The workflow, parsed.
    pub workflow: Yaml,
    /// The fixture repository that checkout clones.
    pub repository: PathBuf,
    /// The commit checked out (github.sha).
    pub sha: String,
    /// The event (github.event).
    pub event: Value,
    pub secrets: BTreeMap<String, String>,
    /// Where caches, artifacts and each job's folders live.
    pub root: PathBuf,
    /// Extra environment for every step (the binaries under test).
    pub extra_env: Vec<(String, String)>,
    /// Each job's step summary, by job (and matrix entry).
    pub summaries: BTreeMap<String, String>,
    /// Each job's workspace after it ran, by job (and matrix entry).
    pub workspaces: BTreeMap<String, PathBuf>,
}

/// The outcome of one job.
#[derive(Debug)]
pub struct JobOutcome {
    pub name: String,
    pub success: bool,
    /// Each step's bash output, in order.
    pub log: String,
}

impl Runner {
    pub fn new(file: &Path, repository: &Path, sha: &str, root: &Path) -> Runner {
        let text = std::fs::read_to_string(file).unwrap();
        let mut documents = YamlLoader::load_from_str(&text).unwrap();
        Runner {
            workflow: documents.remove(0),
            repository: repository.to_owned(),
            sha: sha.to_owned(),
            event: json!({}),
            secrets: BTreeMap::new(),
            root: root.to_owned(),
            extra_env: Vec::new(),
            summaries: BTreeMap::new(),
            workspaces: BTreeMap::new(),
        }
    }

    /// A cache entry made beforehand (what an earlier run saved).
    pub fn seed_cache(&self, key: &str, content: &Path) {
        copy_tree(content, &self.root.join("caches").join(key));
    }

    /// Runs every job, `needs` first; stops at the first job that fails.
    pub fn run(&mut self, handler: &mut Handler<'_>) -> Vec<JobOutcome> {
        let jobs = self.workflow["jobs"].as_hash().expect("jobs").clone();
        let mut done: Vec<String> = Vec::new();
        let mut outcomes = Vec::new();
        while done.len() < jobs.len() {
            let (id, job) = jobs
                .iter()
                .map(|(id, job)| (id.as_str().unwrap().to_owned(), job))
                .find(|(id, job)| {
                    !done.contains(id) && needs(job).iter().all(|need| done.contains(need))
                })
                .expect("a job whose needs are done");
            done.push(id.clone());
            let mut matrix_entries = vec![BTreeMap::new()];
            if let Some(matrix) = job["strategy"]["matrix"].as_hash() {
                matrix_entries = Vec::new();
                for (key, values) in matrix {
                    for value in values.as_vec().expect("a matrix list") {
                        matrix_entries.push(BTreeMap::from([(
                            key.as_str().unwrap().to_owned(),
                            scalar(value),
                        )]));
                    }
                }
            }
            for matrix in matrix_entries {
                let outcome = self.run_job(&id, job, &matrix, handler);
                let success = outcome.success;
                outcomes.push(outcome);
                if !success {
                    return outcomes;
                }
            }
        }
        outcomes
    }

    fn run_job(
        &mut self,
        id: &str,
        job: &Yaml,
        matrix: &BTreeMap<String, String>,
        handler: &mut Handler<'_>,
    ) -> JobOutcome {
        let name = match matrix.values().next() {
            Some(value) => format!("{id} ({value})"),
            None => id.to_owned(),
        };
        let folder = self.root.join("jobs").join(name.replace([' ', '(', ')'], "_"));
        let workspace = folder.join("workspace");
        let temp = folder.join("temp");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        let summary = folder.join("summary.md");
        std::fs::write(&summary, "").unwrap();
        let mut scope = Scope {
            runner: self,
            matrix: matrix.clone(),
            env: BTreeMap::new(),
            steps: BTreeMap::new(),
            temp: temp.clone(),
            failed: false,
        };
        scope.env = scope.env_of(&self.workflow["env"], &BTreeMap::new());
        scope.env = scope.env_of(&job["env"], &scope.env.clone());
        let mut outcome = JobOutcome { name: name.clone(), success: true, log: String::new() };
        if !job["if"].is_badvalue() && !truthy(&scope.evaluate(job["if"].as_str().unwrap())) {
            outcome.log.push_str("skipped by its if\n");
            return outcome;
        }
        let mut saves: Vec<(String, PathBuf)> = Vec::new();
        for step in job["steps"].as_vec().expect("steps") {
            let condition = step["if"].as_str().unwrap_or("success()");
            if !truthy(&scope.evaluate(condition)) {
                continue;
            }
            let step_env = scope.env_of(&step["env"], &scope.env.clone());
            let with: BTreeMap<String, String> = step["with"]
                .as_hash()
                .into_iter()
                .flatten()
                .map(|(key, value)| {
                    (key.as_str().unwrap().to_owned(), scope.substitute(&scalar(value)))
                })
                .collect();
            let mut outputs = BTreeMap::new();
            let ok = if let Some(script) = step["run"].as_str() {
                let output_file = temp.join("github-output");
                std::fs::write(&output_file, "").unwrap();
                let script = scope.substitute(script);
                let ran = Command::new("bash")
                    .args(["-e", "-o", "pipefail", "-c", &script])
                    .current_dir(&workspace)
                    .env_clear()
                    .env("PATH", std::env::var("PATH").unwrap())
                    .env("HOME", std::env::var("HOME").unwrap_or_default())
                    .env("CI", "true")
                    .env("RUNNER_TEMP", &temp)
                    .env("GITHUB_WORKSPACE", &workspace)
                    .env("GITHUB_OUTPUT", &output_file)
                    .env("GITHUB_STEP_SUMMARY", &summary)
                    .envs(scope.runner.extra_env.iter().cloned())
                    .envs(&step_env)
                    .output()
                    .unwrap();
                outcome.log.push_str(&format!(
                    "--- run: {}\n{}{}",
                    script.lines().next().unwrap_or(""),
                    String::from_utf8_lossy(&ran.stdout),
                    String::from_utf8_lossy(&ran.stderr)
                ));
                for line in std::fs::read_to_string(&output_file).unwrap().lines() {
                    if let Some((key, value)) = line.split_once('=') {
                        outputs.insert(key.to_owned(), value.to_owned());
                    }
                }
                ran.status.success()
            } else {
                let uses = step["uses"].as_str().expect("a step runs or uses");
                outcome.log.push_str(&format!("--- uses: {uses}\n"));
                match scope.action(uses, &with, &workspace, &mut saves, handler) {
                    Ok(done) => {
                        outputs = done;
                        true
                    }
                    Err(error) => {
                        outcome.log.push_str(&format!("{error}\n"));
                        false
                    }
                }
            };
            if let Some(id) = step["id"].as_str() {
                scope.steps.insert(id.to_owned(), outputs);
            }
            if !ok {
                scope.failed = true;
                outcome.success = false;
            }
        }
        if outcome.success {
            for (key, path) in saves {
                let target = self.root.join("caches").join(&key);
                if !target.exists() && path.exists() {
                    copy_tree(&path, &target);
                }
            }
        }
        self.summaries.insert(name.clone(), std::fs::read_to_string(&summary).unwrap());
        self.workspaces.insert(name, workspace);
        outcome
    }
}

fn needs(job: &Yaml) -> Vec<String> {
    match &job["needs"] {
        Yaml::String(one) => vec![one.clone()],
        Yaml::Array(many) => many.iter().map(|need| need.as_str().unwrap().to_owned()).collect(),
        _ => Vec::new(),
    }
}

/// A YAML scalar as the string Actions sees.
pub fn scalar(value: &Yaml) -> String {
    match value {
        Yaml::String(text) | Yaml::Real(text) => text.clone(),
        Yaml::Integer(number) => number.to_string(),
        Yaml::Boolean(flag) => flag.to_string(),
        Yaml::Null => String::new(),
        other => panic!("not a scalar: {other:?}"),
    }
}

struct Scope<'a> {
    runner: &'a Runner,
    matrix: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
    temp: PathBuf,
    failed: bool,
}

impl Scope<'_> {
    /// `table` (an `env:` mapping) evaluated over `base`.
    fn env_of(&self, table: &Yaml, base: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut env = base.clone();
        for (key, value) in table.as_hash().into_iter().flatten() {
            env.insert(key.as_str().unwrap().to_owned(), self.substitute(&scalar(value)));
        }
        env
    }

    /// `text` with every `${{ expression }}` replaced by its value.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("a closed expression") + start;
            let value = self.evaluate(rest[start + 3..end].trim());
            out.push_str(&match value {
                Value::String(text) => text,
                Value::Null => String::new(),
                other => other.to_string(),
            });
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn evaluate(&self, expression: &str) -> Value {
        let expression = expression.trim();
        let expression = expression
            .strip_prefix("${{")
            .and_then(|inner| inner.strip_suffix("}}"))
            .unwrap_or(expression);
        expressions::evaluate(expression, self)
    }

    fn context(&self, path: &str) -> Value {
        let parts: Vec<&str> = path.split('.').collect();
        let runner = self.runner;
        match parts.as_slice() {
            ["env", name] => self.env.get(*name).map_or(Value::Null, |v| json!(v)),
            ["matrix", name] => json!(self.matrix[*name]),
            ["secrets", name] => runner.secrets.get(*name).map_or(json!(""), |v| json!(v)),
            ["vars", _] => json!(""),
            ["runner", "temp"] => json!(self.temp.to_str().unwrap()),
            ["runner", "os"] => json!("Linux"),
            ["github", "sha"] => json!(runner.sha),
            ["github", "repository"] => json!("owner/league"),
            ["github", "token"] => json!("a-token"),
            ["github", "event", rest @ ..] => {
                rest.iter().fold(runner.event.clone(), |value, key| value[*key].clone())
            }
            ["steps", id, "outputs", key] => self
                .steps
                .get(*id)
                .and_then(|outputs| outputs.get(*key))
                .map_or(Value::Null, |v| json!(v)),
            _ => panic!("the stand-in runner does not know `{path}`"),
        }
    }

    fn call(&self, function: &str, arguments: Vec<Value>) -> Value {
        match function {
            "always" => json!(true),
            "success" => json!(!self.failed),
            "failure" => json!(self.failed),
            // A stand-in: the same sources give the same key.
            "hashFiles" => json!(format!("sources-{}", arguments.len())),
            other => panic!("the stand-in runner does not know {other}()"),
        }
    }

    /// The actions the workflows use, done here.
    fn action(
        &self,
        uses: &str,
        with: &BTreeMap<String, String>,
        workspace: &Path,
        saves: &mut Vec<(String, PathBuf)>,
        handler: &mut Handler<'_>,
    ) -> Result<BTreeMap<String, String>, String> {
        let (name, version) = uses.split_once('@').expect("an action with a version");
        assert!(version.starts_with('v'), "{uses}: pin a major version");
        let runner = self.runner;
        let artifacts = runner.root.join("artifacts");
        let in_workspace = |path: &str| workspace.join(path);
        match name {
            "actions/checkout" => {
                let target = in_workspace(with.get("path").map_or("", String::as_str));
                let repository = with.get("repository").map_or("owner/league", String::as_str);
                assert_eq!(repository, "owner/league", "checkout of another repository");
                let reference = with.get("ref").cloned().unwrap_or_else(|| runner.sha.clone());
                git(
                    &[
                        "clone",
                        "--quiet",
                        runner.repository.to_str().unwrap(),
                        target.to_str().unwrap(),
                    ],
                    workspace,
                );
                git(&["checkout", "--quiet", &reference], &target);
                Ok(BTreeMap::new())
            }
            "actions/cache" | "actions/cache/restore" => {
                let key = &with["key"];
                let path = in_workspace(&with["path"]);
                let caches = runner.root.join("caches");
                let restore_keys: Vec<&str> =
                    with.get("restore-keys").map_or(Vec::new(), |keys| keys.lines().collect());
                let mut hit = false;
                let found = if caches.join(key).exists() {
                    hit = true;
                    Some(caches.join(key))
                } else {
                    restore_keys.iter().find_map(|prefix| {
                        let mut matching: Vec<PathBuf> = std::fs::read_dir(&caches)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .filter(|entry| entry.file_name().to_str().unwrap().starts_with(prefix))
                            .map(|entry| entry.path())
                            .collect();
                        matching.sort_by_key(|path| {
                            std::fs::metadata(path).unwrap().modified().unwrap()
                        });
                        matching.pop()
                    })
                };
                if let Some(found) = found {
                    copy_tree(&found, &path);
                }
                if name == "actions/cache" && !hit {
                    saves.push((key.clone(), path));
                }
                Ok(BTreeMap::from([("cache-hit".to_owned(), hit.to_string())]))
            }
            "actions/upload-artifact" => {
                let path = Path::new(&with["path"]);
                let path =
                    if path.is_absolute() { path.to_owned() } else { in_workspace(&with["path"]) };
                let target = artifacts.join(&with["name"]);
                assert!(!target.exists(), "artifact {} uploaded twice", with["name"]);
                if path.is_file() {
                    // A file is downloaded into the folder asked for.
                    std::fs::create_dir_all(&target).unwrap();
                    std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
                } else if path.exists() {
                    copy_tree(&path, &target);
                }
                Ok(BTreeMap::new())
            }
            "actions/download-artifact" => {
                let path = Path::new(with.get("path").map_or(".", String::as_str));
                let path = if path.is_absolute() { path.to_owned() } else { workspace.join(path) };
                if let Some(pattern) = with.get("pattern") {
                    let prefix = pattern.strip_suffix('*').expect("a pattern ending in *");
                    for entry in std::fs::read_dir(&artifacts).unwrap().flatten() {
                        let artifact = entry.file_name().to_str().unwrap().to_owned();
                        if artifact.starts_with(prefix) {
                            copy_tree(&entry.path(), &path.join(&artifact));
                        }
                    }
                } else {
                    let source = artifacts.join(&with["name"]);
                    if !source.exists() {
                        return Err(format!("no artifact {}", with["name"]));
                    }
                    copy_tree(&source, &path);
                }
                Ok(BTreeMap::new())
            }
            "actions/upload-pages-artifact" => {
                let site = in_workspace(&with["path"]);
                if !site.join("index.html").exists() {
                    return Err(format!("{} has no index.html", site.display()));
                }
                copy_tree(&site, &artifacts.join("github-pages"));
                Ok(BTreeMap::new())
            }
            "actions/deploy-pages" => {
                if !artifacts.join("github-pages").exists() {
                    return Err("nothing to deploy".to_owned());
                }
                Ok(BTreeMap::from([(
                    "page_url".to_owned(),
                    "https://owner.github.io/league/".to_owned(),
                )]))
            }
            other => Ok(handler(other, with, workspace)),
        }
    }
}

pub fn git(args: &[&str], dir: &Path) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "advice.detachedHead=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Copies the file or folder `from` to `to` (merged into a folder there).
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        let status = Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", from.display()))
            .arg(to)
            .status()
            .unwrap();
        assert!(status.success());
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}
