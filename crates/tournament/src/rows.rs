//! A game's row of games.csv and the tallies counted from rows: data, no
//! file (the results folder's owner, `results`, reads and writes them).

use arena_base::score::Score;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use arena_games::Seat;
use arena_protocol::{ForfeitReason, ResultReason};
use arena_referee::{GameOutcome, GameReport};

/// One row of games.csv: one finished game. Column order is field order;
/// docs/running.md, "games.csv", documents each column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    /// 1-based position of the game in its run's schedule.
    pub game_index: u64,
    /// 1-based round of the schedule (a match is one pairing, one round per game).
    pub round: u64,
    /// The two bots, in schedule order, as `a vs b`.
    pub pairing: String,
    /// The game's id.
    pub game: String,
    /// The game's setup seed.
    pub seed: u64,
    /// The bot in seat 1.
    pub seat1: String,
    /// The bot in seat 2.
    pub seat2: String,
    /// The winning bot's name; empty for a draw or a double forfeit.
    pub winner: String,
    /// `seat1`, `seat2`, `draw` or `both_lost`.
    pub outcome: GameOutcome,
    /// `normal`, the forfeit reason, or `double_forfeit`.
    pub reason: ResultReason,
    /// The bot that forfeited (both, joined by `;`, for a double forfeit).
    pub forfeiter: String,
    /// Seat 1's forfeit reason; empty when it did not forfeit.
    pub forfeit1: Option<ForfeitReason>,
    /// Seat 2's forfeit reason; empty when it did not forfeit.
    pub forfeit2: Option<ForfeitReason>,
    /// The forfeit in words, with the offending line if there was one.
    pub forfeit_detail: String,
    /// Seat 1's score.
    pub score1: Score,
    /// Seat 2's score.
    pub score2: Score,
    /// Moves played.
    pub plies: u32,
    /// Wall time of the game, handshake and result included (a timing column).
    pub duration_ms: f64,
    /// Each seat's slowest accepted move, its `ready` left out (timing
    /// columns: start-up is timed apart).
    pub slowest1_ms: f64,
    /// Seat 2's, as `slowest1_ms`.
    pub slowest2_ms: f64,
    /// The transcript, relative to the results folder; empty when none was written.
    pub transcript: String,
}

/// Where a game sits in its run, for [`GameRow::new`].
pub struct RowContext<'a> {
    /// 1-based position of the game in its run's schedule.
    pub game_index: u64,
    /// 1-based round of the schedule.
    pub round: u64,
    /// The two bots, in schedule order, as `a vs b`.
    pub pairing: String,
    /// The game's id.
    pub game: String,
    /// The bots' names, by seat.
    pub seats: [&'a str; 2],
    /// The transcript, relative to the results folder; empty when none is written.
    pub transcript: String,
}

impl GameRow {
    /// The games.csv row of a game: where it sits (`context`) and how it ended
    /// (`report`).
    pub fn new(context: RowContext<'_>, report: &GameReport) -> GameRow {
        let name = |seat: Seat| context.seats[seat.index()].to_owned();
        let forfeiting: Vec<Seat> =
            Seat::BOTH.into_iter().filter(|seat| report.forfeits[seat.index()].is_some()).collect();
        let forfeit_detail = forfeiting
            .iter()
            .map(|seat| {
                let forfeit = report.forfeits[seat.index()].as_ref().expect("filtered above");
                let mut text = format!("{}: {}", name(*seat), forfeit.detail);
                if let Some(line) = forfeit.line.as_ref().filter(|line| !line.is_empty()) {
                    text.push_str(&format!(" (line: {line})"));
                }
                text
            })
            .collect::<Vec<_>>()
            .join("; ");
        let reason_of =
            |seat: Seat| report.forfeits[seat.index()].as_ref().map(|forfeit| forfeit.reason);
        let millis = |duration: std::time::Duration| (duration.as_secs_f64() * 1e6).round() / 1e3;
        GameRow {
            game_index: context.game_index,
            round: context.round,
            pairing: context.pairing,
            game: context.game,
            seed: report.seed,
            seat1: name(Seat::One),
            seat2: name(Seat::Two),
            winner: report.winner.map(name).unwrap_or_default(),
            outcome: report.outcome(),
            reason: report.reason(),
            forfeiter: forfeiting.iter().map(|seat| name(*seat)).collect::<Vec<_>>().join(";"),
            forfeit1: reason_of(Seat::One),
            forfeit2: reason_of(Seat::Two),
            forfeit_detail,
            score1: report.scores[0],
            score2: report.scores[1],
            plies: report.plies,
            duration_ms: millis(report.duration),
            slowest1_ms: millis(report.slowest_move[0]),
            slowest2_ms: millis(report.slowest_move[1]),
            transcript: context.transcript,
        }
    }

    /// The row as a line of games.csv, after the header line if `header`.
    pub fn csv_line(&self, header: bool) -> std::io::Result<Vec<u8>> {
        // A line is a few hundred bytes: the writer's default buffer (8 KiB,
        // zeroed) would cost more than the line, once a game.
        let mut writer = csv::WriterBuilder::new()
            .has_headers(header)
            .buffer_capacity(1024)
            .from_writer(Vec::with_capacity(512));
        writer.serialize(self).map_err(std::io::Error::other)?;
        writer.into_inner().map_err(|error| error.into_error())
    }

    /// What the game counts as `seat`'s payoff in a game whose scores are
    /// `payoffs`: its score, or, after a forfeit, what `payoffs` charge.
    pub fn payoff(&self, payoffs: &arena_games::program::Payoffs, seat: Seat) -> f64 {
        let score = if seat == Seat::One { self.score1 } else { self.score2 };
        let forfeits = [self.forfeit1.is_some(), self.forfeit2.is_some()];
        payoffs.counted(score.as_f64(), forfeits, seat)
    }

    /// The forfeit reason of the bot in `seat`, if it forfeited.
    pub fn forfeit_reason_of(&self, seat: Seat) -> Option<ForfeitReason> {
        if seat == Seat::One { self.forfeit1 } else { self.forfeit2 }
    }
}

/// Wins, draws, losses and forfeits of one bot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost (a double forfeit is lost by both).
    pub losses: u64,
    /// Forfeits by reason, as games.csv words them.
    pub forfeits: BTreeMap<&'static str, u64>,
}

impl Tally {
    /// Points: 1 for a win, 0.5 for a draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// "3 timeout, 1 crash", or "none".
    pub fn forfeits_in_words(&self) -> String {
        if self.forfeits.is_empty() {
            return "none".to_owned();
        }
        self.forfeits
            .iter()
            .map(|(reason, count)| format!("{count} {reason}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Tally {
    /// Counts one game, for the bot in `seat`.
    pub fn add(&mut self, row: &GameRow, seat: Seat) {
        self.games += 1;
        match (row.outcome, seat) {
            (GameOutcome::Draw, _) => self.draws += 1,
            (GameOutcome::Seat1, Seat::One) | (GameOutcome::Seat2, Seat::Two) => self.wins += 1,
            _ => self.losses += 1,
        }
        if let Some(reason) = row.forfeit_reason_of(seat) {
            *self.forfeits.entry(reason.as_str()).or_default() += 1;
        }
    }
}

/// Tallies per bot name, counted a games.csv row at a time.
#[derive(Clone, Debug, Default)]
pub struct Tallies {
    /// Each bot's tally.
    pub by_bot: BTreeMap<String, Tally>,
    /// Games counted.
    pub games: u64,
}

impl Tallies {
    /// Counts one game for both its bots.
    pub fn add(&mut self, row: &GameRow) {
        self.games += 1;
        for seat in Seat::BOTH {
            let name = if seat == Seat::One { &row.seat1 } else { &row.seat2 };
            self.by_bot.entry(name.clone()).or_default().add(row, seat);
        }
    }
}
