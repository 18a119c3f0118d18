//! Reading a text file a user names, with a bound: `/dev/zero` or a huge
//! file given by mistake is refused instead of read forever.

use std::io::Read;
use std::path::Path;

/// Reads `path` as UTF-8 text of at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|error| error.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("it is larger than {}", crate::sandbox::show_size(limit)));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}
