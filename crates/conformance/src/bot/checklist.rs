//! The checklist: what the games a bot played show, item by item. Each
//! item passes only on evidence, fails with its evidence and a hint, or is
//! not judged for want of evidence; every forfeit belongs to exactly one
//! item, chosen by its typed cause.

use std::path::PathBuf;

use super::advice::{Language, hint};
use crate::StderrQuote;
use arena_base::printable::printable;
use arena_games::Seat;
use arena_protocol::{BadReplyKind, ForfeitReason};
use arena_referee::{Cause, Forfeit, GameReport, Settings, Stopped};
use arena_system::sandbox::{Limits, limit_hit};

/// One line of the checklist.
pub struct Item {
    /// What the item checks, as the checklist names it.
    pub title: &'static str,
    /// Whether it passed.
    pub status: Status,
    /// What was seen, in words.
    pub evidence: String,
    /// The line the bot sent, when a line is the evidence.
    pub line: Option<String>,
    /// What a crashed bot last wrote to stderr.
    pub stderr: Option<StderrQuote>,
    /// What to do about a failure.
    pub hint: Option<String>,
}

/// How an item of the checklist came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Passed, on evidence.
    Pass,
    /// Failed, with its evidence.
    Fail,
    /// Not checked, by the user's choice (`--no-time-limit`,
    /// `--no-sandbox`); the evidence says what was seen.
    Skip,
    /// Not judged for want of evidence: nothing came back to judge, or an
    /// earlier failure hid it.
    NotJudged,
}

/// The items a forfeit can fail, each forfeit exactly one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Topic {
    Handshake,
    Ids,
    LegalMoves,
    SeveralGames,
    Notices,
    Time,
    StdoutLines,
    KeepsRunning,
}

/// One game the bot played.
pub struct Played {
    /// The referee's report of the game.
    pub report: GameReport,
    /// The bot's seat in it.
    pub seat: Seat,
    /// The bot's process when the game began.
    pub pid: Option<u32>,
    /// Where the bot's stderr went in this game.
    pub log: PathBuf,
}

impl Played {
    /// The bot's forfeit in the game, if it forfeited.
    pub fn forfeit(&self) -> Option<&Forfeit> {
        self.report.forfeits[self.seat.index()].as_ref()
    }

    /// Whether the bot answered the game's `start`.
    pub fn answered_start(&self) -> bool {
        self.report.answered_start[self.seat.index()]
    }

    fn moves_accepted(&self) -> u32 {
        self.report.moves_accepted[self.seat.index()]
    }

    /// Replies accepted: the `ready` and the legal moves.
    fn replies_accepted(&self) -> u32 {
        u32::from(self.answered_start()) + self.moves_accepted()
    }

    /// Lines received from the bot, accepted or not.
    fn lines_received(&self) -> u32 {
        let refused = self.forfeit().is_some_and(|forfeit| {
            matches!(
                forfeit.cause,
                Cause::BadReply(_)
                    | Cause::AnsweredNotice { .. }
                    | Cause::SkippedStart
                    | Cause::IllegalMove
                    | Cause::LineTooLong { .. }
            )
        });
        self.replies_accepted() + u32::from(refused)
    }
}

/// What one game id's games showed.
pub struct Evidence {
    /// The games played, in order.
    pub games: Vec<Played>,
    /// How the bot's process ended when its input closed (`None`: it was
    /// not running then).
    pub stopped: Option<Stopped>,
    /// The first game that carries unknown fields and messages.
    pub probed_from: usize,
    /// Whether the logs are kept after the check (`--out`).
    pub logs_kept: bool,
    /// The bot's language, for hints that name its way of doing things.
    pub language: Option<Language>,
}

/// Whether the bot answered no `start` in `games`, the first of which
/// failed its handshake by a timeout or a crash: every game would end there
/// the same way, so no more are played.
pub fn never_started(games: &[Played]) -> bool {
    !games.iter().any(Played::answered_start)
        && games.first().and_then(Played::forfeit).is_some_and(|forfeit| {
            forfeit.request.is_start()
                && matches!(forfeit.cause, Cause::Timeout(_) | Cause::Crash(_))
        })
}

/// The item a forfeit in game `index` fails, by its typed cause.
fn topic(forfeit: &Forfeit, index: usize, evidence: &Evidence) -> Topic {
    let at_start = forfeit.request.is_start();
    match &forfeit.cause {
        Cause::AnsweredNotice { .. } => Topic::Notices,
        Cause::BadReply(kind) if kind.is_about_the_id() => Topic::Ids,
        Cause::BadReply(kind) if kind.forfeit_reason() == ForfeitReason::IllegalMove => {
            Topic::LegalMoves
        }
        // A reply in the protocol's shape without its move: no legal move,
        // not stray output.
        Cause::IllegalMove | Cause::BadReply(BadReplyKind::NoMove) => Topic::LegalMoves,
        Cause::BadReply(_) | Cause::LineTooLong { .. } => Topic::StdoutLines,
        Cause::Timeout(_) if at_start => Topic::Handshake,
        Cause::Timeout(_) => Topic::Time,
        // A process that lived through the game before and is gone at this
        // game's `start` ended between games.
        Cause::Crash(_)
            if at_start
                && index > 0
                && evidence.games[index - 1]
                    .forfeit()
                    .is_none_or(|previous| !previous.reason.leaves_bot_in_doubt()) =>
        {
            Topic::SeveralGames
        }
        Cause::Crash(_) if at_start => Topic::Handshake,
        // `arena check` withdraws no bot.
        Cause::Withdrawn | Cause::SkippedStart => Topic::Handshake,
        Cause::Crash(_) => Topic::KeepsRunning,
    }
}

/// The checklist for one game id.
///
/// The games without probes decide every item but the one about unknown
/// fields, which the probed games decide, so one mistake shows under the
/// item it belongs to.
pub fn checklist(evidence: &Evidence, settings: &Settings) -> Vec<Item> {
    // The games without probes, those played of them.
    let total = evidence.games.len();
    let plain = evidence.probed_from.min(total);
    let games = &evidence.games;
    let plain_forfeits: Vec<(usize, &Forfeit)> = games[..plain]
        .iter()
        .enumerate()
        .filter_map(|(index, played)| Some((index, played.forfeit()?)))
        .collect();
    let first = |wanted: Topic| {
        plain_forfeits
            .iter()
            .copied()
            .find(|(index, forfeit)| topic(forfeit, *index, evidence) == wanted)
    };
    let fails = |title, wanted| {
        first(wanted).map(|(index, forfeit)| failure(title, index, forfeit, evidence))
    };
    let replies: u32 = games.iter().map(Played::replies_accepted).sum();
    let moves: u32 = games.iter().map(Played::moves_accepted).sum();
    let lines: u32 = games.iter().map(Played::lines_received).sum();
    let nothing_came_back = || {
        if lines == 0 {
            "not judged: no reply came back"
        } else {
            "not judged: no reply was accepted"
        }
    };
    let mut items = Vec::new();

    const HANDSHAKE: &str = "starts and answers the handshake in time";
    items.push(fails(HANDSHAKE, Topic::Handshake).unwrap_or_else(|| {
        match games.iter().any(Played::answered_start) {
            true => pass(
                HANDSHAKE,
                format!(
                    "`ready` came back to `start` within {} ms",
                    settings.startup_timeout.as_millis()
                ),
            ),
            false => {
                not_judged(HANDSHAKE, "not judged: its `ready` was refused (see below)".to_owned())
            }
        }
    }));

    const IDS: &str = "echoes ids";
    items.push(fails(IDS, Topic::Ids).unwrap_or_else(|| match replies {
        0 => not_judged(IDS, nothing_came_back().to_owned()),
        _ => pass(IDS, format!("all {replies} replies accepted carried their request's id")),
    }));

    const LEGAL: &str = "answers only legal moves";
    items.push(fails(LEGAL, Topic::LegalMoves).unwrap_or_else(|| match moves {
        0 => not_judged(LEGAL, "not judged: no move came back".to_owned()),
        _ => pass(LEGAL, format!("all {moves} moves were among `legal_moves`")),
    }));

    const SEVERAL: &str = "plays several games in one process";
    // The longest run of games one process played, each from its `start`.
    let mut run = 1;
    let mut longest = 1;
    for pair in games.windows(2) {
        run = if pair[0].pid.is_some() && pair[0].pid == pair[1].pid && pair[1].answered_start() {
            run + 1
        } else {
            1
        };
        longest = longest.max(run);
    }
    items.push(match fails(SEVERAL, Topic::SeveralGames) {
        Some(mut item) => {
            item.hint =
                Some("keep reading stdin after `over`: the next game's `start` follows".to_owned());
            item
        }
        None if longest > 1 => {
            pass(SEVERAL, format!("one process played {longest} games in a row"))
        }
        None => not_judged(
            SEVERAL,
            "not judged: a forfeit replaced the process after every game".to_owned(),
        ),
    });

    const NOTICES: &str = "does not answer `over` or `reveal`";
    let passed: u32 =
        games[..plain].iter().map(|played| played.report.notices_passed[played.seat.index()]).sum();
    items.push(fails(NOTICES, Topic::Notices).unwrap_or_else(|| match passed {
        0 => not_judged(
            NOTICES,
            "not judged: no request came after one in the same process".to_owned(),
        ),
        1 => pass(
            NOTICES,
            "the line after the one `over` or `reveal` message answered the next request"
                .to_owned(),
        ),
        _ => pass(
            NOTICES,
            format!(
                "the line after each of {passed} `over` and `reveal` messages answered the next request"
            ),
        ),
    }));

    const UNKNOWN: &str = "ignores unknown fields and message types";
    let probed_failure = games[plain..]
        .iter()
        .enumerate()
        .find_map(|(offset, played)| Some((plain + offset, played.forfeit()?)));
    items.push(match (plain_forfeits.is_empty(), probed_failure) {
        (true, None) if plain == total => {
            not_judged(UNKNOWN, "not judged: no game carried them".to_owned())
        }
        (true, None) => pass(
            UNKNOWN,
            format!("games {}-{} carried both and were played normally", plain + 1, total),
        ),
        (true, Some((index, forfeit))) => {
            let mut item = failure(UNKNOWN, index, forfeit, evidence);
            item.hint = Some(
                "ignore fields you do not use and message types you do not know; later versions add some".to_owned(),
            );
            item
        }
        (false, _) => {
            not_judged(UNKNOWN, "not judged: the games without them already failed".to_owned())
        }
    });

    const TIME: &str = "takes its time";
    let slowest = games
        .iter()
        .map(|played| played.report.slowest_move[played.seat.index()])
        .max()
        .unwrap_or_default();
    let limit = settings.time_control.first_move();
    items.push(fails(TIME, Topic::Time).unwrap_or_else(|| match moves {
        0 => not_judged(TIME, "not judged: no move came back".to_owned()),
        _ if settings.no_time_limit => Item {
            status: Status::Skip,
            ..not_judged(
                TIME,
                format!(
                    "slowest move {:.1} ms; not checked against the {} ms it was told (--no-time-limit)",
                    slowest.as_secs_f64() * 1e3,
                    limit.as_millis()
                ),
            )
        },
        _ => pass(
            TIME,
            format!(
                "slowest move {:.1} ms of the {} ms allowed{}",
                slowest.as_secs_f64() * 1e3,
                limit.as_millis(),
                if slowest * 2 > limit {
                    " (more than half: a slower machine may time out)"
                } else {
                    ""
                }
            ),
        ),
    }));

    const EXITS: &str = "exits when its input closes";
    items.push(match evidence.stopped {
        Some(Stopped { exited_in_grace: true, .. }) => {
            pass(EXITS, format!("exited within {} ms", settings.exit_grace.as_millis()))
        }
        Some(Stopped { exited_in_grace: false, .. }) => Item {
            title: EXITS,
            status: Status::Fail,
            evidence: format!(
                "still running {} ms after its stdin closed; it was killed",
                settings.exit_grace.as_millis()
            ),
            line: None,
            stderr: None,
            hint: Some(
                "end your read loop and exit when reading stdin returns end of file".to_owned(),
            ),
        },
        None => {
            not_judged(EXITS, "not judged: a forfeit had already ended the last process".to_owned())
        }
    });

    const STDOUT: &str = "writes nothing but protocol lines to stdout";
    items.push(fails(STDOUT, Topic::StdoutLines).unwrap_or_else(|| match lines {
        0 => not_judged(STDOUT, "not judged: no line came back".to_owned()),
        _ => pass(STDOUT, format!("all {lines} lines were protocol replies")),
    }));

    const RUNNING: &str = "keeps running during games";
    items.push(fails(RUNNING, Topic::KeepsRunning).unwrap_or_else(|| {
        match games[..plain].iter().any(Played::answered_start) {
            true => pass(RUNNING, "no crash or exit in the middle of a game".to_owned()),
            false => not_judged(RUNNING, "not judged: no game got past its `start`".to_owned()),
        }
    }));
    items
}

/// A file refused by the sandbox, in the words of `DENIALS`.
const REFUSED_FILE: &str =
    "your bot was refused a file: one outside its folders, or a write anywhere but its own /tmp";

/// Words of a refusal as programs print them, and what the sandbox refused.
const DENIALS: [(&str, &str); 6] = [
    ("Permission denied", REFUSED_FILE),
    ("PermissionError", REFUSED_FILE),
    (
        "Operation not permitted",
        "your bot tried something the sandbox forbids (another process, the network, or a protected system call)",
    ),
    (
        "Function not implemented",
        "your bot made a system call the sandbox refuses (docs/sandbox.md lists what it allows)",
    ),
    ("Read-only file system", "your bot tried to write outside its scratch folder"),
    ("No space left on device", "your bot filled its scratch folder"),
];

/// Words of a missing file as programs print them: in a box, a file
/// outside the bot's folders does not exist.
pub(super) const MISSING: [&str; 3] = ["No such file or directory", "FileNotFoundError", "ENOENT"];

/// A path `line` names that exists on this machine, though the bot was told
/// it does not: its box does not show it.
fn hidden_path(line: &str) -> Option<&str> {
    if !MISSING.iter().any(|words| line.contains(words)) {
        return None;
    }
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '(' | ')' | ':' | '`'))
        .filter(|word| word.starts_with('/') && word.len() > 1)
        .find(|word| std::path::Path::new(word).exists())
}

/// Whether the bot's stderr shows the sandbox refusing it something.
pub fn sandbox_item(evidence: &Evidence, limits: Option<&Limits>) -> Item {
    const TITLE: &str = "stays inside its sandbox";
    let Some(limits) = limits else {
        let evidence = "not checked: the sandbox is off (--no-sandbox)".to_owned();
        return Item { status: Status::Skip, ..not_judged(TITLE, evidence) };
    };
    for (index, played) in evidence.games.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(&played.log) else { continue };
        for line in text.lines() {
            let denial = DENIALS
                .iter()
                .find(|(words, _)| line.contains(words))
                .map(|(_, what)| (*what).to_owned())
                .or_else(|| {
                    hidden_path(line).map(|path| match path.starts_with("/tmp/") {
                        true => format!(
                            "your bot tried to open {path}, on this machine's /tmp: the /tmp it sees is the box's own, which does not show it"
                        ),
                        false => format!(
                            "your bot tried to open {path}, which is outside its folders (its box does not show it)"
                        ),
                    })
                });
            let Some(what) = denial.or_else(|| {
                limit_hit(limits, None, line.as_bytes())
                    .map(|limit| format!("your bot ran {limit}"))
            }) else {
                continue;
            };
            let said = match evidence.logs_kept {
                true => format!("its stderr ({}) says", played.log.display()),
                false => "its stderr says".to_owned(),
            };
            return Item {
                title: TITLE,
                status: Status::Fail,
                evidence: format!("game {}: {what}; {said}: {}", index + 1, printable(line)),
                line: None,
                stderr: None,
                hint: Some(
                    "a bot sees the system folders, its interpreter and the folders of its program and script, writes only in its own /tmp (its HOME and TMPDIR: the box's own, not this machine's /tmp), and has no network (protocol.md section 7); keep the files it reads beside its program, or allow a path to read with --allow-read (read_paths in a tournament file); to keep a log, write it to stderr (arena keeps it)".to_owned(),
                ),
            };
        }
    }
    pass(TITLE, "its stderr shows no refusal by the sandbox".to_owned())
}

fn pass(title: &'static str, evidence: String) -> Item {
    Item { title, status: Status::Pass, evidence, line: None, stderr: None, hint: None }
}

fn not_judged(title: &'static str, evidence: String) -> Item {
    Item { title, status: Status::NotJudged, evidence, line: None, stderr: None, hint: None }
}

/// Fails `title` with the forfeit of game `index`.
fn failure(title: &'static str, index: usize, forfeit: &Forfeit, evidence: &Evidence) -> Item {
    let played = &evidence.games[index];
    Item {
        title,
        status: Status::Fail,
        evidence: format!(
            "game {} (seat {}): {}: {}",
            index + 1,
            played.seat,
            forfeit.reason,
            // Its stderr follows as lines of their own.
            forfeit.detail_for_bots()
        ),
        line: forfeit.line.clone(),
        stderr: match &forfeit.cause {
            Cause::Crash(crash) => StderrQuote::of(crash),
            _ => None,
        },
        hint: Some(hint(
            forfeit,
            evidence.logs_kept.then_some(played.log.as_path()),
            evidence.language,
        )),
    }
}
