//! `arena match GAME CMD1 CMD2`: a series of games between two commands.

use super::reporters::warn;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::interrupt::Interrupt;
use super::options::{UsageError, default_bot_name, distinct_names, game_id_parser, parse_param};
use super::sandboxing::{SandboxArgs, start_sandbox};
use super::time::{TimeArgs, time_line};
use super::{EXIT_INTERRUPTED, output};
use crate::games::{Game, GameId, GameSetup};
use crate::printable::{check_bot_name, printable};
use crate::referee::{self, Bot, BotCommand, GameReport, Settings, play_game};
use crate::results::{FileLayout, GameRow, GamesCsv, RowContext, TranscriptStore};
use crate::sandbox::SandboxSettings;
use crate::seeds::{derive_seed, fresh_seed};
use crate::tournament::config::MAX_LINE_BYTES;
use crate::units::parse_duration;
use crate::with_game;

/// Arguments of `arena match`.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// The game (`arena games` lists their parameters).
    #[arg(value_parser = game_id_parser())]
    game: GameId,
    /// The first bot's command line, split like a shell would split it (no
    /// shell runs), e.g. "python3 bots/python/random_bot.py".
    cmd1: String,
    /// The second bot's command line.
    cmd2: String,
    /// Number of games; seats alternate from game to game.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    games: u64,
    /// Seed of the whole match: every game's setup derives from it. Without
    /// it a fresh seed is drawn and printed.
    #[arg(long)]
    seed: Option<u64>,
    /// Time for a bot to start and answer each game's `start`.
    #[arg(long, value_parser = parse_duration, default_value = "5s")]
    startup_timeout: Duration,
    /// A game parameter, e.g. --param count=12 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, Value)>,
    /// Results folder [default: results/match-<date>-<time>]. It must not
    /// hold a games.csv already.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Name of the first bot [default: from its command, e.g. random_bot].
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second bot.
    #[arg(long)]
    name2: Option<String>,
    /// Longest line a bot may send, in bytes (64 to 64 MiB).
    #[arg(long, default_value_t = 64 * 1024, value_parser = max_line_bytes)]
    max_line_bytes: usize,
    /// Most bytes of a bot's stderr kept per game.
    #[arg(long, default_value_t = 1024 * 1024)]
    stderr_cap: u64,
    /// Start fresh bot processes for every game (by default a process plays
    /// game after game, and is restarted only after a timeout, crash or
    /// malformed output).
    #[arg(long)]
    restart_each_game: bool,
    #[command(flatten)]
    sandbox: SandboxArgs,
    #[command(flatten)]
    time: TimeArgs,
}

/// Everything `arena match` needs once its arguments are checked.
struct MatchPlan {
    setup: GameSetup,
    games: u64,
    seed: u64,
    names: [String; 2],
    commands: [BotCommand; 2],
    settings: Settings,
    out: PathBuf,
    restart_each_game: bool,
    sandbox: SandboxSettings,
}

pub fn run(args: MatchArgs) -> anyhow::Result<ExitCode> {
    let mut plan = MatchPlan::from_args(args)?;
    std::fs::create_dir_all(plan.out.join("transcripts"))
        .and_then(|()| std::fs::create_dir_all(plan.out.join("logs")))
        .with_context(|| format!("cannot create the results folder {}", plan.out.display()))?;
    let csv_path = plan.out.join("games.csv");
    let mut csv = GamesCsv::create(&csv_path)
        .with_context(|| format!("cannot create {}", csv_path.display()))?;
    if let Err(error) = referee::reaper::become_subreaper() {
        warn(&format!(
            "cannot become a subreaper ({error}); escaped bot processes may outlive arena"
        ));
    }
    crate::say!(
        "{} match, {} game{}, seed {} (repeat with --seed {}), results in {}",
        plan.setup.game().title(),
        plan.games,
        if plan.games == 1 { "" } else { "s" },
        plan.seed,
        plan.seed,
        plan.out.display()
    );
    if let Some(line) = time_line(&plan.settings, []) {
        crate::say!("{line}");
    }
    let (sandbox, sandbox_line) = start_sandbox(&plan.sandbox, &[&plan.out])?;
    plan.settings.sandbox_line = sandbox_line.into();
    if let Some(sandbox) = &sandbox {
        BotCommand::sandbox_all(&mut plan.commands, sandbox)?;
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let played = runtime.block_on(async {
        with_game!(plan.setup.game(), G => play_match::<G>(&plan, &mut csv).await)
    });
    referee::reaper::sweep_orphans();
    let (rows, interrupted) = played?;
    csv.into_inner().with_context(|| format!("cannot finish {}", csv_path.display()))?;

    crate::say!();
    crate::say_raw!("{}", output::summary(&rows));
    crate::say!("games.csv: {}", csv_path.display());
    if interrupted {
        crate::say!(
            "Interrupted after {} of {} games; the rows above are on disk.",
            rows.len(),
            plan.games
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

impl MatchPlan {
    fn from_args(args: MatchArgs) -> anyhow::Result<MatchPlan> {
        let setup = GameSetup::new(args.game, args.params.into_iter().collect())
            .map_err(|error| UsageError(error.to_string()))?;
        let commands = [(&args.cmd1, 1), (&args.cmd2, 2)].map(|(line, number)| {
            let command = BotCommand::parse(line)
                .map_err(|error| UsageError(format!("bot {number}: {error}")))?;
            command
                .check_program()
                .map_err(|error| UsageError(format!("bot {number}: {error}")))?;
            Ok::<_, UsageError>(command)
        });
        let [first, second] = commands;
        let commands = [first?, second?];
        let names = distinct_names([
            args.name1.unwrap_or_else(|| default_bot_name(&commands[0])),
            args.name2.unwrap_or_else(|| default_bot_name(&commands[1])),
        ]);
        for (name, number) in names.iter().zip([1, 2]) {
            check_bot_name(name).map_err(|problem| {
                UsageError(format!(
                    "bot {number} is named `{}`: {problem}; choose another with --name{number}",
                    printable(name)
                ))
            })?;
        }
        let out = args.out.unwrap_or_else(default_out_dir);
        if out.join("games.csv").exists() {
            return Err(UsageError(format!(
                "{} already holds a games.csv; choose another --out or move it away",
                out.display()
            ))
            .into());
        }
        let mut settings = Settings {
            startup_timeout: args.startup_timeout,
            max_line_bytes: args.max_line_bytes,
            stderr_cap: args.stderr_cap,
            ..Settings::default()
        };
        args.time.apply(&mut settings)?;
        Ok(MatchPlan {
            setup,
            games: args.games,
            seed: args.seed.unwrap_or_else(fresh_seed),
            names,
            commands,
            settings,
            out,
            restart_each_game: args.restart_each_game,
            sandbox: args.sandbox.settings(),
        })
    }
}

fn max_line_bytes(text: &str) -> Result<usize, String> {
    let bytes: usize = text.parse().map_err(|_| format!("`{text}` is not a number of bytes"))?;
    if (64..=MAX_LINE_BYTES).contains(&bytes) {
        Ok(bytes)
    } else {
        Err(format!("must be from 64 to {MAX_LINE_BYTES} (64 MiB)"))
    }
}

fn default_out_dir() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let stamp: String = stamp.trim_end_matches('Z').replace(':', "").replace('T', "-");
    Path::new("results").join(format!("match-{stamp}"))
}

/// Plays the match; returns the rows written and whether it was interrupted.
async fn play_match<G: Game>(
    plan: &MatchPlan,
    csv: &mut GamesCsv,
) -> anyhow::Result<(Vec<GameRow>, bool)> {
    let params = plan.setup.params::<G>();
    let mut bots =
        [0, 1].map(|index| Bot::new(plan.names[index].clone(), plan.commands[index].clone()));
    let interrupt = Interrupt::listen().context("cannot listen for Ctrl-C")?;
    let layout =
        FileLayout { folder: plan.out.as_path().into(), transcripts: TranscriptStore::Files };
    let mut rows = Vec::new();
    let mut interrupted = false;
    for index in 0..plan.games {
        let game_number = index + 1;
        let seed = derive_seed(plan.seed, index);
        let [first, second] = &mut bots;
        // Seats alternate: CMD1 is seat 1 in odd-numbered games.
        let seated = if index % 2 == 0 { [first, second] } else { [second, first] };
        let names = [seated[0].name.clone(), seated[1].name.clone()];
        let files = layout.files(game_number, [&names[0], &names[1]]);
        let game = play_game::<G>(seated, params, seed, &plan.settings, &files);
        let report: GameReport = tokio::select! {
            biased;
            () = interrupt.wait() => {
                interrupted = true;
                break;
            }
            report = game => report.context("a bot could not be started")?,
        };
        if let Some(error) = &report.unsaved_transcript {
            anyhow::bail!("game {game_number}: {error}; the games before it are in games.csv");
        }
        let row = GameRow::new(
            RowContext {
                game_index: game_number,
                round: game_number,
                pairing: format!("{} vs {}", plan.names[0], plan.names[1]),
                game: plan.setup.game(),
                seats: [&names[0], &names[1]],
                transcript: layout.transcript(game_number),
            },
            &report,
        );
        csv.append(&row).with_context(|| {
            format!("cannot append to {}", plan.out.join("games.csv").display())
        })?;
        crate::say!("{}", output::game_line(&row, plan.games));
        for warning in &report.warnings {
            warn(warning);
        }
        rows.push(row);
        if plan.restart_each_game {
            for bot in &mut bots {
                bot.stop(&plan.settings).await;
            }
        }
    }
    for bot in &mut bots {
        bot.stop(&plan.settings).await;
    }
    Ok((rows, interrupted))
}
