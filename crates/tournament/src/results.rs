//! Results on disk: the rows of games.csv, and tallies built from them.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use arena_games::Seat;
use arena_protocol::{ForfeitReason, ResultReason};
use arena_referee::{GameFiles, GameOutcome, GameReport, LogFile, StderrLogFile, TranscriptKeeper};

/// One row of games.csv: one finished game. Column order is field order;
/// docs/running.md, "games.csv", documents each column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    /// 1-based position of the game in its run's schedule.
    pub game_index: u64,
    /// 1-based round of the schedule (a match is one pairing, one round per game).
    pub round: u64,
    /// The two bots, in schedule order, as `a vs b`.
    pub pairing: String,
    /// The game's id.
    pub game: String,
    /// The game's setup seed.
    pub seed: u64,
    /// The bot in seat 1.
    pub seat1: String,
    /// The bot in seat 2.
    pub seat2: String,
    /// The winning bot's name; empty for a draw or a double forfeit.
    pub winner: String,
    /// `seat1`, `seat2`, `draw` or `both_lost`.
    pub outcome: GameOutcome,
    /// `normal`, the forfeit reason, or `double_forfeit`.
    pub reason: ResultReason,
    /// The bot that forfeited (both, joined by `;`, for a double forfeit).
    pub forfeiter: String,
    /// Seat 1's forfeit reason; empty when it did not forfeit.
    pub forfeit1: Option<ForfeitReason>,
    /// Seat 2's forfeit reason; empty when it did not forfeit.
    pub forfeit2: Option<ForfeitReason>,
    /// The forfeit in words, with the offending line if there was one.
    pub forfeit_detail: String,
    /// Seat 1's score.
    pub score1: i64,
    /// Seat 2's score.
    pub score2: i64,
    /// Moves played.
    pub plies: u32,
    /// Wall time of the game, handshake and result included (a timing column).
    pub duration_ms: f64,
    /// Slowest reply of each seat (timing columns).
    pub slowest1_ms: f64,
    /// Seat 2's slowest reply (a timing column).
    pub slowest2_ms: f64,
    /// The transcript, relative to the results folder; empty when none was written.
    pub transcript: String,
}

/// Where a game sits in its run, for [`GameRow::new`].
pub struct RowContext<'a> {
    /// 1-based position of the game in its run's schedule.
    pub game_index: u64,
    /// 1-based round of the schedule.
    pub round: u64,
    /// The two bots, in schedule order, as `a vs b`.
    pub pairing: String,
    /// The game's id.
    pub game: String,
    /// The bots' names, by seat.
    pub seats: [&'a str; 2],
    /// The transcript, relative to the results folder; empty when none is written.
    pub transcript: String,
}

impl GameRow {
    /// The games.csv row of a game: where it sits (`context`) and how it ended
    /// (`report`).
    pub fn new(context: RowContext<'_>, report: &GameReport) -> GameRow {
        let name = |seat: Seat| context.seats[seat.index()].to_owned();
        let forfeiting: Vec<Seat> =
            Seat::BOTH.into_iter().filter(|seat| report.forfeits[seat.index()].is_some()).collect();
        let forfeit_detail = forfeiting
            .iter()
            .map(|seat| {
                let forfeit = report.forfeits[seat.index()].as_ref().expect("filtered above");
                let mut text = format!("{}: {}", name(*seat), forfeit.detail);
                if let Some(line) = forfeit.line.as_ref().filter(|line| !line.is_empty()) {
                    text.push_str(&format!(" (line: {line})"));
                }
                text
            })
            .collect::<Vec<_>>()
            .join("; ");
        let reason_of =
            |seat: Seat| report.forfeits[seat.index()].as_ref().map(|forfeit| forfeit.reason);
        let millis = |duration: std::time::Duration| (duration.as_secs_f64() * 1e6).round() / 1e3;
        GameRow {
            game_index: context.game_index,
            round: context.round,
            pairing: context.pairing,
            game: context.game,
            seed: report.seed,
            seat1: name(Seat::One),
            seat2: name(Seat::Two),
            winner: report.winner.map(name).unwrap_or_default(),
            outcome: report.outcome(),
            reason: report.reason(),
            forfeiter: forfeiting.iter().map(|seat| name(*seat)).collect::<Vec<_>>().join(";"),
            forfeit1: reason_of(Seat::One),
            forfeit2: reason_of(Seat::Two),
            forfeit_detail,
            score1: report.scores[0],
            score2: report.scores[1],
            plies: report.plies,
            duration_ms: millis(report.duration),
            slowest1_ms: millis(report.slowest_reply[0]),
            slowest2_ms: millis(report.slowest_reply[1]),
            transcript: context.transcript,
        }
    }

    /// The row as a line of games.csv, after the header line if `header`.
    pub fn csv_line(&self, header: bool) -> std::io::Result<Vec<u8>> {
        // A line is a few hundred bytes: the writer's default buffer (8 KiB,
        // zeroed) would cost more than the line, once a game.
        let mut writer = csv::WriterBuilder::new()
            .has_headers(header)
            .buffer_capacity(1024)
            .from_writer(Vec::with_capacity(512));
        writer.serialize(self).map_err(std::io::Error::other)?;
        writer.into_inner().map_err(|error| error.into_error())
    }

    /// The forfeit reason of the bot in `seat`, if it forfeited.
    pub fn forfeit_reason_of(&self, seat: Seat) -> Option<ForfeitReason> {
        if seat == Seat::One { self.forfeit1 } else { self.forfeit2 }
    }
}

/// Where, relative to a results folder, game `game_index`'s transcript is
/// written when transcripts are kept as files.
pub fn transcript_file(game_index: u64) -> String {
    format!("transcripts/game-{game_index:06}.jsonl")
}

/// Where, relative to a results folder, the transcript of game
/// `game_index` is kept when the game program's fault voided it (a void
/// game has no row, and the archive holds only the games of rows).
pub fn void_transcript(game_index: u64) -> String {
    format!("void/game-{game_index:06}.jsonl")
}

/// Where a game's files go inside a results folder, named by game number.
pub struct FileLayout {
    /// The results folder.
    pub folder: Arc<Path>,
    /// Where transcripts go.
    pub transcripts: TranscriptStore,
    /// Whether the game is a program, whose stderr is logged too.
    pub game_logs: bool,
}

/// Where a results folder keeps its games' transcripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TranscriptStore {
    /// Nowhere.
    Off,
    /// One file per game in `transcripts/`.
    Files,
    /// Handed back to the caller, which appends them to the folder's
    /// transcript archive.
    Archive,
}

impl FileLayout {
    /// The transcript's path relative to the folder (empty when none is kept).
    pub fn transcript(&self, game_index: u64) -> String {
        if self.transcripts == TranscriptStore::Files {
            transcript_file(game_index)
        } else {
            String::new()
        }
    }

    /// Keeps a void game's transcript in `void/`, whole or not at all
    /// (`whole_file`, unsynced as a game's transcript is), and gives its
    /// path relative to the folder.
    pub fn keep_void_transcript(
        &self,
        game_index: u64,
        transcript: &[u8],
    ) -> std::io::Result<String> {
        let relative = void_transcript(game_index);
        let path = self.folder.join(&relative);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        arena_base::whole_file::replace_unsynced(&path, transcript)?;
        Ok(relative)
    }

    /// Removes the transcript file of game `game_index`, played in vain,
    /// where transcripts are files of their own (one in the archive stays
    /// there, named by no row).
    pub fn forget_transcript(&self, game_index: u64) {
        let relative = self.transcript(game_index);
        if !relative.is_empty() {
            let _ = std::fs::remove_file(self.folder.join(relative));
        }
    }

    /// The transcript and both seats' (and a game program's) stderr logs
    /// of one game.
    pub fn files(&self, game_index: u64, names: [&str; 2]) -> GameFiles {
        let transcript = self.transcript(game_index);
        GameFiles {
            transcript: (!transcript.is_empty()).then(|| {
                Arc::new(TranscriptFile(self.folder.join(transcript))) as Arc<dyn TranscriptKeeper>
            }),
            keep_transcript: self.transcripts == TranscriptStore::Archive,
            stderr_logs: [0, 1].map(|seat| {
                Some(LogFile::new(LogOf {
                    folder: Arc::clone(&self.folder),
                    game_index,
                    of: LogOwner::Seat(seat + 1, names[seat].to_owned()),
                }))
            }),
            game_log: self.game_logs.then(|| {
                LogFile::new(LogOf {
                    folder: Arc::clone(&self.folder),
                    game_index,
                    of: LogOwner::Game,
                })
            }),
        }
    }
}

/// A transcript kept as a file of its own: replaced whole or not at all
/// (`whole_file`), so no truncated transcript ever stands; unsynced, as the
/// game's row is appended.
pub struct TranscriptFile(pub PathBuf);

impl TranscriptKeeper for TranscriptFile {
    fn keep(&self, transcript: &[u8]) -> Result<(), String> {
        arena_base::whole_file::replace_unsynced(&self.0, transcript)
            .map_err(|error| format!("cannot write {}: {error}", self.0.display()))
    }
}

/// Whose stderr a log holds.
enum LogOwner {
    /// A seat's bot (seat 1 or 2, and its name).
    Seat(usize, String),
    /// The game program.
    Game,
}

/// A stderr log in a results folder's `logs/`, named by game number and
/// seat (its path worked out only when the program first writes).
struct LogOf {
    folder: Arc<Path>,
    game_index: u64,
    of: LogOwner,
}

impl StderrLogFile for LogOf {
    fn create(&self) -> std::io::Result<(Box<dyn std::io::Write + Send>, PathBuf)> {
        let (file, path) = create_log(&self.path())?;
        Ok((Box::new(file), path))
    }

    fn path(&self) -> PathBuf {
        let game_index = self.game_index;
        self.folder.join(match &self.of {
            LogOwner::Seat(seat, name) => {
                format!("logs/game-{game_index:06}-seat{seat}-{}.log", file_safe(name))
            }
            LogOwner::Game => format!("logs/game-{game_index:06}-game.log"),
        })
    }
}

/// Creates the log file `path`, or one beside it when a log of that name
/// exists (an earlier game's of that number): `NAME.2.log`, `NAME.3.log`,
/// ... A log never runs on into another game's.
fn create_log(path: &Path) -> std::io::Result<(File, PathBuf)> {
    let create = |path: &Path| {
        File::options().write(true).create_new(true).open(path).map(|file| (file, path.to_owned()))
    };
    match create(path) {
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        other => return other,
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let stem = name.strip_suffix(".log").unwrap_or(&name);
    for copy in 2.. {
        match create(&path.with_file_name(format!("{stem}.{copy}.log"))) {
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && copy < 1000 => {}
            other => return other,
        }
    }
    unreachable!("the loop returns by its 1000th name")
}

/// Appends rows to games.csv, flushing each one as it is written so a crash
/// loses nothing that finished.
pub struct GamesCsv {
    file: File,
    /// Whether the file is empty: its first row comes with the header.
    new: bool,
}

impl GamesCsv {
    /// Opens `path` to append rows; the header goes first if it is empty.
    pub fn append_to(path: &Path) -> std::io::Result<GamesCsv> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        let new = file.metadata()?.len() == 0;
        Ok(GamesCsv { file, new })
    }

    /// Appends `row`, written at once. Fails if the file was deleted (its
    /// folder removed mid-run): rows written to it would be lost unseen.
    pub fn append(&mut self, row: &GameRow) -> std::io::Result<()> {
        let line = row.csv_line(self.takes_header())?;
        self.append_lines(&line)
    }

    /// Whether the next row must bring the header (the file is new); from
    /// then on it must not.
    pub fn takes_header(&mut self) -> bool {
        std::mem::take(&mut self.new)
    }

    /// Appends rows already written as CSV (see [`GameRow::csv_line`]).
    pub fn append_lines(&mut self, lines: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::MetadataExt;
        self.file.write_all(lines)?;
        if self.file.metadata()?.nlink() == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the file was deleted while the run went on",
            ));
        }
        Ok(())
    }
}

/// Wins, draws, losses and forfeits of one bot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost (a double forfeit is lost by both).
    pub losses: u64,
    /// Forfeits by reason, as games.csv words them.
    pub forfeits: BTreeMap<&'static str, u64>,
}

impl Tally {
    /// Points: 1 for a win, 0.5 for a draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// "3 timeout, 1 crash", or "none".
    pub fn forfeits_in_words(&self) -> String {
        if self.forfeits.is_empty() {
            return "none".to_owned();
        }
        self.forfeits
            .iter()
            .map(|(reason, count)| format!("{count} {reason}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Tally {
    /// Counts one game, for the bot in `seat`.
    pub fn add(&mut self, row: &GameRow, seat: Seat) {
        self.games += 1;
        match (row.outcome, seat) {
            (GameOutcome::Draw, _) => self.draws += 1,
            (GameOutcome::Seat1, Seat::One) | (GameOutcome::Seat2, Seat::Two) => self.wins += 1,
            _ => self.losses += 1,
        }
        if let Some(reason) = row.forfeit_reason_of(seat) {
            *self.forfeits.entry(reason.as_str()).or_default() += 1;
        }
    }
}

/// Tallies per bot name, counted a games.csv row at a time.
#[derive(Clone, Debug, Default)]
pub struct Tallies {
    /// Each bot's tally.
    pub by_bot: BTreeMap<String, Tally>,
    /// Games counted.
    pub games: u64,
}

impl Tallies {
    /// Counts one game for both its bots.
    pub fn add(&mut self, row: &GameRow) {
        self.games += 1;
        for seat in Seat::BOTH {
            let name = if seat == Seat::One { &row.seat1 } else { &row.seat2 };
            self.by_bot.entry(name.clone()).or_default().add(row, seat);
        }
    }
}

/// A bot name made safe for a file name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_log_never_runs_on_into_an_earlier_games_log() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("game-000003-seat1-my.bot.log");
        std::fs::write(&path, "an earlier game\n").unwrap();
        let (mut file, created) = create_log(&path).unwrap();
        file.write_all(b"this game\n").unwrap();
        assert_eq!(created, folder.path().join("game-000003-seat1-my.bot.2.log"));
        create_log(&path).unwrap().0.write_all(b"and the next\n").unwrap();
        let read = |name: &str| std::fs::read_to_string(folder.path().join(name)).unwrap();
        assert_eq!(read("game-000003-seat1-my.bot.log"), "an earlier game\n");
        assert_eq!(read("game-000003-seat1-my.bot.2.log"), "this game\n");
        assert_eq!(read("game-000003-seat1-my.bot.3.log"), "and the next\n");
    }

    /// The layout names each game's logs in `logs/` by game, seat and a
    /// file-safe name, and makes them only when written.
    #[test]
    fn a_games_logs_are_named_by_game_and_seat_and_made_when_written() {
        let folder = tempfile::tempdir().unwrap();
        for sub in ["logs", "transcripts"] {
            std::fs::create_dir(folder.path().join(sub)).unwrap();
        }
        let layout = FileLayout {
            folder: folder.path().into(),
            transcripts: TranscriptStore::Files,
            game_logs: true,
        };
        let files = layout.files(7, ["a/b", "c"]);
        let seat2 = files.stderr_logs[1].as_ref().unwrap();
        assert_eq!(seat2.path(), folder.path().join("logs/game-000007-seat2-c.log"));
        assert!(!seat2.path().exists(), "a log made before anything was written");
        let (mut log, path) = seat2.create().unwrap();
        log.write_all(b"thinking\n").unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "thinking\n");
        let game = files.game_log.as_ref().unwrap().path();
        assert_eq!(game, folder.path().join("logs/game-000007-game.log"));
        let transcript = files.transcript.as_ref().unwrap();
        transcript.keep(b"{}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(folder.path().join(transcript_file(7))).unwrap(),
            "{}\n"
        );
    }
}
