//! `arena check CMD`: a conformance checklist for a bot author's program.
//!
//! The bot plays a few games of each game against the built-in random
//! player, in both seats, in one process; the second half of the games also
//! carry a field and a message type the bot cannot know. Each item of the
//! checklist passes only on evidence (a reply, a move, a game played), fails
//! with its evidence, or says why it could not be judged; a failure shows
//! the line the bot sent and a hint a beginner can act on. Every forfeit
//! belongs to exactly one item, chosen by its typed cause, so one problem is
//! reported once, and a hint is shown once per check.
//!
//! A bot that never answers `start` would fail there in every game: its
//! first failed handshake ends the check, and what could not be judged is
//! summed up in one line. A bot that sits waiting for input without having
//! answered `start` has its reply stuck in its output buffer: that is
//! judged as soon as it is seen (in a few hundred milliseconds), not at the
//! start-up limit.

mod advice;
mod checklist;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use super::game_arg::{GameArg, GameArgParser, game_setup};
use super::interrupt::Interrupt;
use super::options::{UsageError, command_from_words, default_bot_name, parse_param};
use super::reporters::warn;
use super::sandbox_from::SandboxFromArgs;
use super::sandboxing::{SandboxArgs, prepare_sandbox, say_sandbox};
use crate::games::{GameId, GameSetup, Seat};
use crate::players::random_player;
use crate::referee::game_program::command_of;
use crate::referee::{
    self, Bot, BotCommand, GameProgram, LogPath, Rules, Settings, TimeControl, play_game,
};
use crate::results::{FileLayout, TranscriptStore};
use crate::seeds::derive_seed;
use crate::tournament::Tournament;
use crate::tournament::build::check_built;
use crate::tournament::config::BotEntry;
use crate::units::parse_duration;
use crate::with_rules;
use advice::Language;
use checklist::{Evidence, Item, Played, Status, checklist, never_started, sandbox_item};

/// How long a bot that has not answered `start` may sit waiting for input
/// before its reply is judged stuck in its output buffer: long past the
/// moment a bot that answered goes back to reading.
const STUCK_START_AFTER: Duration = Duration::from_millis(300);

/// Arguments of `arena check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Your bot's command: its words (python3 my_bot.py), or one quoted
    /// line split as a shell would ("python3 my_bot.py"; no shell runs; a
    /// line that is an existing file's path is that file). A command with
    /// a word that starts with `-` goes after `--`, the options before it
    /// (--game number-snatch -- python3 -u my_bot.py), or is quoted whole.
    /// Or --league FILE --bot NAME.
    #[arg(value_name = "COMMAND", required_unless_present = "league", conflicts_with = "league")]
    command: Vec<String>,
    /// Check a bot of this tournament file as the file runs it: its
    /// command, folder and environment, the file's game, parameters, time
    /// limits and sandbox (with --bot).
    #[arg(long, value_name = "FILE", requires = "bot", conflicts_with_all = ["game", "params"])]
    league: Option<PathBuf>,
    /// The bot of the --league file to check.
    #[arg(long, value_name = "NAME")]
    bot: Option<String>,
    #[command(flatten)]
    sandbox_from: SandboxFromArgs,
    /// Check one game only (every built-in game by default): a game's id
    /// (`arena games` lists them) or a game program's command line
    /// (game-protocol.md).
    #[arg(long, value_parser = GameArgParser)]
    game: Option<GameArg>,
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
    let mut tournament =
        Tournament::load(file, None).map_err(|error| UsageError(error.to_string()))?;
    args.sandbox_from.apply(&mut tournament)?;
    let index =
        tournament.bot_index(name).map_err(|error| UsageError(format!("--bot {name}: {error}")))?;
    let bot = tournament.bots[index].clone();
    check_built(std::slice::from_ref(&bot), file, &tournament.fingerprint_exclusions())
        .map_err(UsageError)?;
    Ok(Some((tournament, bot)))
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let league = league_bot(&args)?;
    let (command, shown) = match &league {
        Some((tournament, bot)) => {
            (bot.command(), format!("`{}` as {} runs it", bot.name, tournament.file.display()))
        }
        None => {
            let command = command_from_words(&args.command)?;
            let shown = format!("`{}`", command.display());
            (command, shown)
        }
    };
    command.check_files().map_err(UsageError)?;
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
    let (sandbox_settings, league_file) = match &league {
        Some((tournament, _)) => {
            let mut settings = tournament.sandbox.clone();
            args.sandbox.apply_to(&mut settings);
            (settings, Some(tournament.file.as_path()))
        }
        None => (args.sandbox.settings(), None),
    };
    let protected: Vec<&Path> = std::iter::once(out.as_path()).chain(league_file).collect();
    // The games: the league's, or those asked for (a game program describes
    // itself in the sandbox the bot will have).
    let setups = match &league {
        Some((tournament, _)) => vec![tournament.setup.clone()],
        None => {
            let games: Vec<GameArg> = match &args.game {
                Some(game) => vec![game.clone()],
                None => GameId::ALL.iter().map(|&id| GameArg::Builtin(id)).collect(),
            };
            games
                .iter()
                .map(|game| {
                    let program_settings = Settings::default().program_settings();
                    game_setup(
                        game,
                        &args.params,
                        &sandbox_settings,
                        &protected,
                        program_settings,
                        None,
                    )
                })
                .collect::<anyhow::Result<Vec<GameSetup>>>()?
        }
    };
    let mut settings = Settings {
        time_control: TimeControl::PerMove { limit: move_timeout },
        startup_timeout,
        no_time_limit: args.no_time_limit,
        // Generous: this measures whether the bot exits, not how fast.
        exit_grace: Duration::from_secs(1),
        stuck_start_after: Some(STUCK_START_AFTER),
        ..Settings::default()
    };
    let name = match &league {
        Some((_, bot)) => bot.name.clone(),
        None => default_bot_name(&command),
    };
    let language = Language::of(&command);
    // Refusals (a sandbox this machine cannot give, a bot's folder closed
    // to the box) come before the header.
    let (sandbox, sandbox_line) = prepare_sandbox(&sandbox_settings, &protected)?;
    // A game program runs in the same sandbox as the bot, apart from it.
    let mut commands = vec![command];
    let program = setups.iter().find_map(|setup| setup.game().program());
    if let Some(program) = program {
        commands.push(command_of(program));
    }
    let names = ["the bot".to_owned(), "the game program".to_owned()];
    for message in BotCommand::prepare_all(&mut commands, &names, sandbox.as_ref())? {
        super::reporters::warn(&message);
    }
    crate::say!(
        "Checking {}{} against the built-in random player: {} game{} of {}{} ({})",
        shown,
        match language {
            Some(language) => format!(" ({})", language.name()),
            None => String::new(),
        },
        args.games,
        if args.games == 1 { "" } else { "s" },
        if setups.len() == 1 { "" } else { "each of " },
        setups.iter().map(|setup| setup.game().name()).collect::<Vec<_>>().join(", "),
        match &args.out {
            Some(out) => format!("logs and transcripts in {}", out.display()),
            None => "keep its logs and transcripts with --out DIR".to_owned(),
        }
    );
    say_sandbox(&sandbox_line);
    settings.sandbox_line = sandbox_line.into();
    let game_command = commands.get(1).cloned();
    let command = commands.swap_remove(0);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let interrupt =
        runtime.block_on(async { Interrupt::listen() }).context("cannot listen for Ctrl-C")?;
    let (mut failed, mut not_judged) = (0, 0);
    let mut hints_shown = HashSet::new();
    let mut ever_started = false;
    let mut not_checked: &[GameSetup] = &[];
    for (position, setup) in setups.iter().enumerate() {
        let game = setup.game();
        let folder = out.join(game.name());
        for sub in ["transcripts", "logs"] {
            std::fs::create_dir_all(folder.join(sub))
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        // A signal abandons the games: their bots are killed as the
        // sessions are dropped.
        let program = |game| {
            let command = game_command.clone().expect("a game program has its command");
            GameProgram::of(game, command, settings.program_settings())
        };
        let evidence = with_rules!(game, program, rules => {
            runtime.block_on(async {
                let evidence = tokio::select! {
                    evidence = gather(&mut rules, &name, &command, &settings, &args, setup, &folder, language) => evidence.map(Some),
                    () = interrupt.wait() => Ok(None),
                };
                rules.stop().await;
                evidence
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
        print_items(&items, &mut hints_shown);
        failed += items.iter().filter(|item| item.status == Status::Fail).count();
        not_judged += items.iter().filter(|item| item.status != Status::Pass).count()
            - items.iter().filter(|item| item.status == Status::Fail).count();
        ever_started |= evidence.games.iter().any(Played::answered_start);
        if !ever_started && never_started(&evidence.games) {
            not_checked = &setups[position + 1..];
            break;
        }
    }
    referee::reaper::sweep_orphans();
    if !not_checked.is_empty() {
        let titles: Vec<&str> = not_checked.iter().map(|setup| setup.game().title()).collect();
        crate::say!(
            "\nNot checked: {}. A bot that does not answer `start` fails there in every game: fix the failure above and check again (--game GAME checks one game).",
            titles.join(", ")
        );
    }
    crate::say!();
    if failed == 0 {
        crate::say!("All checks passed.");
        Ok(ExitCode::SUCCESS)
    } else {
        let mut summary = format!("{failed} check{} failed", if failed == 1 { "" } else { "s" });
        if not_judged > 0 {
            summary.push_str(&format!("; {not_judged} could not be judged"));
        }
        if !not_checked.is_empty() {
            let count = not_checked.len();
            summary.push_str(&format!("; {count} game{} not checked", plural(count)));
        }
        crate::say!("{summary}.");
        Ok(ExitCode::FAILURE)
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// Prints a game's checklist: the items judged (and those the user chose
/// not to check), each with its evidence; then those not judged for want
/// of evidence, in one line when there are several. A hint already shown
/// in this check is not repeated.
fn print_items(items: &[Item], hints_shown: &mut HashSet<String>) {
    let (unjudged, judged): (Vec<&Item>, Vec<&Item>) =
        items.iter().partition(|item| item.status == Status::NotJudged);
    for item in judged {
        print_item(item, hints_shown);
    }
    match unjudged.as_slice() {
        [] => {}
        [item] => print_item(item, hints_shown),
        many => {
            let titles: Vec<&str> = many.iter().map(|item| item.title).collect();
            crate::say!("  SKIP  not judged, for want of evidence: {}", titles.join("; "));
        }
    }
}

fn print_item(item: &Item, hints_shown: &mut HashSet<String>) {
    let status = match item.status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Skip | Status::NotJudged => "SKIP",
    };
    crate::say!("  {status}  {}: {}", item.title, item.evidence);
    if let Some(line) = &item.line {
        let line = if line.is_empty() { "an empty line" } else { line };
        crate::say!("        it sent: {line}");
    }
    if let Some(stderr) = &item.stderr {
        stderr.say();
    }
    if let Some(hint) = &item.hint
        && hints_shown.insert(hint.clone())
    {
        crate::say!("        hint: {hint}");
    }
}

/// Plays the games of one game and collects what happened.
#[allow(clippy::too_many_arguments)]
async fn gather<R: Rules>(
    rules: &mut R,
    name: &str,
    command: &BotCommand,
    base: &Settings,
    args: &CheckArgs,
    setup: &GameSetup,
    folder: &Path,
    language: Option<Language>,
) -> anyhow::Result<Evidence> {
    let mut bot = Bot::new(name, command.clone());
    let mut random = Bot::local("random", random_player());
    let layout = FileLayout {
        folder: folder.into(),
        transcripts: TranscriptStore::Files,
        game_logs: setup.game().program().is_some(),
    };
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
        let report = play_game(
            rules,
            setup,
            seated,
            derive_seed(args.seed, index),
            index + 1,
            &settings,
            &files,
        )
        .await
        .context("cannot start the bot")?;
        if let Some(fault) = &report.void {
            // The bot cannot be judged on a game that failed.
            bot.stop(base).await;
            anyhow::bail!(
                "game {} is void: {}\n(check the game itself with `arena check-game`)",
                index + 1,
                fault.detail()
            );
        }
        games.push(Played { report, seat, pid, log });
        if never_started(&games) {
            break;
        }
    }
    // The built-in player's exit is not judged: it is ended at once, while
    // the bot has its grace.
    let ours = Settings { exit_grace: Duration::ZERO, ..base.clone() };
    let (stopped, _) = tokio::join!(bot.stop(base), random.stop(&ours));
    Ok(Evidence { games, stopped, probed_from, logs_kept: args.out.is_some(), language })
}
