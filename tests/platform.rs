//! The OS layer's boundary: Linux-only calls stay in src/os, and the rest of
//! the crate builds with its stub (what a build for another platform gets).

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
