//! Text files a user names: read with a bound (`/dev/zero` or a huge file
//! given by mistake is refused instead of read forever), and output paths
//! checked before any work (not after the last game).

use std::io::Read;
use std::path::Path;

/// Reads `path` as UTF-8 text of at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|error| error.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("it is larger than {}", crate::units::show_size(limit)));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

/// Checks that a file can be written at `path`: its folder exists and
/// takes a new file, and `path` is not a folder. Writes nothing that stays.
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{} is a folder", path.display()));
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".arena-check-")
        .tempfile_in(folder)
        .map(drop)
        .map_err(|error| format!("cannot write in {}: {error}", folder.display()))
}
