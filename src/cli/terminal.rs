//! The terminal a person plays `arena play` on.

use std::io::{BufRead, Write};

use crate::games::narrate::Console;

/// Standard input and output.
#[derive(Default)]
pub struct Terminal;

impl Console for Terminal {
    fn say(&mut self, line: &str) {
        println!("{line}");
    }

    fn ask(&mut self, prompt: &str) -> Option<String> {
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "{prompt}");
        let _ = stdout.flush();
        let mut answer = String::new();
        match std::io::stdin().lock().read_line(&mut answer) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(answer.trim_end_matches(['\r', '\n']).to_owned()),
        }
    }

    fn ask_secret(&mut self, prompt: &str) -> Option<String> {
        let Some(_hidden) = crate::os::EchoOff::on_stdin() else { return self.ask(prompt) };
        let answer = self.ask(prompt);
        // The newline typed was not echoed either.
        println!();
        answer
    }
}
