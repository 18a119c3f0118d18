//! `arena play GAME`: a person plays at the terminal, against a bot, the
//! built-in random player, or another person at the same keyboard.

use super::reporters::warn;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use super::game_arg::{GameArg, GameArgParser, game_setup};
use super::options::{UsageError, default_bot_name, parse_param};
use super::sandboxing::{SandboxArgs, start_sandbox};
use super::terminal::Terminal;
use arena_base::units::parse_duration;
use arena_games::narrate::player;
use arena_games::with_game;
use arena_games::{Game, GameRef, GameSetup, Seat};
use arena_protocol::{ForfeitReason, ResultReason};
use arena_referee::TranscriptKeeper;
use arena_referee::players::{SharedConsole, human, random_player, reader};
use arena_referee::seeds::fresh_seed;
use arena_referee::{
    self as referee, Bot, BotCommand, BuiltinRules, GameFiles, GameProgram, GameReport, Rules,
    Settings, TimeControl, play_game,
};
use arena_tournament::results::TranscriptFile;
/// Arguments of `arena play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The game: a game's id (`arena games` lists them) or a game
    /// program's command line (game-protocol.md), whose views are shown
    /// field by field, keys sorted.
    #[arg(value_parser = GameArgParser)]
    game: GameArg,
    /// The opponent: `random` (the built-in random player), `human` (a
    /// second person at this keyboard), or a bot's command line.
    #[arg(long, default_value = "random", value_name = "CMD|random|human")]
    vs: String,
    /// Your seat, 1 or 2 (in a built-in game that takes turns, seat 1 moves
    /// first; a game program says who moves when).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    seat: u8,
    /// The game's seed (the list or grid it deals) [default: a fresh one].
    #[arg(long)]
    seed: Option<u64>,
    /// A game parameter, e.g. --param n=4 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, Value)>,
    /// Time for each move, yours and the opponent's.
    #[arg(long, value_parser = parse_duration, default_value = "30m")]
    move_timeout: Duration,
    /// No time limit at all, for you or the opponent (a bot is still told
    /// --move-timeout as its time).
    #[arg(long)]
    no_time_limit: bool,
    /// Also write the game's transcript here.
    #[arg(long, value_name = "FILE")]
    transcript: Option<PathBuf>,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let protected: Vec<&std::path::Path> =
        args.transcript.iter().map(|path| path.as_path()).collect();
    let sandbox_settings = args.sandbox.settings();
    let setup = game_setup(
        &args.game,
        &args.params,
        &sandbox_settings,
        &protected,
        Settings::default().program_settings(),
        None,
    )?;
    if args.vs == "human" && setup.game().program().is_some() {
        return Err(UsageError(
            "--vs human needs a built-in game: a game program's views are shown as they are, so one person would see the other's".to_owned(),
        )
        .into());
    }
    let mut opponent_command = match args.vs.as_str() {
        "random" | "human" => None,
        line => {
            let command =
                BotCommand::parse(line).map_err(|error| UsageError(format!("--vs: {error}")))?;
            command.check_files().map_err(|error| UsageError(format!("--vs: {error}")))?;
            Some(command)
        }
    };
    if let Err(error) = referee::reaper::become_subreaper() {
        warn(&format!("cannot become a subreaper ({error})"));
    }
    let mut settings = Settings {
        time_control: TimeControl::PerMove { limit: args.move_timeout },
        no_time_limit: args.no_time_limit,
        ..Settings::default()
    };
    // The opponent and a game program run in the sandbox, apart.
    let mut commands: Vec<BotCommand> = opponent_command.iter().cloned().collect();
    if let GameArg::Program(game) = &args.game {
        commands.push(game.clone());
    }
    if !commands.is_empty() {
        let (sandbox, sandbox_line) = start_sandbox(&sandbox_settings, &protected)?;
        settings.sandbox_line = sandbox_line.into();
        let names: Vec<String> = commands
            .iter()
            .enumerate()
            .map(|(index, _)| {
                let game = matches!(args.game, GameArg::Program(_)) && index + 1 == commands.len();
                if game { "the game program".to_owned() } else { "the opponent".to_owned() }
            })
            .collect();
        for message in BotCommand::prepare_all(&mut commands, &names, sandbox.as_ref())? {
            super::reporters::warn(&message);
        }
    }
    let game_command = matches!(args.game, GameArg::Program(_)).then(|| commands.pop()).flatten();
    if opponent_command.is_some() {
        opponent_command = commands.pop();
    }
    let seat = Seat::from_number(args.seat).expect("clap keeps the seat to 1 or 2");
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let console: SharedConsole = Arc::new(Mutex::new(Terminal));
    let opponent = match (&opponent_command, args.vs.as_str()) {
        (Some(command), _) => format!("the bot {}", default_bot_name(command)),
        (None, "human") => "a second person at this keyboard".to_owned(),
        (None, _) => "the built-in random player".to_owned(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let opponent_bot = |human: &dyn Fn() -> Bot| match (&opponent_command, args.vs.as_str()) {
        (Some(command), _) => Bot::new(default_bot_name(command), command.clone()),
        (None, "human") => human(),
        (None, _) => Bot::local("random", random_player()),
    };
    // Whether the person moves first or second, where turns alternate.
    let introduce = |turn_based: Option<bool>| {
        crate::say!(
            "You are {}{}, against {opponent} as {}. Type quit at any question to leave the game.",
            player(seat),
            match (turn_based, seat) {
                (Some(true), Seat::One) => " (you move first)",
                (Some(true), Seat::Two) => " (you move second)",
                _ => "",
            },
            player(seat.other())
        );
    };
    let transcript = args.transcript.clone();
    let report = match setup.game() {
        GameRef::Builtin(id) => with_game!(*id, G => {
            let mut rules = BuiltinRules::<G>::new();
            // The person's copy of the game is the referee's.
            let game_seed = rules.seed_for(seed, &settings.seed_key);
            let turn_based = <G as Game>::new(setup.params::<G>(), game_seed).to_move().len() == 1;
            introduce(Some(turn_based));
            let you = Bot::local("you", human::<G>(Arc::clone(&console), true, game_seed));
            let other = opponent_bot(&|| Bot::local(player(seat.other()), human::<G>(Arc::clone(&console), false, game_seed)));
            runtime.block_on(play_one(&mut rules, &setup, you, other, seat, seed, &settings, transcript))?
        }),
        GameRef::Program(game) => {
            // Who moves first is the game's to say, turn by turn.
            introduce(None);
            let command = game_command.expect("a game program has its command");
            let mut rules = GameProgram::of(game, command, settings.program_settings());
            let you = Bot::local(
                "you",
                reader(
                    Arc::clone(&console),
                    game.declaration.title().to_owned(),
                    game.declaration.moves,
                ),
            );
            let other = opponent_bot(&|| unreachable!("refused above"));
            runtime.block_on(play_one(
                &mut rules, &setup, you, other, seat, seed, &settings, transcript,
            ))?
        }
    };
    let mut console = console.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    console.say("");
    for line in result_lines(&report.0, &report.1) {
        console.say(&line);
    }
    Ok(ExitCode::SUCCESS)
}

/// Plays the game; returns its report and the names by seat.
#[allow(clippy::too_many_arguments)]
async fn play_one<R: Rules>(
    rules: &mut R,
    setup: &GameSetup,
    mut you: Bot,
    mut opponent: Bot,
    seat: Seat,
    seed: u64,
    settings: &Settings,
    transcript: Option<PathBuf>,
) -> anyhow::Result<(GameReport, [String; 2])> {
    let seated =
        if seat == Seat::One { [&mut you, &mut opponent] } else { [&mut opponent, &mut you] };
    let names = [seated[0].name.clone(), seated[1].name.clone()];
    // The opponent's stderr is left out: it would mix with the game.
    let transcript =
        transcript.map(|path| Arc::new(TranscriptFile(path)) as Arc<dyn TranscriptKeeper>);
    let files =
        GameFiles { transcript, keep_transcript: false, stderr_logs: [None, None], game_log: None };
    // The one game, its setup's first.
    let report = play_game(rules, setup, seated, seed, 1, settings, &files)
        .await
        .context("the opponent could not be started")?;
    you.stop(settings).await;
    opponent.stop(settings).await;
    rules.stop().await;
    if let Some(fault) = &report.void {
        anyhow::bail!("the game is void: {}", fault.detail());
    }
    Ok((report, names))
}

/// The closing lines: final scores, the winner, and any forfeit.
fn result_lines(report: &GameReport, names: &[String; 2]) -> Vec<String> {
    let label = |seat: Seat| format!("{} ({})", player(seat), names[seat.index()]);
    let mut lines = vec!["Game Over!".to_owned(), "Final Scores:".to_owned()];
    for seat in Seat::BOTH {
        lines.push(format!("{}: {}", label(seat), report.scores[seat.index()]));
    }
    for seat in Seat::BOTH {
        match &report.forfeits[seat.index()] {
            // A person's side ends its session only when input runs out.
            Some(forfeit)
                if names[seat.index()] == "you" && forfeit.reason == ForfeitReason::Crash =>
            {
                lines.push(format!("{} left the game.", label(seat)));
            }
            Some(forfeit) => {
                lines.push(format!(
                    "{} forfeits ({}): {}",
                    label(seat),
                    forfeit.reason,
                    forfeit.detail
                ));
            }
            None => {}
        }
    }
    lines.push(match report.winner {
        Some(seat) => format!("Winner: {}", label(seat)),
        None if report.reason() == ResultReason::DoubleForfeit => "Both players lose.".to_owned(),
        None => "It's a draw.".to_owned(),
    });
    lines
}
