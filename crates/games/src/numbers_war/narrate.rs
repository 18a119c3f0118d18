//! Numbers War, told as the rule book tells it: the number list, each pick
//! from the left or the right end, and the numbers each player collected.

use super::{NumbersWar, NumbersWarView, Side};
use crate::narrate::{Console, Narrate, bracket_list, player};
use crate::{Game, Played, Seat};

/// The view; it is the same for both seats.
fn view(game: &NumbersWar) -> NumbersWarView {
    game.view(Seat::One)
}

fn number_list(view: &NumbersWarView) -> String {
    format!("Number List: {}", bracket_list(&view.numbers))
}

fn collection(view: &NumbersWarView, seat: Seat) -> String {
    let (taken, sum) = (&view.taken[seat.index()], view.sums[seat.index()]);
    format!("{}'s numbers: {} (sum {sum})", player(seat), bracket_list(taken))
}

/// The number `side` names on `list`, and how to say which end it was.
fn pick(list: &[u32], side: Side) -> Option<(u32, &'static str)> {
    let number = match side {
        Side::L => list.first(),
        Side::R => list.last(),
    };
    let end = match side {
        _ if list.len() == 1 => "the only number left",
        Side::L => "Left",
        Side::R => "Right",
    };
    number.map(|&number| (number, end))
}

/// `L`, `R`, `left` or `right`, in any case.
fn parse_side(answer: &str) -> Option<Side> {
    match answer.trim().to_ascii_lowercase().as_str() {
        "l" | "left" => Some(Side::L),
        "r" | "right" => Some(Side::R),
        _ => None,
    }
}

/// What to say to an answer that names no side.
fn refusal(answer: &str, left: u32, right: u32) -> String {
    let help = format!("Type L for {left} or R for {right}.");
    match answer.trim() {
        "" => help,
        answer => format!("`{answer}` is not a choice. {help}"),
    }
}

impl Narrate for NumbersWar {
    fn board(&self) -> Vec<String> {
        let view = view(self);
        let mut lines = vec![number_list(&view)];
        lines.extend(Seat::BOTH.map(|seat| collection(&view, seat)));
        lines
    }

    fn narrate_turn(before: &Self, moves: &[Played<Side>], after: &Self) -> Vec<String> {
        let (before, after) = (view(before), view(after));
        let mut lines = Vec::new();
        for &Played { seat, mv: side } in moves {
            if let Some((number, end)) = pick(&before.numbers, side) {
                lines.push(format!("{} picked {number} ({end}).", player(seat)));
            }
            lines.push(collection(&after, seat));
        }
        lines.push(number_list(&after));
        lines
    }

    fn ask_move(&self, seat: Seat, legal: &[Side], console: &mut dyn Console) -> Option<Side> {
        let numbers = view(self).numbers;
        let (&left, &right) = (numbers.first()?, numbers.last()?);
        console.say(&format!("{}'s turn.", player(seat)));
        if numbers.len() == 1 {
            console.say("Only one choice available.");
            console.say(&format!("{} takes {left}.", player(seat)));
            return legal.first().copied();
        }
        console.say(&format!("Available choices - Left: {left}, Right: {right}"));
        loop {
            let answer = console
                .ask("Enter 'L' to pick the left number or 'R' to pick the right number: ")?;
            match parse_side(&answer) {
                Some(side) if legal.contains(&side) => return Some(side),
                _ => console.say(&refusal(&answer, left, right)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrate::tests::ScriptedConsole;
    use Side::{L, R};

    /// The rule book's list, with `sides` played from seat 1.
    fn rule_book_game(sides: &[Side]) -> NumbersWar {
        let mut game = NumbersWar::from_numbers(vec![3, 9, 1, 2, 4, 8]);
        for side in sides {
            game.apply(game.to_move()[0], side);
        }
        game
    }

    fn turn(before: &NumbersWar, side: Side) -> Vec<String> {
        let seat = before.to_move()[0];
        let mut after = before.clone();
        after.apply(seat, &side);
        NumbersWar::narrate_turn(before, &[Played { seat, mv: side }], &after)
    }

    #[test]
    fn the_board_shows_the_list_and_both_collections() {
        assert_eq!(
            rule_book_game(&[R]).board(),
            [
                "Number List: [3, 9, 1, 2, 4]",
                "Player 1's numbers: [8] (sum 8)",
                "Player 2's numbers: [] (sum 0)"
            ]
        );
    }

    #[test]
    fn a_turn_names_the_number_and_the_end() {
        assert_eq!(
            turn(&rule_book_game(&[]), R),
            [
                "Player 1 picked 8 (Right).",
                "Player 1's numbers: [8] (sum 8)",
                "Number List: [3, 9, 1, 2, 4]"
            ]
        );
        assert_eq!(
            turn(&rule_book_game(&[R, R]), L),
            [
                "Player 1 picked 3 (Left).",
                "Player 1's numbers: [8, 3] (sum 11)",
                "Number List: [9, 1, 2]"
            ]
        );
        let last = turn(&rule_book_game(&[R, R, L, L, R]), R);
        assert_eq!(
            last[..2],
            ["Player 2 picked 1 (the only number left).", "Player 2's numbers: [4, 9, 1] (sum 14)"]
        );
        assert_eq!(last[2], "Number List: []");
    }

    #[test]
    fn asking_takes_either_spelling_and_asks_again_after_anything_else() {
        let game = rule_book_game(&[]);
        let mut console = ScriptedConsole::new(&["x", "", "middle", "right"]);
        assert_eq!(game.ask_move(Seat::One, &[L, R], &mut console), Some(R));
        assert_eq!(
            console.transcript[..3],
            [
                "Player 1's turn.",
                "Available choices - Left: 3, Right: 8",
                "Enter 'L' to pick the left number or 'R' to pick the right number: x"
            ]
        );
        assert_eq!(console.transcript[3], "`x` is not a choice. Type L for 3 or R for 8.");
        assert_eq!(console.transcript[5], "Type L for 3 or R for 8.");
        assert_eq!(console.transcript.len(), 9);
        for (answer, side) in [("l", L), ("L", L), ("Left", L), ("r", R), (" R ", R)] {
            let mut console = ScriptedConsole::new(&[answer]);
            assert_eq!(game.ask_move(Seat::One, &[L, R], &mut console), Some(side), "{answer}");
        }
    }

    #[test]
    fn the_only_number_left_is_taken_without_asking() {
        let game = rule_book_game(&[R, R, L, L, R]);
        let mut console = ScriptedConsole::new(&[]);
        assert_eq!(game.ask_move(Seat::Two, &[L, R], &mut console), Some(L));
        assert_eq!(
            console.transcript,
            ["Player 2's turn.", "Only one choice available.", "Player 2 takes 1."]
        );
    }

    #[test]
    fn asking_gives_up_when_input_ends() {
        let mut console = ScriptedConsole::new(&["up"]);
        assert_eq!(rule_book_game(&[]).ask_move(Seat::One, &[L, R], &mut console), None);
    }
}
