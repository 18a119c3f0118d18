//! `arena match GAME CMD1 CMD2`: a tournament of one pairing, made from
//! the command line and played like `arena run` plays a file.

use std::process::ExitCode;
use std::sync::Arc;

use super::announce::{self, PairNames, Start};
use super::game_arg::{GameArg, GameArgParser};
use super::options::UsageError;
use super::output;
use super::reporters::{GameLines, Verbosity};
use super::tournament_args::{
    self, CommandLineBots, OutputArgs, Played, TournamentArgs, command_line_bots,
};
use arena_tournament::Tournament;
use arena_tournament::config::TranscriptStore;
use arena_tournament::config::check_games_per_pair;
use arena_tournament::events::Reporter;
use arena_tournament::results::store::{GAMES_CSV, for_each_row};

/// Arguments of `arena match`.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// The game: a game's id (`arena games` lists them and their
    /// parameters) or a game program's command line, split like a bot's
    /// (game-protocol.md), e.g. examples/games/connect-four/game.py.
    #[arg(value_parser = GameArgParser)]
    game: GameArg,
    /// The first bot's command line, split like a shell would split it (no
    /// shell runs), e.g. "python3 bots/python/random_bot.py".
    cmd1: String,
    /// The second bot's command line.
    cmd2: String,
    /// Number of games: N/2 setups, each played twice with the seats
    /// swapped (CMD1 in seat 1 in odd-numbered games). An odd N plays its
    /// last setup once, CMD1 in seat 1 [default: 2; with --openings, each
    /// of its setups in both seat orders].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    games: Option<u32>,
    #[command(flatten)]
    names: PairNames,
    #[command(flatten)]
    tournament: TournamentArgs,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: MatchArgs) -> anyhow::Result<ExitCode> {
    let out = args.tournament.out_dir("match");
    let CommandLineBots { bots, numbered } = command_line_bots(
        &[&args.cmd1, &args.cmd2],
        &args.names.names(),
        |index| format!("bot {}", index + 1),
        |index| format!("--name{}", index + 1),
    )?;
    let setup = args.tournament.game_setup(&args.game, &out)?;
    let mut tournament = Tournament::from_command_line(setup, bots, out);
    // A file per game: a match is small, and its transcripts are opened
    // one by one (`arena replay DIR/transcripts/game-000001.jsonl`).
    tournament.transcripts = TranscriptStore::Files;
    let seed_from = args.tournament.apply(&mut tournament, None)?;
    let games = match (args.games, &tournament.openings) {
        (Some(games), _) => games,
        (None, None) => 2,
        (None, Some(openings)) => {
            check_games_per_pair(u32::try_from(openings.entries.len() * 2).unwrap_or(u32::MAX))
                .map_err(|problem| {
                    UsageError(format!(
                        "--openings: {} setups in both seat orders: {problem}; set --games",
                        openings.entries.len()
                    ))
                })?
        }
    };
    tournament.games_per_pair = games;
    let prepared = tournament_args::prepare(
        &mut tournament,
        args.tournament.fresh,
        args.tournament.seed_key_file.as_deref(),
    )?;
    let verbosity = args.output.verbosity();
    let line = format!(
        "{} match, {} game{}, {}, results in {}",
        tournament.setup.game().title(),
        games,
        if games == 1 { "" } else { "s" },
        seed_from.describe(tournament.seed, &prepared.repeat_key),
        tournament.out.display()
    );
    let bots: Vec<&str> = tournament.bots.iter().map(|bot| bot.name.as_str()).collect();
    let fields = serde_json::json!({ "bots": bots, "games": games });
    let numbered = numbered.as_deref();
    announce::say_start(verbosity, &tournament, &prepared, Start { line, fields, numbered });

    // People see a line per game; programs and --quiet what a run shows.
    let reporter: Arc<dyn Reporter> = match verbosity {
        Verbosity::Human => Arc::new(GameLines { games: u64::from(games) }),
        _ => verbosity.reporter().into(),
    };
    let played = tournament_args::play(&tournament, &args.tournament, prepared, reporter, None)?;
    match played {
        Played::Complete { played, already, standings } => {
            match verbosity {
                Verbosity::Human => {
                    if played == 0 {
                        announce::say_nothing_to_play(&tournament, already);
                    }
                    say_summary(&tournament)?;
                }
                Verbosity::Json => announce::say_standings(verbosity, &tournament, &standings),
                Verbosity::Quiet => {}
            }
            Ok(ExitCode::SUCCESS)
        }
        Played::Interrupted { done, total, resume } => {
            if verbosity == Verbosity::Human {
                say_summary(&tournament)?;
            }
            Ok(Played::say_interrupted(done, total, &resume, &tournament.out))
        }
    }
}

/// A match's summary for people: the tally of its games.csv (counted a
/// row at a time, as every pass over a results folder is) and where it is.
fn say_summary(tournament: &Tournament) -> anyhow::Result<()> {
    let mut tallies = arena_tournament::rows::Tallies::default();
    for_each_row(&tournament.out.join(GAMES_CSV), |row| {
        tallies.add(&row);
        Ok(())
    })?;
    crate::say!();
    crate::say_raw!("{}", output::summary(&tallies));
    crate::say!("games.csv: {}", tournament.out.join(GAMES_CSV).display());
    Ok(())
}
