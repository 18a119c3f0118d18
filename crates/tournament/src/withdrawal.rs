//! Withdrawing a bot that cannot play: one that crashed or failed to start
//! in `withdraw_after` games in a row would crash in every game left
//! (a missing package, a broken build), each costing a process and a line.
//! It is withdrawn from the run: its remaining games are recorded as lost
//! by the forfeit `withdrawn` without starting it, which is said once, and
//! a later run on the same results folder plays those games again (the
//! store sets their rows aside when it opens the folder).
//!
//! "In a row" is in schedule order, whatever order games finish in: a
//! bot's games are counted one after the other as the games before them
//! are recorded (those that finish early wait, a mark each), so the game
//! after which it is withdrawn is the same at any concurrency. A game
//! played at once by another worker that turns out to come after that
//! game was played in vain: its row is replaced by the withdrawn row a
//! run of one game at a time would have written ([`Counted::withdrawn_since`],
//! applied when the run's files are finished). So a complete run's
//! games.csv is a function of its file, its key and what the bots answer.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Pending;
use super::schedule::{Schedule, ScheduledGame};
use arena_games::Seat;
use arena_protocol::ForfeitReason;
use arena_referee::GameReport;

/// Each bot's run of failed games in schedule order, and the bots
/// withdrawn.
pub(crate) struct Withdrawals {
    /// Failed games in a row that withdraw a bot; 0 never does.
    after: u32,
    names: Vec<String>,
    schedule: Arc<Schedule>,
    pending: Arc<Pending>,
    /// By bot index.
    bots: Vec<BotCount>,
}

/// One bot's count.
struct BotCount {
    /// Its pairings in schedule order, each with its first game's number.
    pairings: Vec<([usize; 2], u64)>,
    /// Its last game counted (0 before the first): every game of it this
    /// run plays up to there is recorded and counted.
    counted: u64,
    /// Failed games in a row up to `counted`.
    streak: u32,
    /// Its games recorded past `counted`, waiting for those before them.
    ahead: BTreeMap<u64, Waiting>,
    /// Once withdrawn: the game whose failure withdrew it, and why its
    /// later games are lost.
    withdrawn: Option<(u64, String)>,
}

/// A game of a bot recorded before the games of that bot before it.
struct Waiting {
    game: ScheduledGame,
    mark: Mark,
    /// Whether its row says it was played (rather than withdrawn).
    played: bool,
}

/// What a game says of one seat's bot, for the count.
#[derive(Clone)]
enum Mark {
    /// It crashed or did not start: the forfeit's reason and words.
    Failed(ForfeitReason, String),
    /// It answered its `start` and did not crash.
    Played,
    /// It was asked nothing (its opponent forfeited first), or the game
    /// was recorded withdrawn: no part of a run either way.
    Silent,
}

/// What counting a game found.
#[derive(Default)]
pub(crate) struct Counted {
    /// The warning for each bot the count withdrew.
    pub warnings: Vec<String>,
    /// Games recorded as played that come after the game that withdrew
    /// one of their bots, with that bot's seat and why: their rows are to
    /// be the withdrawn rows a run of one game at a time writes.
    pub withdrawn_since: Vec<(ScheduledGame, Seat, String)>,
}

impl Withdrawals {
    pub(crate) fn new(
        after: u32,
        names: Vec<String>,
        schedule: Arc<Schedule>,
        pending: Arc<Pending>,
    ) -> Withdrawals {
        let bots = (0..names.len())
            .map(|bot| BotCount {
                pairings: if after > 0 { schedule.pairings_of(bot) } else { Vec::new() },
                counted: 0,
                streak: 0,
                ahead: BTreeMap::new(),
                withdrawn: None,
            })
            .collect();
        Withdrawals { after, names, schedule, pending, bots }
    }

    /// Counts a recorded game (`played`: its row says it was played): a
    /// bot that crashed in it (exited, was killed or closed its output), or
    /// failed to start (no `ready` in time), failed; one that answered its
    /// `start` and did not crash played, whatever else it forfeited by (a
    /// malformed or illegal reply is a bot that runs, and is not what the
    /// withdrawal's words say). Each bot's games are counted in schedule
    /// order, as those before them are recorded.
    pub(crate) fn count(
        &mut self,
        game: &ScheduledGame,
        report: &GameReport,
        played: bool,
    ) -> Counted {
        let mut counted = Counted::default();
        if self.after == 0 {
            return counted;
        }
        for seat in Seat::BOTH {
            let bot = game.seats[seat.index()];
            let forfeit = report.forfeits[seat.index()].as_ref();
            let mark = match forfeit {
                Some(forfeit)
                    if forfeit.reason == ForfeitReason::Crash
                        || forfeit.reason == ForfeitReason::Timeout
                            && forfeit.request.is_start() =>
                {
                    Mark::Failed(forfeit.reason, forfeit.detail.clone())
                }
                _ if report.answered_start[seat.index()] => Mark::Played,
                _ => Mark::Silent,
            };
            self.bots[bot].ahead.insert(game.index, Waiting { game: game.clone(), mark, played });
            self.advance(bot, &mut counted);
        }
        counted
    }

    /// Counts the games of `bot` whose earlier games are all counted.
    fn advance(&mut self, bot: usize, counted: &mut Counted) {
        while let Some(next) = self.next_game(bot) {
            let Some(waiting) = self.bots[bot].ahead.remove(&next) else { break };
            let count = &mut self.bots[bot];
            count.counted = next;
            if count.withdrawn.is_some() {
                continue;
            }
            match waiting.mark {
                Mark::Failed(reason, detail) => {
                    count.streak += 1;
                    if count.streak >= self.after {
                        self.withdraw(bot, &waiting.game, reason, &detail, counted);
                    }
                }
                Mark::Played => count.streak = 0,
                Mark::Silent => {}
            }
        }
    }

    /// Withdraws `bot` after its failure in `game`: said once, and its
    /// games recorded past it as played are to be withdrawn rows.
    fn withdraw(
        &mut self,
        bot: usize,
        game: &ScheduledGame,
        reason: ForfeitReason,
        detail: &str,
        counted: &mut Counted,
    ) {
        let why = format!(
            "withdrawn from the run after it crashed or failed to start in {} games in a row (the last, game {}: {reason}); not played: fix the bot and run again to play it",
            self.after, game.index
        );
        counted.warnings.push(format!(
            "bot `{}` crashed or failed to start in {} games in a row (the last, game {}: {reason}: {detail}); it is withdrawn from this run: its remaining games are recorded as lost (forfeit `withdrawn`) without starting it. Fix it and run again on the same results folder: those games are played then",
            self.names[bot], self.after, game.index
        ));
        let count = &mut self.bots[bot];
        for waiting in count.ahead.values().filter(|waiting| waiting.played) {
            let seat = if waiting.game.seats[0] == bot { Seat::One } else { Seat::Two };
            counted.withdrawn_since.push((waiting.game.clone(), seat, why.clone()));
        }
        count.withdrawn = Some((game.index, why));
    }

    /// The number of `bot`'s next game after the last counted that this
    /// run plays, if any.
    fn next_game(&self, bot: usize) -> Option<u64> {
        let count = &self.bots[bot];
        let per_pair = self.schedule.games_per_pair();
        for &(pairing, first) in &count.pairings {
            let end = first + per_pair;
            for index in (count.counted + 1).max(first)..end {
                let game = self.schedule.game_of_pairing(pairing, first, index);
                if self.pending.wants(&game) {
                    return Some(index);
                }
            }
        }
        None
    }

    /// Why each seat's bot of `game` is withdrawn, if it is: the game
    /// comes after the one that withdrew it.
    pub(crate) fn of(&self, game: &ScheduledGame) -> [Option<String>; 2] {
        game.seats.map(|bot| {
            self.bots[bot]
                .withdrawn
                .as_ref()
                .filter(|(last, _)| game.index > *last)
                .map(|(_, why)| why.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_referee::Forfeit;

    /// Withdrawals over every game of `schedule`.
    fn counting(after: u32, names: &[&str], schedule: &Schedule) -> Withdrawals {
        Withdrawals::new(
            after,
            names.iter().map(|name| name.to_string()).collect(),
            Arc::new(schedule.clone()),
            Arc::new(Pending::everything(schedule)),
        )
    }

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
        use arena_referee::forfeit::Request;
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
            let mut withdrawals = counting(2, &["a", "b"], &schedule);
            let mut said = Vec::new();
            for game in games.iter().take(4) {
                // Bot `a` forfeits, in whichever seat it has.
                let seat = usize::from(game.seats[0] != 0);
                let mut report = GameReport::unplayed(game.seed, [None, None]);
                report.answered_start = [true, true];
                report.answered_start[seat] = !request.is_start();
                report.forfeits[seat] = Some(forfeit_of(reason, request));
                said.extend(withdrawals.count(game, &report, true).warnings);
            }
            assert_eq!(!said.is_empty(), counts, "{reason} at {request}: {said:?}");
        }
    }

    #[test]
    fn a_bot_is_withdrawn_after_its_failures_in_a_row_and_said_once() {
        let schedule = Schedule::new(2, 10, 1);
        let games: Vec<ScheduledGame> = schedule.iter().collect();
        let mut withdrawals = counting(3, &["good", "broken"], &schedule);
        let broken = |game: &ScheduledGame| {
            if game.seats[0] == 1 { Seat::One } else { Seat::Two }
        };
        // Two failures, a game played, then three failures.
        let plays = [true, true, false, true, true, true];
        let mut said = Vec::new();
        for (game, fails) in games.iter().zip(plays) {
            assert_eq!(withdrawals.of(game), [None, None], "game {}", game.index);
            let report = report(game, fails.then(|| broken(game)));
            said.extend(withdrawals.count(game, &report, true).warnings);
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
        assert!(
            withdrawals.count(next, &report(next, Some(broken(next))), true).warnings.is_empty()
        );
        let never = &mut counting(0, &["a", "b"], &schedule);
        for game in &games {
            assert!(never.count(game, &report(game, Some(Seat::One)), true).warnings.is_empty());
        }
    }

    /// Games finishing in another order withdraw the bot after the same
    /// game, and the games recorded as played after it are named.
    #[test]
    fn the_order_games_finish_in_changes_nothing() {
        // Bots 0 and 1, then 2: pairings (0,1), (0,2), (1,2); bot 0 always
        // crashes.
        let schedule = Schedule::new(3, 6, 1);
        let games: Vec<ScheduledGame> = schedule.iter().collect();
        let crash = |game: &ScheduledGame| {
            game.seats.iter().position(|bot| *bot == 0).map(|seat| Seat::BOTH[seat])
        };
        let run = |order: &[usize]| {
            let mut withdrawals = counting(3, &["broken", "b", "c"], &schedule);
            let mut said = Vec::new();
            let mut since = Vec::new();
            for &at in order {
                let game = &games[at];
                let counted = withdrawals.count(game, &report(game, crash(game)), true);
                said.extend(counted.warnings);
                since.extend(counted.withdrawn_since.into_iter().map(|(game, _, _)| game.index));
            }
            since.sort();
            (
                said,
                since,
                games.iter().map(|game| withdrawals.of(game)[0].is_some()).collect::<Vec<_>>(),
            )
        };
        let in_order: Vec<usize> = (0..games.len()).collect();
        let (said, since, _) = run(&in_order);
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("(the last, game 3: crash"), "{}", said[0]);
        assert!(since.is_empty(), "{since:?}");
        // The (0,2) pairing first, then (0,1) backwards: the same game 3,
        // and games 4 to 12 of bot 0, recorded as played, named.
        let shuffled: Vec<usize> = (6..18).chain((0..6).rev()).collect();
        let (said, since, _) = run(&shuffled);
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("(the last, game 3: crash"), "{}", said[0]);
        assert_eq!(since, [4, 5, 6, 7, 8, 9, 10, 11, 12]);
    }
}
