//! Conformance checklists: [`bot`] is `arena check` (does a bot speak the
//! protocol well?) and [`game`] is `arena check-game` (is a game program
//! sound?). Each plays real processes through the referee, gathers
//! evidence and judges every item of its checklist on it: an item passes
//! only on evidence, fails with its evidence and a hint, or says why it
//! could not be judged. What is printed, and how, is the command line's.

#![warn(missing_docs)]

pub mod bot;
pub mod game;
mod stderr_quote;

pub use stderr_quote::StderrQuote;
