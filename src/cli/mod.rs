//! The command line: each subcommand's arguments (clap derive) and the code
//! that runs it. `src/main.rs` only parses and calls [`run`].

mod announce;
mod bots;
mod build;
mod check;
mod check_game;
mod game_arg;
mod gauntlet;
mod interrupt;
mod matches;
mod merge;
mod options;
mod output;
mod parse_error;
mod play;
mod replay;
mod report;
mod reporters;
mod run;
mod sandbox_from;
mod sandboxing;
mod sprt;
mod terminal;
mod time;
mod tournament_args;

use std::process::ExitCode;

use clap::Subcommand;

pub use bots::BotsArgs;
pub use build::BuildArgs;
pub use check::CheckArgs;
pub use check_game::CheckGameArgs;
pub use gauntlet::GauntletArgs;
pub use matches::MatchArgs;
pub use merge::MergeArgs;
pub use parse_error::with_tip;
pub use play::PlayArgs;
pub use replay::ReplayArgs;
pub use report::ReportArgs;
pub use run::RunArgs;
pub use sprt::SprtArgs;

/// The subcommands of `arena`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a series of games between two bot commands: a tournament of one
    /// pairing.
    ///
    /// Each setup is played twice with the seats swapped: in game 1 CMD1 is
    /// seat 1, in game 2 (the same setup) CMD2 is, and so on. Writes
    /// DIR/games.csv (one row per game, flushed as each game ends),
    /// DIR/transcripts/ (a file per game), DIR/logs/ (each bot's stderr) and,
    /// at the end, the standings. Running the same command on the same --out
    /// again resumes (Ctrl-C prints that command); --fresh starts over.
    #[command(
        after_help = "Example:\n  arena match number-snatch \"python3 bots/python/random_bot.py\" target/release/random-bot --games 10 --seed 7 --out results/m1"
    )]
    Match(Box<MatchArgs>),
    /// Run a round-robin tournament described by a TOML file.
    ///
    /// Writes games.csv (a row per game, flushed as it ends), standings.csv,
    /// crosstable.csv, transcripts/ and logs/ to the results folder. Running
    /// the same command again resumes: games already in games.csv are not
    /// played again. Ctrl-C stops cleanly and prints how to resume.
    #[command(
        after_help = "Example:\n  arena run tournaments/demo.toml\n  arena run tournaments/demo.toml --shard 1/4 --out results/shard1"
    )]
    Run(RunArgs),
    /// Play challengers against a field of bots, the field's bots not
    /// playing each other: a new bot against the bots it must beat.
    ///
    /// With --game, the first command is the challenger and the others the
    /// field; with --league FILE, every command is a challenger, and so is
    /// each bot of the file named with --bot NAME; the file's other bots
    /// (with its game and settings) are the field. Writes the
    /// same results folder as `arena run`, resumes the same way (rerun the
    /// command; Ctrl-C prints it), and ranks every bot by Elo (the bots play
    /// different numbers of games, so points do not compare), then lists the
    /// challengers' records against the field.
    #[command(
        after_help = "Examples:\n  arena gauntlet --game number-snatch \"python3 my_bot.py\" target/release/random-bot target/release/strong-bot\n  arena gauntlet --league tournaments/league.toml \"python3 my_bot.py\" --games 40\n  arena gauntlet --league tournaments/league.toml --bot strong-rs"
    )]
    Gauntlet(Box<GauntletArgs>),
    /// Test whether NEW is stronger than OLD: a sequential probability
    /// ratio test (SPRT) on pairs of games, played until it decides.
    ///
    /// Each setup is played twice, seats swapped; the test counts pairs in
    /// setup order and stops at the first pair where the log-likelihood
    /// ratio (LLR) of H1 (NEW is elo1 normalized Elo stronger) against H0
    /// (elo0 stronger) leaves its bounds. Prints Elo, normalized Elo, LOS,
    /// the pair counts and the LLR as fastchess does. Rerunning the command
    /// resumes from games.csv; a decided test prints its verdict again and
    /// plays nothing.
    ///
    /// Exit status: 0 when H1 is accepted, 3 when H0 is accepted (NEW is
    /// not elo1 stronger: fail the CI job), 4 when --max-games were played
    /// without a decision, 130 when interrupted, 2 for bad input.
    #[command(
        after_help = "Example:\n  arena sprt target/release/strong-bot target/release/random-bot --game number-snatch --elo0 0 --elo1 10"
    )]
    Sprt(Box<SprtArgs>),
    /// Merge the results folders of `arena run --shard` into one.
    Merge(MergeArgs),
    /// Check that a bot follows the protocol: a checklist with evidence.
    ///
    /// Plays the bot against the built-in random player in both seats, a few
    /// games of every game (or of --game), in one process. Exit status 1 when
    /// anything fails.
    #[command(after_help = "Example:\n  arena check --game number-claim \"python3 my_bot.py\"")]
    Check(CheckArgs),
    /// Check that a game program follows the game protocol: a checklist
    /// with evidence.
    ///
    /// Asks the program to describe itself, to set up games with good and
    /// bad parameters, plays random games to their end, plays them again
    /// (in fresh processes, after other games, in another order) and with
    /// one hidden choice changed, and times every answer. Exit status 1
    /// when anything fails.
    #[command(
        name = "check-game",
        after_help = "Example:\n  arena check-game examples/games/connect-four/game.py"
    )]
    CheckGame(CheckGameArgs),
    /// Play a game yourself at the terminal, against a bot, the built-in
    /// random player, or a second person.
    #[command(
        after_help = "Examples:\n  arena play number-snatch\n  arena play number-duel --vs target/release/strong-bot --seat 2\n  arena play number-warriors --vs human"
    )]
    Play(PlayArgs),
    /// Print a game from its transcript, turn by turn, as the rule books
    /// tell a game.
    ///
    /// A tournament keeps its transcripts in one archive in the results
    /// folder: name the folder and the game's number in games.csv. `arena
    /// match` writes a transcript file per game: name the file.
    #[command(
        after_help = "Examples:\n  arena replay results/demo --game 7\n  arena replay results/demo --game 7 --jsonl > game-7.jsonl\n  arena replay results/demo --game 7 --seat 2 | python3 my_bot.py\n  arena replay results/m1/transcripts/game-000001.jsonl"
    )]
    Replay(ReplayArgs),
    /// The standings of a results folder, and its leaderboard page and
    /// Markdown, without playing anything.
    ///
    /// The page is one file that needs no network: standings with Elo and
    /// interval, a crosstable heat map, each bot's record, its rating across
    /// runs (history.jsonl), and the games with an in-page replay.
    #[command(
        after_help = "Example:\n  arena report results/demo --html leaderboard.html --markdown summary.md"
    )]
    Report(ReportArgs),
    /// Build the bots of a tournament file that declare a build command.
    ///
    /// Runs each bot's `build` (its `[[bot]]` key) in its folder (`dir`), one
    /// after another, each in a box of its own: what the bot's box shows,
    /// its own folder writable, the environment a bot gets and its `env`,
    /// limits raised for a compiler (4GiB, 512 processes, 1GiB of scratch),
    /// no network unless the file's `build_network` (or --network) grants
    /// it, killed past `build_timeout` (10m). Its output is shown as it
    /// comes; then the bot's command must be able to run. A bot with a
    /// build command cannot play until it is built. Exit status 1 when a
    /// build fails (the other bots are still built), 2 for a file to
    /// correct or an unknown --bot.
    #[command(
        after_help = "Examples:\n  arena build tournaments/league.toml\n  arena build tournaments/league.toml --bot my-bot"
    )]
    Build(BuildArgs),
    /// List the bots of a tournament file with their fingerprints.
    ///
    /// One line per bot, `FINGERPRINT  NAME`: the SHA-256 a results folder
    /// records for it (its command, env, version key, build command and
    /// files; tournaments/README.md says which files). Two checkouts list
    /// the same fingerprint for the same bot, wherever they are: comparing
    /// two lists finds the bots a change adds or changes.
    #[command(after_help = "Example:\n  arena bots tournaments/league.toml")]
    Bots(BotsArgs),
    /// Waits for the arena of PID to end (its standard input to close) and
    /// removes what its sandbox left (cgroups, scratch folders) were it
    /// killed: started by the sandbox itself.
    #[command(name = "after-sandbox", hide = true)]
    AfterSandbox {
        /// The arena whose end to wait for.
        #[arg(value_name = "PID")]
        pid: u32,
    },
    /// List the games with their parameters and defaults.
    Games,
}

/// Exit status for a run whose input (arguments, files) was refused.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when a run was interrupted (Ctrl-C, SIGTERM).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Runs a parsed command and turns its outcome into an exit status, printing
/// any error with its causes.
pub fn run(command: Command) -> ExitCode {
    let outcome = match command {
        Command::Match(args) => matches::run(*args),
        Command::Run(args) => run::run(args),
        Command::Gauntlet(args) => gauntlet::run(*args),
        Command::Sprt(args) => sprt::run(*args),
        Command::Merge(args) => merge::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Report(args) => report::run(args),
        Command::Play(args) => play::run(args),
        Command::Check(args) => check::run(args),
        Command::Build(args) => build::run(args),
        Command::Bots(args) => bots::run(args),
        Command::AfterSandbox { pid } => {
            arena_system::os::sandbox::clean_after(pid);
            Ok(ExitCode::SUCCESS)
        }
        Command::CheckGame(args) => check_game::run(args),
        Command::Games => {
            crate::say_raw!("{}", options::describe_games());
            Ok(ExitCode::SUCCESS)
        }
    };
    if crate::stdout::closed() {
        return ExitCode::from(crate::stdout::EXIT_CLOSED);
    }
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("arena: {error:#}");
            let usage = error.downcast_ref::<options::UsageError>().is_some()
                || error.chain().any(|cause| {
                    cause
                        .downcast_ref::<arena_system::sandbox::SandboxError>()
                        .is_some_and(arena_system::sandbox::SandboxError::is_input_to_correct)
                });
            ExitCode::from(if usage { EXIT_USAGE } else { 1 })
        }
    }
}
