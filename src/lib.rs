//! arena: a headless referee and bot arena for small two-player games.
//!
//! Bots are programs in any language that speak JSON lines on stdin and
//! stdout (protocol.md). The referee runs them as processes under time
//! limits and plays [`games`] between them; [`cli`] holds the commands.
//! ARCHITECTURE.md maps the modules.
//!
//! The library exists for the `arena` binary and its tests. Its public API
//! is small on purpose: the commands ([`cli::Command`], [`cli::run`]) and
//! the games' rules ([`games`], with the JSON writing their types implement,
//! [`json`]); everything else is private to the crate.

#![warn(missing_docs)]

pub mod cli;
mod stdout;

pub use arena_base::json;
pub use arena_games as games;
pub use arena_games::with_game;
