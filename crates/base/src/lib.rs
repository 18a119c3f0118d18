//! Leaf helpers every layer of arena may use; none knows a game, a bot or
//! a process.

#![warn(missing_docs)]

// The WriteJson derive names `::arena_base`, this crate's own tests included.
extern crate self as arena_base;

pub mod bits;
pub mod json;
pub mod printable;
pub mod score;
pub mod spelling;
pub mod text_file;
pub mod units;
pub mod whole_file;
