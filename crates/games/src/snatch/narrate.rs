//! Number Snatch, told as the rule book tells it: the available numbers, the
//! scores, each selection and every snatch.

use super::{NumberSnatch, SnatchView};
use crate::narrate::{Console, Narrate, ask_number, bracket_list, player};
use crate::{Game, Played, Seat};

/// The view; it is the same for both seats.
fn view(game: &NumberSnatch) -> SnatchView {
    game.view(Seat::One)
}

fn available(view: &SnatchView) -> String {
    format!("Available Numbers: {}", bracket_list(&view.numbers))
}

fn score_lines(view: &SnatchView) -> [String; 2] {
    Seat::BOTH.map(|seat| format!("{} Score: {}", player(seat), view.scores[seat.index()]))
}

/// The lines of a snatch by `seat` picking `pick`, or none when the pick
/// snatched nothing.
fn snatch_lines(seat: Seat, pick: u32, before: &SnatchView, after: &SnatchView) -> Vec<String> {
    let victim = seat.other();
    let Some(last) = before.last_picks[victim.index()].filter(|&last| pick.is_multiple_of(last))
    else {
        return Vec::new();
    };
    let mut lines =
        vec![format!("Snatch! {pick} is a multiple of {}'s last number ({last}).", player(victim))];
    let taken = before.scores[victim.index()] - after.scores[victim.index()];
    lines.push(if taken > 0 {
        let points = if taken == 1 { "1 point".to_owned() } else { format!("{taken} points") };
        format!("{} loses {points}. {} gains {points}.", player(victim), player(seat))
    } else {
        format!("{} has no points to lose.", player(victim))
    });
    lines
}

impl Narrate for NumberSnatch {
    fn board(&self) -> Vec<String> {
        let view = view(self);
        let mut lines = vec![available(&view)];
        lines.extend(score_lines(&view));
        lines
    }

    fn narrate_turn(before: &Self, moves: &[Played<u32>], after: &Self) -> Vec<String> {
        let (before, after) = (view(before), view(after));
        let mut lines = Vec::new();
        for &Played { seat, mv: pick } in moves {
            lines.push(format!("{} selects {pick}.", player(seat)));
            lines.extend(snatch_lines(seat, pick, &before, &after));
        }
        lines.extend(score_lines(&after));
        lines.push(available(&after));
        lines
    }

    fn ask_move(&self, seat: Seat, legal: &[u32], console: &mut dyn Console) -> Option<u32> {
        console.say(&format!("{}'s turn.", player(seat)));
        console.say(&available(&view(self)));
        ask_number(console, "Enter the number you wish to select: ", |pick| {
            if legal.contains(&pick) {
                Ok(())
            } else {
                Err(format!("{pick} is not one of the available numbers. Pick one from the list."))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrate::tests::ScriptedConsole;

    /// A game on `numbers` with `picks` played, alternately from seat 1.
    fn played(numbers: &[u32], picks: &[u32]) -> NumberSnatch {
        let mut game = NumberSnatch::from_numbers(numbers.to_vec());
        for pick in picks {
            game.apply(game.to_move()[0], pick);
        }
        game
    }

    /// The rule book's list, with `picks` played.
    fn rule_book_game(picks: &[u32]) -> NumberSnatch {
        played(&[2, 5, 7, 10, 12, 13, 15, 17, 18, 20], picks)
    }

    fn turn(before: &NumberSnatch, pick: u32) -> Vec<String> {
        let seat = before.to_move()[0];
        let mut after = before.clone();
        after.apply(seat, &pick);
        NumberSnatch::narrate_turn(before, &[Played { seat, mv: pick }], &after)
    }

    #[test]
    fn the_board_shows_the_list_and_both_scores() {
        assert_eq!(
            rule_book_game(&[13]).board(),
            [
                "Available Numbers: [2, 5, 7, 10, 12, 15, 17, 18, 20]",
                "Player 1 Score: 13",
                "Player 2 Score: 0"
            ]
        );
    }

    #[test]
    fn the_rule_books_snatch_of_5_by_15() {
        assert_eq!(
            turn(&rule_book_game(&[13, 5]), 15),
            [
                "Player 1 selects 15.",
                "Snatch! 15 is a multiple of Player 2's last number (5).",
                "Player 2 loses 5 points. Player 1 gains 5 points.",
                "Player 1 Score: 33",
                "Player 2 Score: 0",
                "Available Numbers: [2, 7, 10, 12, 17, 18, 20]",
            ]
        );
    }

    #[test]
    fn a_pick_that_is_no_multiple_snatches_nothing() {
        let lines = turn(&rule_book_game(&[13]), 5);
        assert_eq!(lines[..3], ["Player 2 selects 5.", "Player 1 Score: 13", "Player 2 Score: 5"]);
        assert!(!lines.iter().any(|line| line.contains("Snatch")), "{lines:?}");
    }

    #[test]
    fn the_snatch_is_what_the_opponent_actually_lost() {
        // 12 is a multiple of 2 and of 4: only the opponent's last pick counts.
        let game = played(&[2, 4, 12], &[2, 4]);
        let lines = turn(&game, 12);
        assert_eq!(lines[1], "Snatch! 12 is a multiple of Player 2's last number (4).");
        assert_eq!(lines[2], "Player 2 loses 4 points. Player 1 gains 4 points.");
    }

    #[test]
    fn a_single_point_is_one_point() {
        let lines = turn(&played(&[1, 3], &[1]), 3);
        assert_eq!(lines[2], "Player 1 loses 1 point. Player 2 gains 1 point.");
    }

    #[test]
    fn asking_explains_bad_input_and_asks_again() {
        let game = rule_book_game(&[13, 5]);
        let legal = game.legal_moves(Seat::One);
        let mut console = ScriptedConsole::new(&["fifteen", "13", "99", " 15 "]);
        assert_eq!(game.ask_move(Seat::One, &legal, &mut console), Some(15));
        assert_eq!(
            console.transcript[..2],
            ["Player 1's turn.", "Available Numbers: [2, 7, 10, 12, 15, 17, 18, 20]"]
        );
        let prompts = console
            .transcript
            .iter()
            .filter(|line| line.starts_with("Enter the number you wish to select: "));
        assert_eq!(prompts.count(), 4);
        assert!(console.transcript.contains(
            &"13 is not one of the available numbers. Pick one from the list.".to_owned()
        ));
        assert!(console.transcript.contains(
            &"99 is not one of the available numbers. Pick one from the list.".to_owned()
        ));
    }

    #[test]
    fn asking_gives_up_when_input_ends() {
        let game = rule_book_game(&[]);
        let mut console = ScriptedConsole::new(&["0"]);
        assert_eq!(game.ask_move(Seat::One, &game.legal_moves(Seat::One), &mut console), None);
    }
}
