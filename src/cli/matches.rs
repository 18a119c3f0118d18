//! `arena match GAME CMD1 CMD2`: a tournament of one pairing, made from
//! the command line and played like `arena run` plays a file.

use std::process::ExitCode;
use std::sync::Arc;

use super::game_arg::{GameArg, GameArgParser};
use super::options::UsageError;
use super::output;
use super::reporters::GameLines;
use super::tournament_args::{self, CommandLineBots, Played, TournamentArgs, command_line_bots};
use crate::results::TranscriptStore;
use crate::tournament::Tournament;
use crate::tournament::config::check_games_per_pair;
use crate::tournament::store::{GAMES_CSV, for_each_row};

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
    /// Name of the first bot [default: from its command, e.g. random_bot].
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second bot.
    #[arg(long)]
    name2: Option<String>,
    #[command(flatten)]
    tournament: TournamentArgs,
}

pub fn run(args: MatchArgs) -> anyhow::Result<ExitCode> {
    let out = args.tournament.out_dir("match");
    let CommandLineBots { bots, numbered } = command_line_bots(
        &[&args.cmd1, &args.cmd2],
        &[args.name1.clone(), args.name2.clone()],
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
    crate::say!(
        "{} match, {} game{}, {}, results in {}",
        tournament.setup.game().title(),
        games,
        if games == 1 { "" } else { "s" },
        seed_from.describe(tournament.seed, &prepared.repeat_key),
        tournament.out.display()
    );
    tournament_args::say_settings(&tournament, &prepared.sandbox_line, &prepared.seeds);
    tournament_args::say_numbered(numbered.as_deref());

    let reporter = Arc::new(GameLines { games: u64::from(games) });
    let played = tournament_args::play(&tournament, &args.tournament, prepared, reporter, None)?;
    // Counted a row at a time, as every pass over a results folder.
    let mut tallies = crate::results::Tallies::default();
    for_each_row(&tournament.out.join(GAMES_CSV), |row| {
        tallies.add(&row);
        Ok(())
    })?;
    if let Played::Complete { played: 0, already, .. } = &played {
        crate::say!(
            "nothing to play: {already} games already in {}, by these same bots (no file their commands name has changed): add --fresh to play them again",
            tournament.out.display()
        );
    }
    crate::say!();
    crate::say_raw!("{}", output::summary(&tallies));
    crate::say!("games.csv: {}", tournament.out.join(GAMES_CSV).display());
    match played {
        Played::Complete { .. } => Ok(ExitCode::SUCCESS),
        Played::Interrupted { done, total, resume } => {
            Ok(Played::say_interrupted(done, total, &resume, &tournament.out))
        }
    }
}
