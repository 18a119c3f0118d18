//! The lines a game's bots are sent: a message as one line (with a field
//! bots do not know, when probing), and the notices that need no answer
//! (a simultaneous turn's reveal), queued unless the bot is in doubt.

use tokio::time::Instant;

use super::super::Bot;
use super::super::exchange::trim_newline;
use super::super::forfeit::Notice;
use super::super::table::Table;
use super::Referee;
use super::history::Learned;
use arena_base::json::WriteJson;
use arena_games::{MoveValue, Seat};
use arena_protocol::ToBot;

impl<M: MoveValue> Referee<'_, M> {
    /// A message as one line, with the probe field when probing.
    pub(super) fn line<P: WriteJson, V: WriteJson, N: WriteJson>(
        &self,
        message: &ToBot<'_, P, V, N>,
    ) -> Vec<u8> {
        self.probed(message.line())
    }

    /// `line` with a field bots do not know, when probing.
    pub(super) fn probed(&self, line: Vec<u8>) -> Vec<u8> {
        if !self.settings.probe_unknown {
            return line;
        }
        let mut probed = br#"{"x_arena_probe":"a field bots do not know; ignore it","#.to_vec();
        probed.extend_from_slice(&line[1..]);
        probed
    }

    /// Tells both seats the choices of a simultaneous turn, `moves` by
    /// seat (`None` for a seat that forfeited). With hidden moves, each
    /// seat is told its own choice and, of the other's, what it learned in
    /// the turn if it was `applied` (else nothing).
    pub(super) fn reveal<T: Table<Move = M>>(
        &mut self,
        bots: &mut [&mut Bot; 2],
        game: &T,
        moves: [Option<&M>; 2],
        applied: bool,
    ) {
        if !game.hidden_moves() {
            let message: ToBot<'_, (), (), M> = ToBot::Reveal { moves };
            let line = self.line(&message);
            for seat in Seat::BOTH {
                self.notify(bots, seat, &line, Notice::Reveal);
            }
            return;
        }
        for seat in Seat::BOTH {
            let shown = Seat::BOTH.map(|shown| match (shown == seat, moves[shown.index()]) {
                (true, Some(mv)) => Some(Shown::Own(mv)),
                (false, Some(_)) if applied => Some(Shown::Learned(Learned(game, seat))),
                _ => None,
            });
            let message: ToBot<'_, (), (), Shown<'_, T, M>> =
                ToBot::Reveal { moves: [shown[0].as_ref(), shown[1].as_ref()] };
            let line = self.line(&message);
            self.notify(bots, seat, &line, Notice::Reveal);
        }
    }

    /// Queues a message that needs no answer for `seat`, unless its bot is
    /// in doubt. It goes out with the bot's next request or when its session
    /// ends; a bot that cannot take it fails there.
    pub(super) fn notify(
        &mut self,
        bots: &mut [&mut Bot; 2],
        seat: Seat,
        line: &[u8],
        notice: Notice,
    ) {
        if self.in_doubt(seat) {
            return;
        }
        let bot = &mut bots[seat.index()];
        let Some(process) = bot.process() else { return };
        self.transcript.sent(seat, Instant::now().into_std(), trim_newline(line));
        process.queue(line);
        bot.unanswered_notice = Some(notice);
    }
}

/// What a seat is shown of one seat's choice when moves are hidden: its
/// own move, or what it learned of the other's.
enum Shown<'a, T, M> {
    Own(&'a M),
    Learned(Learned<'a, T>),
}

impl<T: Table, M: WriteJson> WriteJson for Shown<'_, T, M> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Shown::Own(mv) => mv.write_json(out),
            Shown::Learned(learned) => learned.write_json(out),
        }
    }
}
