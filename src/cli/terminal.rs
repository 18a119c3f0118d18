//! The terminal a person plays `arena play` on.

use std::io::BufRead;

use arena_games::narrate::Console;

/// Standard input and output. Typing `quit` (or `exit`) at any question
/// leaves the game, as ending the input (Ctrl-D) does.
#[derive(Default)]
pub struct Terminal;

/// The answers that leave the game.
const LEAVE: [&str; 2] = ["quit", "exit"];

impl Console for Terminal {
    fn say(&mut self, line: &str) {
        crate::say!("{line}");
    }

    fn ask(&mut self, prompt: &str) -> Option<String> {
        crate::say_raw!("{prompt}");
        let mut answer = String::new();
        match std::io::stdin().lock().read_line(&mut answer) {
            Ok(0) | Err(_) => None,
            Ok(_) if LEAVE.contains(&answer.trim().to_ascii_lowercase().as_str()) => None,
            Ok(_) => Some(answer.trim_end_matches(['\r', '\n']).to_owned()),
        }
    }

    fn ask_secret(&mut self, prompt: &str) -> Option<String> {
        let Some(_hidden) = arena_system::os::EchoOff::on_stdin() else { return self.ask(prompt) };
        let answer = self.ask(prompt);
        // The newline typed was not echoed either.
        crate::say!();
        answer
    }
}
