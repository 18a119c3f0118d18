//! A box serves its bot's next process (a bot restarted every game), and
//! nothing an earlier process left is there for the next: files in /tmp
//! and /dev/shm, System V IPC, processes. Both ways: without a sandbox the
//! same fixture finds what its earlier process left.

#![cfg(target_os = "linux")]

#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::unprivileged::Unprivileged;
use common::{Scratch, assert_processes_gone, recorded_pids};

/// What one process of the fixture found as it started.
#[derive(Debug)]
struct Traces {
    /// Its pid (above 2 in a box that served an earlier process).
    pid: u32,
    /// tmp, shm, ipc, mq, others.
    found: [u32; 5],
}

/// Every `traces:` line of the logs in `out`, by the log's name.
fn traces(out: &Path) -> BTreeMap<String, Traces> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("logs") {
        let path = entry.expect("a log").path();
        let text = std::fs::read_to_string(&path).expect("a log's text");
        let Some(line) = text.lines().find_map(|line| line.strip_prefix("traces: ")) else {
            continue;
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |name: &str| {
            let at = words.iter().position(|word| *word == name).expect(name);
            words[at + 1].parse::<u32>().expect("a count")
        };
        let name = path.file_name().expect("a name").to_string_lossy().into_owned();
        found.insert(
            name,
            Traces {
                pid: number("pid"),
                found: [
                    number("tmp"),
                    number("shm"),
                    number("ipc"),
                    number("mq"),
                    number("others"),
                ],
            },
        );
    }
    found
}

fn restarted_match(out: &Path, bot: &str, extra: &[&str]) -> Vec<String> {
    ["match", "number-snatch", bot, bot, "--games", "6"]
        .into_iter()
        .chain(["--restart-each-game", "--out", out.to_str().expect("UTF-8")])
        .chain(extra.iter().copied())
        .map(str::to_owned)
        .collect()
}

/// In a box each process of the bot starts clean, and (where `reused`)
/// boxes serve again; else every process has a box of its own.
fn assert_clean(out: &Path, how: &str, reused: bool) {
    let traces = traces(out);
    assert_eq!(traces.len(), 12, "{how}: a line from each process: {traces:?}");
    for (log, traces) in &traces {
        assert_eq!(traces.found, [0; 5], "{how}: {log} found an earlier process's traces");
    }
    // The first box of each bot serves its second process, unless the
    // machine is so loaded that a box made ahead was ready first.
    let served_before = traces.values().filter(|traces| traces.pid > 2).count();
    if reused {
        assert!(served_before >= 2, "{how}: no box served a process again: {traces:?}");
    } else {
        assert_eq!(served_before, 0, "{how}: a box served again: {traces:?}");
    }
    let left = recorded_pids(out);
    assert_eq!(left.len(), 12, "{how}: each process left one behind");
    assert_processes_gone(&left);
}

/// As root, and unprivileged without subordinate ids (where boxes do not
/// serve again); the unprivileged place lies in /tmp, so its views are
/// under the box's scratch.
#[test]
fn a_box_serves_its_bots_next_process_with_nothing_of_the_earlier_left() {
    let scratch = Scratch::new();
    let bot = "tests/fixtures/leaves_traces.py";
    let out = scratch.out().join("boxed");
    scratch.arena(restarted_match(&out, bot, &[])).assert_success();
    assert_clean(&out, "as root", true);

    // The bot's own folder in /tmp: the box shows it under its scratch,
    // and each renewal makes it again there.
    let folder = tempfile::Builder::new().prefix("arena-box-reuse-").tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(folder.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    for file in ["leaves_traces.py", "botlib.py"] {
        std::fs::copy(
            common::repo_dir().join("tests/fixtures").join(file),
            folder.path().join(file),
        )
        .unwrap();
    }
    let bot = format!("python3 {}", folder.path().join("leaves_traces.py").display());
    let out = scratch.out().join("in-tmp");
    scratch.arena(restarted_match(&out, &bot, &[])).assert_success();
    assert_clean(&out, "as root, the bot in /tmp", true);

    let place = Unprivileged::new();
    let out = place.out("boxed");
    let args = restarted_match(&out, "fixtures/leaves_traces.py", &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = place.arena(&args);
    run.assert_success();
    assert!(run.stdout.contains("sandbox: a box per program"), "{}", run.stdout);
    // Without subordinate ids the box's first process is the bot's user,
    // whom the bot could reach: such a box serves one process only.
    assert!(run.stdout.contains("arena's user id in every box"), "{}", run.stdout);
    assert_clean(&out, "unprivileged, arena's user id in every box", false);
}

/// A box whose bot had to be killed (it did not exit at the end of its
/// session) serves no other process: each starts in a box of its own.
#[test]
fn a_killed_box_serves_no_other_process() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let bot = "tests/fixtures/leaves_traces.py --ignore-eof";
    scratch.arena(restarted_match(&out, bot, &[])).assert_success();
    let traces = traces(&out);
    assert_eq!(traces.len(), 12, "a line from each process: {traces:?}");
    for (log, traces) in &traces {
        assert_eq!((traces.pid, traces.found), (2, [0; 5]), "{log}: a box of its own");
    }
}

/// The control: without a sandbox the fixture's later processes find the
/// files and the segment an earlier one left (its processes are swept).
#[test]
fn without_a_sandbox_a_bots_next_process_finds_what_the_earlier_left() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let run =
        scratch.arena(restarted_match(&out, "tests/fixtures/leaves_traces.py", &["--no-sandbox"]));
    // What the fixture left on the host goes, whatever the run did.
    let _ = std::fs::remove_file("/tmp/trace");
    let _ = std::fs::remove_file("/dev/shm/trace");
    // SAFETY: shmget and shmctl on a key of the fixture's, no memory used.
    unsafe {
        let id = libc::shmget(0x4152_4E41, 0, 0);
        if id >= 0 {
            libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
        }
        libc::mq_unlink(c"/arena-trace".as_ptr());
    }
    run.assert_success();
    let traces = traces(&out);
    assert_eq!(traces.len(), 12, "a line from each process: {traces:?}");
    let later = traces.iter().filter(|(log, _)| !log.starts_with("game-000001-"));
    for (log, traces) in later {
        assert_eq!(traces.found[..4], [1, 1, 1, 1], "{log}: the earlier process's traces");
    }
}

/// What one process of `scratch_times.py` said.
#[derive(Debug)]
struct Scratched {
    pid: u32,
    /// The scratch's device, its change time as it started, and after its
    /// touch.
    dev: u64,
    seen: u64,
    left: u64,
    /// The number of the file it made (0: none).
    file: u64,
    /// The id of the message queue it made (-1: none).
    queue: i64,
}

/// Every `scratch:` line of the logs in `out`.
fn scratch_times(out: &Path) -> Vec<Scratched> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("logs") {
        let text = std::fs::read_to_string(entry.expect("a log").path()).expect("a log's text");
        if let Some(line) = text.lines().find_map(|line| line.strip_prefix("scratch: ")) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |name: &str| {
                let at = words.iter().position(|word| *word == name).expect(name);
                words[at + 1].parse::<i64>().expect("a number")
            };
            found.push(Scratched {
                pid: number("pid") as u32,
                dev: number("dev") as u64,
                seen: number("seen") as u64,
                left: number("left") as u64,
                file: number("file") as u64,
                queue: number("ipc"),
            });
        }
    }
    found
}

/// A box keeps its scratch and its IPC namespace for the bot's next
/// process only where the earlier left them as they were: a process that
/// made and removed a file and a message queue (which leaves no file and
/// no queue, only times and the numbering of files and queues) has its
/// next process find a new scratch and a new namespace, which number their
/// files and queues as the first did; a process that left the scratch
/// alone has its next find the same one (its device and change time).
/// Times alone cannot tell boxes apart: the kernel gives files of
/// different mounts the same time.
#[test]
fn a_box_keeps_its_scratch_and_ipc_only_where_the_bot_left_them_as_they_were() {
    let scratch = Scratch::new();
    let out = scratch.out().join("touch");
    scratch
        .arena(restarted_match(&out, "tests/fixtures/scratch_times.py --touch", &[]))
        .assert_success();
    let times = scratch_times(&out);
    assert_eq!(times.len(), 12, "a line from each process: {times:?}");
    let served_again = times.iter().filter(|process| process.pid > 2).count();
    assert!(served_again >= 2, "no box served again: {times:?}");
    let first_file = times[0].file;
    assert!(first_file > 0, "the fixture made a file: {times:?}");
    assert!(
        times.iter().all(|process| process.file == first_file),
        "a process found files numbered on from an earlier one's: {times:?}"
    );
    let first_queue = times[0].queue;
    assert!(first_queue >= 0, "the fixture made a queue: {times:?}");
    assert!(
        times.iter().all(|process| process.queue == first_queue),
        "a process found queues numbered on from an earlier one's: {times:?}"
    );

    let out = scratch.out().join("alone");
    scratch.arena(restarted_match(&out, "tests/fixtures/scratch_times.py", &[])).assert_success();
    let times = scratch_times(&out);
    assert_eq!(times.len(), 12, "a line from each process: {times:?}");
    // A box that served again and kept its scratch: its process finds the
    // scratch (device and time) an earlier process found.
    let kept = times.iter().filter(|process| process.pid > 2).any(|later| {
        times.iter().any(|earlier| {
            earlier.pid < later.pid && (earlier.dev, earlier.seen) == (later.dev, later.seen)
        })
    });
    assert!(kept, "no box kept its scratch for the next process: {times:?}");
}

/// The control: a folder that nothing makes anew shows the next process
/// when the earlier one touched it, and the host's IPC namespace numbers
/// its queues on.
#[test]
fn without_a_sandbox_a_bots_next_process_finds_the_time_and_numbers_the_earlier_left() {
    let scratch = Scratch::new();
    let folder = tempfile::tempdir().unwrap();
    let bot =
        format!("tests/fixtures/scratch_times.py --touch --folder {}", folder.path().display());
    let out = scratch.out();
    scratch.arena(restarted_match(&out, &bot, &["--no-sandbox"])).assert_success();
    let times = scratch_times(&out);
    assert_eq!(times.len(), 12, "a line from each process: {times:?}");
    let left: Vec<u64> = times.iter().map(|process| process.left).collect();
    assert!(
        times.iter().any(|process| left.contains(&process.seen)),
        "no process found the time an earlier one left: {times:?}"
    );
    let mut queues: Vec<i64> = times.iter().map(|process| process.queue).collect();
    queues.sort_unstable();
    queues.dedup();
    assert!(queues.len() > 1, "every queue had the same id: {times:?}");
}

/// Reading what the box made in its scratch sets no time a later process
/// could see (the scratch is mounted `noatime`): the bot's folder lies
/// under /tmp, so the box makes the folder above it there, and each
/// process lists that folder.
#[test]
fn reading_the_scratch_leaves_no_time_for_the_next_process() {
    let scratch = Scratch::new();
    let folder = tempfile::Builder::new().prefix("arena-atime-").tempdir_in("/tmp").unwrap();
    let inner = folder.path().join("bot");
    std::fs::create_dir(&inner).unwrap();
    for path in [folder.path(), inner.as_path()] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    for file in ["scratch_times.py", "botlib.py"] {
        std::fs::copy(common::repo_dir().join("tests/fixtures").join(file), inner.join(file))
            .unwrap();
    }
    let bot = format!("python3 {} --read-parent", inner.join("scratch_times.py").display());
    let out = scratch.out();
    scratch.arena(restarted_match(&out, &bot, &[])).assert_success();
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(out.join("logs")).expect("logs") {
        let text = std::fs::read_to_string(entry.expect("a log").path()).expect("a log's text");
        lines.extend(
            text.lines().filter_map(|line| line.strip_prefix("atime: ")).map(str::to_owned),
        );
    }
    assert_eq!(lines.len(), 12, "a line from each process: {lines:?}");
    let times = scratch_times(&out);
    assert!(
        times.iter().filter(|process| process.pid > 2).count() >= 2,
        "no box served again: {times:?}"
    );
    for line in &lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[3], words[5], "a read set the folder's access time: {lines:?}");
    }
}
