//! The results folder's owner: every path and every write in it. `store`
//! the folder as a whole (games.csv, tournament.json, the final files),
//! `archive` the transcript archive, and this module a game's own files
//! (its transcript, its programs' stderr logs, a void game's transcript).

pub mod archive;
pub mod store;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::TranscriptStore;
use crate::rows::GameRow;
use arena_referee::{GameFiles, LogFile, StderrLogFile, TranscriptKeeper};

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
