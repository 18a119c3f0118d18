//! Number Duel, told as the rule book tells it: the number pool, each
//! player's number and operation with its calculation, a score that
//! overshoots the target resetting to 0, and the win on the target itself.

use super::{DuelMove, DuelView, NumberDuel, Op};
use crate::narrate::{Console, Narrate, ask_number, bracket_list, player};
use crate::{Game, Played, Seat};

/// The view; it is the same for both seats.
fn view(game: &NumberDuel) -> DuelView {
    game.view(Seat::One)
}

fn score(view: &DuelView, seat: Seat) -> String {
    format!("{} Score: {}", player(seat), view.scores[seat.index()])
}

/// `add`, `a`, `+`, `multiply`, `m`, `*` or `×`, in any case. Not `x`:
/// people type it to leave as often as to multiply, and a move taken for
/// the wrong one cannot be undone.
fn parse_op(answer: &str) -> Option<Op> {
    match answer.trim().to_ascii_lowercase().as_str() {
        "add" | "a" | "+" => Some(Op::Add),
        "multiply" | "m" | "*" | "×" => Some(Op::Multiply),
        _ => None,
    }
}

/// One move: what the player did, the calculation, and where it left them.
fn move_lines(seat: Seat, mv: DuelMove, before: &DuelView) -> Vec<String> {
    let (who, from, number) = (player(seat), before.scores[seat.index()], i64::from(mv.number));
    let (action, reached, sign) = match mv.op {
        Op::Add => (format!("{who} adds {number} to their score."), from + number, '+'),
        Op::Multiply => (format!("{who} multiplies their score by {number}."), from * number, '*'),
    };
    let target = before.target;
    let verdict = if reached > target {
        format!("{reached} is above {target}: {who}'s score resets to 0.")
    } else if reached == target {
        format!("{who} has reached {target} points and wins the game!")
    } else {
        format!("{who} Score: {reached}")
    };
    vec![action, format!("Calculation: {from} {sign} {number} = {reached}"), verdict]
}

impl Narrate for NumberDuel {
    fn board(&self) -> Vec<String> {
        let view = view(self);
        let mut lines = vec!["Number Pool:".to_owned(), bracket_list(&view.pool)];
        lines.extend(Seat::BOTH.map(|seat| score(&view, seat)));
        lines.push(format!("Target: {}", view.target));
        lines
    }

    fn narrate_turn(before: &Self, moves: &[Played<DuelMove>], after: &Self) -> Vec<String> {
        let before = view(before);
        let mut lines: Vec<String> =
            moves.iter().flat_map(|played| move_lines(played.seat, played.mv, &before)).collect();
        let after_view = view(after);
        if after_view.pool.is_empty() && !after_view.scores.contains(&after_view.target) {
            lines.push("The number pool is empty.".to_owned());
        }
        lines
    }

    fn ask_move(
        &self,
        seat: Seat,
        legal: &[DuelMove],
        console: &mut dyn Console,
    ) -> Option<DuelMove> {
        console.say(&format!("{}'s Turn:", player(seat)));
        console.say(&format!("Available Numbers: {}", bracket_list(&view(self).pool)));
        let number = ask_number(console, "Select a number: ", |number| {
            if legal.iter().any(|mv| mv.number == number) {
                Ok(())
            } else {
                Err(format!("{number} is not in the pool. Pick one of the available numbers."))
            }
        })?;
        loop {
            let answer = console.ask("Choose an operation (add/multiply): ")?;
            match parse_op(&answer).map(|op| DuelMove { number, op }) {
                Some(mv) if legal.contains(&mv) => return Some(mv),
                _ if answer.trim().is_empty() => {
                    console.say("Please type add (or a, +) or multiply (or m, *).")
                }
                _ => console.say(&format!(
                    "`{}` is not an operation. Please type add (or a, +) or multiply (or m, *).",
                    answer.trim()
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::DuelParams;
    use super::*;
    use crate::narrate::tests::ScriptedConsole;

    use DuelMove as Move;

    /// A game on `params` with `moves` played from seat 1.
    fn game_after(params: &DuelParams, moves: &[DuelMove]) -> NumberDuel {
        let mut game = NumberDuel::with(params);
        for mv in moves {
            game.apply(game.to_move()[0], mv);
        }
        game
    }

    fn turn(before: &NumberDuel, mv: DuelMove) -> Vec<String> {
        let seat = before.to_move()[0];
        let mut after = before.clone();
        after.apply(seat, &mv);
        NumberDuel::narrate_turn(before, &[Played { seat, mv }], &after)
    }

    #[test]
    fn the_board_shows_the_pool_the_scores_and_the_target() {
        let game = game_after(&DuelParams { max: 3, copies: 2, target: 50 }, &[Move::add(2)]);
        assert_eq!(
            game.board(),
            [
                "Number Pool:",
                "[1, 1, 2, 3, 3]",
                "Player 1 Score: 2",
                "Player 2 Score: 0",
                "Target: 50"
            ]
        );
    }

    #[test]
    fn the_rule_books_game_adds_and_then_multiplies_onto_the_target() {
        let params = DuelParams::default();
        assert_eq!(
            turn(&game_after(&params, &[]), Move::add(5)),
            ["Player 1 adds 5 to their score.", "Calculation: 0 + 5 = 5", "Player 1 Score: 5"]
        );
        assert_eq!(
            turn(&game_after(&params, &[Move::add(5), Move::add(10)]), Move::multiply(10)),
            [
                "Player 1 multiplies their score by 10.",
                "Calculation: 5 * 10 = 50",
                "Player 1 has reached 50 points and wins the game!"
            ]
        );
    }

    #[test]
    fn overshooting_resets_and_an_empty_pool_is_said() {
        let params = DuelParams { max: 2, copies: 2, target: 3 };
        assert_eq!(
            turn(&game_after(&params, &[Move::add(2), Move::add(1)]), Move::multiply(2)),
            [
                "Player 1 multiplies their score by 2.",
                "Calculation: 2 * 2 = 4",
                "4 is above 3: Player 1's score resets to 0."
            ]
        );
        let last_two = DuelParams { max: 2, copies: 1, target: 50 };
        let lines = turn(&game_after(&last_two, &[Move::add(1)]), Move::add(2));
        assert_eq!(lines.last().unwrap(), "The number pool is empty.");
    }

    #[test]
    fn asking_reasks_the_number_then_the_operation() {
        let game = game_after(&DuelParams { max: 3, copies: 1, target: 50 }, &[Move::add(2)]);
        let legal = game.legal_moves(Seat::Two);
        let mut console = ScriptedConsole::new(&["2", "three", "3", "divide", "", "x", "M"]);
        assert_eq!(game.ask_move(Seat::Two, &legal, &mut console), Some(Move::multiply(3)));
        assert_eq!(
            console.transcript,
            [
                "Player 2's Turn:",
                "Available Numbers: [1, 3]",
                "Select a number: 2",
                "2 is not in the pool. Pick one of the available numbers.",
                "Select a number: three",
                "`three` is not a whole number. Please type a number.",
                "Select a number: 3",
                "Choose an operation (add/multiply): divide",
                "`divide` is not an operation. Please type add (or a, +) or multiply (or m, *).",
                "Choose an operation (add/multiply): ",
                "Please type add (or a, +) or multiply (or m, *).",
                "Choose an operation (add/multiply): x",
                "`x` is not an operation. Please type add (or a, +) or multiply (or m, *).",
                "Choose an operation (add/multiply): M",
            ]
        );
        for (answer, op) in [
            ("add", Op::Add),
            ("A", Op::Add),
            ("+", Op::Add),
            ("Multiply", Op::Multiply),
            ("m", Op::Multiply),
            ("*", Op::Multiply),
            ("×", Op::Multiply),
        ] {
            let mut console = ScriptedConsole::new(&["1", answer]);
            assert_eq!(
                game.ask_move(Seat::Two, &legal, &mut console),
                Some(DuelMove { number: 1, op }),
                "{answer}"
            );
        }
    }
}
