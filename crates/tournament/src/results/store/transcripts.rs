//! Finding a game's transcript: in the folder's archive or in a file.

use std::path::{Path, PathBuf};

use super::GAMES_CSV;
use super::games_csv::Rows;
use crate::results::archive::{self, ArchiveError, ArchiveReader};
use crate::results::{transcript_file, void_transcript};
use crate::rows::GameRow;
use arena_base::text_file::read_bounded;

/// The largest transcript read: far above a game at the largest parameters.
pub const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// The transcript of game `game` of the results folder `folder`, found
/// through its games.csv row (read row by row): in the folder's archive
/// or in a file; a void game's (no row, a transcript ending as void)
/// where it was kept.
pub fn transcript_of_game(folder: &Path, game: u64) -> Result<String, String> {
    let csv = folder.join(GAMES_CSV);
    let mut rows = Rows::open(&csv)
        .map_err(|error| format!("{error:#}"))?
        .ok_or_else(|| format!("{} holds no games.csv", folder.display()))?;
    let mut count = 0;
    while let Some((row, _)) = rows.next_row().map_err(|error| format!("{error:#}"))? {
        if row.game_index == game {
            return TranscriptReader::new(folder).read(&row);
        }
        count += 1;
    }
    // A void game has no row: its transcript is kept apart in `void/`, or
    // stays where transcripts kept as files go. Only a transcript that
    // ends as void is told: a file without a row may also be a game whose
    // row was lost or set aside, which must not pass for game `game`.
    for kept in [void_transcript(game), transcript_file(game)] {
        let path = folder.join(kept);
        if !path.is_file() {
            continue;
        }
        let text = read_bounded(&path, MAX_TRANSCRIPT_BYTES)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        if ends_void(&text) {
            return Ok(text);
        }
    }
    let games = if count == 1 { "game" } else { "games" };
    Err(format!("{} has no game {game} (it holds {count} {games})", csv.display()))
}

/// Whether a transcript's last line is a `void` entry (the game program's
/// fault ended the game).
fn ends_void(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Entry<'a> {
        #[serde(rename = "type", borrow)]
        kind: &'a str,
    }
    let last = text.lines().rev().find(|line| !line.trim().is_empty());
    last.and_then(|line| serde_json::from_str::<Entry<'_>>(line).ok())
        .is_some_and(|entry| entry.kind == "void")
}

/// Reads the transcripts of a folder's rows, its archive opened once.
pub struct TranscriptReader {
    folder: PathBuf,
    archive: Option<Result<ArchiveReader, String>>,
}

impl TranscriptReader {
    /// A reader of `folder`'s transcripts; the archive opens when first read.
    pub fn new(folder: &Path) -> TranscriptReader {
        TranscriptReader { folder: folder.to_owned(), archive: None }
    }

    /// The transcript of the game of `row`; the error names the game.
    pub fn read(&mut self, row: &GameRow) -> Result<String, String> {
        let game = row.game_index;
        let bytes = if let Some(number) = archive::parse_reference(&row.transcript) {
            let folder = &self.folder;
            let reader = self.archive.get_or_insert_with(|| {
                ArchiveReader::open(folder).map_err(|error| {
                    format!("the transcripts of {} cannot be read: {error}", folder.display())
                })
            });
            let reader = reader.as_mut().map_err(|error| format!("game {game}: {error}"))?;
            let archive_path = self.folder.join(archive::ARCHIVE_FILE);
            reader.read(number).map_err(|error| match error {
                ArchiveError::NoSuchTranscript { .. } => format!(
                    "the transcript of game {game} is not in {} (lost: a crash came before it was written, or it was in a damaged part; resuming the run plays the game again)",
                    archive_path.display()
                ),
                ArchiveError::Damaged { what, offset, .. } => format!(
                    "the transcript of game {game} in {} is damaged ({what}, at byte {offset})",
                    archive_path.display()
                ),
                other => format!("the transcript of game {game} cannot be read: {other}"),
            })?
        } else if row.transcript.is_empty() {
            return Err(format!("game {game} has no transcript (the run had transcripts = false)"));
        } else {
            let path = self.folder.join(&row.transcript);
            read_bounded(&path, MAX_TRANSCRIPT_BYTES)
                .map_err(|error| {
                    format!(
                        "the transcript of game {game}: cannot read {}: {error}",
                        path.display()
                    )
                })?
                .into_bytes()
        };
        String::from_utf8(bytes).map_err(|_| format!("the transcript of game {game} is not UTF-8"))
    }
}
