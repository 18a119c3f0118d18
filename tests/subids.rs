//! Boxes of an unprivileged arena with and without subordinate ids. With
//! them (a user given /etc/subuid and /etc/subgid ranges, mapped by
//! Debian's newuidmap and newgidmap), each box is ids of its own on the
//! machine, in the user's range, and keeps none of arena's supplementary
//! groups; without them, every box is arena's user, keeps its groups, and
//! the run says so. The tests run as root, which makes the user.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::unprivileged::Unprivileged;

/// The user the tests make, with its subordinate range.
const USER: &str = "arena-subids";
const RANGE_START: u32 = 300_000;
const RANGE_COUNT: u32 = 65_536;
/// A supplementary group the arena runs in.
const GROUP: u32 = 4343;

fn needs_root() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        panic!("this test needs root: it makes a user with subordinate ids (CI runs as root)");
    }
    if !Path::new("/usr/bin/newuidmap").exists() {
        panic!("newuidmap is missing: install Debian's uidmap (.ci/install does)");
    }
}

/// The user with subordinate ids (made once), as its uid and gid.
fn user_with_subordinate_ids() -> (u32, u32) {
    let id = |flag: &str| -> Option<u32> {
        let output = Command::new("id").args([flag, USER]).output().ok()?;
        String::from_utf8(output.stdout).ok()?.trim().parse().ok()
    };
    if id("-u").is_none() {
        let made = Command::new("useradd")
            .args(["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER])
            .status()
            .expect("useradd runs");
        assert!(made.success() || id("-u").is_some(), "useradd {USER} failed");
    }
    for file in ["/etc/subuid", "/etc/subgid"] {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if !text.lines().any(|line| line.starts_with(&format!("{USER}:"))) {
            let line = format!("{USER}:{RANGE_START}:{RANGE_COUNT}\n");
            let mut appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)
                .expect("the subordinate id file");
            std::io::Write::write_all(&mut appended, line.as_bytes()).expect("a line");
        }
    }
    (id("-u").expect("the user's id"), id("-g").expect("the user's group"))
}

/// A file only group [`GROUP`] may read, in a folder every box may show.
fn group_file(place: &Unprivileged) -> std::path::PathBuf {
    let folder = place.base().join("group-only");
    std::fs::create_dir_all(&folder).expect("a folder");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let file = folder.join("secret");
    std::fs::write(&file, "the group's\n").expect("a file");
    std::os::unix::fs::chown(&file, Some(0), Some(GROUP)).expect("chown");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    file
}

/// One game between two tells_ids bots, arena run by `place`'s user in
/// [`GROUP`]; the run's output and what each seat said of itself.
fn who_the_boxes_are(place: &Unprivileged, name: &str) -> (common::Run, Vec<String>) {
    let file = group_file(place);
    let out = place.out(name);
    let bot = format!("fixtures/tells_ids.py path:{}", file.display());
    let allowed = format!("--allow-read={}", file.parent().expect("a folder").display());
    let run = place.arena_in_groups(
        &[
            "match",
            "number-snatch",
            &bot,
            &bot,
            "--games",
            "1",
            "--out",
            out.to_str().expect("UTF-8"),
            &allowed,
        ],
        &[GROUP],
    );
    run.assert_success();
    let mut said = Vec::new();
    for seat in 1..=2 {
        let logs = std::fs::read_dir(out.join("logs")).expect("the logs");
        for log in logs.flatten() {
            let name = log.file_name().to_string_lossy().into_owned();
            if name.contains(&format!("seat{seat}")) {
                let text = std::fs::read_to_string(log.path()).unwrap_or_default();
                said.extend(
                    text.lines().filter(|line| line.starts_with("ids: ")).map(str::to_owned),
                );
            }
        }
    }
    assert_eq!(said.len(), 2, "{said:?}\n{run:?}");
    (run, said)
}

/// The host uid a seat's uid map gives its bot (`map 1000 HOST 1`).
fn host_uid(said: &str) -> u32 {
    let map = said.strip_prefix("ids: map ").expect("a map");
    let words: Vec<&str> = map.split_whitespace().collect();
    let at = words.iter().position(|word| *word == "1000").expect("the bot's id");
    words[at + 1].parse().expect("a host id")
}

#[test]
fn with_subordinate_ids_each_box_is_ids_of_its_own() {
    needs_root();
    let (uid, gid) = user_with_subordinate_ids();
    let place = Unprivileged::as_user(uid, gid);
    let (run, said) = who_the_boxes_are(&place, "subordinate");
    assert!(run.stdout.contains("user ids of its own per box (subordinate ids"), "{}", run.stdout);
    assert!(!run.stderr.contains("supplementary groups"), "{}", run.stderr);
    let hosts: Vec<u32> = said.iter().map(|said| host_uid(said)).collect();
    for host in &hosts {
        assert!((RANGE_START..RANGE_START + RANGE_COUNT).contains(host), "{said:?}");
        assert_ne!(*host, uid);
    }
    assert_ne!(hosts[0], hosts[1], "two boxes, two ids: {said:?}");
    for said in &said {
        assert!(said.contains("groups []"), "{said}");
        assert!(said.contains("read denied"), "the group's file: {said}");
    }
}

/// Without subordinate ids (uid 65534 has none) every box is arena's user
/// and keeps its group: the group's file reads; the run says so.
#[test]
fn without_subordinate_ids_a_box_is_arenas_user_and_says_so() {
    needs_root();
    let place = Unprivileged::new();
    let (run, said) = who_the_boxes_are(&place, "shared");
    assert!(run.stdout.contains("arena's user id in every box"), "{}", run.stdout);
    assert!(
        run.stderr.contains("supplementary groups") && run.stderr.contains("subordinate ids"),
        "{}",
        run.stderr
    );
    for said in &said {
        assert_eq!(host_uid(said), 65534, "{said}");
        assert!(said.contains("read ok"), "the group's file: {said}");
    }
}
