//! Finding a game's transcript: in the folder's archive or in a file.

use std::path::Path;

use super::GAMES_CSV;
use super::games_csv::read_games_csv;
use crate::archive;
use crate::events::Silent;
use crate::results::GameRow;
use crate::text_file::read_bounded;

/// The largest transcript read: far above a game at the largest parameters.
pub const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// The transcript of game `game` of the results folder `folder`, found
/// through its games.csv row: in the folder's archive or in a file.
pub fn transcript_of_game(folder: &Path, game: u64) -> Result<String, String> {
    let rows = read_games_csv(&folder.join(GAMES_CSV), false, &Silent)
        .map_err(|error| format!("{error:#}"))?;
    let row = rows.iter().find(|row| row.game_index == game).ok_or_else(|| {
        format!(
            "{} has no game {game} (it holds {} games)",
            folder.join(GAMES_CSV).display(),
            rows.len()
        )
    })?;
    read_transcript(folder, row)
}

/// The transcript of the game of `row`, a row of `folder`'s games.csv.
pub fn read_transcript(folder: &Path, row: &GameRow) -> Result<String, String> {
    let game = row.game_index;
    let bytes = if let Some(number) = archive::parse_reference(&row.transcript) {
        archive::ArchiveReader::open(folder)
            .and_then(|mut archive| archive.read(number))
            .map_err(|error| error.to_string())?
    } else if row.transcript.is_empty() {
        return Err(format!("game {game} has no transcript (the run had transcripts = false)"));
    } else {
        let path = folder.join(&row.transcript);
        read_bounded(&path, MAX_TRANSCRIPT_BYTES)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?
            .into_bytes()
    };
    String::from_utf8(bytes).map_err(|_| format!("the transcript of game {game} is not UTF-8"))
}
