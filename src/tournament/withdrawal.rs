//! Withdrawing a bot that cannot play: one that crashed or failed to start
//! in `withdraw_after` games in a row would crash in every game left
//! (a missing package, a broken build), each costing a process and a line.
//! It is withdrawn from the run: its remaining games are recorded as lost
//! by the forfeit `withdrawn` without starting it, which is said once, and
//! a later run on the same results folder plays those games again (the
//! store sets their rows aside when it opens the folder).

use super::schedule::ScheduledGame;
use crate::games::Seat;
use crate::protocol::ForfeitReason;
use crate::referee::GameReport;

/// Each bot's run of failed games, and the bots withdrawn.
pub(crate) struct Withdrawals {
    /// Failed games in a row that withdraw a bot; 0 never does.
    after: u32,
    names: Vec<String>,
    /// By bot index: failed games in a row so far.
    streaks: Vec<u32>,
    /// By bot index: why it was withdrawn, as its forfeits say it.
    withdrawn: Vec<Option<String>>,
}

impl Withdrawals {
    pub(crate) fn new(after: u32, names: Vec<String>) -> Withdrawals {
        let bots = names.len();
        Withdrawals { after, names, streaks: vec![0; bots], withdrawn: vec![None; bots] }
    }

    /// Counts a recorded game: a bot that crashed in it (exited, was
    /// killed or closed its output), or failed to start (no `ready` in
    /// time), failed; one that answered its `start` and did not crash
    /// played, whatever else it forfeited by (a malformed or illegal reply
    /// is a bot that runs, and is not what the withdrawal's words say).
    /// Returns the warning to show for each bot this game withdraws.
    pub(crate) fn count(&mut self, game: &ScheduledGame, report: &GameReport) -> Vec<String> {
        let mut warnings = Vec::new();
        for seat in Seat::BOTH {
            let bot = game.seats[seat.index()];
            let forfeit = report.forfeits[seat.index()].as_ref();
            let failed = forfeit.filter(|forfeit| match forfeit.reason {
                ForfeitReason::Crash => true,
                ForfeitReason::Timeout => forfeit.request.is_start(),
                _ => false,
            });
            match failed {
                Some(forfeit) => {
                    self.streaks[bot] += 1;
                    if self.after > 0
                        && self.streaks[bot] >= self.after
                        && self.withdrawn[bot].is_none()
                    {
                        let last = format!("the last, game {}: {}", game.index, forfeit.reason);
                        self.withdrawn[bot] = Some(format!(
                            "withdrawn from the run after it crashed or failed to start in {} games in a row ({last}); not played: fix the bot and run again to play it",
                            self.after
                        ));
                        warnings.push(format!(
                            "bot `{}` crashed or failed to start in {} games in a row (the last, game {}: {}: {}); it is withdrawn from this run: its remaining games are recorded as lost (forfeit `withdrawn`) without starting it. Fix it and run again on the same results folder: those games are played then",
                            self.names[bot],
                            self.after,
                            game.index,
                            forfeit.reason,
                            forfeit.detail
                        ));
                    }
                }
                None if report.answered_start[seat.index()] => self.streaks[bot] = 0,
                // It was asked nothing (its opponent forfeited first).
                None => {}
            }
        }
        warnings
    }

    /// Why each seat's bot of `game` is withdrawn, if it is.
    pub(crate) fn of(&self, game: &ScheduledGame) -> [Option<String>; 2] {
        game.seats.map(|bot| self.withdrawn[bot].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::Forfeit;
    use crate::tournament::schedule::Schedule;

    /// A report of a game in which seat `crashed` (if any) crashed at its
    /// start and the other seat played.
    fn report(game: &ScheduledGame, crashed: Option<Seat>) -> GameReport {
        let mut report = GameReport::unplayed(game.seed, [None, None]);
        report.answered_start = [true, true];
        if let Some(seat) = crashed {
            let mut forfeit = Forfeit::withdrawn("exited with status 1".to_owned());
            forfeit.reason = ForfeitReason::Crash;
            report.forfeits[seat.index()] = Some(forfeit);
            report.answered_start[seat.index()] = false;
        }
        report
    }

    /// What its words say: crashes and starts that failed count; a
    /// malformed or illegal reply, or a timeout once started, do not.
    #[test]
    fn only_crashes_and_failed_starts_count() {
        use crate::referee::forfeit::Request;
        let schedule = Schedule::new(2, 10, 1);
        let games: Vec<ScheduledGame> = schedule.iter().collect();
        let forfeit_of = |reason, request| {
            let mut forfeit = Forfeit::withdrawn("by its reply".to_owned());
            forfeit.reason = reason;
            forfeit.request = request;
            forfeit
        };
        let cases = [
            (ForfeitReason::Malformed, Request::start(1), false),
            (ForfeitReason::Malformed, Request::move_in_turn(2, 1), false),
            (ForfeitReason::IllegalMove, Request::move_in_turn(2, 1), false),
            (ForfeitReason::Timeout, Request::move_in_turn(2, 1), false),
            (ForfeitReason::Timeout, Request::start(1), true),
            (ForfeitReason::Crash, Request::move_in_turn(2, 3), true),
        ];
        for (reason, request, counts) in cases {
            let mut withdrawals = Withdrawals::new(2, vec!["a".into(), "b".into()]);
            let mut said = Vec::new();
            for game in games.iter().take(4) {
                // Bot `a` forfeits, in whichever seat it has.
                let seat = usize::from(game.seats[0] != 0);
                let mut report = GameReport::unplayed(game.seed, [None, None]);
                report.answered_start = [true, true];
                report.answered_start[seat] = !request.is_start();
                report.forfeits[seat] = Some(forfeit_of(reason, request));
                said.extend(withdrawals.count(game, &report));
            }
            assert_eq!(!said.is_empty(), counts, "{reason} at {request}: {said:?}");
        }
    }

    #[test]
    fn a_bot_is_withdrawn_after_its_failures_in_a_row_and_said_once() {
        let schedule = Schedule::new(2, 10, 1);
        let games: Vec<ScheduledGame> = schedule.iter().collect();
        let mut withdrawals = Withdrawals::new(3, vec!["good".into(), "broken".into()]);
        let broken = |game: &ScheduledGame| {
            if game.seats[0] == 1 { Seat::One } else { Seat::Two }
        };
        // Two failures, a game played, then three failures.
        let plays = [true, true, false, true, true, true];
        let mut said = Vec::new();
        for (game, fails) in games.iter().zip(plays) {
            assert_eq!(withdrawals.of(game), [None, None], "game {}", game.index);
            said.extend(withdrawals.count(game, &report(game, fails.then(|| broken(game)))));
        }
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("bot `broken` crashed or failed to start in 3 games in a row (the last, game 6: crash: exited with status 1)"), "{}", said[0]);
        let next = &games[6];
        let why = withdrawals.of(next);
        assert_eq!(why.iter().flatten().count(), 1);
        assert!(
            why[broken(next).index()]
                .as_deref()
                .is_some_and(|why| why.starts_with("withdrawn from the run after it crashed"))
        );
        // Nothing more is said, whatever follows.
        assert!(withdrawals.count(next, &report(next, Some(broken(next)))).is_empty());
        let never = &mut Withdrawals::new(0, vec!["a".into(), "b".into()]);
        for game in &games {
            assert!(never.count(game, &report(game, Some(Seat::One))).is_empty());
        }
    }
}
