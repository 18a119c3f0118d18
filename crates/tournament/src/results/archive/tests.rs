use super::frame::{HEADER_BYTES, MAGIC_DEFLATE};
use super::*;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

/// The numbers of 1..=up_to the reader finds.
fn readable(reader: &ArchiveReader, up_to: u64) -> Vec<u64> {
    (1..=up_to).filter(|&number| reader.contains(number)).collect()
}

fn transcript(game: u64) -> Vec<u8> {
    let mut text = format!("{{\"type\":\"header\",\"game\":{game}}}\n");
    for turn in 0..50 {
        text.push_str(&format!("{{\"type\":\"send\",\"at\":{},\"turn\":{turn}}}\n", turn * 13));
    }
    text.into_bytes()
}

fn write_games(folder: &Path, games: impl IntoIterator<Item = u64>) {
    let mut writer = ArchiveWriter::open(folder).unwrap();
    for game in games {
        writer.append(&Frame::compress(game, &transcript(game)).unwrap()).unwrap();
    }
}

#[test]
fn transcripts_read_back_as_written_and_smaller_on_disk() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), 1..=40);
    write_games(folder.path(), 41..=60);
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(readable(&reader, 100), (1..=60).collect::<Vec<_>>());
    for game in [1, 17, 40, 41, 60] {
        assert_eq!(reader.read(game).unwrap(), transcript(game));
    }
    let written: usize = (1..=60).map(|game| transcript(game).len()).sum();
    let stored = fs::metadata(folder.path().join(ARCHIVE_FILE)).unwrap().len() as usize;
    assert!(stored * 3 < written, "{stored} bytes stored for {written}");
    assert!(matches!(reader.read(61), Err(ArchiveError::NoSuchTranscript { number: 61, .. })));
}

#[test]
fn a_torn_frame_is_cut_and_every_whole_one_kept() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), 1..=10);
    let archive_path = folder.path().join(ARCHIVE_FILE);
    let whole = fs::metadata(&archive_path).unwrap().len();
    // A crash in the middle of game 11's frame, before its index entry.
    let frame = Frame::compress(11, &transcript(11)).unwrap();
    let mut file = OpenOptions::new().append(true).open(&archive_path).unwrap();
    file.write_all(&frame.bytes[..frame.bytes.len() / 2]).unwrap();
    drop(file);

    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(
        readable(&reader, 100),
        (1..=10).collect::<Vec<_>>(),
        "a reader skips the torn frame"
    );
    assert_eq!(reader.read(10).unwrap(), transcript(10));

    write_games(folder.path(), [11, 12]);
    assert!(fs::metadata(&archive_path).unwrap().len() > whole);
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(readable(&reader, 100), (1..=12).collect::<Vec<_>>());
    assert_eq!(reader.read(11).unwrap(), transcript(11));
    assert_eq!(reader.read(12).unwrap(), transcript(12));
}

#[test]
fn frames_the_index_missed_are_found_and_a_lost_index_rebuilt() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), 1..=5);
    let index_path = folder.path().join(INDEX_FILE);
    // A crash between a frame and its index entry, and a torn entry.
    let index = fs::read(&index_path).unwrap();
    fs::write(&index_path, &index[..index.len() - 16 - 16 + 5]).unwrap();
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(readable(&reader, 100), (1..=5).collect::<Vec<_>>());
    assert_eq!(reader.read(5).unwrap(), transcript(5));

    fs::remove_file(&index_path).unwrap();
    write_games(folder.path(), [6]);
    assert_eq!(fs::metadata(&index_path).unwrap().len(), 6 * 16);
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(readable(&reader, 100), (1..=6).collect::<Vec<_>>());
    assert_eq!(reader.read(3).unwrap(), transcript(3));
}

#[test]
fn a_replayed_game_reads_as_its_last_frame() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), [1, 2]);
    let mut writer = ArchiveWriter::open(folder.path()).unwrap();
    writer.append(&Frame::compress(2, b"replayed\n").unwrap()).unwrap();
    drop(writer);
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(reader.read(2).unwrap(), b"replayed\n");
    assert_eq!(readable(&reader, 100), vec![1, 2]);
}

/// A frame as earlier versions wrote it: the transcript as raw DEFLATE.
fn deflate_frame(game: u64, transcript: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(transcript).unwrap();
    let stored = encoder.finish().unwrap();
    let mut frame = MAGIC_DEFLATE.to_vec();
    frame.extend_from_slice(&game.to_le_bytes());
    frame.extend_from_slice(&(transcript.len() as u32).to_le_bytes());
    frame.extend_from_slice(&(stored.len() as u32).to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(&stored).to_le_bytes());
    frame.extend_from_slice(&stored);
    frame
}

#[test]
fn an_archive_of_deflate_frames_reads_and_takes_new_frames() {
    let folder = tempfile::tempdir().unwrap();
    let old: Vec<u8> = (1..=3).flat_map(|game| deflate_frame(game, &transcript(game))).collect();
    fs::write(folder.path().join(ARCHIVE_FILE), old).unwrap();
    write_games(folder.path(), [4, 5]);
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(readable(&reader, 100), (1..=5).collect::<Vec<_>>());
    for game in 1..=5 {
        assert_eq!(reader.read(game).unwrap(), transcript(game));
    }
}

#[test]
fn a_damaged_frame_is_reported_not_misread() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), [1, 2]);
    let archive_path = folder.path().join(ARCHIVE_FILE);
    let mut bytes = fs::read(&archive_path).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0xff;
    fs::write(&archive_path, bytes).unwrap();
    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    assert_eq!(reader.read(1).unwrap(), transcript(1));
    let error = reader.read(2).unwrap_err();
    assert!(matches!(error, ArchiveError::Damaged { number: 2, .. }), "{error}");
    assert!(error.to_string().contains(ARCHIVE_FILE), "{error}");
}

/// Where each frame of the archive in `folder` starts, by number.
fn offsets(folder: &Path) -> Vec<u64> {
    let bytes = fs::read(folder.join(INDEX_FILE)).unwrap();
    bytes.chunks_exact(16).map(|entry| u64::from_le_bytes(entry[8..].try_into().unwrap())).collect()
}

#[test]
fn a_damaged_frame_without_an_index_loses_that_game_only() {
    for damage in ["header", "stored bytes"] {
        let folder = tempfile::tempdir().unwrap();
        write_games(folder.path(), 1..=300);
        let at = offsets(folder.path())[149];
        fs::remove_file(folder.path().join(INDEX_FILE)).unwrap();
        let archive_path = folder.path().join(ARCHIVE_FILE);
        let mut bytes = fs::read(&archive_path).unwrap();
        let spot = match damage {
            "header" => at as usize + 1,
            _ => at as usize + HEADER_BYTES as usize + 5,
        };
        bytes[spot] ^= 0x5a;
        fs::write(&archive_path, &bytes).unwrap();

        // Read without repair: every other transcript is found.
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        for number in [1, 149, 151, 300] {
            assert_eq!(reader.read(number).unwrap(), transcript(number), "{damage}");
        }
        assert!(reader.read(150).is_err(), "{damage}");

        let checked = check(folder.path()).unwrap();
        assert_eq!(checked.frames, 299, "{damage}");
        assert_eq!(checked.skipped.len(), 1, "{damage}: {:?}", checked.skipped);
        assert_eq!(checked.skipped[0].0, at, "{damage}");
        assert_eq!(checked.cut, 0, "{damage}: nothing after the damage is cut");
        assert!(checked.index_rebuilt && !checked.present.contains(150));
        assert!(checked.present.contains(151) && checked.present.contains(300));
        assert_eq!(fs::read(&archive_path).unwrap(), bytes, "no byte is dropped");

        // New frames follow, and every whole one reads back.
        write_games(folder.path(), [301]);
        let mut reader = ArchiveReader::open(folder.path()).unwrap();
        assert_eq!(readable(&reader, 301).len(), 300, "{damage}");
        assert_eq!(reader.read(301).unwrap(), transcript(301));
        assert_eq!(reader.read(299).unwrap(), transcript(299));
    }
}

#[test]
fn a_damaged_index_never_shows_another_games_transcript() {
    let folder = tempfile::tempdir().unwrap();
    write_games(folder.path(), 1..=40);
    let index_path = folder.path().join(INDEX_FILE);
    let mut index = fs::read(&index_path).unwrap();
    // Entry 10 points at game 11's frame; entry 20's offset is garbage;
    // entries 30 and 31 have their numbers swapped (out of order).
    let offset = |at: usize| at * 16 + 8..at * 16 + 16;
    let number = |at: usize| at * 16..at * 16 + 8;
    let eleven = index[offset(10)].to_vec();
    index[offset(9)].copy_from_slice(&eleven);
    index[offset(19)].copy_from_slice(&12345u64.to_le_bytes());
    index[number(29)].copy_from_slice(&31u64.to_le_bytes());
    index[number(30)].copy_from_slice(&30u64.to_le_bytes());
    fs::write(&index_path, &index).unwrap();

    let mut reader = ArchiveReader::open(folder.path()).unwrap();
    for number in 1..=40 {
        assert_eq!(reader.read(number).unwrap(), transcript(number), "transcript {number}");
    }
    assert!(reader.read(41).is_err());
    let checked = check(folder.path()).unwrap();
    assert!(checked.index_rebuilt && checked.skipped.is_empty() && checked.frames == 40);
    assert_eq!(fs::read(&index_path).unwrap().len(), 40 * 16);
    assert!(!check(folder.path()).unwrap().index_rebuilt, "a sound index is kept");
}

#[test]
fn records_are_written_after_their_transcripts() {
    let folder = tempfile::tempdir().unwrap();
    let records = folder.path().join("records");
    let archive = folder.path().to_owned();
    let written = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(u64, usize)>::new()));
    let seen = std::sync::Arc::clone(&written);
    let after = AfterFrames {
        path: records.clone(),
        write: Box::new(move |bytes: &[u8]| {
            // Every transcript the records name is in the archive already.
            let reader = ArchiveReader::open(&archive).unwrap();
            for line in std::str::from_utf8(bytes).unwrap().lines() {
                let number: u64 = line.parse().unwrap();
                seen.lock().unwrap().push((number, usize::from(reader.contains(number))));
            }
            Ok(())
        }),
    };
    let mut sink = ArchiveSink::start(folder.path(), 1, None, after).unwrap();
    for game in 1..=150u64 {
        assert_eq!(sink.next_number(), game);
        let number = sink.add(transcript(game), format!("{game}\n").as_bytes()).unwrap();
        assert_eq!(number, game);
    }
    sink.finish().unwrap();
    let written = written.lock().unwrap();
    assert_eq!(written.len(), 150);
    assert!(written.iter().all(|&(_, found)| found == 1), "a record came before its transcript");
}

#[test]
fn a_frame_copied_as_stored_reads_back_under_its_new_number() {
    let from = tempfile::tempdir().unwrap();
    let to = tempfile::tempdir().unwrap();
    write_games(from.path(), 1..=5);
    let mut reader = ArchiveReader::open(from.path()).unwrap();
    let frames: Vec<Frame> =
        [4, 2].iter().zip([1, 2]).map(|(&n, m)| reader.frame(n, m).unwrap()).collect();
    ArchiveWriter::open(to.path()).unwrap().append_all(&frames).unwrap();
    let mut copied = ArchiveReader::open(to.path()).unwrap();
    assert_eq!(copied.read(1).unwrap(), transcript(4));
    assert_eq!(copied.read(2).unwrap(), transcript(2));
    assert!(copied.read(4).is_err());
    // A damaged frame is not copied.
    let archive_path = from.path().join(ARCHIVE_FILE);
    let mut bytes = fs::read(&archive_path).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0xff;
    fs::write(&archive_path, bytes).unwrap();
    let mut reader = ArchiveReader::open(from.path()).unwrap();
    assert!(matches!(reader.frame(5, 3), Err(ArchiveError::Damaged { number: 5, .. })));
}
