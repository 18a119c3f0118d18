//! `arena sprt NEW OLD --game G`: a sequential probability ratio test of
//! one bot against another, played in pairs of games until it decides; and
//! the printing of its result, shared with `arena run` on a file with
//! `[sprt]`.

use std::process::ExitCode;
use std::sync::Arc;

use super::announce::{self, PairNames, Start};
use super::game_arg::{GameArg, GameArgParser};
use super::options::UsageError;
use super::reporters::Verbosity;
use super::tournament_args::{
    self, CommandLineBots, OutputArgs, Played, TournamentArgs, command_line_bots, even_games,
};
use arena_tournament::Tournament;
use arena_tournament::sprt::{
    DEFAULT_MAX_GAMES, EloEstimate, SprtSettings, SprtStatus, SprtTest, Verdict, logistic_elo,
};

/// Exit status when the test accepted H0 (the new bot is not the elo1
/// better): a CI job fails.
pub const EXIT_H0: u8 = 3;
/// Exit status when the test played its most games without a decision.
pub const EXIT_INCONCLUSIVE: u8 = 4;

/// Arguments of `arena sprt`.
#[derive(Debug, clap::Args)]
pub struct SprtArgs {
    /// The command line of the bot tested (the new version), split like a
    /// shell would split it (no shell runs).
    new: String,
    /// The command line of the bot it is tested against (the old version).
    old: String,
    /// The game: a game's id (`arena games` lists them and their
    /// parameters) or a game program's command line (game-protocol.md).
    #[arg(long, value_parser = GameArgParser)]
    game: GameArg,
    /// H0: NEW is this much stronger than OLD, in normalized Elo.
    #[arg(long, default_value_t = SprtSettings::default().elo0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: NEW is this much stronger, in normalized Elo (more than elo0).
    #[arg(long, default_value_t = SprtSettings::default().elo1, allow_negative_numbers = true)]
    elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = SprtSettings::default().alpha)]
    alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = SprtSettings::default().beta)]
    beta: f64,
    /// Test on payoffs, in a game whose scores are payoffs (it declares
    /// `payoffs`): H0, NEW's mean payoff advantage over OLD is this much a
    /// game (half the difference of their payoffs: what NEW wins in a
    /// zero-sum game). Default 0 once --payoff1 is given.
    #[arg(long, allow_negative_numbers = true, requires = "payoff1")]
    payoff0: Option<f64>,
    /// H1 of the test on payoffs: NEW's advantage is this much a game.
    /// Given, the test is on payoffs, and --elo0 and --elo1 are unused.
    #[arg(long, allow_negative_numbers = true)]
    payoff1: Option<f64>,
    /// The most games the test plays (an even number: it counts pairs);
    /// reached without a decision, the test ends inconclusive. A rerun on
    /// its folder may raise it (an undecided test goes on), not lower it.
    #[arg(long, default_value_t = DEFAULT_MAX_GAMES, value_parser = even_games)]
    max_games: u32,
    #[command(flatten)]
    names: PairNames,
    #[command(flatten)]
    tournament: TournamentArgs,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: SprtArgs) -> anyhow::Result<ExitCode> {
    let settings = SprtSettings {
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        // Recorded as 0 when left out, as a file's [sprt] records it.
        payoff0: args.payoff0.or(args.payoff1.map(|_| 0.0)),
        payoff1: args.payoff1,
    };
    settings.validate().map_err(|error| UsageError(format!("SPRT settings: {error}")))?;
    let out = args.tournament.out_dir("sprt");
    let CommandLineBots { bots, numbered } = command_line_bots(
        &[&args.new, &args.old],
        &args.names.names(),
        |index| ["NEW", "OLD"][index].to_owned(),
        |index| format!("--name{}", index + 1),
    )?;
    let setup = args.tournament.game_setup(&args.game, &out)?;
    let mut tournament = Tournament::from_command_line(setup, bots, out);
    tournament.games_per_pair = args.max_games;
    tournament.sprt = Some(settings);
    let seed_from = args.tournament.apply(&mut tournament, None)?;
    let prepared = tournament_args::prepare(
        &mut tournament,
        args.tournament.fresh,
        args.tournament.seed_key_file.as_deref(),
    )?;
    let verbosity = args.output.verbosity();
    let test = test_of(&tournament)?.expect("the tournament has [sprt]");
    let line = format!(
        "SPRT of {} against {} at {}: {}; at most {} games, {}, {} at once; results in {}",
        tournament.bots[0].name,
        tournament.bots[1].name,
        tournament.setup.game().title(),
        hypotheses(&settings),
        args.max_games,
        seed_from.describe(tournament.seed, &prepared.repeat_key),
        tournament.concurrency,
        tournament.out.display()
    );
    let fields = serde_json::json!({
        "bots": [&tournament.bots[0].name, &tournament.bots[1].name],
        "sprt": settings,
        "max_games": args.max_games,
    });
    let numbered = numbered.as_deref();
    announce::say_start(verbosity, &tournament, &prepared, Start { line, fields, numbered });
    let reporter = verbosity.reporter().into();
    let rule = Some(Arc::clone(&test) as Arc<dyn arena_tournament::StopRule>);
    match tournament_args::play(&tournament, &args.tournament, prepared, reporter, rule)? {
        Played::Complete { played, already, .. } => {
            if played == 0 && verbosity == Verbosity::Human {
                announce::say_nothing_to_play(&tournament, already);
            }
            Ok(conclude(&tournament, &test, verbosity))
        }
        Played::Interrupted { done, total, resume } => {
            if verbosity == Verbosity::Human {
                crate::say!();
                crate::say_raw!("{}", result_text(&tournament, &test));
            }
            Ok(Played::say_interrupted(done, total, &resume, &tournament.out))
        }
    }
}

/// The test of a tournament with `[sprt]`: its first bot against its
/// second; refused when it tests payoffs the game does not have.
pub fn test_of(tournament: &Tournament) -> Result<Option<Arc<SprtTest>>, UsageError> {
    let Some(settings) = tournament.sprt else { return Ok(None) };
    let payoffs = tournament.setup.game().payoffs();
    let [tested, opponent] = [&tournament.bots[0].name, &tournament.bots[1].name];
    let test = SprtTest::new(settings, payoffs, tested, opponent)
        .map_err(|error| UsageError(format!("SPRT settings: {error}")))?;
    Ok(Some(Arc::new(test)))
}

/// "H0 elo0 = 0, H1 elo1 = 10 (normalized Elo), alpha 0.05, beta 0.05",
/// or "H0 payoff0 = 0, H1 payoff1 = 0.5 (mean payoff advantage a game), ..."
fn hypotheses(settings: &SprtSettings) -> String {
    let (h0, h1, unit) = match settings.payoff_hypotheses() {
        Some((payoff0, payoff1)) => (
            format!("payoff0 = {payoff0}"),
            format!("payoff1 = {payoff1}"),
            "mean payoff advantage a game",
        ),
        None => (
            format!("elo0 = {}", settings.elo0),
            format!("elo1 = {}", settings.elo1),
            "normalized Elo",
        ),
    };
    format!("H0 {h0}, H1 {h1} ({unit}), alpha {}, beta {}", settings.alpha, settings.beta)
}

/// Prints the finished test (as text, or as a JSON object with `--json`)
/// and returns the exit status its verdict gives: 0 when H1 is accepted,
/// [`EXIT_H0`] when H0 is, [`EXIT_INCONCLUSIVE`] when the games ran out.
pub fn conclude(tournament: &Tournament, test: &SprtTest, verbosity: Verbosity) -> ExitCode {
    let status = test.status();
    match verbosity {
        Verbosity::Json => crate::say!("{}", result_json(tournament, test)),
        Verbosity::Human => {
            crate::say!();
            crate::say_raw!("{}", result_text(tournament, test));
        }
        Verbosity::Quiet => {}
    }
    match status.verdict {
        Verdict::AcceptH1 => ExitCode::SUCCESS,
        Verdict::AcceptH0 => ExitCode::from(EXIT_H0),
        Verdict::Continue => ExitCode::from(EXIT_INCONCLUSIVE),
    }
}

/// The verdict in words, or `None` while the test goes on.
fn verdict_words(verdict: Verdict) -> Option<&'static str> {
    match verdict {
        Verdict::AcceptH1 => Some("H1 accepted"),
        Verdict::AcceptH0 => Some("H0 accepted"),
        Verdict::Continue => None,
    }
}

/// Elo and its interval's half width; the width is infinite (or unknown)
/// while every pair scored alike or the score's interval reaches 0 or 1.
fn elo_figures(status: &SprtStatus) -> Option<(f64, f64, Option<EloEstimate>)> {
    let score = status.pairs.score()?;
    let estimate = EloEstimate::from_pairs(&status.pairs);
    let half_width = estimate
        .map_or(f64::NAN, |estimate| (estimate.elo_interval.1 - estimate.elo_interval.0) / 2.0);
    Some((logistic_elo(score), half_width, estimate))
}

/// The likelihood of superiority; while every pair scored alike it is the
/// limit as the spread vanishes: certain either way, even at ½.
fn los(status: &SprtStatus, estimate: Option<EloEstimate>) -> f64 {
    match (estimate, status.pairs.score()) {
        (Some(estimate), _) => estimate.los,
        (None, Some(score)) if score > 0.5 => 1.0,
        (None, Some(score)) if score < 0.5 => 0.0,
        (None, _) => 0.5,
    }
}

/// The Elo figure as people read it, never `inf` or `nan`: the estimate
/// and its 95% margin; where the interval has one end only (a score near
/// 100% or 0%), the estimate and that end; where every pair scored alike
/// (no spread, so no normal interval), a one-sided bound from the pairs
/// alone: with all `n` pairs won, the score's 95% Clopper-Pearson lower
/// end is 0.025^(1/n), and the Elo is above that score's.
fn elo_words(status: &SprtStatus, estimate: Option<EloEstimate>) -> String {
    let Some(score) = status.pairs.score() else { return "Elo: no complete pair yet".to_owned() };
    match estimate {
        Some(EloEstimate { elo, elo_interval: (low, high), .. }) => {
            match (low.is_finite(), high.is_finite()) {
                (true, true) => format!("Elo: {elo:.2} +/- {:.2}", (high - low) / 2.0),
                (true, false) => format!("Elo: {elo:.2} (95%: above {low:.2}, no upper end)"),
                (false, true) => format!("Elo: {elo:.2} (95%: below {high:.2}, no lower end)"),
                (false, false) => format!("Elo: {elo:.2} (no interval yet)"),
            }
        }
        None => {
            let end = 0.025f64.powf(1.0 / status.pairs.pairs() as f64);
            if score >= 1.0 {
                format!("Elo: > {:.2} (every pair won: 95% lower bound)", logistic_elo(end))
            } else if score <= 0.0 {
                format!("Elo: < {:.2} (every pair lost: 95% upper bound)", logistic_elo(1.0 - end))
            } else {
                // (+ 0.0: never `-0.00`.)
                format!(
                    "Elo: {:.2} (every pair scored alike: no interval yet)",
                    logistic_elo(score) + 0.0
                )
            }
        }
    }
}

/// The result as fastchess prints one:
///
/// ```text
/// Results of new vs old (number-snatch, 1s per move):
/// Elo: 35.20 +/- 20.10, nElo: 60.31 +/- 34.12
/// LOS: 99.97 %, DrawRatio: 12.00 %, PairsRatio: 3.20
/// Games: 412, Wins: 250, Losses: 120, Draws: 42, Points: 271.0 (65.78 %)
/// Ptnml(0-2): [5, 20, 25, 80, 76]
/// LLR: 2.97 (-2.94, 2.94) [0.00, 10.00] - H1 accepted
/// ```
pub fn result_text(tournament: &Tournament, test: &SprtTest) -> String {
    let status = test.status();
    let settings = test.settings();
    let [new, old] = [&tournament.bots[0].name, &tournament.bots[1].name];
    let mut text = format!(
        "Results of {new} vs {old} ({}, {}):\n",
        tournament.setup.game(),
        tournament.settings.time_control
    );
    match elo_figures(&status) {
        None => text.push_str("Elo: no complete pair yet\n"),
        Some((_, _, estimate)) => {
            let nelo = match estimate {
                Some(estimate) if estimate.normalized_elo_error.is_finite() => format!(
                    "nElo: {:.2} +/- {:.2}",
                    estimate.normalized_elo, estimate.normalized_elo_error
                ),
                _ => "nElo: none yet (every pair scored alike: no spread to measure)".to_owned(),
            };
            let los = format!("{:.2}", 100.0 * los(&status, estimate));
            text.push_str(&format!("{}, {nelo}\n", elo_words(&status, estimate)));
            let [ll, ld, middle, wd, ww] = status.pairs.counts;
            let pairs = status.pairs.pairs() as f64;
            let pairs_ratio = match ll + ld {
                0 => "no pair lost".to_owned(),
                lost => format!("{:.2}", (wd + ww) as f64 / lost as f64),
            };
            text.push_str(&format!(
                "LOS: {los} %, DrawRatio: {:.2} %, PairsRatio: {pairs_ratio}\n",
                100.0 * middle as f64 / pairs,
            ));
        }
    }
    let games = status.wins + status.draws + status.losses;
    let points = status.wins as f64 + 0.5 * status.draws as f64;
    text.push_str(&format!(
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({:.2} %)\n",
        status.wins,
        status.losses,
        status.draws,
        if games == 0 { 0.0 } else { 100.0 * points / games as f64 }
    ));
    text.push_str(&format!("Ptnml(0-2): {}\n", status.pairs));
    if let Some(estimate) = test.payoff_estimate() {
        let margin = match estimate.margin.is_finite() {
            true => format!("{:.3}", estimate.margin),
            false => "? (fewer than two pairs)".to_owned(),
        };
        text.push_str(&format!(
            "Payoff: {:+.3} +/- {margin} a game (NEW's mean advantage, 95%)\n",
            estimate.mean
        ));
    }
    let (lower, upper) = settings.bounds();
    let verdict = match verdict_words(status.verdict) {
        Some(words) => words.to_owned(),
        None if games >= u64::from(tournament.games_per_pair) => format!(
            "inconclusive: no decision in {} games (the most allowed)",
            tournament.games_per_pair
        ),
        None => "undecided".to_owned(),
    };
    let (h0, h1) = settings.payoff_hypotheses().unwrap_or((settings.elo0, settings.elo1));
    text.push_str(&format!(
        "LLR: {:.2} ({lower:.2}, {upper:.2}) [{h0:.2}, {h1:.2}] - {verdict}\n",
        status.llr
    ));
    // The standings and games.csv count these too: said, so that two
    // totals in one output do not look like a fault.
    if status.not_counted > 0 {
        let which = match status.verdict {
            Verdict::Continue => "of pairs not complete, or after one that is not",
            _ => "of pairs after the deciding one",
        };
        text.push_str(&format!(
            "Not counted: {} {} {which} (in games.csv and the standings)\n",
            status.not_counted,
            if status.not_counted == 1 { "game" } else { "games" }
        ));
    }
    text
}

/// The result as one JSON object (`--json`).
pub fn result_json(tournament: &Tournament, test: &SprtTest) -> serde_json::Value {
    let status = test.status();
    let settings = test.settings();
    let (lower, upper) = settings.bounds();
    let finite = |value: f64| value.is_finite().then_some(value);
    let figures = elo_figures(&status);
    let estimate = figures.and_then(|(_, _, estimate)| estimate);
    let verdict = match status.verdict {
        Verdict::AcceptH1 => "H1",
        Verdict::AcceptH0 => "H0",
        Verdict::Continue => "none",
    };
    serde_json::json!({
        "type": "sprt",
        "new": tournament.bots[0].name,
        "old": tournament.bots[1].name,
        "elo0": settings.elo0,
        "elo1": settings.elo1,
        "alpha": settings.alpha,
        "beta": settings.beta,
        "verdict": verdict,
        "llr": status.llr,
        "lower_bound": lower,
        "upper_bound": upper,
        "pentanomial": status.pairs.counts,
        "games": status.wins + status.draws + status.losses,
        "wins": status.wins,
        "draws": status.draws,
        "losses": status.losses,
        "not_counted": status.not_counted,
        "elo": figures.and_then(|(elo, _, _)| finite(elo)),
        "elo_error": figures.and_then(|(_, half_width, _)| finite(half_width)),
        "nelo": estimate.map(|estimate| estimate.normalized_elo),
        "nelo_error": estimate.map(|estimate| estimate.normalized_elo_error),
        "los": figures.map(|_| los(&status, estimate)),
        "payoff0": settings.payoff_hypotheses().map(|(payoff0, _)| payoff0),
        "payoff1": settings.payoff1,
        "payoff": test.payoff_estimate().map(|estimate| estimate.mean),
        "payoff_error": test.payoff_estimate().map(|estimate| estimate.margin).filter(|margin| margin.is_finite()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_tournament::sprt::Pentanomial;

    fn status(counts: [u64; 5]) -> SprtStatus {
        SprtStatus {
            pairs: Pentanomial { counts },
            wins: 0,
            draws: 0,
            losses: 0,
            not_counted: 0,
            payoff_pairs: Default::default(),
            llr: 0.0,
            verdict: Verdict::Continue,
        }
    }

    /// Words for every score, one-sided ones included: no `inf`, no `nan`.
    #[test]
    fn the_elo_line_never_prints_inf_or_nan() {
        for (counts, expected) in [
            ([0, 0, 0, 0, 74], "Elo: > 516.59"),
            ([74, 0, 0, 0, 0], "Elo: < -"),
            ([0, 0, 9, 0, 0], "Elo: 0.00 (every pair scored alike"),
            ([0, 0, 2, 0, 37], "Elo: 631.91 (95%: above "),
            ([5, 20, 25, 80, 76], "Elo: "),
        ] {
            let status = status(counts);
            let estimate = EloEstimate::from_pairs(&status.pairs);
            let words = elo_words(&status, estimate);
            assert!(words.starts_with(expected), "{counts:?}: {words}");
            assert!(
                !words.contains("inf") && !words.contains("NaN") && !words.contains("nan"),
                "{words}"
            );
        }
        // All 74 pairs won: the score is at least 0.025^(1/74) = 0.95137,
        // an Elo of -400 log10(1 / 0.95137 - 1) = 516.59.
        let all = status([0, 0, 0, 0, 74]);
        assert_eq!(elo_words(&all, None), "Elo: > 516.59 (every pair won: 95% lower bound)");
    }
}
