//! `arena run FILE`: a tournament from a TOML file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::EXIT_INTERRUPTED;
use super::announce::{self, Start};
use super::options::{UsageError, requested_exports};
use super::reporters::Verbosity;
use super::time::TimeArgs;
use super::tournament_args::{even_games, prepare, run_until_interrupted};
use arena_referee::seeds::{SEED_KEY_VARIABLE, SeedKey};
use arena_system::sandbox::SandboxMode;
use arena_tournament::config::{Overrides, check_concurrency};
use arena_tournament::schedule::Shard;
use arena_tournament::{self as tournament, RunEnd, Tournament};

/// Arguments of `arena run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The tournament file (TOML); tournaments/README.md documents its keys.
    file: PathBuf,
    /// Results folder, instead of the file's `out` [default: `results/NAME` for a file `NAME.toml`].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Discard the results already in the folder and start over (by default
    /// a run resumes: games already in games.csv are not played again).
    #[arg(long)]
    fresh: bool,
    /// Play only share K of N of the games (e.g. 2/4), for one job of a CI
    /// matrix; combine the folders with `arena merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Also write the standings, the change since the previous run, the
    /// crosstable and the settings as Markdown to FILE (for a CI job
    /// summary or a pull request comment).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Also write the leaderboard as one self-contained web page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Run bots without the sandbox, whatever the file says: as arena's own
    /// user, with its environment, files and network.
    #[arg(long)]
    no_sandbox: bool,
    /// Key seat seeds with the secret in FILE (its text, as ARENA_SEED_KEY
    /// would hold it). Without it or ARENA_SEED_KEY, the results folder
    /// keys them with a random key of its own. Every shard of a tournament
    /// needs the same key: `arena merge` refuses shards with different ones.
    #[arg(long, value_name = "FILE")]
    seed_key_file: Option<PathBuf>,
    /// Print nothing on stdout: only warnings and errors (on stderr); the
    /// results are in the results folder.
    #[arg(short, long, conflicts_with = "json")]
    quiet: bool,
    /// Write the run as JSON lines on stdout, one object per event (docs/running.md,
    /// "Reading a run from a program", lists them), instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    overrides: OverrideArgs,
    #[command(flatten)]
    time: TimeArgs,
}

/// The flags of `arena run` that set values over the tournament file's.
#[derive(Debug, Default, clap::Args)]
pub struct OverrideArgs {
    /// The tournament's seed, instead of the file's `seed`. Recorded as if
    /// the file said it: resuming a results folder with another seed is
    /// refused, as an edited file is (--fresh starts over).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Games each pair of bots plays, instead of the file's
    /// `games_per_pair` (a positive even number: every setup in both seat
    /// orders). Recorded as if the file said it: raising it on a results
    /// folder plays only the new games; lowering it is refused.
    #[arg(long, value_name = "N", value_parser = even_games)]
    games_per_pair: Option<u32>,
    /// Games played at once, instead of the file's `concurrency` (1 to
    /// 256). Results do not depend on it: a run may resume with another.
    #[arg(long, value_name = "N", value_parser = concurrency_arg)]
    concurrency: Option<usize>,
    /// Withdraw a bot from the run once it has crashed or failed to start
    /// in N games in a row: its remaining games are recorded as lost
    /// (forfeit `withdrawn`) without starting it, and a later run on the
    /// same results folder plays them. 0 never withdraws [default: 5, or
    /// the file's `withdraw_after`].
    #[arg(long, value_name = "N")]
    withdraw_after: Option<u32>,
}

impl OverrideArgs {
    fn overrides(&self) -> Overrides {
        Overrides {
            seed: self.seed,
            games_per_pair: self.games_per_pair,
            concurrency: self.concurrency,
        }
    }

    /// The flags again, as a resume command repeats them.
    fn as_flags(&self) -> String {
        let mut flags = String::new();
        if let Some(seed) = self.seed {
            flags.push_str(&format!(" --seed {seed}"));
        }
        if let Some(games) = self.games_per_pair {
            flags.push_str(&format!(" --games-per-pair {games}"));
        }
        if let Some(concurrency) = self.concurrency {
            flags.push_str(&format!(" --concurrency {concurrency}"));
        }
        if let Some(games) = self.withdraw_after {
            flags.push_str(&format!(" --withdraw-after {games}"));
        }
        flags
    }
}

fn concurrency_arg(text: &str) -> Result<usize, String> {
    let games = text.parse().map_err(|error| format!("{error}"))?;
    check_concurrency(games)
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut tournament = Tournament::load(&args.file, args.out.as_deref())
        .map_err(|error| UsageError(error.to_string()))?;
    args.overrides.overrides().apply(&mut tournament);
    if let Some(games) = args.overrides.withdraw_after {
        tournament.withdraw_after = games;
    }
    let exports = requested_exports(args.markdown.as_deref(), args.html.as_deref())?;
    if args.no_sandbox {
        tournament.sandbox.mode = SandboxMode::Off;
    }
    tournament.change_time_control(&args.time.keys()).map_err(UsageError)?;
    tournament
        .check_schedule_size()
        .map_err(|problem| UsageError(format!("{}: {problem}", args.file.display())))?;
    args.time.apply_leeway(&mut tournament.settings);
    if tournament.sprt.is_some() && args.overrides.games_per_pair.is_some() {
        return Err(UsageError(format!(
            "{}: a file with [sprt] plays until the test decides: set its most games with max_games in [sprt], not --games-per-pair",
            args.file.display()
        ))
        .into());
    }
    if tournament.sprt.is_some() && args.shard.is_some() {
        return Err(UsageError(format!(
            "{}: a file with [sprt] cannot be split with --shard (the test decides as its games come in)",
            args.file.display()
        ))
        .into());
    }
    if args.shard.is_some()
        && args.seed_key_file.is_none()
        && SeedKey::given_by_environment().is_none()
    {
        return Err(UsageError(format!(
            "--shard: the shards of one tournament must key their seat seeds alike: give every shard the same key with {SEED_KEY_VARIABLE} (a CI secret) or --seed-key-file FILE; without one each folder would draw its own, and `arena merge` refuses shards with different keys"
        ))
        .into());
    }
    let test = super::sprt::test_of(&tournament)
        .map_err(|problem| UsageError(format!("{}: [sprt]: {}", args.file.display(), problem.0)))?;
    let verbosity = Verbosity::from_flags(args.quiet, args.json);
    let prepared = prepare(&mut tournament, args.fresh, args.seed_key_file.as_deref())?;
    // With [sprt], the games per pair are the most the test plays.
    let (games, mut fields) = match tournament.sprt {
        Some(sprt) => (
            format!("at most {} games until the SPRT decides", tournament.games_per_pair),
            serde_json::json!({ "sprt": sprt, "max_games": tournament.games_per_pair }),
        ),
        None => (
            format!("{} games per pair", tournament.games_per_pair),
            serde_json::json!({ "games_per_pair": tournament.games_per_pair }),
        ),
    };
    let line = format!(
        "{}: {} bots, {games}, seed {}, {} at once; results in {}",
        tournament.setup.game().title(),
        tournament.bots.len(),
        tournament.seed,
        tournament.concurrency,
        tournament.out.display()
    );
    fields["bots"] = tournament.bots.iter().map(|bot| bot.name.as_str()).collect();
    announce::say_start(verbosity, &tournament, &prepared, Start { line, fields, numbered: None });
    let options = prepared.options(
        verbosity.reporter().into(),
        args.shard,
        args.fresh,
        exports,
        test.clone().map(|test| test as Arc<dyn tournament::StopRule>),
    );
    let end = run_until_interrupted(&tournament, &options)
        .map_err(|error| super::tournament_args::with_resume(error, || resume_of(&args)))?;
    match end {
        RunEnd::Complete { standings, played, already } => {
            if played == 0 && verbosity == Verbosity::Human {
                announce::say_nothing_to_play(&tournament, already);
            }
            announce::say_standings(verbosity, &tournament, &standings);
            if verbosity == Verbosity::Human {
                super::options::say_written(&options.exports);
            }
            match &test {
                Some(test) => Ok(super::sprt::conclude(&tournament, test, verbosity)),
                None => Ok(ExitCode::SUCCESS),
            }
        }
        RunEnd::Interrupted { done, total } => {
            let resume = resume_of(&args);
            crate::say!(
                "\ninterrupted: {done} of {total} games are in {}/games.csv; resume with:\n  {resume}",
                tournament.out.display()
            );
            Ok(ExitCode::from(EXIT_INTERRUPTED))
        }
    }
}

/// The command that resumes this run, quoted so that it can be pasted into
/// a shell as it is.
fn resume_of(args: &RunArgs) -> String {
    let quoted = |path: &PathBuf| shell_words::quote(&path.to_string_lossy()).into_owned();
    let mut resume = format!("arena run {}", quoted(&args.file));
    if let Some(out) = &args.out {
        resume.push_str(&format!(" --out {}", quoted(out)));
    }
    if let Some(shard) = args.shard {
        resume.push_str(&format!(" --shard {}/{}", shard.number, shard.count));
    }
    if let Some(markdown) = &args.markdown {
        resume.push_str(&format!(" --markdown {}", quoted(markdown)));
    }
    if let Some(html) = &args.html {
        resume.push_str(&format!(" --html {}", quoted(html)));
    }
    resume.push_str(&args.overrides.as_flags());
    if args.no_sandbox {
        resume.push_str(" --no-sandbox");
    }
    if let Some(file) = &args.seed_key_file {
        resume.push_str(&format!(" --seed-key-file {}", quoted(file)));
    }
    for word in args.time.words() {
        resume.push_str(&format!(" {}", shell_words::quote(&word)));
    }
    resume
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_are_repeated_in_the_resume_command() {
        let flags = OverrideArgs {
            seed: Some(7),
            games_per_pair: Some(10),
            concurrency: Some(3),
            withdraw_after: Some(0),
        };
        assert_eq!(
            flags.as_flags(),
            " --seed 7 --games-per-pair 10 --concurrency 3 --withdraw-after 0"
        );
        assert_eq!(OverrideArgs::default().as_flags(), "");
        assert!(even_games("3").unwrap_err().contains("even"));
        assert!(even_games("x").is_err());
        assert_eq!(even_games("8"), Ok(8));
        assert!(concurrency_arg("0").unwrap_err().contains("at least 1"));
        assert_eq!(concurrency_arg("4"), Ok(4));
    }
}
