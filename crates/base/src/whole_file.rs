//! Files replaced whole, the one way arena writes a file it keeps (the
//! files of a results folder, transcripts, an archive's index, a bot's
//! build record, a seed key): the content goes to a temporary file beside
//! the file, which is synced, renamed over it, and the folder synced. A
//! reader sees the old content or the new, and a crash or a full disk at
//! any point leaves one of them whole, never a part, and no temporary file
//! once the write has failed. A file written after every game is renamed
//! unsynced ([`replace_unsynced`]): whole against arena's crash, and on a
//! power loss lost with the games.csv rows of the same games, which are
//! appended without a sync.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Where `path`'s next content is made: `NAME.tmp-arena` beside it (a
/// results folder has one writer, which its lock makes sure of).
pub fn temporary_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".tmp-arena");
    path.with_file_name(name)
}

/// Replaces `path` with `content`, readable by all as a new file would be.
pub fn replace(path: &Path, content: &[u8]) -> io::Result<()> {
    replace_with(path, 0o666, |out| out.write_all(content))
}

/// Replaces `path` with `content` as [`replace`] does, without the two
/// syncs: for a file written after every game (a transcript of `arena
/// match`), where they took a third of a quick game's time.
pub fn replace_unsynced(path: &Path, content: &[u8]) -> io::Result<()> {
    write_whole(path, 0o666, false, |out| out.write_all(content))
}

/// Replaces `path` with `content`, readable by its owner only.
pub fn replace_private(path: &Path, content: &[u8]) -> io::Result<()> {
    // A leftover of a write that died would keep its own mode.
    match std::fs::remove_file(temporary_of(path)) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    replace_with(path, 0o600, |out| out.write_all(content))
}

/// Replaces `path` with what `write` writes, in a file made with `mode`
/// (less the umask; a leftover of a write that died keeps its own);
/// `write`'s answer once the new content stands.
pub fn replace_with<T, E: From<io::Error>>(
    path: &Path,
    mode: u32,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> Result<T, E> {
    write_whole(path, mode, true, write)
}

/// The replacement, its file and folder synced where `synced`.
fn write_whole<T, E: From<io::Error>>(
    path: &Path,
    mode: u32,
    synced: bool,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> Result<T, E> {
    let temporary = temporary_of(path);
    let replaced = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&temporary)?;
        let mut out = BufWriter::new(file);
        let answer = write(&mut out)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if synced {
            file.sync_all()?;
        }
        std::fs::rename(&temporary, path)?;
        if synced {
            sync_folder_of(path)?;
        }
        Ok(answer)
    })();
    if replaced.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    replaced
}

/// Syncs the folder `path` is in, so that a rename into it lasts.
pub fn sync_folder_of(path: &Path) -> io::Result<()> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(folder)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("games.csv");
        replace(&path, b"old\n").unwrap();
        replace(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        let names: Vec<_> = std::fs::read_dir(folder.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["games.csv"]);
    }

    #[test]
    fn an_unsynced_replacement_is_as_whole() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("game-000001.jsonl");
        replace_unsynced(&path, b"old\n").unwrap();
        replace_unsynced(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert!(!temporary_of(&path).exists());
    }

    #[test]
    fn a_failed_write_leaves_the_old_content_and_no_temporary_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("standings.csv");
        replace(&path, b"old\n").unwrap();
        let failed: io::Result<()> = replace_with(&path, 0o666, |out| {
            out.write_all(b"half")?;
            Err(io::Error::other("the disk is full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old\n");
        assert!(!temporary_of(&path).exists());
    }

    #[test]
    fn a_private_file_is_its_owners_alone_even_over_a_leftover() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("seed.key");
        std::fs::write(temporary_of(&path), b"left by a write that died").unwrap();
        std::fs::set_permissions(temporary_of(&path), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        replace_private(&path, b"secret\n").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read(&path).unwrap(), b"secret\n");
    }
}
