//! `arena match GAME CMD1 CMD2`: a tournament of one pairing, made from
//! the command line and played like `arena run` plays a file.

use std::process::ExitCode;
use std::sync::Arc;

use super::options::{UsageError, game_id_parser};
use super::output;
use super::reporters::GameLines;
use super::tournament_args::{self, Played, TournamentArgs, command_line_bots};
use crate::games::{GameId, GameSetup};
use crate::results::TranscriptStore;
use crate::tournament::Tournament;
use crate::tournament::store::{GAMES_CSV, read_games_csv};

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
    /// Number of games: N/2 setups, each played twice with the seats
    /// swapped (CMD1 in seat 1 in odd-numbered games). An odd N plays its
    /// last setup once, CMD1 in seat 1.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    games: u32,
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
    let setup = GameSetup::new(args.game, args.tournament.params.iter().cloned().collect())
        .map_err(|error| UsageError(error.to_string()))?;
    let bots = command_line_bots(
        &[&args.cmd1, &args.cmd2],
        &[args.name1.clone(), args.name2.clone()],
        |index| format!("bot {}", index + 1),
        |index| format!("--name{}", index + 1),
    )?;
    let out = args.tournament.out_dir("match");
    let mut tournament = Tournament::from_command_line(setup, bots, out);
    tournament.games_per_pair = args.games;
    // A file per game: a match is small, and its transcripts are opened
    // one by one (`arena replay DIR/transcripts/game-000001.jsonl`).
    tournament.transcripts = TranscriptStore::Files;
    let seed_from = args.tournament.apply(&mut tournament, None)?;
    let prepared = tournament_args::prepare(
        &mut tournament,
        args.tournament.fresh,
        args.tournament.seed_key_file.as_deref(),
    )?;
    crate::say!(
        "{} match, {} game{}, {}, results in {}",
        tournament.setup.game().title(),
        args.games,
        if args.games == 1 { "" } else { "s" },
        seed_from.describe(tournament.seed),
        tournament.out.display()
    );
    tournament_args::say_settings(&tournament, &prepared.sandbox_line, &prepared.seeds);

    let reporter = Arc::new(GameLines { games: u64::from(args.games) });
    let played = tournament_args::play(&tournament, &args.tournament, prepared, reporter, None)?;
    let rows = read_games_csv(&tournament.out.join(GAMES_CSV))?;
    if let Played::Complete { played: 0, already, .. } = &played {
        crate::say!("nothing to play: {already} games already in {}", tournament.out.display());
    }
    crate::say!();
    crate::say_raw!("{}", output::summary(&rows));
    crate::say!("games.csv: {}", tournament.out.join(GAMES_CSV).display());
    match played {
        Played::Complete { .. } => Ok(ExitCode::SUCCESS),
        Played::Interrupted { done, total, resume } => {
            Ok(Played::say_interrupted(done, total, &resume, &tournament.out))
        }
    }
}
