//! arena: a headless referee and bot arena for small two-player games.
//!
//! Bots are programs in any language that speak JSON lines on stdin and
//! stdout ([`protocol`]). The [`referee`] runs them as processes under time
//! limits and plays [`games`] between them; [`cli`] holds the commands.

pub mod archive;
pub mod cli;
pub mod events;
pub mod games;
pub mod html_page;
pub mod json;
pub mod os;
pub mod players;
pub mod printable;
pub mod protocol;
pub mod referee;
pub mod results;
pub mod sandbox;
pub mod seeds;
pub mod stdout;
pub mod text_file;
pub mod tournament;
pub mod units;
