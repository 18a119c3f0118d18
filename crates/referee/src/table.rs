//! The one interface every game is played through: [`Rules`] set up a
//! game, and the [`Table`] they return is the game in play, asked who is
//! to move, their legal moves and views, and told each turn's moves.
//!
//! The built-in games implement it over their [`Game`] state ([`Builtin`],
//! all of it inlined: choosing the game costs nothing per move); a game
//! program implements it over its answers (`game_program`), and a recorded
//! game over the steps its transcript kept (`story`). The referee, the
//! transcripts and the replays know only this interface.

use arena_base::score::Score;
use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;

use serde_json::value::RawValue;

use super::game_fault::GameFault;
use crate::seeds::SeedKey;
use arena_base::json::WriteJson;
use arena_games::program::HistoryMode;
use arena_games::{Game, GameSetup, MoveValue, Outcome, Played, Seat};

/// A game in play.
pub trait Table {
    /// A move, written exactly as bots send it.
    type Move: MoveValue;

    /// The seats whose move is awaited: one, both (a simultaneous turn),
    /// or none once the game is over.
    fn to_move(&self) -> &'static [Seat];

    /// Every move `seat` may make now; empty when it is not to move.
    fn legal_moves(&self, seat: Seat) -> Cow<'_, [Self::Move]>;

    /// The move the game applies for `mv` from `seat`: its own entry of
    /// the legal moves (so a bot never chooses the bytes the game reads);
    /// `mv` back when it is not legal.
    fn accept(&self, seat: Seat, mv: Self::Move) -> Result<Self::Move, Self::Move>;

    /// When `seat`'s move `sent` is not one of its legal moves: the game's
    /// fault instead of the bot's, if its legal moves are to blame (`sent`
    /// is a game program's legal move holding a number no double holds as
    /// written, as a bot echoes it); the game is then void. Built-in games list no
    /// such move.
    fn blame_for_illegal(
        &mut self,
        _seat: Seat,
        _sent: &Self::Move,
    ) -> impl Future<Output = Option<GameFault>> {
        std::future::ready(None)
    }

    /// Appends `seat`'s view as JSON.
    fn write_view(&self, seat: Seat, out: &mut Vec<u8>);

    /// Whether moves are hidden: then each seat's history and reveals are
    /// made from its own moves and what [`Table::write_learned`] says.
    fn hidden_moves(&self) -> bool {
        false
    }

    /// How the game's bots are sent `history` unless a bot's `ready` asks
    /// otherwise: the whole history, or (a game program may declare it)
    /// the moves since a bot's previous request.
    fn history_mode(&self) -> HistoryMode {
        HistoryMode::Full
    }

    /// Appends, as JSON, what `seat` learned of the other seat's move in
    /// the turn just applied (a game with hidden moves).
    fn write_learned(&self, _seat: Seat, out: &mut Vec<u8>) {
        out.extend_from_slice(b"null");
    }

    /// Plays one turn: the move of each seat to move, in seat order.
    fn apply(
        &mut self,
        moves: &[Played<Self::Move>],
    ) -> impl Future<Output = Result<(), GameFault>>;

    /// The result once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Each seat's score as the game counts it.
    fn scores(&self) -> [Score; 2];

    /// The whole state, for transcripts (`null` when the game keeps it to
    /// itself).
    fn state(&self) -> Box<RawValue>;

    /// The game program's answer that made this position, kept in
    /// transcripts so replays need no program; `None` for a built-in game,
    /// which replays rebuild from its rules.
    fn answer(&self) -> Option<&[u8]> {
        None
    }
}

/// A kind of game, ready to set up games: a built-in game's rules, or a
/// game program (whose process it keeps from game to game).
pub trait Rules {
    /// A move of the game.
    type Move: MoveValue;

    /// A game of these rules in play.
    type Table<'r>: Table<Move = Self::Move>
    where
        Self: 'r;

    /// Sends a game program's stderr to `log` from the next game on.
    fn log_stderr_to(&mut self, _log: Option<&super::LogFile>) {}

    /// Ends what the rules keep running between games (a game program's
    /// process).
    fn stop(&mut self) -> impl Future<Output = ()> {
        std::future::ready(())
    }

    /// The seed a game set up with `setup_seed` is set up from: the setup
    /// seed itself for a built-in game (whose setups are public, and pinned
    /// by it), a keyed one for a game program (whose deal may be secret).
    fn seed_for(&self, setup_seed: u64, _key: &SeedKey) -> u64 {
        setup_seed
    }

    /// Sets up the game of `setup` from `seed`.
    fn set_up<'r>(
        &'r mut self,
        setup: &GameSetup,
        seed: u64,
    ) -> impl Future<Output = Result<Self::Table<'r>, GameFault>>;
}

/// A built-in game's rules.
pub struct BuiltinRules<G>(PhantomData<G>);

impl<G> BuiltinRules<G> {
    /// The rules of the built-in game `G`.
    pub fn new() -> BuiltinRules<G> {
        BuiltinRules(PhantomData)
    }
}

impl<G> Default for BuiltinRules<G> {
    fn default() -> BuiltinRules<G> {
        BuiltinRules::new()
    }
}

impl<G: Game> Rules for BuiltinRules<G> {
    type Move = G::Move;
    type Table<'r> = Builtin<G>;

    fn set_up(
        &mut self,
        setup: &GameSetup,
        seed: u64,
    ) -> impl Future<Output = Result<Builtin<G>, GameFault>> {
        std::future::ready(Ok(Builtin(G::new(setup.params::<G>(), seed))))
    }
}

/// A built-in game in play: its state.
#[derive(Clone, Debug)]
pub struct Builtin<G>(pub G);

impl<G: Game> Table for Builtin<G> {
    type Move = G::Move;

    fn to_move(&self) -> &'static [Seat] {
        self.0.to_move()
    }

    fn legal_moves(&self, seat: Seat) -> Cow<'_, [G::Move]> {
        Cow::Owned(self.0.legal_moves(seat))
    }

    fn accept(&self, seat: Seat, mv: G::Move) -> Result<G::Move, G::Move> {
        if self.0.is_legal(seat, &mv) { Ok(mv) } else { Err(mv) }
    }

    fn write_view(&self, seat: Seat, out: &mut Vec<u8>) {
        self.0.view(seat).write_json(out);
    }

    fn apply(&mut self, moves: &[Played<G::Move>]) -> impl Future<Output = Result<(), GameFault>> {
        for played in moves {
            self.0.apply(played.seat, &played.mv);
        }
        std::future::ready(Ok(()))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }

    fn scores(&self) -> [Score; 2] {
        self.0.scores().map(Score::from)
    }

    fn state(&self) -> Box<RawValue> {
        serde_json::value::to_raw_value(&self.0).expect("game states serialize")
    }
}

/// A table's view of one seat, as a value that writes itself (what the
/// encoders of `move` and `over` take).
pub struct ViewOf<'a, T: ?Sized>(pub &'a T, pub Seat);

impl<T: Table + ?Sized> WriteJson for ViewOf<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.0.write_view(self.1, out);
    }
}

/// Runs `$body` with `$rules` bound to the `Rules` of `$game` (a
/// [`GameRef`](arena_games::GameRef)): a built-in game's, each its own
/// type so that the referee is compiled for it, or the game program
/// `$program` (a closure) makes from its [`ProgramGame`](arena_games::program::ProgramGame).
#[macro_export]
macro_rules! with_rules {
    ($game:expr, $program:expr, $rules:ident => $body:expr) => {
        match $game {
            $crate::macro_support::GameRef::Builtin(id) => $crate::macro_support::with_game!(*id, G => {
                #[allow(unused_mut)]
                let mut $rules = $crate::BuiltinRules::<G>::new();
                $body
            }),
            $crate::macro_support::GameRef::Program(game) => {
                #[allow(unused_mut)]
                let mut $rules = ($program)(game.as_ref());
                $body
            }
        }
    };
}
