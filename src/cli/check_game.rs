//! `arena check-game CMD`: a conformance checklist for a game program's
//! author. The program is asked to describe itself, to set up games with
//! good and bad parameters, to play random games to their end, to play
//! the same games again (in fresh processes, after other games, in another
//! order) and to play them with one hidden choice changed. Each item passes
//! only on evidence, fails with the request, the answer and a hint, or
//! says why it could not be judged.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::game_arg::{GameArg, game_setup};
use super::interrupt::Interrupt;
use super::options::{UsageError, command_from_words, parse_param};
use super::sandboxing::{SandboxArgs, prepare_sandbox};
use arena_base::units::parse_duration;
use arena_conformance::game::{self as gather, Status, checklist};
use arena_referee::{self as referee, BotCommand, ProgramSettings};

/// Arguments of `arena check-game`.
#[derive(Debug, clap::Args)]
pub struct CheckGameArgs {
    /// The game program's command: its words (python3 my_game.py), or
    /// one quoted line split like a bot's command ("python3 my_game.py";
    /// no shell runs; a line that is an existing file's path is that
    /// file). A command with a word that starts with `-` goes after `--`,
    /// the options before it (--games 3 -- python3 -u my_game.py), or is
    /// quoted whole.
    #[arg(value_name = "COMMAND", required = true)]
    command: Vec<String>,
    /// Random games to play (and play again).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(2..=1000))]
    games: u64,
    /// Seed of the games and of the random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A parameter of the games played, e.g. --param rows=8 (repeatable);
    /// the defaults otherwise.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, Value)>,
    /// The time a tournament gives the program for each answer: slower
    /// answers fail the timing item (requests are waited for longer here,
    /// so that everything else can still be judged).
    #[arg(long, value_parser = parse_duration, default_value = "5s")]
    timeout: Duration,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

pub fn run(args: CheckGameArgs) -> anyhow::Result<ExitCode> {
    let command = command_from_words(&args.command)?;
    command.check_files().map_err(UsageError)?;
    if let Err(error) = referee::reaper::become_subreaper() {
        super::reporters::warn(&format!("cannot become a subreaper ({error})"));
    }
    // Waited for well past the limit, so a slow answer is still judged.
    let settings = ProgramSettings {
        timeout: (args.timeout * 4).max(Duration::from_secs(2)),
        exit_grace: Duration::from_secs(1),
        ..ProgramSettings::default()
    };
    crate::say!(
        "Checking the game program `{}`: {} random games, seed {}, {} ms per answer (each waited for up to {} ms, so that a slow one is still judged)",
        command.display(),
        args.games,
        args.seed,
        args.timeout.as_millis(),
        settings.timeout.as_millis()
    );
    let sandbox_settings = args.sandbox.settings();
    // Parameters given are checked as any command checks them (in a
    // sandbox of their own).
    let setup = match args.params.is_empty() {
        true => None,
        false => Some(game_setup(
            &GameArg::Program(command.clone()),
            &args.params,
            &sandbox_settings,
            &[],
            settings.clone(),
            Some("--timeout"),
        )?),
    };
    // No bots play here, so no seat seeds: the games' seeds are the
    // check's own (its first line says them).
    let (sandbox, sandbox_line) = prepare_sandbox(&sandbox_settings, &[])?;
    crate::say!("{sandbox_line}");
    let mut sandboxed = command.clone();
    let names = ["the game program".to_owned()];
    for message in
        BotCommand::prepare_all(std::slice::from_mut(&mut sandboxed), &names, sandbox.as_ref())?
    {
        super::reporters::warn(&message);
    }
    let plan = gather::Plan {
        command: &sandboxed,
        settings,
        setup: setup.as_ref(),
        games: args.games,
        seed: args.seed,
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let interrupt =
        runtime.block_on(async { Interrupt::listen() }).context("cannot listen for Ctrl-C")?;
    let evidence = runtime.block_on(async {
        tokio::select! {
            evidence = gather::gather(&plan) => Some(evidence),
            () = interrupt.wait() => None,
        }
    });
    referee::reaper::sweep_orphans();
    let Some(evidence) = evidence else {
        crate::say!("\ninterrupted: the checklist is incomplete");
        return Ok(ExitCode::from(super::EXIT_INTERRUPTED));
    };
    // As the games were played: what `init` declared for their parameters
    // over `hello`'s declaration.
    if let Ok(hello) = &evidence.hello {
        let declaration = evidence.declared.as_ref().unwrap_or(hello);
        crate::say!(
            "\n{} ({}{}): moves {}, {}, at most {} turns{}",
            declaration.title(),
            declaration.name,
            declaration.version.as_ref().map(|version| format!(" {version}")).unwrap_or_default(),
            match declaration.moves {
                arena_games::program::Moves::Public => "public",
                arena_games::program::Moves::Hidden => "hidden",
            },
            if declaration.random { "random" } else { "not random" },
            declaration.max_turns,
            match declaration.payoffs {
                Some(payoffs) => format!(", payoffs from {} to {}", payoffs.min, payoffs.max),
                None => String::new(),
            }
        );
        if declaration != hello {
            crate::say!("  (for these parameters, as its answer to `init` declares)");
        }
    }
    let items = checklist(&evidence, args.timeout);
    for item in &items {
        // Evidence quotes what the program wrote (moves, values, keys).
        let evidence = arena_base::printable::printable(&item.evidence);
        crate::say!("  {}  {}: {evidence}", item.status.word(), item.title);
        for (label, text) in [("request", &item.request), ("answer", &item.answer)] {
            if let Some(text) = text {
                crate::say!("        {label}: {text}");
            }
        }
        if let Some(stderr) = &item.stderr {
            for line in stderr.shown() {
                crate::say!("{line}");
            }
        }
        if let Some(hint) = &item.hint {
            crate::say!("        hint: {hint}");
        }
    }
    let failed = items.iter().filter(|item| item.status == Status::Fail).count();
    let skipped = items.iter().filter(|item| item.status == Status::Skip).count();
    // Named: "passed" must not read as covering what was not judged (a
    // card game's secrets of single numbers).
    let unjudged: Vec<String> = items
        .iter()
        .filter(|item| item.status == Status::Skip)
        .map(|item| format!("\"{}\"", item.title))
        .collect();
    crate::say!();
    if failed == 0 {
        crate::say!(
            "All checks passed{}.",
            match skipped {
                0 => String::new(),
                _ => format!("; not judged (SKIP above): {}", unjudged.join(", ")),
            }
        );
        Ok(ExitCode::SUCCESS)
    } else {
        crate::say!(
            "{failed} check{} failed{}.",
            if failed == 1 { "" } else { "s" },
            match skipped {
                0 => String::new(),
                _ => format!("; {skipped} could not be judged"),
            }
        );
        Ok(ExitCode::FAILURE)
    }
}
