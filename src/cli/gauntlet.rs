//! `arena gauntlet`: one or more challengers against a field of bots, the
//! field's bots not playing each other.

use std::path::PathBuf;
use std::process::ExitCode;

use super::announce::{self, Start};
use super::game_arg::{GameArg, GameArgParser};
use super::options::UsageError;
use super::reporters::Verbosity;
use super::sandbox_from::SandboxFromArgs;
use super::tournament_args::{
    self, CommandLineBots, OutputArgs, Played, TournamentArgs, command_line_bots, even_games,
};
use arena_tournament::{Standing, Tournament};

/// Games per pairing of a gauntlet made on the command line.
const DEFAULT_GAMES: u32 = 20;

/// Arguments of `arena gauntlet`.
#[derive(Debug, clap::Args)]
pub struct GauntletArgs {
    /// With --game: the challenger's command line, then those of the field
    /// it plays. With --league: the challengers' command lines (each plays
    /// the league file's bots). Split like a shell would split them (no
    /// shell runs).
    #[arg(value_name = "COMMAND", required_unless_present = "league_bots")]
    commands: Vec<String>,
    /// The game: a game's id (`arena games` lists them and their
    /// parameters) or a game program's command line (game-protocol.md).
    #[arg(long, value_parser = GameArgParser, required_unless_present = "league")]
    game: Option<GameArg>,
    /// A tournament file whose bots are the field: its game, parameters,
    /// seed and settings are the gauntlet's (flags given here override its
    /// settings; its `out` is not used).
    #[arg(long, value_name = "FILE", conflicts_with = "game")]
    league: Option<PathBuf>,
    /// With --league: a bot of the league file as a challenger (repeatable;
    /// as the file runs it, with its folder, environment and build). It
    /// plays the file's other bots, as a command given here would.
    #[arg(long = "bot", value_name = "NAME")]
    league_bots: Vec<String>,
    /// Games each challenger plays against each bot of the field, an even
    /// number (every setup in both seat orders) [default: 20, or the league
    /// file's games_per_pair].
    #[arg(long, value_parser = even_games)]
    games: Option<u32>,
    /// Names for the bots given as commands, in their order (repeatable)
    /// [default: from each command, e.g. my_bot].
    #[arg(long = "name", value_name = "NAME")]
    names: Vec<String>,
    #[command(flatten)]
    sandbox_from: SandboxFromArgs,
    #[command(flatten)]
    tournament: TournamentArgs,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: GauntletArgs) -> anyhow::Result<ExitCode> {
    if !args.league_bots.is_empty() && args.league.is_none() {
        return Err(UsageError(
            "--bot names a bot of a league file: give the file with --league FILE (with --game, every challenger is a command)".to_owned(),
        )
        .into());
    }
    if args.names.len() > args.commands.len() {
        return Err(UsageError(format!(
            "{} names (--name) for {} commands",
            args.names.len(),
            args.commands.len()
        ))
        .into());
    }
    let out = args.tournament.out_dir("gauntlet");
    let names: Vec<Option<String>> = args.names.iter().cloned().map(Some).collect();
    let commands: Vec<&str> = args.commands.iter().map(String::as_str).collect();
    let (mut tournament, league_seed, numbered) = match (&args.league, &args.game) {
        (Some(league), _) => {
            if !args.tournament.params.is_empty() {
                return Err(UsageError(format!(
                    "--param: a gauntlet with --league plays the game and parameters of {}",
                    league.display()
                ))
                .into());
            }
            let mut tournament = Tournament::load(league, Some(&out))
                .map_err(|error| UsageError(error.to_string()))?;
            args.sandbox_from.apply(&mut tournament)?;
            if !tournament.challengers.is_empty() || tournament.sprt.is_some() {
                return Err(UsageError(format!(
                    "{}: --league takes a round robin's file (this one has challengers or [sprt])",
                    league.display()
                ))
                .into());
            }
            let CommandLineBots { bots: challengers, numbered } = command_line_bots(
                &commands,
                &names,
                |index| format!("challenger {}", index + 1),
                |_| "--name".to_owned(),
            )?;
            for challenger in &challengers {
                if tournament.bots.iter().any(|bot| bot.name == challenger.name) {
                    return Err(UsageError(format!(
                        "a challenger is named `{}` like a bot of {}; give it another name with --name",
                        challenger.name,
                        league.display()
                    ))
                    .into());
                }
            }
            let mut chosen = Vec::new();
            for name in &args.league_bots {
                let index = tournament
                    .bot_index(name)
                    .map_err(|error| UsageError(format!("--bot {name}: {error}")))?;
                if !chosen.contains(&index) {
                    chosen.push(index);
                }
            }
            if chosen.len() == tournament.bots.len() {
                return Err(UsageError(format!(
                    "--bot names every bot of {}: leave at least one for the field",
                    league.display()
                ))
                .into());
            }
            chosen.sort_unstable();
            let field = tournament.bots.len();
            chosen.extend(field..field + challengers.len());
            tournament.challengers = chosen;
            tournament.bots.extend(challengers);
            if let Some(games) = args.games {
                tournament.games_per_pair = games;
            }
            let seed = tournament.seed;
            (tournament, Some(seed), numbered)
        }
        (None, Some(game)) => {
            if commands.len() < 2 {
                return Err(UsageError(
                    "a gauntlet needs the challenger's command and at least one command of the field it plays (or --league FILE for a file's bots)".to_owned(),
                )
                .into());
            }
            let setup = args.tournament.game_setup(game, &out)?;
            let CommandLineBots { bots, numbered } = command_line_bots(
                &commands,
                &names,
                |index| match index {
                    0 => "the challenger".to_owned(),
                    _ => format!("field bot {index}"),
                },
                |_| "--name".to_owned(),
            )?;
            let mut tournament = Tournament::from_command_line(setup, bots, out);
            tournament.challengers = vec![0];
            tournament.games_per_pair = args.games.unwrap_or(DEFAULT_GAMES);
            (tournament, None, numbered)
        }
        (None, None) => unreachable!("clap requires --game without --league"),
    };
    let seed_from = args.tournament.apply(&mut tournament, league_seed)?;
    let prepared = tournament_args::prepare(
        &mut tournament,
        args.tournament.fresh,
        args.tournament.seed_key_file.as_deref(),
    )?;
    let verbosity = args.output.verbosity();
    let (challengers, field) = sides(&tournament);
    let total = tournament.schedule().len();
    let line = format!(
        "{} gauntlet: {} against {}; {} games a pairing, {total} in all, {}, {} at once; results in {}",
        tournament.setup.game().title(),
        challengers.join(", "),
        field.join(", "),
        tournament.games_per_pair,
        seed_from.describe(tournament.seed, &prepared.repeat_key),
        tournament.concurrency,
        tournament.out.display()
    );
    let fields = serde_json::json!({
        "challengers": challengers,
        "field": field,
        "games_per_pair": tournament.games_per_pair,
    });
    let numbered = numbered.as_deref();
    announce::say_start(verbosity, &tournament, &prepared, Start { line, fields, numbered });
    let reporter = verbosity.reporter().into();
    match tournament_args::play(&tournament, &args.tournament, prepared, reporter, None)? {
        Played::Complete { standings, played, already } => {
            if played == 0 && verbosity == Verbosity::Human {
                announce::say_nothing_to_play(&tournament, already);
            }
            announce::say_standings(verbosity, &tournament, &standings);
            Ok(ExitCode::SUCCESS)
        }
        Played::Interrupted { done, total, resume } => {
            Ok(Played::say_interrupted(done, total, &resume, &tournament.out))
        }
    }
}

/// The challengers' names and the field's, in file order.
fn sides(tournament: &Tournament) -> (Vec<&str>, Vec<&str>) {
    let (challengers, field): (Vec<_>, Vec<_>) =
        (0..tournament.bots.len()).partition(|index| tournament.challengers.contains(index));
    let names = |indexes: Vec<usize>| {
        indexes.into_iter().map(|index| tournament.bots[index].name.as_str()).collect()
    };
    (names(challengers), names(field))
}

/// The challengers' lines of the standings, best first.
fn challenger_standings<'a>(
    tournament: &Tournament,
    standings: &'a [Standing],
) -> Vec<&'a Standing> {
    let (challengers, _) = sides(tournament);
    standings.iter().filter(|standing| challengers.contains(&standing.bot.as_str())).collect()
}

/// The challengers, ranked as in the standings (by Elo, or a payoff game's by payoff), with their score
/// against the field (each met the same field, so their scores compare; the
/// field's bots met only the challengers).
pub fn challengers_text(tournament: &Tournament, standings: &[Standing]) -> String {
    let mut text =
        "Challengers against the field (the field's bots did not play each other):\n".to_owned();
    let ranked = challenger_standings(tournament, standings);
    let width = ranked.iter().map(|standing| standing.bot.chars().count()).max().unwrap_or(0);
    for (place, standing) in ranked.iter().enumerate() {
        let tally = &standing.tally;
        // A payoff game ranks by payoff: it leads the line.
        let payoff = standing
            .payoff
            .map(|payoff| format!("payoff {} a game, ", payoff.text()))
            .unwrap_or_default();
        text.push_str(&format!(
            "  {}. {:<width$}  {payoff}{:.1}% of {} games ({} won, {} drawn, {} lost), Elo {}\n",
            place + 1,
            standing.bot,
            standing.score_percent(),
            tally.games,
            tally.wins,
            tally.draws,
            tally.losses,
            standing.elo_text(),
        ));
    }
    text
}

/// The challengers' results for `--json`.
pub fn challengers_json(tournament: &Tournament, standings: &[Standing]) -> serde_json::Value {
    challenger_standings(tournament, standings)
        .into_iter()
        .map(|standing| {
            serde_json::json!({
                "bot": standing.bot,
                "games": standing.tally.games,
                "wins": standing.tally.wins,
                "draws": standing.tally.draws,
                "losses": standing.tally.losses,
                "score_percent": standing.score_percent(),
                "elo": standing.elo,
                "elo_margin": standing.elo_margin.is_finite().then_some(standing.elo_margin),
                "payoff": standing.payoff.map(|payoff| payoff.mean),
                "payoff_margin": standing.payoff.map(|payoff| payoff.margin).filter(|margin| margin.is_finite()),
            })
        })
        .collect()
}
