//! The referee: bot processes, time limits, forfeits and transcripts.
//!
//! A [`Bot`] is a named command and, while it runs, its process (a protocol
//! session that can play many games in a row). [`play_game`] plays one game
//! between two bots and reports it; it restarts nothing by itself but stops
//! a bot whose forfeit left it in doubt, so the next game starts it afresh.

#![warn(missing_docs)]

pub mod clock;
mod deadline;
mod exchange;
pub mod forfeit;
mod game;
mod game_fault;
pub mod game_program;
pub mod lines;
pub mod players;
pub mod process;
pub mod reaper;
mod records;
mod reply;
mod script;
pub mod seeds;
pub mod story;
pub mod table;
pub mod transcript;

/// What [`with_rules!`] expands to, reachable from any crate.
#[doc(hidden)]
pub mod macro_support {
    pub use arena_games::{GameRef, with_game};
}

use arena_base::score::Score;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use clock::{GameClock, Leeway, TimeControl};
pub use forfeit::{Activity, Cause, Notice, Request, Stall};
pub use game::play_game;
pub use game_program::{GameFault, GameProgram, ProgramSettings};
pub use process::{BotCommand, BotProcess, CommandError, LocalIo, LocalPlayer, PastCap, Stopped};
pub use records::{LogFile, StderrLogFile, TranscriptKeeper};
pub use script::Script;
pub use table::{BuiltinRules, Rules, Table};

use crate::seeds::SeedKey;
use arena_games::Seat;
use arena_protocol::{ForfeitReason, Limits, ResultReason};

/// Everything about refereeing that is not the game itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Time for the reply to `start`, process start-up included.
    pub startup_timeout: Duration,
    /// How each seat's replies to `move` are timed, unless its bot has a
    /// control of its own ([`Bot::time_control`]).
    pub time_control: TimeControl,
    /// Added to every deadline (for loaded machines); never to the time a
    /// bot is told it has.
    pub time_margin: Duration,
    /// No deadline at all, for debugging: bots are still told their time
    /// and their clocks still run.
    pub no_time_limit: bool,
    /// Longest line, in bytes without the newline, that a bot may send.
    pub max_line_bytes: usize,
    /// Largest stderr log kept per bot per game.
    pub stderr_cap: u64,
    /// How long a bot may take to exit once its input is closed.
    pub exit_grace: Duration,
    /// Add a field and a message type that bots do not know to what they
    /// are sent (`arena check` uses it to see that a bot ignores them).
    pub probe_unknown: bool,
    /// For `arena check`: a `start` left unanswered while its bot has sat
    /// waiting to read its input for this long is judged a timeout then,
    /// not at its deadline. The bot has nothing left to do, so any reply
    /// it wrote is stuck in its output buffer, and waiting longer changes
    /// nothing. `None` (games that count) waits to the deadline.
    pub stuck_start_after: Option<Duration>,
    /// The key each seat's own seed derives with.
    pub seed_key: SeedKey,
    /// The protections bots run under, as the run says them (written in
    /// every transcript's header).
    pub sandbox_line: Arc<str>,
    /// Time a game program has for each answer.
    pub game_timeout: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            startup_timeout: Duration::from_secs(5),
            time_control: TimeControl::default(),
            time_margin: Duration::ZERO,
            no_time_limit: false,
            max_line_bytes: 64 * 1024,
            stderr_cap: 1024 * 1024,
            exit_grace: Duration::from_millis(200),
            probe_unknown: false,
            stuck_start_after: None,
            seed_key: SeedKey::from_environment(),
            sandbox_line: Arc::from("sandbox: off"),
            game_timeout: Duration::from_secs(5),
        }
    }
}

impl Settings {
    /// The limits as the protocol states them to a bot playing under
    /// `control`.
    pub fn limits(&self, control: TimeControl) -> Limits {
        let clock = control.clock();
        Limits {
            startup_ms: self.startup_timeout.as_millis() as u64,
            move_ms: control.first_move().as_millis() as u64,
            max_line_bytes: self.max_line_bytes,
            bank_ms: clock.map(|clock| clock.bank.as_millis() as u64),
            increment_ms: clock.map(|clock| clock.increment.as_millis() as u64),
        }
    }

    /// How far past a bot's time the referee waits.
    pub fn leeway(&self) -> Leeway {
        if self.no_time_limit { Leeway::Unlimited } else { Leeway::Margin(self.time_margin) }
    }

    /// How a game program is run under these settings.
    pub fn program_settings(&self) -> ProgramSettings {
        ProgramSettings {
            timeout: self.game_timeout,
            stderr_cap: self.stderr_cap,
            exit_grace: self.exit_grace,
        }
    }

    /// The time control of `bot`: its own, or everyone's.
    pub fn time_control_of(&self, bot: &Bot) -> TimeControl {
        bot.time_control.unwrap_or(self.time_control)
    }
}

/// A bot: a name, a command, and its running process between games.
pub struct Bot {
    /// The bot's name, as results name it.
    pub name: String,
    /// What runs it.
    pub command: BotCommand,
    /// Set for a player that runs inside arena instead of a program.
    local: Option<LocalPlayer>,
    process: Option<BotProcess>,
    /// The id of the next request; ids restart at 1 with every process.
    next_id: u64,
    /// Whether the running process has answered a `start`: from then on a
    /// game's `start` goes out with its first request (see protocol.md).
    answered_a_start: bool,
    /// The last message that needs no answer sent to the running process
    /// since the last line read from it: a refused line that could answer
    /// it is named an answer to it.
    unanswered_notice: Option<Notice>,
    /// The name the bot gave in its last `ready`, if any.
    pub reported_name: Option<String>,
    /// A time control of its own (a handicap), instead of the one in
    /// [`Settings`].
    pub time_control: Option<TimeControl>,
}

impl Bot {
    /// A bot named `name` that runs `command`; nothing starts until it plays.
    pub fn new(name: impl Into<String>, command: BotCommand) -> Bot {
        Bot {
            name: name.into(),
            command,
            local: None,
            process: None,
            next_id: 1,
            answered_a_start: false,
            unanswered_notice: None,
            reported_name: None,
            time_control: None,
        }
    }

    /// A bot played by a local player (its label stands in for a command).
    pub fn local(name: impl Into<String>, player: LocalPlayer) -> Bot {
        let command = BotCommand { argv: vec![player.label.clone()], ..BotCommand::default() };
        Bot { local: Some(player), ..Bot::new(name, command) }
    }

    /// Starts the process unless it runs already.
    pub fn ensure_running(&mut self, settings: &Settings) -> Result<&mut BotProcess, CommandError> {
        if self.process.is_none() {
            let process = match &self.local {
                Some(player) => BotProcess::local(player, settings.max_line_bytes),
                None => BotProcess::spawn(
                    &self.command,
                    settings.max_line_bytes,
                    settings.stderr_cap,
                    PastCap::Unread,
                )?,
            };
            self.adopt(process);
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    /// Starts both seats' processes where they are not running, seat 2's on
    /// this thread's second one while seat 1's starts here
    /// (`process::start_alongside`): a start waits until its program
    /// execs, and the two waits (and the programs' start-ups, where the
    /// machine has a CPU to spare) then overlap.
    pub async fn ensure_both_running(
        bots: &mut [&mut Bot; 2],
        settings: &Settings,
    ) -> Result<(), CommandError> {
        let [first, second] = bots;
        let both =
            [&**first, &**second].iter().all(|bot| bot.process.is_none() && bot.local.is_none());
        let command = second.command.clone();
        let (max_line_bytes, stderr_cap) = (settings.max_line_bytes, settings.stderr_cap);
        let alongside = both
            .then(|| {
                process::start_alongside(move || {
                    BotProcess::spawn(&command, max_line_bytes, stderr_cap, PastCap::Unread)
                })
            })
            .flatten();
        let started_first = first.ensure_running(settings).map(|_| ());
        // Kept by its bot either way: a failure of the first leaves the
        // second to be stopped as any running process is.
        if let Some(Ok(started)) = match alongside {
            Some(answer) => Some(answer.await),
            None => None,
        } {
            second.adopt(started?);
        }
        second.ensure_running(settings)?;
        started_first
    }

    /// Takes `process`, just started, as the bot's running one.
    fn adopt(&mut self, process: BotProcess) {
        self.process = Some(process);
        self.next_id = 1;
        self.answered_a_start = false;
        self.unanswered_notice = None;
    }

    /// Ends the process (input closed, a grace period, then the whole group
    /// killed and reaped). The next game starts a new one. `None` when it
    /// was not running.
    pub async fn stop(&mut self, settings: &Settings) -> Option<Stopped> {
        match self.process.take() {
            Some(process) => Some(process.stop(settings.exit_grace).await),
            None => None,
        }
    }

    /// The running process, to talk to.
    fn process(&mut self) -> Option<&mut BotProcess> {
        self.process.as_mut()
    }

    /// The id for the next request.
    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Gives back an id taken for a request that never went out, so the
    /// bot's ids still count up by one.
    fn give_back_id(&mut self, id: u64) {
        self.next_id = id;
    }

    /// Notes that the process answered a `start`, with the name it gave.
    fn answered_start(&mut self, name: Option<&str>) {
        self.answered_a_start = true;
        if let Some(name) = name {
            self.reported_name = Some(name.to_owned());
        }
    }

    /// Whether the running process has answered a `start`.
    fn has_answered_a_start(&self) -> bool {
        self.answered_a_start
    }
}

/// A lost game by forfeit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Forfeit {
    /// Why it forfeited.
    pub reason: ForfeitReason,
    /// What happened, in words.
    pub detail: String,
    /// The offending line (cut to a few hundred bytes), if there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The request the bot failed to answer.
    #[serde(skip)]
    pub request: Request,
    /// What went wrong, as values: `detail` is written from them.
    #[serde(skip)]
    pub cause: Cause,
}

/// How a game ended, from the referee's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameReport {
    /// The game's setup seed.
    pub seed: u64,
    /// The winning seat; `None` for a draw or a double forfeit.
    pub winner: Option<Seat>,
    /// Each seat's forfeit, if it forfeited.
    pub forfeits: [Option<Forfeit>; 2],
    /// Both seats' scores.
    pub scores: [Score; 2],
    /// Moves applied.
    pub plies: u32,
    /// Wall time of the game, from when both bots were running.
    pub duration: Duration,
    /// Each seat's legal moves accepted, and the slowest of them: what
    /// `arena check` judges moves and their time by.
    pub moves_accepted: [u32; 2],
    /// Each seat's slowest accepted move.
    pub slowest_move: [Duration; 2],
    /// Each seat's requests answered rightly just after a message that
    /// needs no answer (`over`, `reveal`, a probe): what `arena check`
    /// judges "no reply to them" by.
    #[serde(skip)]
    pub notices_passed: [u32; 2],
    /// Names the bots gave in `ready`.
    pub reported_names: [Option<String>; 2],
    /// Whether each seat answered `start` with a valid `ready` in time.
    pub answered_start: [bool; 2],
    /// The game program's fault that voided the game: then no result
    /// stands, and no bot is charged with anything.
    #[serde(skip)]
    pub void: Option<Box<GameFault>>,
    /// Why the transcript asked for could not be written, if it could not.
    #[serde(skip)]
    pub unsaved_transcript: Option<String>,
    /// The transcript itself, when [`GameFiles::keep_transcript`] asked for
    /// it (the caller stores it).
    #[serde(skip)]
    pub transcript: Option<Vec<u8>>,
    /// What went wrong around the game without deciding it (a stderr log
    /// that could not be written), for the user.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl GameReport {
    /// A game not played because the bots `withdrawn` names (by seat, with
    /// why) were withdrawn from the run: each loses it by that forfeit.
    pub fn unplayed(seed: u64, withdrawn: [Option<String>; 2]) -> GameReport {
        let forfeits = withdrawn.map(|why| why.map(Forfeit::withdrawn));
        let winner = match &forfeits {
            [Some(_), None] => Some(Seat::Two),
            [None, Some(_)] => Some(Seat::One),
            _ => None,
        };
        GameReport {
            seed,
            winner,
            forfeits,
            scores: [Score::ZERO; 2],
            plies: 0,
            duration: Duration::ZERO,
            moves_accepted: [0; 2],
            slowest_move: [Duration::ZERO; 2],
            notices_passed: [0; 2],
            reported_names: [None, None],
            answered_start: [false; 2],
            void: None,
            unsaved_transcript: None,
            transcript: None,
            warnings: Vec::new(),
        }
    }

    /// `normal`, the forfeit reason, or `double_forfeit`.
    pub fn reason(&self) -> ResultReason {
        match &self.forfeits {
            [None, None] => ResultReason::Normal,
            [Some(forfeit), None] | [None, Some(forfeit)] => ResultReason::Forfeit(forfeit.reason),
            [Some(_), Some(_)] => ResultReason::DoubleForfeit,
        }
    }

    /// Which seat won, a draw, or both lost.
    pub fn outcome(&self) -> GameOutcome {
        match (self.winner, &self.forfeits) {
            (Some(Seat::One), _) => GameOutcome::Seat1,
            (Some(Seat::Two), _) => GameOutcome::Seat2,
            (None, [Some(_), Some(_)]) => GameOutcome::BothLost,
            (None, _) => GameOutcome::Draw,
        }
    }
}

/// How a game came out, as games.csv and transcripts write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameOutcome {
    /// The bot in seat 1 won.
    Seat1,
    /// The bot in seat 2 won.
    Seat2,
    /// Neither won: a draw on the board.
    Draw,
    /// Both forfeited: neither gets a point.
    BothLost,
}

impl GameOutcome {
    /// The points the bot in `seat` earns: 1 for a win, ½ for a draw.
    pub fn points(self, seat: Seat) -> f64 {
        match (self, seat) {
            (GameOutcome::Seat1, Seat::One) | (GameOutcome::Seat2, Seat::Two) => 1.0,
            (GameOutcome::Draw, _) => 0.5,
            _ => 0.0,
        }
    }

    /// The word files use.
    pub fn as_str(self) -> &'static str {
        match self {
            GameOutcome::Seat1 => "seat1",
            GameOutcome::Seat2 => "seat2",
            GameOutcome::Draw => "draw",
            GameOutcome::BothLost => "both_lost",
        }
    }
}

impl std::fmt::Display for GameOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the game's records go; `None` keeps nothing of that kind.
#[derive(Clone, Default)]
pub struct GameFiles {
    /// Where the transcript is kept.
    pub transcript: Option<Arc<dyn TranscriptKeeper>>,
    /// Hand the transcript back in [`GameReport::transcript`] instead.
    pub keep_transcript: bool,
    /// Where each seat's stderr log goes, if it writes any.
    pub stderr_logs: [Option<LogFile>; 2],
    /// Where a game program's stderr goes in this game.
    pub game_log: Option<LogFile>,
}
