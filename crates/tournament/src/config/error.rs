//! Errors of a tournament file, located by file, line, column and key.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// A tournament file that cannot be used, located as precisely as possible.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", file.display(), location.as_ref().map(|(line, column)| format!(":{line}:{column}")).unwrap_or_default())]
pub struct ConfigError {
    /// The tournament file.
    pub file: PathBuf,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    /// What is wrong, in words.
    pub message: String,
}

impl ConfigError {
    /// An error at `span` (a byte range) of `text`, the content of `file`.
    pub(super) fn at(
        file: &Path,
        text: &str,
        span: Option<Range<usize>>,
        message: String,
    ) -> ConfigError {
        ConfigError {
            file: file.to_owned(),
            location: span.map(|span| line_and_column(text, span.start)),
            message,
        }
    }
}

/// 1-based line and column of a byte offset.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |tail| tail.chars().count()) + 1;
    (line, column)
}

/// Where a value sits in the file, as a user finds it: `concurrency`,
/// `[[bot]] 2, command, item 3`, `[[bot]] 1, env.HOME`.
pub(super) fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut parts: Vec<String> = Vec::new();
    for segment in path.iter() {
        match segment {
            // The wrapper that records where a value was; not a key.
            Segment::Map { key } if key.starts_with("$__serde_spanned") => {}
            Segment::Map { key } => match parts.last_mut() {
                // A key inside a table: `env.HOME`.
                Some(last) if !last.contains(' ') => {
                    last.push('.');
                    last.push_str(key);
                }
                _ => parts.push(key.clone()),
            },
            Segment::Seq { index } => match parts.last_mut() {
                Some(last) if last == "bot" => *last = format!("[[bot]] {}", index + 1),
                _ => parts.push(format!("item {}", index + 1)),
            },
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    parts.join(", ")
}
