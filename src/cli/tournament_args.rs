//! What `arena match`, `gauntlet` and `sprt` share: they make a tournament
//! from their arguments and play it as `arena run` plays a file's, so each
//! resumes after Ctrl-C, starts over with `--fresh`, and writes the same
//! results folder.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::EXIT_INTERRUPTED;
use super::game_arg::{GameArg, game_setup};
use super::interrupt::Interrupt;
use super::options::{UsageError, default_bot_name, parse_param};
use super::reporters::Verbosity;
use super::sandboxing::{SandboxArgs, prepare_sandbox};
use super::time::{TimeArgs, tournament_time_line};
use arena_base::printable::printable;
use arena_base::text_file::read_bounded;
use arena_base::units::parse_duration;
use arena_games::GameSetup;
use arena_referee::seeds::fresh_seed;
use arena_referee::{BotCommand, Settings};
use arena_system::os::sandbox::Sandbox;
use arena_system::sandbox::SandboxSettings;
use arena_tournament::config::openings::{MAX_OPENINGS_BYTES, Openings};
use arena_tournament::config::{
    BotEntry, MAX_CONCURRENCY, MAX_GAMES_PER_PAIR, MAX_LINE_BYTES, Restart, check_games_per_pair,
    check_tournament_bot_name,
};
use arena_tournament::events::Reporter;
use arena_tournament::results::store::export::Export;
use arena_tournament::results::store::seed_key::{NewKey, RunKey, given_key};
use arena_tournament::results::store::{GAMES_CSV, RecordedSettings, ResumeRefused, for_each_row};
use arena_tournament::schedule::Shard;
use arena_tournament::{self as tournament, RunEnd, RunOptions, StopRule, Tournament};

/// The options of a tournament made on the command line. Each left out
/// keeps the default shown (or, for `arena gauntlet --league`, the league
/// file's setting).
#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    /// Seed of the whole run: every setup derives from it. Without it, a
    /// rerun on a results folder takes the folder's, and a new run draws a
    /// fresh one and prints it.
    #[arg(long)]
    pub seed: Option<u64>,
    /// A game parameter, e.g. --param count=12 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, Value)>,
    /// Results folder [default: results/<command>-<date>-<time>, with -2,
    /// -3... added when a command of the same second made that folder].
    /// Running the same command on it again resumes: games already in its
    /// games.csv are not played again.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Start over: discard the games arena wrote in the results folder
    /// (games.csv, tournament.json, standings, transcripts and logs; any
    /// other file stays). Without it, a folder holding other settings'
    /// games is refused, never overwritten.
    #[arg(long)]
    pub fresh: bool,
    /// Time for a bot to start and answer each game's `start` [default: 5s].
    #[arg(long, value_parser = parse_duration)]
    pub startup_timeout: Option<Duration>,
    /// Longest line a bot may send, in bytes (64 to 64 MiB) [default: 65536].
    #[arg(long, value_parser = max_line_bytes)]
    pub max_line_bytes: Option<usize>,
    /// Most bytes of a bot's stderr kept per game [default: 1048576].
    #[arg(long)]
    pub stderr_cap: Option<u64>,
    /// Time a game program has for each answer [default: 5s].
    #[arg(long, value_parser = parse_duration)]
    pub game_timeout: Option<Duration>,
    /// Start fresh bot processes for every game (by default a process plays
    /// game after game, and is restarted only after a timeout, crash or
    /// malformed output; a game program that declares itself random always
    /// has fresh ones).
    #[arg(long)]
    pub restart_each_game: bool,
    /// An openings file: one setup a line, such as {"seed": 42} or
    /// {"seed": 7, "params": {"count": 12}} (tournaments/README.md has the
    /// format). Its setups are played in order, each in both seat orders,
    /// and again from the first when more games are asked for; the bots
    /// may not read it.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Withdraw a bot from the run once it has crashed or failed to start
    /// in N games in a row: its remaining games are recorded as lost
    /// (forfeit `withdrawn`) without starting it, and a later run on the
    /// same results folder plays them. 0 never withdraws [default: 5, or
    /// the league file's `withdraw_after`].
    #[arg(long, value_name = "N")]
    pub withdraw_after: Option<u32>,
    /// Games played at once, each by two processes of its own [default: 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CONCURRENCY)))]
    pub concurrency: Option<u32>,
    /// Key seat seeds with the secret in FILE (its text, as ARENA_SEED_KEY
    /// would hold it) instead of a random key kept in the results folder.
    #[arg(long, value_name = "FILE")]
    pub seed_key_file: Option<PathBuf>,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    #[command(flatten)]
    pub time: TimeArgs,
}

/// `--quiet` and `--json`, for the commands that show progress rather
/// than a line per game.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Print nothing on stdout: only warnings and errors (on stderr); the
    /// results are in the results folder (and an SPRT's verdict in the
    /// exit status).
    #[arg(short, long, conflicts_with = "json")]
    pub quiet: bool,
    /// Write the run as JSON lines on stdout, one object per event (docs/running.md,
    /// "Reading a run from a program", lists them), and the result
    /// as a last JSON object, instead of text.
    #[arg(long)]
    pub json: bool,
}

impl OutputArgs {
    pub fn verbosity(&self) -> Verbosity {
        Verbosity::from_flags(self.quiet, self.json)
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

/// Where the seed of a run came from, for the line that starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedFrom {
    /// `--seed`, or a league file.
    Given,
    /// The results folder being resumed.
    Folder,
    /// Drawn now.
    Fresh,
}

impl SeedFrom {
    /// "seed 7", with how to repeat the run's games in any folder: the
    /// seed and `repeat_key`, what gives the same seat-seed key there
    /// ([`Prepared::repeat_key`]).
    pub fn describe(self, seed: u64, repeat_key: &str) -> String {
        match self {
            SeedFrom::Given | SeedFrom::Fresh => {
                format!("seed {seed} (repeat with --seed {seed}{repeat_key})")
            }
            SeedFrom::Folder => format!(
                "seed {seed} (the results folder's; repeat elsewhere with --seed {seed}{repeat_key})"
            ),
        }
    }
}

impl TournamentArgs {
    /// The results folder: `--out`, or a new one named for `command` and
    /// the time.
    pub fn out_dir(&self, command: &str) -> PathBuf {
        self.out.clone().unwrap_or_else(|| {
            let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            let stamp: String = stamp.trim_end_matches('Z').replace(':', "").replace('T', "-");
            unused_folder(&Path::new("results").join(format!("{command}-{stamp}")))
        })
    }

    /// The game of `game` with these flags' parameters, checked; a game
    /// program is asked to describe itself first, in the sandbox these
    /// flags set (which may not read the results folder `out`).
    pub fn game_setup(&self, game: &GameArg, out: &Path) -> anyhow::Result<GameSetup> {
        let mut sandbox = SandboxSettings::default();
        self.sandbox.apply_to(&mut sandbox);
        let mut settings = Settings::default();
        if let Some(timeout) = self.game_timeout {
            settings.game_timeout = timeout;
        }
        let program = settings.program_settings();
        game_setup(game, &self.params, &sandbox, &[out], program, Some("--game-timeout"))
    }

    /// Sets the seed and every setting these flags give on `tournament`
    /// (whose `out` is set). Without `--seed`, `default_seed` (a league
    /// file's) is taken, else the seed the results folder recorded (so a
    /// rerun resumes), else a fresh one.
    pub fn apply(
        &self,
        tournament: &mut Tournament,
        default_seed: Option<u64>,
    ) -> anyhow::Result<SeedFrom> {
        let recorded = if self.fresh { None } else { RecordedSettings::read(&tournament.out)? };
        let from = match (self.seed, default_seed, recorded) {
            (Some(seed), _, _) | (None, Some(seed), _) => {
                tournament.seed = seed;
                SeedFrom::Given
            }
            (None, None, Some(recorded)) => {
                tournament.seed = recorded.seed;
                SeedFrom::Folder
            }
            (None, None, None) => {
                tournament.seed = fresh_seed();
                SeedFrom::Fresh
            }
        };
        if let Some(path) = &self.openings {
            let text = read_bounded(path, MAX_OPENINGS_BYTES).map_err(|error| {
                UsageError(format!("--openings: cannot read {}: {error}", path.display()))
            })?;
            let written = path.to_string_lossy();
            let openings = Openings::parse(path, &written, &text, &tournament.setup)
                .map_err(|error| UsageError(format!("--openings: {error}")))?;
            tournament.openings = Some(openings);
        }
        tournament.change_time_control(&self.time.keys()).map_err(UsageError)?;
        self.time.apply_leeway(&mut tournament.settings);
        let settings = &mut tournament.settings;
        if let Some(timeout) = self.startup_timeout {
            settings.startup_timeout = timeout;
        }
        if let Some(bytes) = self.max_line_bytes {
            settings.max_line_bytes = bytes;
        }
        if let Some(cap) = self.stderr_cap {
            settings.stderr_cap = cap;
        }
        if let Some(timeout) = self.game_timeout {
            settings.game_timeout = timeout;
        }
        if self.restart_each_game {
            tournament.restart = Restart::EveryGame;
        }
        if let Some(concurrency) = self.concurrency {
            tournament.concurrency = concurrency as usize;
        }
        if let Some(games) = self.withdraw_after {
            tournament.withdraw_after = games;
        }
        self.sandbox.apply_to(&mut tournament.sandbox);
        Ok(from)
    }
}

/// `base`, or when it exists, the first of `base-2`, `base-3`... that does
/// not: two commands started in the same second (a CI script's gauntlet
/// after another) each get a folder of their own instead of the second
/// finding the first's results and refusing them. Two started at once may
/// still pick the same name; `--out` names a folder for sure.
fn unused_folder(base: &Path) -> PathBuf {
    let mut candidate = base.to_path_buf();
    let mut number = 1;
    while candidate.exists() {
        number += 1;
        let mut name = base.as_os_str().to_owned();
        name.push(format!("-{number}"));
        candidate = PathBuf::from(name);
    }
    candidate
}

/// Bots given on the command line.
pub struct CommandLineBots {
    pub bots: Vec<BotEntry>,
    /// Which command each bot given a number is ("bots named alike,
    /// numbered in the order given: random_bot-1 is `...`"), when names
    /// clashed: the standings name them only so.
    pub numbered: Option<String>,
}

/// Says which command each numbered bot is (`CommandLineBots::numbered`),
/// after a run's first lines.
pub fn say_numbered(numbered: Option<&str>) {
    if let Some(line) = numbered {
        crate::say!("{line}");
    }
}

/// The bots given on the command line as `commands`, named by `names` (a
/// name left out is taken from the command, e.g. `random_bot`, and names
/// that clash get `-1`, `-2`). `what` names each bot in errors ("bot 1",
/// "NEW") and `name_flag` the flag that names it.
pub fn command_line_bots(
    commands: &[&str],
    names: &[Option<String>],
    what: impl Fn(usize) -> String,
    name_flag: impl Fn(usize) -> String,
) -> Result<CommandLineBots, UsageError> {
    let mut parsed = Vec::new();
    for (index, line) in commands.iter().enumerate() {
        let command = BotCommand::parse(line)
            .map_err(|error| UsageError(format!("{}: {error}", what(index))))?;
        command.check_files().map_err(|error| UsageError(format!("{}: {error}", what(index))))?;
        parsed.push(command);
    }
    let chosen: Vec<String> = parsed
        .iter()
        .enumerate()
        .map(|(index, command)| {
            names.get(index).cloned().flatten().unwrap_or_else(|| default_bot_name(command))
        })
        .collect();
    let distinct = super::options::distinct(chosen.clone());
    let numbered: Vec<String> = (0..distinct.len())
        .filter(|&index| distinct[index] != chosen[index])
        .map(|index| format!("{} is `{}`", distinct[index], commands[index]))
        .collect();
    let chosen = distinct;
    for (index, name) in chosen.iter().enumerate() {
        check_tournament_bot_name(name).map_err(|problem| {
            UsageError(format!(
                "{} is named `{}`: {problem}; choose another with {}",
                what(index),
                printable(name),
                name_flag(index)
            ))
        })?;
    }
    Ok(CommandLineBots {
        bots: chosen
            .into_iter()
            .zip(parsed)
            .map(|(name, command)| BotEntry::from_command_line(name, command))
            .collect(),
        numbered: (!numbered.is_empty()).then(|| {
            format!("bots named alike, numbered in the order given: {}", numbered.join("; "))
        }),
    })
}

/// The sandbox a run's bots start in and what it says about it.
pub struct Prepared {
    sandbox: Option<Arc<Sandbox>>,
    /// "sandbox: ..." (or "sandbox: off").
    pub sandbox_line: String,
    /// How seat seeds are keyed.
    pub seeds: String,
    /// What gives another folder the same seat-seed key, after `--seed N`
    /// (`RunKey::repeat_flags`).
    pub repeat_key: String,
    /// The results folder's own new seat-seed key, if the run made one.
    new_seed_key: Option<NewKey>,
}

/// Says, after a run's first line, what its games are played under: the
/// openings file (if any), the sandbox and seat seeds, and the time
/// settings when they are not the defaults.
pub fn say_settings(tournament: &Tournament, sandbox_line: &str, seeds: &str) {
    if let Some(line) = openings_line(tournament) {
        crate::say!("{line}");
    }
    crate::say!("{sandbox_line}; {seeds}");
    if tournament.setup.game().deals_privately() {
        crate::say!(
            "every game has a setup of its own: {} deals what one seat sees and the other not, and the same deal with the seats swapped would give each bot the hand the other held",
            tournament.setup.game().title()
        );
    }
    if let Some(line) = tournament_time_line(tournament) {
        crate::say!("{line}");
    }
}

/// What a tournament plays from its openings file, if it has one.
fn openings_line(tournament: &Tournament) -> Option<String> {
    let openings = tournament.openings.as_ref()?;
    let entries = openings.entries.len() as u64;
    let setups = u64::from(tournament.games_per_pair) / 2;
    // A test stops when it decides: its count is the most it plays.
    let most = if tournament.sprt.is_some() { "at most " } else { "" };
    let played = match setups.cmp(&entries) {
        std::cmp::Ordering::Less => format!("{most}the first {setups} of its {entries} setups"),
        std::cmp::Ordering::Equal => format!("{most}its {entries} setups"),
        std::cmp::Ordering::Greater => {
            format!("its {entries} setups, cycled to make {most}{setups} per pair")
        }
    };
    Some(format!("openings: {}: {played}, each in both seat orders", openings.path.display()))
}

/// Checks that the bots with a build command are built; prepares the
/// sandbox of `tournament`'s bots (which may not read its
/// results folder, league file, openings or key file) and records what it
/// enforces in the settings; chooses the key its seat seeds derive with
/// (`given`, else the results folder's own: see `store::seed_key`), unless
/// `fresh`, the folder's from an earlier run.
pub fn prepare(
    tournament: &mut Tournament,
    fresh: bool,
    key_file: Option<&Path>,
) -> anyhow::Result<Prepared> {
    tournament.check_schedule_size().map_err(UsageError)?;
    arena_tournament::build::check_built(
        &tournament.bots,
        &tournament.file,
        &tournament.fingerprint_exclusions(),
    )
    .map_err(UsageError)?;
    let given = given_key(key_file).map_err(UsageError)?;
    tournament.seed_key_file = key_file.map(Path::to_path_buf);
    let run_key = RunKey::choose(&tournament.out, fresh, given).map_err(refused_as_usage)?;
    let seeds = run_key.describe(&tournament.out);
    let repeat_key = run_key.repeat_flags(&tournament.out);
    tournament.settings.seed_key = run_key.key;
    let protected = tournament.protected_paths();
    let (sandbox, sandbox_line) = prepare_sandbox(&tournament.sandbox, &protected)?;
    tournament.settings.sandbox_line = sandbox_line.as_str().into();
    Ok(Prepared { sandbox, sandbox_line, seeds, repeat_key, new_seed_key: run_key.new })
}

impl Prepared {
    /// The options of a run with this sandbox and seat-seed key.
    pub fn options(
        self,
        reporter: Arc<dyn Reporter>,
        shard: Option<Shard>,
        fresh: bool,
        exports: Vec<Export>,
        stop_when: Option<Arc<dyn StopRule>>,
    ) -> RunOptions {
        RunOptions {
            reporter,
            shard,
            fresh,
            exports,
            sandbox: self.sandbox,
            new_seed_key: self.new_seed_key,
            stop_when,
        }
    }
}

/// A results folder that refuses the run is input to correct.
fn refused_as_usage(error: anyhow::Error) -> anyhow::Error {
    match error.downcast_ref::<ResumeRefused>() {
        Some(_) => UsageError(format!("{error:#}")).into(),
        None => error,
    }
}

/// How a tournament made on the command line ended.
pub enum Played {
    /// Its schedule is played (or its stop rule stopped it): the final
    /// files are written.
    Complete {
        /// Games this run played.
        played: u64,
        /// Games earlier runs had recorded.
        already: u64,
        standings: Vec<arena_tournament::Standing>,
    },
    /// Interrupted: `done` of `total` games are recorded.
    Interrupted {
        done: u64,
        total: u64,
        /// The command that resumes the run, quoted for a shell.
        resume: String,
    },
}

impl Played {
    /// Says where an interrupted run stopped and how to resume it; its
    /// exit status.
    pub fn say_interrupted(done: u64, total: u64, resume: &str, out: &Path) -> ExitCode {
        crate::say!(
            "\ninterrupted: {done} of {total} games are in {}; resume with:\n  {resume}",
            out.join(GAMES_CSV).display()
        );
        ExitCode::from(EXIT_INTERRUPTED)
    }
}

/// Runs `tournament` with `options` until it ends or Ctrl-C; a results
/// folder that refuses the run is input to correct.
pub fn run_until_interrupted(
    tournament: &Tournament,
    options: &RunOptions,
) -> anyhow::Result<RunEnd> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let end = runtime.block_on(async {
        let interrupt = Interrupt::listen().context("cannot listen for Ctrl-C")?;
        tournament::run(tournament, options, interrupt.wait()).await
    });
    end.map_err(refused_as_usage)
}

/// A number of games that comes in pairs (every setup in both seat
/// orders), from 2 to the most a pairing may play: a flag's value parser.
pub fn even_games(text: &str) -> Result<u32, String> {
    let games = text.parse().map_err(|_| format!("`{text}` is not a number of games"))?;
    check_games_per_pair(games).map_err(|_| {
        format!(
            "`{text}` is not an even number of games from 2 to {MAX_GAMES_PER_PAIR} (every setup is played in both seat orders)"
        )
    })
}

/// Plays `tournament` through the tournament runner, resuming what its
/// results folder holds. An interrupted run comes back with the command
/// that resumes it (the command as it was typed, without `--fresh`, with
/// `--out` and `--seed` added when they were left out).
pub fn play(
    tournament: &Tournament,
    args: &TournamentArgs,
    prepared: Prepared,
    reporter: Arc<dyn Reporter>,
    stop_when: Option<Arc<dyn StopRule>>,
) -> anyhow::Result<Played> {
    // Said only where --fresh will discard something: arena leaves a folder
    // it did not write (no tournament.json) alone.
    if args.fresh && RecordedSettings::read(&tournament.out).is_ok_and(|read| read.is_some()) {
        let mut games = 0;
        let _ = for_each_row(&tournament.out.join(GAMES_CSV), |_| {
            games += 1;
            Ok(())
        });
        if games > 0 {
            super::reporters::warn(&format!(
                "--fresh: discarding the {games} games in {} (and the files arena wrote beside them)",
                tournament.out.display()
            ));
        }
    }
    let options = prepared.options(reporter, None, args.fresh, Vec::new(), stop_when);
    let end = run_until_interrupted(tournament, &options)
        .map_err(|error| with_resume(error, || resume_command(args, tournament)))?;
    Ok(match end {
        RunEnd::Interrupted { done, total } => {
            Played::Interrupted { done, total, resume: resume_command(args, tournament) }
        }
        RunEnd::Complete { standings, played, already } => {
            Played::Complete { played, already, standings }
        }
    })
}

/// `error`, with the command that resumes the run when the error is one
/// that a fix resumes from (a game program that failed too often).
pub fn with_resume(error: anyhow::Error, resume: impl FnOnce() -> String) -> anyhow::Error {
    if !error.chain().any(|cause| cause.is::<arena_tournament::GameProgramFailed>()) {
        return error;
    }
    anyhow::anyhow!("{error:#}\nonce the game is fixed, resume with:\n  {}", resume())
}

/// The command line that resumes this run, quoted for a shell.
fn resume_command(args: &TournamentArgs, tournament: &Tournament) -> String {
    let mut words: Vec<OsString> = vec!["arena".into()];
    words.extend(std::env::args_os().skip(1).filter(|word| word != "--fresh"));
    if args.out.is_none() {
        words.extend(["--out".into(), tournament.out.clone().into_os_string()]);
    }
    if args.seed.is_none() {
        words.extend(["--seed".into(), tournament.seed.to_string().into()]);
    }
    let quoted: Vec<String> =
        words.iter().map(|word| shell_words::quote(&word.to_string_lossy()).into_owned()).collect();
    quoted.join(" ")
}

#[cfg(test)]
mod tests {
    use super::unused_folder;

    #[test]
    fn a_default_folder_already_made_is_not_reused() {
        let folder = tempfile::tempdir().unwrap();
        let base = folder.path().join("gauntlet-2026-11-28-092829");
        assert_eq!(unused_folder(&base), base);
        std::fs::create_dir(&base).unwrap();
        let second = folder.path().join("gauntlet-2026-11-28-092829-2");
        assert_eq!(unused_folder(&base), second);
        std::fs::create_dir(&second).unwrap();
        assert_eq!(unused_folder(&base), folder.path().join("gauntlet-2026-11-28-092829-3"));
    }
}
