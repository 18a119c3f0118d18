//! Number Warriors, told as the rule book tells it: both players select in
//! secret, the selections are revealed, the lower number takes the damage,
//! and the chosen numbers leave the pool.

use super::{NumberWarriors, WarriorsView};
use crate::narrate::{Console, Narrate, Secret, ask_number, comma_list, player};
use crate::{Game, Played, Seat};

/// The view; it is the same for both seats.
fn view(game: &NumberWarriors) -> WarriorsView {
    game.view(Seat::One)
}

fn available(view: &WarriorsView) -> String {
    let numbers = if view.pool.is_empty() { "none".to_owned() } else { comma_list(&view.pool) };
    format!("Available Numbers: {numbers}")
}

fn life_lines(view: &WarriorsView) -> [String; 2] {
    Seat::BOTH.map(|seat| format!("{} Life Points: {}", player(seat), view.life[seat.index()]))
}

/// Who took how much damage from `one` against `two`.
fn damage_lines(one: u32, two: u32, before: &WarriorsView, after: &WarriorsView) -> Vec<String> {
    if one == two {
        return vec![format!("Both chose {one}: no damage.")];
    }
    let (higher, lower) = if one > two { (Seat::One, Seat::Two) } else { (Seat::Two, Seat::One) };
    let lost = before.life[lower.index()] - after.life[lower.index()];
    let mut lines = vec![
        format!("{}'s number is higher.", player(higher)),
        format!(
            "{} loses {lost} Life {}.",
            player(lower),
            if lost == 1 { "Point" } else { "Points" }
        ),
    ];
    if after.life[lower.index()] == 0 {
        lines.push(format!("{} has no Life Points left.", player(lower)));
    }
    lines
}

fn removal(one: u32, two: u32) -> String {
    if one == two {
        format!("Number {one} has been removed from the pool.")
    } else {
        format!("Numbers {one} and {two} have been removed from the pool.")
    }
}

impl Narrate for NumberWarriors {
    fn board(&self) -> Vec<String> {
        let view = view(self);
        let mut lines = vec![available(&view)];
        lines.extend(life_lines(&view));
        lines
    }

    fn narrate_turn(before: &Self, moves: &[Played<u32>], after: &Self) -> Vec<String> {
        let (before, after) = (view(before), view(after));
        let choice = |seat| moves.iter().find(|played| played.seat == seat).map(|played| played.mv);
        let (Some(one), Some(two)) = (choice(Seat::One), choice(Seat::Two)) else {
            // Not a whole turn: say what was chosen, nothing was resolved.
            return moves.iter().map(|p| format!("{} chose: {}", player(p.seat), p.mv)).collect();
        };
        let mut lines = vec![format!("Turn {}:", before.turn)];
        lines.extend(Seat::BOTH.map(|seat| format!("{} has selected their number.", player(seat))));
        lines.push("Revealing selections...".to_owned());
        lines.push(format!("{} chose: {one}", player(Seat::One)));
        lines.push(format!("{} chose: {two}", player(Seat::Two)));
        lines.extend(damage_lines(one, two, &before, &after));
        lines.extend(life_lines(&after));
        lines.push(removal(one, two));
        lines.push(available(&after));
        lines
    }

    /// The choice is typed unseen (the rule book's secret selection).
    fn ask_move(&self, seat: Seat, legal: &[u32], console: &mut dyn Console) -> Option<u32> {
        let prompt = format!("{}, enter your number: ", player(seat));
        ask_number(&mut Secret(console), &prompt, |number| {
            if legal.contains(&number) {
                Ok(())
            } else {
                Err(format!("{number} is not in the pool. {}", available(&view(self))))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::WarriorsParams;
    use super::*;
    use crate::narrate::tests::ScriptedConsole;

    /// A game on `params` with `turns` (seat 1's choice, seat 2's) played.
    fn game_after(params: &WarriorsParams, turns: &[(u32, u32)]) -> NumberWarriors {
        let mut game = NumberWarriors::with(params);
        for (one, two) in turns {
            game.apply(Seat::One, one);
            game.apply(Seat::Two, two);
        }
        game
    }

    fn turn(before: &NumberWarriors, one: u32, two: u32) -> Vec<String> {
        let mut after = before.clone();
        after.apply(Seat::One, &one);
        after.apply(Seat::Two, &two);
        let moves = [Played { seat: Seat::One, mv: one }, Played { seat: Seat::Two, mv: two }];
        NumberWarriors::narrate_turn(before, &moves, &after)
    }

    #[test]
    fn the_board_shows_the_pool_and_life_points() {
        assert_eq!(
            NumberWarriors::with(&WarriorsParams::default()).board(),
            [
                "Available Numbers: 1, 2, 3, 4, 5, 6, 7, 8, 9",
                "Player 1 Life Points: 15",
                "Player 2 Life Points: 15"
            ]
        );
    }

    #[test]
    fn the_rule_books_first_turn() {
        assert_eq!(
            turn(&NumberWarriors::with(&WarriorsParams::default()), 5, 7),
            [
                "Turn 1:",
                "Player 1 has selected their number.",
                "Player 2 has selected their number.",
                "Revealing selections...",
                "Player 1 chose: 5",
                "Player 2 chose: 7",
                "Player 2's number is higher.",
                "Player 1 loses 2 Life Points.",
                "Player 1 Life Points: 13",
                "Player 2 Life Points: 15",
                "Numbers 5 and 7 have been removed from the pool.",
                "Available Numbers: 1, 2, 3, 4, 6, 8, 9",
            ]
        );
    }

    #[test]
    fn equal_numbers_deal_no_damage_and_leave_once() {
        let before = game_after(&WarriorsParams::default(), &[(5, 7), (9, 8)]);
        assert!(turn(&before, 4, 3).contains(&"Player 2 loses 1 Life Point.".to_owned()));
        let lines = turn(&before, 6, 6);
        assert_eq!(lines[0], "Turn 3:");
        assert_eq!(
            lines[6..],
            [
                "Both chose 6: no damage.",
                "Player 1 Life Points: 13",
                "Player 2 Life Points: 14",
                "Number 6 has been removed from the pool.",
                "Available Numbers: 1, 2, 3, 4",
            ]
        );
    }

    #[test]
    fn damage_is_what_was_lost_and_the_last_number_empties_the_pool() {
        let before = game_after(&WarriorsParams { life: 3, max: 9 }, &[]);
        let lines = turn(&before, 9, 1);
        assert!(lines.contains(&"Player 2 loses 3 Life Points.".to_owned()), "{lines:?}");
        assert!(lines.contains(&"Player 2 has no Life Points left.".to_owned()), "{lines:?}");

        let before = game_after(&WarriorsParams { life: 5, max: 2 }, &[]);
        assert_eq!(turn(&before, 1, 2).last().unwrap(), "Available Numbers: none");
    }

    #[test]
    fn asking_takes_only_a_number_still_in_the_pool() {
        let game = game_after(&WarriorsParams::default(), &[(5, 7)]);
        let legal = game.legal_moves(Seat::Two);
        let mut console = ScriptedConsole::new(&["seven", "7", "10", "9"]);
        assert_eq!(game.ask_move(Seat::Two, &legal, &mut console), Some(9));
        assert_eq!(
            console.transcript,
            [
                "Player 2, enter your number: seven",
                "`seven` is not a whole number. Please type a number.",
                "Player 2, enter your number: 7",
                "7 is not in the pool. Available Numbers: 1, 2, 3, 4, 6, 8, 9",
                "Player 2, enter your number: 10",
                "10 is not in the pool. Available Numbers: 1, 2, 3, 4, 6, 8, 9",
                "Player 2, enter your number: 9",
            ]
        );
    }
}
