//! Games told in words, in the style of the rule books' command-line
//! examples: the board, what each turn did, and the dialogue that asks a
//! person for a move. Used by `arena replay` and `arena play`. This module
//! holds the [`Narrate`] trait and the helpers; each game tells itself in
//! its own folder (`games/<game>/narrate.rs`).
//!
//! Like the games, narration is pure: it turns states and moves into lines
//! of text and reads answers through a [`Console`], never from a terminal
//! directly.

use crate::{Game, Played, Seat};

/// Where a person's dialogue goes: lines out, answers in.
pub trait Console {
    /// Shows one line.
    fn say(&mut self, line: &str);
    /// Shows `prompt` (no newline) and reads one answer, without its line
    /// end; `None` once input has ended.
    fn ask(&mut self, prompt: &str) -> Option<String>;

    /// Like [`Console::ask`], for an answer others at the screen must not
    /// see (a secret choice); a terminal does not echo it.
    fn ask_secret(&mut self, prompt: &str) -> Option<String> {
        self.ask(prompt)
    }
}

/// A console whose every answer is secret.
pub struct Secret<'a>(pub &'a mut dyn Console);

impl Console for Secret<'_> {
    fn say(&mut self, line: &str) {
        self.0.say(line);
    }

    fn ask(&mut self, prompt: &str) -> Option<String> {
        self.0.ask_secret(prompt)
    }
}

/// A game that can be told in words.
pub trait Narrate: Game {
    /// The position, as the rule book's examples show it (the list, the
    /// grid, the pool, and the scores).
    fn board(&self) -> Vec<String>;

    /// What one turn did, from `before` to `after`: `moves` holds the one
    /// move of a turn-based game, or both choices of a simultaneous turn.
    fn narrate_turn(before: &Self, moves: &[Played<Self::Move>], after: &Self) -> Vec<String>;

    /// Asks the person in `seat` for one of `legal`, explaining and asking
    /// again after bad input. `None` once input has ended.
    fn ask_move(
        &self,
        seat: Seat,
        legal: &[Self::Move],
        console: &mut dyn Console,
    ) -> Option<Self::Move>;
}

/// A JSON value as lines people read: an object's fields one per line
/// (`pool: [1,2,3]`), a text of several lines (a board drawn) as its lines
/// (under its key, indented), anything else as its compact JSON. What replays and
/// the terminal show of a game that tells nothing in words.
pub fn readable_json(value: &serde_json::Value) -> Vec<String> {
    // A string holding line breaks is a drawing (a board as text): shown
    // as its lines, under its key, rather than as one escaped string.
    fn drawing(value: &serde_json::Value) -> Option<&str> {
        value.as_str().filter(|text| text.contains('\n'))
    }
    match value {
        serde_json::Value::Object(fields) if !fields.is_empty() => {
            let mut lines = Vec::new();
            for (key, field) in fields {
                match drawing(field) {
                    Some(text) => {
                        lines.push(format!("{key}:"));
                        lines.extend(text.lines().map(|line| format!("  {line}")));
                    }
                    None => lines.push(format!("{key}: {field}")),
                }
            }
            lines
        }
        other => match drawing(other) {
            Some(text) => text.lines().map(str::to_owned).collect(),
            None => vec![other.to_string()],
        },
    }
}

/// "Player 1".
pub fn player(seat: Seat) -> String {
    format!("Player {}", seat.number())
}

/// "1, 2, 3".
pub fn comma_list(numbers: &[u32]) -> String {
    numbers.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// "[1, 2, 3]".
pub fn bracket_list(numbers: &[u32]) -> String {
    format!("[{}]", comma_list(numbers))
}

/// Asks until the answer is a whole number that `accept` takes; `accept`
/// explains a refusal. `None` once input has ended.
pub fn ask_number(
    console: &mut dyn Console,
    prompt: &str,
    mut accept: impl FnMut(u32) -> Result<(), String>,
) -> Option<u32> {
    loop {
        let answer = console.ask(prompt)?;
        match answer.trim().parse::<u32>() {
            Ok(number) => match accept(number) {
                Ok(()) => return Some(number),
                Err(why) => console.say(&why),
            },
            Err(_) if answer.trim().is_empty() => console.say("Please type a number."),
            Err(_) => console
                .say(&format!("`{}` is not a whole number. Please type a number.", answer.trim())),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A console that answers from a script and records everything.
    pub struct ScriptedConsole {
        pub answers: std::collections::VecDeque<String>,
        pub transcript: Vec<String>,
    }

    impl ScriptedConsole {
        pub fn new(answers: &[&str]) -> ScriptedConsole {
            ScriptedConsole {
                answers: answers.iter().map(|a| a.to_string()).collect(),
                transcript: Vec::new(),
            }
        }
    }

    impl Console for ScriptedConsole {
        fn say(&mut self, line: &str) {
            self.transcript.push(line.to_owned());
        }

        fn ask(&mut self, prompt: &str) -> Option<String> {
            let answer = self.answers.pop_front()?;
            self.transcript.push(format!("{prompt}{answer}"));
            Some(answer)
        }
    }

    #[test]
    fn json_reads_field_by_field() {
        let value = serde_json::json!({"pool": [1, 2], "turn": 3});
        assert_eq!(readable_json(&value), ["pool: [1,2]", "turn: 3"]);
        assert_eq!(readable_json(&serde_json::json!([1, "a"])), [r#"[1,"a"]"#]);
        let drawn = serde_json::json!({"board": "xo.\n.x.\n..o", "turn": 4});
        assert_eq!(readable_json(&drawn), ["board:", "  xo.", "  .x.", "  ..o", "turn: 4"]);
        assert_eq!(readable_json(&serde_json::json!("ab\ncd")), ["ab", "cd"]);
    }

    #[test]
    fn numbers_are_asked_again_until_accepted() {
        let mut console = ScriptedConsole::new(&["", "abc", "7", "3"]);
        let number = ask_number(&mut console, "Pick: ", |n| {
            if n == 3 { Ok(()) } else { Err(format!("{n} is not allowed.")) }
        });
        assert_eq!(number, Some(3));
        assert_eq!(
            console.transcript,
            [
                "Pick: ",
                "Please type a number.",
                "Pick: abc",
                "`abc` is not a whole number. Please type a number.",
                "Pick: 7",
                "7 is not allowed.",
                "Pick: 3"
            ]
        );
        let mut empty = ScriptedConsole::new(&[]);
        assert_eq!(ask_number(&mut empty, "Pick: ", |_| Ok(())), None);
    }
}
