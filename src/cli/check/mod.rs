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
use arena_base::units::parse_duration;
use arena_conformance::bot::{
    Item, Language, Plan, Played, STUCK_START_AFTER, Status, checklist, gather, never_started,
    sandbox_item,
};
use arena_games::{GameId, GameSetup};
use arena_referee::game_program::command_of;
use arena_referee::with_rules;
use arena_referee::{self as referee, BotCommand, GameProgram, Rules, Settings, TimeControl};
use arena_tournament::Tournament;
use arena_tournament::build::check_built;
use arena_tournament::config::BotEntry;

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
    let (mut passed_games, mut failed_games) = (Vec::new(), 0);
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
                let plan = Plan {
                    name: &name,
                    command: &command,
                    settings: &settings,
                    setup,
                    folder: &folder,
                    language,
                    games: args.games,
                    seed: args.seed,
                    logs_kept: args.out.is_some(),
                };
                let evidence = tokio::select! {
                    evidence = gather(&mut rules, &plan) => evidence.map(Some),
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
        let failed_here = items.iter().filter(|item| item.status == Status::Fail).count();
        failed += failed_here;
        // The games it failed and those it passed, to point a bot of one
        // game checked at all of them to --game.
        match failed_here {
            0 => passed_games.push(game.name().to_owned()),
            _ => failed_games += 1,
        }
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
        if args.game.is_none() && failed_games > 1 {
            crate::say!("{}", one_game_hint(&passed_games));
        }
        Ok(ExitCode::FAILURE)
    }
}

/// What to do when a check of every built-in game failed in several: a bot
/// written for one game fails the others, which says nothing of it.
fn one_game_hint(passed: &[String]) -> String {
    let checked = "Checked at every built-in game, since no --game was given: a bot written for one game fails the others' checks";
    match passed {
        [] => format!(
            "{checked}. Check it at its own: --game GAME (`arena games` lists them; a game program's command works too, --game \"python3 game.py\")."
        ),
        [game] => format!(
            "{checked}; it passed every check at {game}: check it there with --game {game}."
        ),
        games => format!(
            "{checked}; it passed every check at {}: check it at its own with --game GAME.",
            games.join(", ")
        ),
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
        for line in stderr.shown() {
            crate::say!("{line}");
        }
    }
    if let Some(hint) = &item.hint
        && hints_shown.insert(hint.clone())
    {
        crate::say!("        hint: {hint}");
    }
}
