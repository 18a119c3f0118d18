//! The documentation holds together: every relative link in the
//! repository's Markdown names a file that exists (and a heading of it,
//! when it names one), and the README stays a page a newcomer finishes.

use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            // Built or installed things, and results of runs, are not ours.
            if !name.starts_with('.')
                && !["target", "node_modules", "results", "build", "venv"].contains(&name.as_str())
            {
                markdown_files(&path, found);
            }
        } else if name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.push(anchor_of(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of a Markdown text's inline links `[text](target)`, with
/// their line numbers, code blocks and code spans left out.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut in_code = false;
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans may hold `](`; drop them first.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            found.push((number + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    found
}

#[test]
fn every_relative_link_names_a_file_and_heading_that_exist() {
    let mut files = Vec::new();
    markdown_files(repo(), &mut files);
    assert!(files.len() > 10, "the Markdown files were not found");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let linked =
                if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            let shown =
                format!("{}:{line}: {target}", file.strip_prefix(repo()).unwrap().display());
            if !linked.exists() {
                broken.push(format!("{shown}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && linked.extension().is_some_and(|extension| extension == "md")
                && !anchors(&std::fs::read_to_string(&linked).unwrap()).iter().any(|a| a == anchor)
            {
                broken.push(format!("{shown}: no such heading"));
            }
        }
    }
    assert!(checked > 100, "only {checked} links were found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// A README a newcomer reads to the end: at most 300 lines, its first
/// screen with the two commands for a fresh machine (build and run the
/// main job; run every test) and no other command block.
#[test]
fn the_readme_is_short_and_its_first_screen_has_the_two_commands() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines; move the detail to docs/");
    // The first screen: what comes before the first section.
    let first_screen: Vec<&str> =
        readme.lines().take_while(|line| !line.starts_with("## ")).collect();
    assert!(first_screen.len() <= 40, "the first screen is {} lines", first_screen.len());
    let blocks: Vec<&[&str]> =
        first_screen.split(|line| line.starts_with("```")).skip(1).step_by(2).collect();
    assert_eq!(blocks.len(), 1, "the first screen has {} command blocks", blocks.len());
    assert_eq!(
        blocks[0],
        [
            "cargo build --release --locked && ./target/release/arena run tournaments/demo.toml",
            "cargo test --workspace --locked",
        ],
        "the first screen's commands"
    );
}
