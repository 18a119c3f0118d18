//! Boundaries a reading of the sources checks: Linux-only calls stay in
//! the system crate's `os`, and the rest of the workspace builds with its
//! stub (what a build for another platform gets); a file is replaced only
//! through `whole_file`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// Every Rust source of arena: the binary's crate (src/) and its layers'
/// (crates/*/src).
fn arena_sources() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&repo.join("src"), &mut files);
    rust_files(&repo.join("crates"), &mut files);
    assert!(files.len() > 100, "the sources were not found in {}", repo.display());
    files
}

fn crate_source(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates").join(path)
}

#[test]
fn no_code_outside_the_os_layer_calls_libc() {
    let os = crate_source("system/src/os");
    let offenders: Vec<String> = arena_sources()
        .iter()
        .filter(|path| !path.starts_with(&os))
        .filter(|path| std::fs::read_to_string(path).unwrap().contains("libc::"))
        .map(|path| path.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "libc is called outside {}: {offenders:?}", os.display());
}

/// ARCHITECTURE.md: no code but `whole_file` renames a file into place
/// (a half-written file could otherwise stand after a crash).
#[test]
fn only_whole_file_renames_a_file_into_place() {
    // A merge moves its whole staged folder; a test renames a bot's file to
    // change the bot.
    let allowed = [
        crate_source("base/src/whole_file.rs"),
        crate_source("tournament/src/results/store/merge.rs"),
        crate_source("tournament/src/identity.rs"),
    ];
    let offenders: Vec<String> = arena_sources()
        .iter()
        .filter(|path| !allowed.contains(path))
        .filter(|path| std::fs::read_to_string(path).unwrap().contains("rename("))
        .map(|path| path.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "a file is renamed outside whole_file.rs: {offenders:?}");
    let merge =
        std::fs::read_to_string(crate_source("tournament/src/results/store/merge.rs")).unwrap();
    assert_eq!(merge.matches("rename(").count(), 1, "merge.rs renames more than its staged folder");
}

#[test]
fn the_workspace_builds_with_the_os_layer_stubbed() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--locked", "--offline", "--workspace", "--lib", "--bins"])
        .current_dir(manifest)
        .env("RUSTFLAGS", "--cfg arena_os_stub")
        .env("CARGO_TARGET_DIR", manifest.join("target/os-stub"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the stubbed build fails:\n{stderr}");
    assert!(!stderr.contains("warning"), "the stubbed build warns:\n{stderr}");
}

/// The public documentation builds without a warning: no link to a private
/// item, none that leads nowhere.
#[test]
fn the_documentation_builds_without_warnings() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .args(["doc", "--quiet", "--workspace", "--no-deps", "--offline", "--locked"])
        .current_dir(manifest)
        .env("RUSTDOCFLAGS", "-D warnings")
        .env("CARGO_TARGET_DIR", manifest.join("target/doc-check"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the documentation does not build cleanly:\n{stderr}");
}

/// The arena crates a manifest's `[dependencies]` names.
fn arena_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let mut names: Vec<String> = manifest
        .get("dependencies")
        .and_then(|dependencies| dependencies.as_table())
        .map(|dependencies| {
            dependencies.keys().filter(|name| name.starts_with("arena-")).cloned().collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// ARCHITECTURE.md's Layers table is what the manifests say: each crate
/// uses exactly the crates the table lists for it, all below it.
#[test]
fn the_crates_use_the_layers_architecture_md_lists() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(repo.join("ARCHITECTURE.md")).unwrap();
    let table: Vec<(String, Vec<String>)> = architecture
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> =
                line.trim().strip_prefix('|')?.strip_suffix('|')?.split('|').collect();
            let name = cells.first()?.trim();
            (cells.len() == 2 && (name == "arena" || name.starts_with("arena-"))).then(|| {
                let mut uses: Vec<String> = cells[1]
                    .split(',')
                    .map(|used| used.trim().to_owned())
                    .filter(|used| used.starts_with("arena-"))
                    .collect();
                uses.sort();
                (name.to_owned(), uses)
            })
        })
        .collect();

    let mut crates: Vec<String> = std::fs::read_dir(repo.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("Cargo.toml").exists())
        .map(|path| format!("arena-{}", path.file_name().unwrap().to_string_lossy()))
        .collect();
    crates.push("arena".to_owned());
    crates.sort();
    let mut listed: Vec<String> = table.iter().map(|(name, _)| name.clone()).collect();
    listed.sort();
    assert_eq!(
        listed, crates,
        "ARCHITECTURE.md's Layers table lists other crates than crates/ holds"
    );

    for (position, (name, uses)) in table.iter().enumerate() {
        let manifest = match name.strip_prefix("arena-") {
            Some(folder) => repo.join("crates").join(folder).join("Cargo.toml"),
            None => repo.join("Cargo.toml"),
        };
        assert_eq!(
            &arena_dependencies(&manifest),
            uses,
            "{name} uses other crates than ARCHITECTURE.md says"
        );
        let below: Vec<&String> = table[..position].iter().map(|(name, _)| name).collect();
        for used in uses {
            assert!(below.contains(&used), "{name} uses {used}, which the table lists above it");
        }
    }
}

/// The calls of `files`' code (their tests left out) that write, create
/// or remove a file or folder, as `path: call` lines.
fn file_writes(files: &[PathBuf]) -> Vec<String> {
    let writes = [
        "File::create",
        "File::options",
        "OpenOptions",
        "fs::write",
        "create_dir",
        "remove_file",
        "remove_dir",
        "whole_file",
    ];
    let mut found = Vec::new();
    for path in files {
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        // A file's own tests may make the files they read.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        // A name of its own (`File::create`, not `StderrLogFile::create`).
        let names = |write: &str| {
            code.match_indices(write)
                .any(|(at, _)| !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        };
        for write in writes.iter().filter(|write| names(write)) {
            found.push(format!("{}: {write}", path.display()));
        }
    }
    found
}

/// ARCHITECTURE.md: the referee writes no file; it hands a game's
/// transcript and its programs' stderr logs to the results folder's owner
/// (arena-tournament's `results`), which names, creates and replaces them.
#[test]
fn the_referee_writes_no_file_of_a_results_folder() {
    let mut files = Vec::new();
    rust_files(&crate_source("referee/src"), &mut files);
    assert!(files.len() > 20, "the referee's sources were not found");
    let offenders = file_writes(&files);
    assert!(offenders.is_empty(), "the referee writes files: {offenders:?}");
}

/// ARCHITECTURE.md: in arena-tournament only the results folder's owner,
/// `results` (a game's transcript file and stderr logs, a void game's
/// transcript; its `store`: games.csv, settings, the final files; its
/// `archive`: the transcript archive and its index), writes in one; and
/// `build` writes a bot's build record in the bot's own folder.
#[test]
fn only_the_results_folders_owners_write_in_arena_tournament() {
    let src = crate_source("tournament/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "the tournament's sources were not found");
    let owners = [src.join("results"), src.join("build.rs")];
    let others: Vec<PathBuf> = files
        .into_iter()
        .filter(|file| !owners.iter().any(|owner| file.starts_with(owner)))
        .collect();
    let offenders = file_writes(&others);
    assert!(
        offenders.is_empty(),
        "files written outside the results folder's owners: {offenders:?}"
    );
}

/// The top-level modules of a crate's `src` that `file`'s code (its tests
/// left out) names: by `crate::NAME`, or by as many `super::` as climb
/// from the file to the crate's root.
fn modules_named(src: &Path, file: &Path, modules: &[String]) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap();
    let parts: Vec<String> =
        relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file_name = parts.last().unwrap();
    // How deep the file's module is below the root (`a.rs` and `a/mod.rs`
    // are 1 deep).
    let depth = parts.len() - usize::from(file_name == "mod.rs");
    let text = std::fs::read_to_string(file).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let root = "super::".repeat(depth);
    let mut named = Vec::new();
    for module in modules {
        let used = [format!("crate::{module}"), format!("{root}{module}")].iter().any(|path| {
            code.match_indices(path.as_str()).any(|(at, _)| {
                let before = code[..at].chars().last();
                let after = code[at + path.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                    && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        });
        // `use crate::{a::..., b}` names them too.
        let grouped = code.match_indices("crate::{").any(|(at, _)| {
            let group = &code[at + 8..];
            let group = &group[..group.find("};").unwrap_or(group.len())];
            group
                .split(|c: char| c == ',' || c == '{' || c.is_whitespace())
                .any(|item| item == module.as_str() || item.starts_with(&format!("{module}::")))
        });
        if used || grouped {
            named.push(module.clone());
        }
    }
    named
}

/// ARCHITECTURE.md: no circle at any level. Cargo refuses one between
/// crates; within a crate, a top-level module uses only modules that do
/// not use it back, through any chain.
#[test]
fn no_modules_of_a_crate_use_each_other_in_a_circle() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<PathBuf> = std::fs::read_dir(repo.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("src"))
        .collect();
    sources.push(repo.join("src"));
    let mut circles = Vec::new();
    for src in &sources {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        let module_of = |file: &Path| {
            let first = file.strip_prefix(src).unwrap().iter().next().unwrap();
            first.to_string_lossy().trim_end_matches(".rs").to_owned()
        };
        let mut modules: Vec<String> = files
            .iter()
            .map(|file| module_of(file))
            .filter(|module| module != "lib" && module != "main")
            .collect();
        modules.sort();
        modules.dedup();
        let mut uses: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            Default::default();
        for file in &files {
            let module = module_of(file);
            if module == "lib" || module == "main" {
                continue;
            }
            for named in modules_named(src, file, &modules) {
                if named != module {
                    uses.entry(module.clone()).or_default().insert(named);
                }
            }
        }
        // Which modules each reaches, through any chain.
        let reaches = |from: &String| {
            let mut seen = std::collections::BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(module) = todo.pop() {
                for next in uses.get(&module).into_iter().flatten() {
                    if seen.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
            seen
        };
        for module in &modules {
            let mut circle: Vec<String> = reaches(module)
                .into_iter()
                .filter(|other| other == module || reaches(other).contains(module))
                .collect();
            circle.sort();
            if circle.len() > 1 && circle[0] == *module {
                circles.push(format!("{}: {}", src.display(), circle.join(" <-> ")));
            }
        }
    }
    assert!(circles.is_empty(), "modules in a circle:\n{}", circles.join("\n"));
}

/// The code of `path` without its tests (a file's tests come last, after
/// `#[cfg(test)]`; a `tests.rs` file is all tests) and without its comment
/// lines.
fn code_of(path: &Path) -> String {
    if path.file_name().is_some_and(|name| name == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// ARCHITECTURE.md: games do no I/O, read no clock and draw randomness only
/// from the setup generator.
#[test]
fn the_games_do_no_io_read_no_clock_and_draw_only_from_the_setup_generator() {
    let mut files = Vec::new();
    rust_files(&crate_source("games/src"), &mut files);
    let setup_rng = crate_source("games/src/setup_rng.rs");
    let outside = [
        "std::fs",
        "std::io",
        "std::net",
        "std::process",
        "std::env",
        "std::thread",
        "std::time",
        "Instant",
        "SystemTime",
        "tokio",
        "File::",
    ];
    let mut found = Vec::new();
    for path in &files {
        let code = code_of(path);
        for word in outside.iter().filter(|word| code.contains(**word)) {
            found.push(format!("{}: {word}", path.display()));
        }
        if path != &setup_rng && code.contains("rand::") {
            found.push(format!("{}: rand::", path.display()));
        }
    }
    assert!(found.is_empty(), "a game reaches outside its rules: {found:?}");
    // The scan sees what it looks for: the generator itself draws from rand.
    assert!(code_of(&setup_rng).contains("rand::"), "the scan did not read setup_rng.rs");
}

/// ARCHITECTURE.md: arena's process never calls `waitpid(-1)`, which would
/// steal tokio's children; only a box's first process does, for its own.
#[test]
fn only_a_boxes_first_process_waits_for_any_child() {
    let init = crate_source("system/src/os/linux/sandbox/boxed/init.rs");
    let callers: Vec<PathBuf> = arena_sources()
        .into_iter()
        .filter(|path| code_of(path).replace(' ', "").contains("waitpid(-1"))
        .collect();
    assert_eq!(callers, [init], "waitpid(-1) is called outside a box's first process");
}

/// ARCHITECTURE.md: the library crates' errors are typed; only
/// arena-tournament's file work (and the binary's crate, the edge) uses
/// anyhow.
#[test]
fn no_library_crate_but_the_tournament_depends_on_anyhow() {
    let mut users = Vec::new();
    for entry in std::fs::read_dir(crate_source("")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        let manifest: toml::Table = toml::from_str(&text).unwrap();
        let name = manifest["package"]["name"].as_str().unwrap().to_owned();
        if manifest.get("dependencies").and_then(|table| table.get("anyhow")).is_some() {
            users.push(name);
        }
    }
    assert_eq!(users, ["arena-tournament"], "library crates that depend on anyhow");
}

/// ARCHITECTURE.md: between clone and exec a child makes raw system calls
/// only, with no allocation: the code a cloned child runs (the sandbox
/// steps of `child.rs`, and a box's first process and its bot's start in
/// `boxed/`) calls nothing that allocates. What it uses is prepared before
/// the clone (their types may hold a `Vec`; building one is what is refused).
#[test]
fn the_code_a_cloned_child_runs_does_not_allocate() {
    let sandbox = crate_source("system/src/os/linux/sandbox");
    let child_code = [
        "child.rs",
        "boxed/init.rs",
        "boxed/bot.rs",
        "boxed/ipc.rs",
        "boxed/root.rs",
        "boxed/scratch.rs",
        "boxed/failed.rs",
    ];
    let allocating = [
        "Vec::",
        "vec!",
        "String::",
        "format!",
        "Box::new",
        ".to_string()",
        ".to_owned()",
        ".to_vec()",
        ".collect",
        "CString::new",
        "println!",
        "eprintln!",
        "std::fs::",
        ".clone()",
    ];
    let mut found = Vec::new();
    for file in child_code {
        let code = code_of(&sandbox.join(file));
        assert!(code.contains("libc::"), "{file}: the scan did not read a child's code");
        for call in allocating.iter().filter(|call| code.contains(**call)) {
            found.push(format!("{file}: {call}"));
        }
    }
    assert!(found.is_empty(), "a cloned child's code allocates: {found:?}");
}
