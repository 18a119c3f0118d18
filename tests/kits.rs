//! The starter kits for C++, Java and Go (bots/cpp, bots/java, bots/go):
//! each builds with its build.sh, passes `arena check` in every game, plays
//! a match that replays exactly with the same seed, and says how to build it
//! when it is not built. The toolchains come from Debian's packages (CI's
//! .ci/run installs them); where one is missing, its kit's test fails and
//! says what to install.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use common::{GAMES, Scratch, read_games_csv, repo_dir, rust_random_bot};

/// A starter kit: its folder under bots/, the program that builds it, and
/// the Debian package that provides that program.
struct Kit {
    folder: &'static str,
    compiler: &'static str,
    package: &'static str,
    /// A file build.sh writes, to tell a rebuild from none.
    built: &'static str,
}

const CPP: Kit = Kit { folder: "cpp", compiler: "g++", package: "g++", built: "build/random_bot" };
const JAVA: Kit = Kit {
    folder: "java",
    compiler: "javac",
    package: "default-jdk-headless",
    built: "build/classes/RandomBot.class",
};
const GO: Kit =
    Kit { folder: "go", compiler: "go", package: "golang-go", built: "build/random_bot" };

impl Kit {
    fn dir(&self) -> PathBuf {
        repo_dir().join("bots").join(self.folder)
    }

    /// The command arena is given: the kit's launcher, from the repository root.
    fn command(&self) -> String {
        format!("bots/{}/bot", self.folder)
    }

    /// Runs build.sh; fails, saying what to install, if it cannot build.
    fn build(&self) -> String {
        let started = Instant::now();
        let output = Command::new(self.dir().join("build.sh"))
            .output()
            .unwrap_or_else(|error| panic!("bots/{}/build.sh does not run: {error}", self.folder));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let installed = Command::new("sh")
            .args(["-c", &format!("command -v {}", self.compiler)])
            .output()
            .is_ok_and(|found| found.status.success());
        assert!(
            output.status.success(),
            "bots/{}/build.sh failed{}:\n{stdout}{stderr}",
            self.folder,
            match installed {
                true => String::new(),
                false => format!(
                    " because {} is missing: install Debian's {} (apt-get install {}; .ci/run does it in CI)",
                    self.compiler, self.package, self.package
                ),
            }
        );
        println!("bots/{}/build.sh took {:.2?}: {}", self.folder, started.elapsed(), stdout.trim());
        stdout
    }

    fn built_at(&self) -> SystemTime {
        std::fs::metadata(self.dir().join(self.built))
            .and_then(|meta| meta.modified())
            .unwrap_or_else(|error| panic!("bots/{}/{}: {error}", self.folder, self.built))
    }
}

/// Builds the kit (twice: the second time finds it up to date and leaves
/// it alone), checks it in every game, and plays a match twice with one
/// seed, which must come out the same (the bot seeds from its seat's seed).
fn build_check_and_play(kit: &Kit) {
    kit.build();
    let built = kit.built_at();
    assert!(kit.build().contains("up to date"), "a second build.sh of bots/{} rebuilt", kit.folder);
    assert_eq!(
        kit.built_at(),
        built,
        "a second build.sh of bots/{} rewrote its output",
        kit.folder
    );

    let scratch = Scratch::new();
    let check = scratch.arena(["check", &kit.command()]);
    check.assert_success();
    for game in GAMES {
        assert!(check.stdout.contains(game), "{game} was not checked:\n{}", check.stdout);
    }
    assert!(!check.stdout.contains("FAIL"), "{}", check.stdout);
    assert!(check.stdout.contains("All checks passed."), "{}", check.stdout);
    println!("arena check {} took {:.2?}", kit.command(), check.elapsed);

    let random_bot = rust_random_bot().to_str().expect("a UTF-8 path").to_owned();
    // One seat-seed key for both matches (each folder would draw its own).
    let key = scratch.out().with_file_name("seed-key");
    std::fs::write(&key, "kits").expect("a key file");
    let key = key.to_str().expect("a UTF-8 path").to_owned();
    let play = |out: &Path| {
        let out = out.to_str().expect("a UTF-8 path");
        let args =
            ["match", "number-duel", &kit.command(), &random_bot, "--games", "4", "--seed", "5"];
        let run = scratch.arena(args.into_iter().chain(["--seed-key-file", &key, "--out", out]));
        run.assert_success();
        read_games_csv(Path::new(out))
    };
    let first = play(&scratch.out().join("first"));
    assert_eq!(first.len(), 4);
    for row in &first {
        assert_eq!(&row["reason"], "normal", "{row:?}");
        assert!(
            [&row["seat1"], &row["seat2"]].contains(&kit.folder),
            "the kit's bot is named after its folder: {row:?}"
        );
    }
    let again = play(&scratch.out().join("again"));
    let summary = |rows: &[common::Row]| {
        rows.iter()
            .map(|row| {
                format!(
                    "{} {} {} {}",
                    &row["winner"], &row["score1"], &row["score2"], &row["plies"]
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(summary(&first), summary(&again), "the same seed played other games");
}

#[test]
fn the_cpp_kit_builds_passes_the_check_and_plays() {
    build_check_and_play(&CPP);
}

#[test]
fn the_java_kit_builds_passes_the_check_and_plays() {
    build_check_and_play(&JAVA);
}

#[test]
fn the_go_kit_builds_passes_the_check_and_plays() {
    build_check_and_play(&GO);
}

/// The heap a JVM allows itself and its home, in a run of
/// tests/fixtures/JavaHeap.java as a game program (it says so on stderr
/// and exits, which arena reports with its last lines), with a memory
/// limit of 256 MiB.
fn jvm_heap(sandbox: bool) -> (u64, String, String) {
    let scratch = Scratch::new();
    let random_bot = rust_random_bot().display().to_string();
    let mut args = vec![
        "match",
        "java tests/fixtures/JavaHeap.java",
        &random_bot,
        &random_bot,
        "--memory-limit",
        "256MiB",
        "--game-timeout",
        "30s",
    ];
    if !sandbox {
        args.push("--no-sandbox");
    }
    let run = scratch.arena(&args);
    let said = run.stderr.split("max heap ").nth(1).and_then(|rest| {
        let (heap, home) = rest.split_once(", home ")?;
        let home = home.split(|c: char| c.is_whitespace() || c == ';').next()?;
        Some((heap.parse().ok()?, home.to_owned(), run.stderr.clone()))
    });
    said.unwrap_or_else(|| {
        panic!(
            "no heap size from the JVM: it did not start (or `java` is missing; Debian: default-jdk-headless):\n{}",
            run.stderr
        )
    })
}

#[test]
fn a_jvm_in_a_box_sizes_its_heap_by_the_memory_limit_and_lives_in_its_scratch_folder() {
    // A JVM sizes its heap by the machine's memory (it commits a 64th of it
    // at start), which it sees whole in a box: on a machine of 64 GiB it
    // could not start under the default limit of 1 GiB. Unsandboxed, it
    // takes a quarter of this machine's memory; in a box, arena tells it
    // the limit.
    const LIMIT: u64 = 256 << 20;
    let (open, _, _) = jvm_heap(false);
    assert!(open > LIMIT, "unsandboxed, the heap is the machine's: {open} bytes");
    let (boxed, home, said) = jvm_heap(true);
    assert!(boxed <= LIMIT / 2, "in a box of 256 MiB, a heap of {boxed} bytes");
    // Its home is the box's scratch folder, as HOME says, not the home of
    // the box's user on the host (which the box does not show).
    assert_eq!(home, "/tmp");
    // The JVM's note of the options arena gave it is not the program's:
    // it is kept out of what arena quotes (and logs) of its stderr.
    assert!(!said.contains("Picked up JAVA_TOOL_OPTIONS"), "{said}");
}

/// Runs a program just copied. Another test's process forked while the
/// copy was open for writing holds it open until its exec, and exec fails
/// with "Text file busy" meanwhile: that passes in a moment.
fn run_fresh_copy(program: &Path) -> std::process::Output {
    for _ in 0..100 {
        match Command::new(program).output() {
            Err(error) if error.raw_os_error() == Some(libc::ETXTBSY) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.expect("`bot` runs"),
        }
    }
    panic!("{} stayed busy for 2 s", program.display());
}

/// A kit copied without its build folder, as from a clean clone: its `bot`
/// exits at once and says on stderr how to build it.
#[test]
fn a_kit_that_is_not_built_says_how_to_build_it() {
    for kit in [&CPP, &JAVA, &GO] {
        let copy = tempfile::tempdir().expect("a temporary folder");
        for entry in std::fs::read_dir(kit.dir()).expect("the kit's folder") {
            let entry = entry.expect("an entry");
            if entry.file_type().expect("a file type").is_file() {
                std::fs::copy(entry.path(), copy.path().join(entry.file_name())).expect("a copy");
            }
        }
        let output = run_fresh_copy(&copy.path().join("bot"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "bots/{}/bot ran unbuilt", kit.folder);
        assert!(output.stdout.is_empty(), "bots/{}/bot wrote to stdout", kit.folder);
        let build = copy.path().join("build.sh");
        assert!(
            stderr.contains("not built yet") && stderr.contains(build.to_str().unwrap()),
            "bots/{}/bot said: {stderr}",
            kit.folder
        );
    }
}
