//! Number Claim, told as the rule book tells it: the grid, one row per line,
//! with each claimed cell marked by its claimer, and the running totals.

use super::{ClaimView, NumberClaim};
use crate::narrate::{Console, Narrate, ask_number, player};
use crate::{Game, Played, Seat};

/// The view; it is the same for both seats.
fn view(game: &NumberClaim) -> ClaimView {
    game.view(Seat::One)
}

/// `[5]` for an unclaimed cell, `[P1]` or `[P2]` for a claimed one.
fn cell(value: u32, owner: u8) -> String {
    match owner {
        0 => format!("[{value}]"),
        seat => format!("[P{seat}]"),
    }
}

/// The grid, one row per line, its columns aligned.
fn grid_lines(view: &ClaimView) -> Vec<String> {
    let rows: Vec<Vec<String>> = view
        .grid
        .iter()
        .zip(&view.owners)
        .map(|(values, owners)| values.iter().zip(owners).map(|(&v, &o)| cell(v, o)).collect())
        .collect();
    let width = rows.iter().flatten().map(String::len).max().unwrap_or(0);
    rows.iter()
        .map(|row| {
            let padded: Vec<String> = row.iter().map(|cell| format!("{cell:<width$}")).collect();
            padded.join(" ").trim_end().to_owned()
        })
        .collect()
}

fn total(view: &ClaimView, seat: Seat) -> String {
    format!("{} Total: {}", player(seat), view.sums[seat.index()])
}

/// Why `value` cannot be claimed.
fn refusal(view: &ClaimView, value: u32) -> String {
    let cells = view.grid.iter().flatten().zip(view.owners.iter().flatten());
    match cells.into_iter().find(|(v, _)| **v == value).map(|(_, &owner)| Seat::from_number(owner))
    {
        None => format!("{value} is not on the grid."),
        Some(Some(claimer)) => format!("{value} is already claimed by {}.", player(claimer)),
        Some(None) => format!("{value} cannot be claimed now."),
    }
}

impl Narrate for NumberClaim {
    fn board(&self) -> Vec<String> {
        let view = view(self);
        let mut lines = grid_lines(&view);
        lines.extend(Seat::BOTH.map(|seat| total(&view, seat)));
        lines
    }

    fn narrate_turn(_before: &Self, moves: &[Played<u32>], after: &Self) -> Vec<String> {
        let after = view(after);
        let mut lines = Vec::new();
        for &Played { seat, mv: value } in moves {
            lines.push(format!("{} claims {value}.", player(seat)));
            lines.push(total(&after, seat));
        }
        lines.push("Updated Grid:".to_owned());
        lines.extend(grid_lines(&after));
        lines
    }

    fn ask_move(&self, seat: Seat, legal: &[u32], console: &mut dyn Console) -> Option<u32> {
        let view = view(self);
        let prompt = format!("{}, select a number: ", player(seat));
        ask_number(console, &prompt, |value| {
            if legal.contains(&value) { Ok(()) } else { Err(refusal(&view, value)) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrate::tests::ScriptedConsole;

    /// The rule book's grid, with `claims` played from seat 1.
    fn rule_book_game(claims: &[u32]) -> NumberClaim {
        let mut game = NumberClaim::from_grid(vec![vec![2, 7, 6], vec![9, 5, 1], vec![4, 3, 8]]);
        for value in claims {
            game.apply(game.to_move()[0], value);
        }
        game
    }

    #[test]
    fn the_board_is_the_grid_row_by_row_and_the_totals() {
        assert_eq!(
            rule_book_game(&[]).board(),
            ["[2] [7] [6]", "[9] [5] [1]", "[4] [3] [8]", "Player 1 Total: 0", "Player 2 Total: 0"]
        );
    }

    #[test]
    fn a_claim_marks_its_cell_and_columns_stay_aligned() {
        let before = rule_book_game(&[9]);
        let mut after = before.clone();
        after.apply(Seat::Two, &8);
        assert_eq!(
            NumberClaim::narrate_turn(&before, &[Played { seat: Seat::Two, mv: 8 }], &after),
            [
                "Player 2 claims 8.",
                "Player 2 Total: 8",
                "Updated Grid:",
                "[2]  [7]  [6]",
                "[P1] [5]  [1]",
                "[4]  [3]  [P2]"
            ]
        );
    }

    #[test]
    fn asking_explains_claimed_and_missing_numbers() {
        let game = rule_book_game(&[9, 8]);
        let legal = game.legal_moves(Seat::One);
        let mut console = ScriptedConsole::new(&["9", "8", "10", "0", "7"]);
        assert_eq!(game.ask_move(Seat::One, &legal, &mut console), Some(7));
        assert_eq!(
            console.transcript,
            [
                "Player 1, select a number: 9",
                "9 is already claimed by Player 1.",
                "Player 1, select a number: 8",
                "8 is already claimed by Player 2.",
                "Player 1, select a number: 10",
                "10 is not on the grid.",
                "Player 1, select a number: 0",
                "0 is not on the grid.",
                "Player 1, select a number: 7",
            ]
        );
    }
}
