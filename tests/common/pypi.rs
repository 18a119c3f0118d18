//! A venv under target/ with one package from PyPI, made once per test
//! binary: the examples that run on other frameworks' Python packages
//! (OpenSpiel, python-chess) are tested with the version their README pins.

use std::path::PathBuf;
use std::process::Command;

use super::repo_dir;

/// target/`folder`, a venv holding `requirement` (`open_spiel==2.0.2`),
/// made where `check` (Python code, such as `import pyspiel`) fails in it;
/// `None`, said loudly on stderr for `test_file`, where PyPI cannot be
/// reached.
pub fn venv_with(folder: &str, requirement: &str, check: &str, test_file: &str) -> Option<PathBuf> {
    let venv = repo_dir().join("target").join(folder);
    let python = venv.join("bin/python");
    let ready = || Command::new(&python).args(["-c", check]).status().is_ok_and(|s| s.success());
    if ready() {
        return Some(venv);
    }
    let project = requirement.split("==").next().unwrap_or(requirement);
    let index = format!(
        "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/{project}/', timeout=20)"
    );
    let reachable =
        Command::new("python3").args(["-c", &index]).status().is_ok_and(|status| status.success());
    if !reachable {
        eprintln!(
            "\n*** {test_file} NOT RUN: PyPI cannot be reached to install {requirement} ***\n"
        );
        return None;
    }
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).status().unwrap();
    assert!(made.success(), "python3 -m venv {} failed", venv.display());
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", requirement])
        .output()
        .unwrap();
    assert!(
        pip.status.success(),
        "pip install {requirement}: {}",
        String::from_utf8_lossy(&pip.stderr)
    );
    assert!(ready(), "{requirement} installed, yet `{check}` fails");
    Some(venv)
}
