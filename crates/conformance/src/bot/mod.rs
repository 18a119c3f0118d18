//! `arena check`'s engine: a bot plays a few games of a game against the
//! built-in random player, in both seats, in one process (the second half
//! of the games also carry a field and a message type the bot cannot
//! know), and each item of the checklist is judged on that evidence.

mod advice;
mod checklist;

use std::path::Path;
use std::time::Duration;

pub use advice::Language;
use arena_games::{GameSetup, Seat};
use arena_referee::players::random_player;
use arena_referee::seeds::derive_seed;
use arena_referee::{Bot, BotCommand, CommandError, LogFile, Rules, Settings, play_game};
use arena_tournament::config::TranscriptStore;
use arena_tournament::results::FileLayout;
pub use checklist::{Evidence, Item, Played, Status, checklist, never_started, sandbox_item};

/// How long a bot that has not answered `start` may sit waiting for input
/// before its reply is judged stuck in its output buffer: long past the
/// moment a bot that answered goes back to reading.
pub const STUCK_START_AFTER: Duration = Duration::from_millis(300);

/// The games of one game that a bot is checked on.
pub struct Plan<'a> {
    /// The bot's name, as its transcripts and logs name it.
    pub name: &'a str,
    /// What runs the bot.
    pub command: &'a BotCommand,
    /// The referee's settings for the bot (its limits, its sandbox).
    pub settings: &'a Settings,
    /// The game and its parameters.
    pub setup: &'a GameSetup,
    /// Where the game's transcripts and logs go (`transcripts/`, `logs/`).
    pub folder: &'a Path,
    /// The bot's language, for hints that name its way of doing things.
    pub language: Option<Language>,
    /// Games to play, half in each seat.
    pub games: u64,
    /// The seed the games' seeds are derived from.
    pub seed: u64,
    /// Whether the logs outlive the check (`--out`), for the hints.
    pub logs_kept: bool,
}

/// Why the games of a check could not be played to judge the bot.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The bot's process could not be started.
    #[error("cannot start the bot: {0}")]
    Start(#[from] CommandError),
    /// The game failed (a game program's fault): the bot cannot be judged
    /// on it.
    #[error("game {game} is void: {detail}\n(check the game itself with `arena check-game`)")]
    Void {
        /// The game's number in the check.
        game: u64,
        /// The game program's fault, in words.
        detail: String,
    },
}

/// Plays the games of `plan` and collects what happened.
pub async fn gather<R: Rules>(rules: &mut R, plan: &Plan<'_>) -> Result<Evidence, CheckError> {
    let base = plan.settings;
    let mut bot = Bot::new(plan.name, plan.command.clone());
    let mut random = Bot::local("random", random_player());
    let layout = FileLayout {
        folder: plan.folder.into(),
        transcripts: TranscriptStore::Files,
        game_logs: plan.setup.game().program().is_some(),
    };
    let probed_from = (plan.games / 2) as usize;
    let mut games = Vec::new();
    for index in 0..plan.games {
        let settings = Settings { probe_unknown: index as usize >= probed_from, ..base.clone() };
        let pid = bot.ensure_running(&settings)?.pid();
        let seat = if index % 2 == 0 { Seat::One } else { Seat::Two };
        let seated =
            if seat == Seat::One { [&mut bot, &mut random] } else { [&mut random, &mut bot] };
        let names = [seated[0].name.clone(), seated[1].name.clone()];
        let files = layout.files(index + 1, [&names[0], &names[1]]);
        let log = files.stderr_logs[seat.index()].as_ref().map(LogFile::path).unwrap_or_default();
        let report = play_game(
            rules,
            plan.setup,
            seated,
            derive_seed(plan.seed, index),
            index + 1,
            &settings,
            &files,
        )
        .await?;
        if let Some(fault) = &report.void {
            // The bot cannot be judged on a game that failed.
            bot.stop(base).await;
            return Err(CheckError::Void { game: index + 1, detail: fault.detail() });
        }
        games.push(Played { report, seat, pid, log });
        if never_started(&games) {
            break;
        }
    }
    // The built-in player's exit is not judged: it is ended at once, while
    // the bot has its grace.
    let ours = Settings { exit_grace: Duration::ZERO, ..base.clone() };
    let (stopped, _) = tokio::join!(bot.stop(base), random.stop(&ours));
    Ok(Evidence { games, stopped, probed_from, logs_kept: plan.logs_kept, language: plan.language })
}
