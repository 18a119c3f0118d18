//! `arena check-game`'s engine: a game program is asked to describe
//! itself, to set up games with good and bad parameters, to play random
//! games to their end, to play the same games again (in fresh processes,
//! after other games, in another order) and to play them with one hidden
//! choice changed; each item of the checklist is judged on that evidence.

mod gather;
mod json_path;
mod judge;

pub use gather::{Evidence, Plan, gather};
pub use judge::{Item, Status, checklist};
