//! `arena check CMD`: a conformance checklist for a bot author's program.
//!
//! The bot plays a few games of each game against the built-in random
//! player, in both seats, in one process; the second half of the games also
//! carry a field and a message type the bot cannot know. Each item of the
//! checklist passes or fails with its evidence, and a failure shows the line
//! the bot sent and a hint a beginner can act on.

use super::reporters::warn;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use super::interrupt::Interrupt;
use super::options::{UsageError, default_bot_name, game_id_parser, parse_param};
use super::sandboxing::{SandboxArgs, start_sandbox};
use crate::games::{Game, GameId, GameSetup, Seat};
use crate::players::random_player;
use crate::printable::printable;
use crate::protocol::{BadReplyKind, ForfeitReason};
use crate::referee::{
    self, Bot, BotCommand, Forfeit, GameReport, LogPath, Settings, Stopped, TimeControl, play_game,
};
use crate::results::{FileLayout, TranscriptStore};
use crate::sandbox::{Limits, limit_hit};
use crate::seeds::derive_seed;
use crate::units::parse_duration;
use crate::with_game;

/// Arguments of `arena check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Your bot's command line, e.g. "python3 my_bot.py".
    command: String,
    /// Check one game only (every game by default).
    #[arg(long, value_parser = game_id_parser())]
    game: Option<GameId>,
    /// Games per game id (half in each seat; the second half also carries
    /// unknown fields and messages).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(2..))]
    games: u64,
    /// Time for each move reply.
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    move_timeout: Duration,
    /// Time to answer each `start`.
    #[arg(long, value_parser = parse_duration, default_value = "5s")]
    startup_timeout: Duration,
    /// Wait for every reply as long as it takes, for debugging your bot
    /// (it is still told --move-timeout); the time it takes is then not
    /// checked.
    #[arg(long)]
    no_time_limit: bool,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where transcripts and your bot's stderr logs go [default: a new
    /// folder under the system's temporary folder].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A game parameter, e.g. --param count=12 (repeatable; needs --game).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param, requires = "game")]
    params: Vec<(String, serde_json::Value)>,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

/// One line of the checklist.
struct Item {
    title: &'static str,
    status: Status,
    evidence: String,
    /// The line the bot sent, when a line is the evidence.
    line: Option<String>,
    hint: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Pass,
    Fail,
    /// Could not be checked because of an earlier failure.
    Skip,
}

/// What one game id's games showed.
struct Evidence {
    /// Per game: the report, the bot's seat, and its pid when the game began.
    games: Vec<(GameReport, Seat, Option<u32>)>,
    /// Per game: where the bot's stderr went.
    logs: Vec<PathBuf>,
    stopped: Option<Stopped>,
    probed_from: usize,
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let mut command =
        BotCommand::parse(&args.command).map_err(|error| UsageError(error.to_string()))?;
    command.check_program().map_err(UsageError)?;
    let out = args.out.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("arena-check-{}-{}", std::process::id(), args.seed))
    });
    let games: Vec<GameId> = args.game.map_or_else(|| GameId::ALL.to_vec(), |game| vec![game]);
    let setups = games
        .iter()
        .map(|&game| {
            GameSetup::new(game, args.params.iter().cloned().collect())
                .map_err(|error| UsageError(format!("{game} parameters: {error}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Err(error) = referee::reaper::become_subreaper() {
        warn(&format!("cannot become a subreaper ({error})"));
    }
    let mut settings = Settings {
        time_control: TimeControl::PerMove { limit: args.move_timeout },
        startup_timeout: args.startup_timeout,
        no_time_limit: args.no_time_limit,
        // Generous: this measures whether the bot exits, not how fast.
        exit_grace: Duration::from_secs(1),
        ..Settings::default()
    };
    let name = default_bot_name(&command);
    crate::say!(
        "Checking `{}` against the built-in random player: {} game{} of each of {} (logs and transcripts in {})",
        args.command,
        args.games,
        if args.games == 1 { "" } else { "s" },
        games.iter().map(|game| game.as_str()).collect::<Vec<_>>().join(", "),
        out.display()
    );
    let (sandbox, sandbox_line) = start_sandbox(&args.sandbox.settings(), &[&out])?;
    settings.sandbox_line = sandbox_line.into();
    if let Some(sandbox) = &sandbox {
        BotCommand::sandbox_all(std::slice::from_mut(&mut command), sandbox)?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let interrupt =
        runtime.block_on(async { Interrupt::listen() }).context("cannot listen for Ctrl-C")?;
    let mut failed = 0;
    for setup in &setups {
        let game = setup.game();
        let folder = out.join(game.as_str());
        for sub in ["transcripts", "logs"] {
            std::fs::create_dir_all(folder.join(sub))
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        // A signal abandons the games: their bots are killed as the
        // sessions are dropped.
        let evidence = with_game!(game, G => {
            runtime.block_on(async {
                tokio::select! {
                    evidence = gather::<G>(&name, &command, &settings, &args, setup, &folder) => evidence.map(Some),
                    () = interrupt.wait() => Ok(None),
                }
            })?
        });
        let Some(evidence) = evidence else {
            referee::reaper::sweep_orphans();
            crate::say!("\ninterrupted: the checklist is incomplete");
            return Ok(ExitCode::from(super::EXIT_INTERRUPTED));
        };
        let mut items = checklist(&evidence, &settings);
        items.push(sandbox_item(&evidence, sandbox.as_deref().map(|sandbox| sandbox.limits())));
        crate::say!("\n{}:", game.title());
        for item in &items {
            print_item(item);
        }
        failed += items.iter().filter(|item| item.status == Status::Fail).count();
    }
    referee::reaper::sweep_orphans();
    crate::say!();
    if failed == 0 {
        crate::say!("All checks passed.");
        Ok(ExitCode::SUCCESS)
    } else {
        crate::say!("{failed} check{} failed.", if failed == 1 { "" } else { "s" });
        Ok(ExitCode::FAILURE)
    }
}

/// Plays the games of one game id and collects what happened.
async fn gather<G: Game>(
    name: &str,
    command: &BotCommand,
    base: &Settings,
    args: &CheckArgs,
    setup: &GameSetup,
    folder: &Path,
) -> anyhow::Result<Evidence> {
    let params = setup.params::<G>();
    let mut bot = Bot::new(name, command.clone());
    let mut random = Bot::local("random", random_player());
    let layout = FileLayout { folder: folder.into(), transcripts: TranscriptStore::Files };
    let probed_from = (args.games / 2) as usize;
    let mut games = Vec::new();
    let mut logs = Vec::new();
    for index in 0..args.games {
        let settings = Settings { probe_unknown: index as usize >= probed_from, ..base.clone() };
        let pid = bot.ensure_running(&settings).context("cannot start the bot")?.pid();
        let seat = if index % 2 == 0 { Seat::One } else { Seat::Two };
        let seated =
            if seat == Seat::One { [&mut bot, &mut random] } else { [&mut random, &mut bot] };
        let names = [seated[0].name.clone(), seated[1].name.clone()];
        let files = layout.files(index + 1, [&names[0], &names[1]]);
        logs.extend(files.stderr_logs[seat.index()].as_ref().map(LogPath::path));
        let report =
            play_game::<G>(seated, params, derive_seed(args.seed, index), &settings, &files)
                .await
                .context("cannot start the bot")?;
        games.push((report, seat, pid));
    }
    let stopped = bot.stop(base).await;
    random.stop(base).await;
    Ok(Evidence { games, logs, stopped, probed_from })
}

/// The checklist for one game id.
///
/// The games without probes decide every item but the one about unknown
/// fields, which the probed games decide, so one mistake shows under the
/// item it belongs to.
fn checklist(evidence: &Evidence, settings: &Settings) -> Vec<Item> {
    let plain = evidence.probed_from;
    let total = evidence.games.len();
    let forfeit_in = |index: usize| {
        let (report, seat, _) = &evidence.games[index];
        report.forfeits[seat.index()].clone()
    };
    let forfeits: Vec<(usize, Forfeit)> =
        (0..total).filter_map(|index| Some((index, forfeit_in(index)?))).collect();
    let plain_forfeits: Vec<&(usize, Forfeit)> =
        forfeits.iter().filter(|(index, _)| *index < plain).collect();
    // A process that ended after a game shows as a crash at the next start.
    let died_between_games = plain_forfeits.iter().find(|(index, forfeit)| {
        *index > 0
            && forfeit.reason == ForfeitReason::Crash
            && !evidence.games[*index].0.answered_start[evidence.games[*index].1.index()]
            && forfeit_in(index - 1).is_none_or(|previous| !previous.reason.leaves_bot_in_doubt())
    });
    let first = |matches: &dyn Fn(&Forfeit) -> bool| {
        plain_forfeits
            .iter()
            .copied()
            .filter(|offence| Some(*offence) != died_between_games.copied())
            .find(|(_, forfeit)| matches(forfeit))
    };
    let mut items = Vec::new();

    let (first_report, first_seat, _) = &evidence.games[0];
    items.push(if first_report.answered_start[first_seat.index()] {
        pass(
            "starts and answers the handshake in time",
            format!(
                "`ready` came back to `start` within {} ms",
                settings.startup_timeout.as_millis()
            ),
        )
    } else {
        failure(
            "starts and answers the handshake in time",
            0,
            forfeit_in(0).as_ref(),
            evidence,
            settings,
        )
    });
    items.push(check(
        "echoes ids",
        first(&|forfeit| forfeit.bad_reply.is_some_and(BadReplyKind::is_about_the_id)),
        format!("every reply carried its request's id in {total} games"),
        evidence,
        settings,
    ));
    items.push(check(
        "answers only legal moves",
        first(&|forfeit| forfeit.reason == ForfeitReason::IllegalMove),
        "every move was one of `legal_moves`".to_owned(),
        evidence,
        settings,
    ));
    let several = "plays several games in one process";
    let pids: Vec<Option<u32>> = evidence.games[..plain].iter().map(|(_, _, pid)| *pid).collect();
    let new_process = pids.windows(2).position(|pair| pair[0] != pair[1]).map(|index| index + 1);
    items.push(match (died_between_games, new_process) {
        (Some((index, forfeit)), _) => {
            let mut item = failure(several, *index, Some(forfeit), evidence, settings);
            item.hint =
                Some("keep reading stdin after `over`: the next game's `start` follows".to_owned());
            item
        }
        (None, None) => pass(several, format!("one process played the first {plain} games")),
        (None, Some(game)) => {
            skip(several, format!("game {game} forfeited, so its process was replaced"))
        }
    });
    let probed_failure = forfeits.iter().find(|(index, _)| *index >= plain);
    items.push(match (plain_forfeits.is_empty(), probed_failure) {
        (true, None) => pass(
            "ignores unknown fields and message types",
            format!("games {}-{} carried both and were played normally", plain + 1, total),
        ),
        (true, Some((index, forfeit))) => {
            let mut item =
                failure("ignores unknown fields and message types", *index, Some(forfeit), evidence, settings);
            item.hint = Some(
                "ignore fields you do not use and message types you do not know; later versions add some".to_owned(),
            );
            item
        }
        (false, _) => skip(
            "ignores unknown fields and message types",
            "not checked: the games without them already failed".to_owned(),
        ),
    });
    let slowest = evidence
        .games
        .iter()
        .map(|(report, seat, _)| report.slowest_reply[seat.index()])
        .max()
        .unwrap_or_default();
    let limit = settings.time_control.first_move();
    items.push(match first(&|forfeit| forfeit.reason == ForfeitReason::Timeout) {
        None if settings.no_time_limit => skip(
            "takes its time",
            format!(
                "slowest reply {:.1} ms; not checked against the {} ms it was told (--no-time-limit)",
                slowest.as_secs_f64() * 1e3,
                limit.as_millis()
            ),
        ),
        None => pass(
            "takes its time",
            format!(
                "slowest reply {:.1} ms of the {} ms allowed{}",
                slowest.as_secs_f64() * 1e3,
                limit.as_millis(),
                if slowest * 2 > limit {
                    " (more than half: a slower machine may time out)"
                } else {
                    ""
                }
            ),
        ),
        Some((index, forfeit)) => {
            failure("takes its time", *index, Some(forfeit), evidence, settings)
        }
    });
    items.push(match evidence.stopped {
        Some(Stopped { exited_in_grace: true, .. }) => pass(
            "exits when its input closes",
            format!("exited within {} ms", settings.exit_grace.as_millis()),
        ),
        Some(Stopped { exited_in_grace: false, .. }) => Item {
            title: "exits when its input closes",
            status: Status::Fail,
            evidence: format!(
                "still running {} ms after its stdin closed; it was killed",
                settings.exit_grace.as_millis()
            ),
            line: None,
            hint: Some(
                "end your read loop and exit when reading stdin returns end of file".to_owned(),
            ),
        },
        None => skip(
            "exits when its input closes",
            "not checked: a forfeit had already ended the last process".to_owned(),
        ),
    });
    items.push(check(
        "writes nothing but protocol lines to stdout",
        first(&|forfeit| {
            forfeit.reason == ForfeitReason::LineTooLong
                || forfeit.bad_reply.is_some_and(|kind| {
                    kind.forfeit_reason() == ForfeitReason::Malformed && !kind.is_about_the_id()
                })
        }),
        "every line was a protocol reply".to_owned(),
        evidence,
        settings,
    ));
    items.push(check(
        "keeps running during games",
        first(&|forfeit| forfeit.reason == ForfeitReason::Crash),
        "no crash or exit in the middle of a game".to_owned(),
        evidence,
        settings,
    ));
    items
}

/// Words of a refusal as programs print them, and what the sandbox refused.
const DENIALS: [(&str, &str); 4] = [
    ("Permission denied", "your bot tried to open a file outside its folders"),
    ("PermissionError", "your bot tried to open a file outside its folders"),
    (
        "Operation not permitted",
        "your bot tried something the sandbox forbids (another process, the network, or a protected system call)",
    ),
    ("Read-only file system", "your bot tried to write outside its scratch folder"),
];

/// Whether the bot's stderr shows the sandbox refusing it something.
fn sandbox_item(evidence: &Evidence, limits: Option<&Limits>) -> Item {
    const TITLE: &str = "stays inside its sandbox";
    let Some(limits) = limits else {
        return skip(TITLE, "not checked: the sandbox is off (--no-sandbox)".to_owned());
    };
    for (index, log) in evidence.logs.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(log) else { continue };
        for line in text.lines() {
            let denial = DENIALS
                .iter()
                .find(|(words, _)| line.contains(words))
                .map(|(_, what)| (*what).to_owned());
            let Some(what) = denial.or_else(|| {
                limit_hit(limits, None, line.as_bytes())
                    .map(|limit| format!("your bot ran {limit}"))
            }) else {
                continue;
            };
            return Item {
                title: TITLE,
                status: Status::Fail,
                evidence: format!(
                    "game {}: {what}; its stderr ({}) says: {}",
                    index + 1,
                    log.display(),
                    printable(line)
                ),
                line: None,
                hint: Some(
                    "a bot may read the system and the folders of its program and script, write only in $HOME (= $TMPDIR, its scratch folder), and has no network (protocol.md section 7); keep the files it reads beside its program, or allow a path with --allow-read (read_paths in a tournament file)".to_owned(),
                ),
            };
        }
    }
    pass(TITLE, "its stderr shows no refusal by the sandbox".to_owned())
}

fn pass(title: &'static str, evidence: String) -> Item {
    Item { title, status: Status::Pass, evidence, line: None, hint: None }
}

fn skip(title: &'static str, evidence: String) -> Item {
    Item { title, status: Status::Skip, evidence, line: None, hint: None }
}

/// Passes when nothing went wrong, else fails with the first offence.
fn check(
    title: &'static str,
    offence: Option<&(usize, Forfeit)>,
    fine: String,
    evidence: &Evidence,
    settings: &Settings,
) -> Item {
    match offence {
        None => pass(title, fine),
        Some((index, forfeit)) => failure(title, *index, Some(forfeit), evidence, settings),
    }
}

fn failure(
    title: &'static str,
    index: usize,
    forfeit: Option<&Forfeit>,
    evidence: &Evidence,
    settings: &Settings,
) -> Item {
    let (_, seat, _) = &evidence.games[index];
    let log = &evidence.logs[index];
    let Some(forfeit) = forfeit else {
        return Item {
            title,
            status: Status::Fail,
            evidence: format!("game {} (seat {seat}): no `ready`", index + 1),
            line: None,
            hint: None,
        };
    };
    Item {
        title,
        status: Status::Fail,
        evidence: format!(
            "game {} (seat {seat}): {}: {}",
            index + 1,
            forfeit.reason,
            forfeit.detail
        ),
        line: forfeit.line.clone(),
        hint: Some(hint(forfeit, log, settings)),
    }
}

/// What a beginner can do about a forfeit.
fn hint(forfeit: &Forfeit, log: &Path, settings: &Settings) -> String {
    match forfeit.reason {
        ForfeitReason::Timeout if forfeit.line.is_some() => {
            "your reply has no newline at its end: write \"\\n\" after each reply".to_owned()
        }
        ForfeitReason::Timeout if forfeit.detail.contains("input") => {
            "read your stdin: the referee could not write its request".to_owned()
        }
        ForfeitReason::Timeout => format!(
            "no reply arrived within {} ms: answer every `move` request, end the reply with a newline and flush stdout (print(..., flush=True) in Python, console.log in Node, stdout().flush() in Rust)",
            settings.time_control.first_move().as_millis()
        ),
        _ if forfeit.bad_reply.is_some_and(BadReplyKind::is_about_the_id) => {
            "copy the `id` of each request into your reply, as the number it is".to_owned()
        }
        ForfeitReason::Malformed if !forfeit.bad_reply.is_some_and(BadReplyKind::is_stray_output) => {
            "answer `start` with {\"type\":\"ready\",\"id\":ID} and `move` with {\"type\":\"move\",\"id\":ID,\"move\":M}".to_owned()
        }
        ForfeitReason::Malformed | ForfeitReason::LineTooLong => {
            "only protocol replies go to stdout, one JSON object per line: debug prints go to stderr".to_owned()
        }
        ForfeitReason::IllegalMove => {
            "reply with one element of the request's `legal_moves`, copied as it is".to_owned()
        }
        ForfeitReason::Crash => format!(
            "your bot stopped in the middle of a game; what it wrote to stderr, if anything, is in {}",
            log.display()
        ),
    }
}

fn print_item(item: &Item) {
    let status = match item.status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Skip => "SKIP",
    };
    crate::say!("  {status}  {}: {}", item.title, item.evidence);
    if let Some(line) = &item.line {
        crate::say!("        it sent: {line}");
    }
    if let Some(hint) = &item.hint {
        crate::say!("        hint: {hint}");
    }
}
