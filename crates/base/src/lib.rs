//! Leaf helpers every layer of arena may use; none knows a game, a bot or
//! a process.

#![warn(missing_docs)]

pub mod bits;
pub mod json;
pub mod printable;
pub mod spelling;
pub mod text_file;
pub mod units;
pub mod whole_file;
