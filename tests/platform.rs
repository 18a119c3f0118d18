//! Boundaries a reading of the sources checks: Linux-only calls stay in
//! src/os, and the rest of the crate builds with its stub (what a build for
//! another platform gets); a file is replaced only through `whole_file`.

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

#[test]
fn no_code_outside_the_os_layer_calls_libc() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "the sources were not found in {}", src.display());
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| !path.starts_with(src.join("os")))
        .filter(|path| std::fs::read_to_string(path).unwrap().contains("libc::"))
        .map(|path| path.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "libc is called outside src/os: {offenders:?}");
}

/// ARCHITECTURE.md: no code but `whole_file` renames a file into place
/// (a half-written file could otherwise stand after a crash).
#[test]
fn only_whole_file_renames_a_file_into_place() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // A merge moves its whole staged folder; a test renames a bot's file to
    // change the bot.
    let allowed = [
        src.join("whole_file.rs"),
        src.join("tournament/store/merge.rs"),
        src.join("tournament/identity.rs"),
    ];
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| !allowed.contains(path))
        .filter(|path| std::fs::read_to_string(path).unwrap().contains("rename("))
        .map(|path| path.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "a file is renamed outside src/whole_file.rs: {offenders:?}");
    let merge = std::fs::read_to_string(src.join("tournament/store/merge.rs")).unwrap();
    assert_eq!(merge.matches("rename(").count(), 1, "merge.rs renames more than its staged folder");
}

#[test]
fn the_crate_builds_with_the_os_layer_stubbed() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--locked", "--offline", "--lib", "--bins"])
        .current_dir(manifest)
        .env("RUSTFLAGS", "--cfg arena_os_stub")
        .env("CARGO_TARGET_DIR", manifest.join("target/os-stub"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the stubbed build fails:\n{stderr}");
    assert!(!stderr.contains("warning"), "the stubbed build warns:\n{stderr}");
}
