//! Test helpers shared by the games' unit tests.

use super::Game;

/// Plays `moves` in turn order (a turn-based game), checking each is
/// legal and the scores after it.
pub(crate) fn replay<G: Game>(game: &mut G, moves: &[(G::Move, [i64; 2])]) {
    for (turn, (mv, expected)) in moves.iter().enumerate() {
        let seat = game.to_move()[0];
        assert!(game.is_legal(seat, mv), "turn {}: {mv:?} is illegal", turn + 1);
        game.apply(seat, mv);
        assert_eq!(game.scores(), *expected, "after turn {} ({mv:?})", turn + 1);
    }
}
