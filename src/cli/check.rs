//! `arena check CMD`: a conformance checklist for a bot author's program.
//!
//! The bot plays a few games of each game against the built-in random
//! player, in both seats, in one process; the second half of the games also
//! carry a field and a message type the bot cannot know. Each item of the
//! checklist passes only on evidence (a reply, a move, a game played), fails
//! with its evidence, or says why it could not be judged; a failure shows
//! the line the bot sent and a hint a beginner can act on. Every forfeit
//! belongs to exactly one item, chosen by its typed cause, so one problem is
//! reported once.

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
    self, Activity, Bot, BotCommand, Cause, Forfeit, GameReport, LogPath, Settings, Stall, Stopped,
    TimeControl, play_game,
};
use crate::results::{FileLayout, TranscriptStore};
use crate::sandbox::{Limits, limit_hit};
use crate::seeds::derive_seed;
use crate::tournament::Tournament;
use crate::tournament::build::check_built;
use crate::tournament::config::BotEntry;
use crate::units::parse_duration;
use crate::with_game;

/// Arguments of `arena check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Your bot's command line, e.g. "python3 my_bot.py" (or --league FILE
    /// --bot NAME).
    #[arg(required_unless_present = "league", conflicts_with = "league")]
    command: Option<String>,
    /// Check a bot of this tournament file as the file runs it: its
    /// command, folder and environment, the file's game, parameters, time
    /// limits and sandbox (with --bot).
    #[arg(long, value_name = "FILE", requires = "bot", conflicts_with_all = ["game", "params"])]
    league: Option<PathBuf>,
    /// The bot of the --league file to check.
    #[arg(long, value_name = "NAME")]
    bot: Option<String>,
    /// Check one game only (every game by default).
    #[arg(long, value_parser = game_id_parser())]
    game: Option<GameId>,
    /// Games per game id (half in each seat; the second half also carries
    /// unknown fields and messages).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(2..))]
    games: u64,
    /// Time for each move reply [default: 1s, or with --league the file's
    /// limit per move].
    #[arg(long, value_parser = parse_duration)]
    move_timeout: Option<Duration>,
    /// Time to answer each `start` [default: 5s, or the --league file's].
    #[arg(long, value_parser = parse_duration)]
    startup_timeout: Option<Duration>,
    /// Wait for every reply as long as it takes, for debugging your bot
    /// (it is still told --move-timeout); the time it takes is then not
    /// checked.
    #[arg(long)]
    no_time_limit: bool,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Keep the transcripts and your bot's stderr logs in DIR [default: a
    /// scratch folder, removed when the check ends].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A game parameter, e.g. --param count=12 (repeatable; needs --game,
    /// as parameters belong to one game; `arena games` lists them).
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
    /// Not judged: nothing came back to judge, or an earlier failure hid it.
    Skip,
}

/// The items a forfeit can fail, each forfeit exactly one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Topic {
    Handshake,
    Ids,
    LegalMoves,
    SeveralGames,
    Time,
    StdoutLines,
    KeepsRunning,
}

/// One game the bot played.
struct Played {
    report: GameReport,
    seat: Seat,
    /// The bot's process when the game began.
    pid: Option<u32>,
    /// Where the bot's stderr went in this game.
    log: PathBuf,
}

impl Played {
    fn forfeit(&self) -> Option<&Forfeit> {
        self.report.forfeits[self.seat.index()].as_ref()
    }

    fn answered_start(&self) -> bool {
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
                Cause::BadReply(_) | Cause::IllegalMove | Cause::LineTooLong { .. }
            )
        });
        self.replies_accepted() + u32::from(refused)
    }
}

/// What one game id's games showed.
struct Evidence {
    games: Vec<Played>,
    stopped: Option<Stopped>,
    /// The first game that carries unknown fields and messages.
    probed_from: usize,
    /// Whether the logs are kept after the check (`--out`).
    logs_kept: bool,
}

/// The bot of a league file that `--league FILE --bot NAME` checks, and
/// the file's tournament.
fn league_bot(args: &CheckArgs) -> anyhow::Result<Option<(Tournament, BotEntry)>> {
    let (Some(file), Some(name)) = (&args.league, &args.bot) else {
        if args.bot.is_some() {
            return Err(UsageError(
                "--bot names a bot of a league file: give --league FILE".to_owned(),
            )
            .into());
        }
        return Ok(None);
    };
    let tournament = Tournament::load(file, None).map_err(|error| UsageError(error.to_string()))?;
    let index =
        tournament.bot_index(name).map_err(|error| UsageError(format!("--bot {name}: {error}")))?;
    let bot = tournament.bots[index].clone();
    check_built(std::slice::from_ref(&bot), file).map_err(UsageError)?;
    Ok(Some((tournament, bot)))
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let league = league_bot(&args)?;
    let (mut command, setups, shown) = match &league {
        Some((tournament, bot)) => {
            let shown = format!("`{}` as {} runs it", bot.name, tournament.file.display());
            (bot.command(), vec![tournament.setup.clone()], shown)
        }
        None => {
            let line = args.command.clone().unwrap_or_default();
            let command =
                BotCommand::parse(&line).map_err(|error| UsageError(error.to_string()))?;
            let games: Vec<GameId> =
                args.game.map_or_else(|| GameId::ALL.to_vec(), |game| vec![game]);
            let setups = games
                .iter()
                .map(|&game| {
                    GameSetup::new(game, args.params.iter().cloned().collect())
                        .map_err(|error| UsageError(error.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            (command, setups, format!("`{line}`"))
        }
    };
    command.check_program().map_err(UsageError)?;
    let games: Vec<GameId> = setups.iter().map(GameSetup::game).collect();
    // The league's limits where it has them, the flags over them.
    let league_settings = league.as_ref().map(|(tournament, _)| &tournament.settings);
    let league_limit = match league_settings.map(|settings| settings.time_control) {
        Some(TimeControl::PerMove { limit }) => Some(limit),
        _ => None,
    };
    let move_timeout = args.move_timeout.or(league_limit).unwrap_or(Duration::from_secs(1));
    let startup_timeout = args
        .startup_timeout
        .or(league_settings.map(|settings| settings.startup_timeout))
        .unwrap_or(Duration::from_secs(5));
    // Without --out, everything goes to a scratch folder that is removed
    // when this returns, whatever happens.
    let scratch = match &args.out {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("arena-check-")
                .tempdir()
                .context("cannot create a scratch folder")?,
        ),
    };
    let out = match (&args.out, &scratch) {
        (Some(out), _) => out.clone(),
        (None, scratch) => scratch.as_ref().expect("made above").path().to_owned(),
    };
    if let Err(error) = referee::reaper::become_subreaper() {
        warn(&format!("cannot become a subreaper ({error})"));
    }
    let mut settings = Settings {
        time_control: TimeControl::PerMove { limit: move_timeout },
        startup_timeout,
        no_time_limit: args.no_time_limit,
        // Generous: this measures whether the bot exits, not how fast.
        exit_grace: Duration::from_secs(1),
        ..Settings::default()
    };
    let name = match &league {
        Some((_, bot)) => bot.name.clone(),
        None => default_bot_name(&command),
    };
    crate::say!(
        "Checking {} against the built-in random player: {} game{} of each of {} ({})",
        shown,
        args.games,
        if args.games == 1 { "" } else { "s" },
        games.iter().map(|game| game.as_str()).collect::<Vec<_>>().join(", "),
        match &args.out {
            Some(out) => format!("logs and transcripts in {}", out.display()),
            None => "keep its logs and transcripts with --out DIR".to_owned(),
        }
    );
    let (sandbox_settings, league_file) = match &league {
        Some((tournament, _)) => {
            let mut settings = tournament.sandbox.clone();
            args.sandbox.apply_to(&mut settings);
            (settings, Some(tournament.file.as_path()))
        }
        None => (args.sandbox.settings(), None),
    };
    let protected: Vec<&Path> = std::iter::once(out.as_path()).chain(league_file).collect();
    let (sandbox, sandbox_line) = start_sandbox(&sandbox_settings, &protected)?;
    settings.sandbox_line = sandbox_line.into();
    if let Some(sandbox) = &sandbox {
        BotCommand::sandbox_all(std::slice::from_mut(&mut command), sandbox)?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let interrupt =
        runtime.block_on(async { Interrupt::listen() }).context("cannot listen for Ctrl-C")?;
    let (mut failed, mut not_judged) = (0, 0);
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
        not_judged += items.iter().filter(|item| item.status == Status::Skip).count();
    }
    referee::reaper::sweep_orphans();
    crate::say!();
    if failed == 0 {
        crate::say!("All checks passed.");
        Ok(ExitCode::SUCCESS)
    } else {
        crate::say!(
            "{failed} check{} failed{}.",
            if failed == 1 { "" } else { "s" },
            match not_judged {
                0 => String::new(),
                _ => format!("; {not_judged} could not be judged"),
            }
        );
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
    for index in 0..args.games {
        let settings = Settings { probe_unknown: index as usize >= probed_from, ..base.clone() };
        let pid = bot.ensure_running(&settings).context("cannot start the bot")?.pid();
        let seat = if index % 2 == 0 { Seat::One } else { Seat::Two };
        let seated =
            if seat == Seat::One { [&mut bot, &mut random] } else { [&mut random, &mut bot] };
        let names = [seated[0].name.clone(), seated[1].name.clone()];
        let files = layout.files(index + 1, [&names[0], &names[1]]);
        let log = files.stderr_logs[seat.index()].as_ref().map(LogPath::path).unwrap_or_default();
        let report =
            play_game::<G>(seated, params, derive_seed(args.seed, index), &settings, &files)
                .await
                .context("cannot start the bot")?;
        games.push(Played { report, seat, pid, log });
    }
    let stopped = bot.stop(base).await;
    random.stop(base).await;
    Ok(Evidence { games, stopped, probed_from, logs_kept: args.out.is_some() })
}

/// The item a forfeit in game `index` fails, by its typed cause.
fn topic(forfeit: &Forfeit, index: usize, evidence: &Evidence) -> Topic {
    let at_start = forfeit.request.is_start();
    match &forfeit.cause {
        Cause::BadReply(kind) if kind.is_about_the_id() => Topic::Ids,
        Cause::BadReply(kind) if kind.forfeit_reason() == ForfeitReason::IllegalMove => {
            Topic::LegalMoves
        }
        Cause::IllegalMove => Topic::LegalMoves,
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
        Cause::Crash(_) => Topic::KeepsRunning,
    }
}

/// The checklist for one game id.
///
/// The games without probes decide every item but the one about unknown
/// fields, which the probed games decide, so one mistake shows under the
/// item it belongs to.
fn checklist(evidence: &Evidence, settings: &Settings) -> Vec<Item> {
    let plain = evidence.probed_from;
    let total = evidence.games.len();
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
            false => skip(HANDSHAKE, "not judged: its `ready` was refused (see below)".to_owned()),
        }
    }));

    const IDS: &str = "echoes ids";
    items.push(fails(IDS, Topic::Ids).unwrap_or_else(|| match replies {
        0 => skip(IDS, nothing_came_back().to_owned()),
        _ => pass(IDS, format!("all {replies} replies accepted carried their request's id")),
    }));

    const LEGAL: &str = "answers only legal moves";
    items.push(fails(LEGAL, Topic::LegalMoves).unwrap_or_else(|| match moves {
        0 => skip(LEGAL, "not judged: no move came back".to_owned()),
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
        None => {
            skip(SEVERAL, "not judged: a forfeit replaced the process after every game".to_owned())
        }
    });

    const UNKNOWN: &str = "ignores unknown fields and message types";
    let probed_failure = games[plain..]
        .iter()
        .enumerate()
        .find_map(|(offset, played)| Some((plain + offset, played.forfeit()?)));
    items.push(match (plain_forfeits.is_empty(), probed_failure) {
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
            skip(UNKNOWN, "not judged: the games without them already failed".to_owned())
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
        0 => skip(TIME, "not judged: no move came back".to_owned()),
        _ if settings.no_time_limit => skip(
            TIME,
            format!(
                "slowest move {:.1} ms; not checked against the {} ms it was told (--no-time-limit)",
                slowest.as_secs_f64() * 1e3,
                limit.as_millis()
            ),
        ),
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
            hint: Some(
                "end your read loop and exit when reading stdin returns end of file".to_owned(),
            ),
        },
        None => skip(EXITS, "not judged: a forfeit had already ended the last process".to_owned()),
    });

    const STDOUT: &str = "writes nothing but protocol lines to stdout";
    items.push(fails(STDOUT, Topic::StdoutLines).unwrap_or_else(|| match lines {
        0 => skip(STDOUT, "not judged: no line came back".to_owned()),
        _ => pass(STDOUT, format!("all {lines} lines were protocol replies")),
    }));

    const RUNNING: &str = "keeps running during games";
    items.push(fails(RUNNING, Topic::KeepsRunning).unwrap_or_else(|| {
        match games[..plain].iter().any(Played::answered_start) {
            true => pass(RUNNING, "no crash or exit in the middle of a game".to_owned()),
            false => skip(RUNNING, "not judged: no game got past its `start`".to_owned()),
        }
    }));
    items
}

/// Words of a refusal as programs print them, and what the sandbox refused.
const DENIALS: [(&str, &str); 6] = [
    ("Permission denied", "your bot tried to open a file outside its folders"),
    ("PermissionError", "your bot tried to open a file outside its folders"),
    (
        "Operation not permitted",
        "your bot tried something the sandbox forbids (another process, the network, or a protected system call)",
    ),
    (
        "Function not implemented",
        "your bot made a system call the sandbox refuses (see protocol.md section 7)",
    ),
    ("Read-only file system", "your bot tried to write outside its scratch folder"),
    ("No space left on device", "your bot filled its scratch folder"),
];

/// Words of a missing file as programs print them: in a box, a file
/// outside the bot's folders does not exist.
const MISSING: [&str; 3] = ["No such file or directory", "FileNotFoundError", "ENOENT"];

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
fn sandbox_item(evidence: &Evidence, limits: Option<&Limits>) -> Item {
    const TITLE: &str = "stays inside its sandbox";
    let Some(limits) = limits else {
        return skip(TITLE, "not checked: the sandbox is off (--no-sandbox)".to_owned());
    };
    for (index, played) in evidence.games.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(&played.log) else { continue };
        for line in text.lines() {
            let denial = DENIALS
                .iter()
                .find(|(words, _)| line.contains(words))
                .map(|(_, what)| (*what).to_owned())
                .or_else(|| {
                    hidden_path(line).map(|path| {
                        format!(
                            "your bot tried to open {path}, which is outside its folders (its box does not show it)"
                        )
                    })
                });
            let Some(what) = denial.or_else(|| {
                limit_hit(limits, None, None, line.as_bytes())
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
                hint: Some(
                    "a bot sees the system folders, its interpreter and the folders of its program and script, writes only in /tmp (its HOME and TMPDIR), and has no network (protocol.md section 7); keep the files it reads beside its program, or allow a path with --allow-read (read_paths in a tournament file)".to_owned(),
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
            forfeit.detail
        ),
        line: forfeit.line.clone(),
        hint: Some(hint(forfeit, evidence.logs_kept.then_some(played.log.as_path()))),
    }
}

/// What a beginner can do about a forfeit, by its typed cause. `log` is
/// the bot's stderr log of the game, when it is kept.
fn hint(forfeit: &Forfeit, log: Option<&Path>) -> String {
    let request = if forfeit.request.is_start() { "start" } else { "move" };
    match &forfeit.cause {
        Cause::Timeout(timeout) => match timeout.stall {
            Stall::InputNotRead => {
                "read your stdin as requests come: the referee could not even write its request"
                    .to_owned()
            }
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::WaitingForInput } => {
                "your bot was waiting for its next request: its reply is still in its output buffer; flush stdout after every line (protocol.md §8 shows how in each language)".to_owned()
            }
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::Busy } => format!(
                "your bot was still at work when its time ran out: answer every `{request}` request within the time (the request's `time_ms`)"
            ),
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::Unknown } => format!(
                "if your bot did answer, its reply is still in its output buffer: flush stdout after every line (protocol.md §8 shows how in each language); if it did not, answer every `{request}` request within the time"
            ),
            Stall::NoLine { partial_bytes, .. } => format!(
                "{partial_bytes} bytes came without a newline: end each reply with \"\\n\" and flush stdout after it (protocol.md §8)"
            ),
        },
        Cause::BadReply(BadReplyKind::IdNotANumber) => {
            "copy the `id` of each request into your reply as the number it is (\"id\": 2, not \"id\": \"2\")".to_owned()
        }
        Cause::BadReply(kind) if kind.is_about_the_id() => {
            "copy the `id` of each request into your reply, as the number it is".to_owned()
        }
        Cause::BadReply(kind) if kind.is_stray_output() => {
            "only protocol replies go to stdout, one JSON object per line: debug prints go to stderr".to_owned()
        }
        Cause::BadReply(BadReplyKind::NotAMove) | Cause::IllegalMove => {
            "reply with one element of the request's `legal_moves`, copied as it is (same shape and types)".to_owned()
        }
        Cause::BadReply(_) => {
            "answer `start` with {\"type\":\"ready\",\"id\":ID} and `move` with {\"type\":\"move\",\"id\":ID,\"move\":M}".to_owned()
        }
        Cause::LineTooLong { .. } => {
            "only protocol replies go to stdout, one JSON object per line: debug prints go to stderr".to_owned()
        }
        Cause::Crash(crash) => {
            let mut hint = match crash.stderr_tail.is_empty() {
                true => "your bot stopped and wrote nothing to stderr".to_owned(),
                false => "your bot stopped: the error is most likely in what it wrote to stderr, quoted above".to_owned(),
            };
            if let Some(log) = log {
                hint.push_str(&format!("; its whole stderr is in {}", log.display()));
            }
            hint
        }
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
