//! Time controls: how long a seat may think, move by move.
//!
//! Two kinds, as a tournament, a bot's own entry or a command chooses:
//!
//! - a limit per move (arena's default): every reply is due within the
//!   same time;
//! - a game clock: a bank for the whole game, spent by each reply's think
//!   time and topped up by an increment after every accepted move (a move
//!   may also have a cap of its own).
//!
//! The referee holds a seat to its time with some leeway: a margin for
//! loaded machines, added to every deadline, or no deadline at all for
//! debugging. Leeway widens what the referee waits for, never what a bot is
//! told it has, so a bot that plans to its stated time is not flagged by
//! the machine's noise, and a bot debugged without limits plays as it would
//! with them. The clock is arithmetic on durations; the referee measures
//! the time.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use arena_base::units::show_duration;

/// The limit per move when nothing sets one.
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(1);

/// How a seat's time is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "WrittenControl", from = "WrittenControl")]
pub enum TimeControl {
    /// Each reply is due within `limit`.
    PerMove {
        /// The time for one reply.
        limit: Duration,
    },
    /// A bank per game plus an increment per move.
    Clock(GameClock),
}

/// A game clock's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "WrittenClock", from = "WrittenClock")]
pub struct GameClock {
    /// Time for the whole game at its start.
    pub bank: Duration,
    /// Added after every accepted move.
    pub increment: Duration,
    /// The most one move may take, whatever the bank holds.
    pub move_cap: Option<Duration>,
}

impl Default for TimeControl {
    fn default() -> TimeControl {
        TimeControl::PerMove { limit: DEFAULT_MOVE_TIMEOUT }
    }
}

impl TimeControl {
    /// Which of the two kinds this control is.
    pub fn kind(&self) -> ControlKind {
        match self {
            TimeControl::PerMove { .. } => ControlKind::PerMove,
            TimeControl::Clock(_) => ControlKind::Clock,
        }
    }

    /// The game clock, if this is one.
    pub fn clock(&self) -> Option<GameClock> {
        match self {
            TimeControl::PerMove { .. } => None,
            TimeControl::Clock(clock) => Some(*clock),
        }
    }

    /// The most the first reply of a game may take: the limit per move, or
    /// under a clock its cap or else its bank (what `start` tells a bot as
    /// `move_ms`).
    pub fn first_move(&self) -> Duration {
        match self {
            TimeControl::PerMove { limit } => *limit,
            TimeControl::Clock(clock) => {
                clock.move_cap.map_or(clock.bank, |cap| cap.min(clock.bank))
            }
        }
    }
}

/// "1s per move", "clock 10s + 100ms per move", "clock 1m, at most 5s a move".
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::PerMove { limit } => write!(f, "{} per move", show_duration(*limit)),
            TimeControl::Clock(clock) => {
                write!(f, "clock {}", show_duration(clock.bank))?;
                if !clock.increment.is_zero() {
                    write!(f, " + {} per move", show_duration(clock.increment))?;
                }
                if let Some(cap) = clock.move_cap {
                    write!(f, ", at most {} a move", show_duration(cap))?;
                }
                Ok(())
            }
        }
    }
}

/// A time control as files write it (tournament.json, transcript headers):
/// tagged by kind, in whole milliseconds.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum WrittenControl {
    PerMove {
        move_ms: u64,
    },
    Clock {
        #[serde(flatten)]
        clock: WrittenClock,
    },
}

#[derive(Clone, Copy, Serialize, Deserialize)]
struct WrittenClock {
    bank_ms: u64,
    increment_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    move_cap_ms: Option<u64>,
}

fn millis(duration: Duration) -> u64 {
    duration.as_millis().try_into().unwrap_or(u64::MAX)
}

impl From<TimeControl> for WrittenControl {
    fn from(control: TimeControl) -> WrittenControl {
        match control {
            TimeControl::PerMove { limit } => WrittenControl::PerMove { move_ms: millis(limit) },
            TimeControl::Clock(clock) => WrittenControl::Clock { clock: clock.into() },
        }
    }
}

impl From<WrittenControl> for TimeControl {
    fn from(written: WrittenControl) -> TimeControl {
        match written {
            WrittenControl::PerMove { move_ms } => {
                TimeControl::PerMove { limit: Duration::from_millis(move_ms) }
            }
            WrittenControl::Clock { clock } => TimeControl::Clock(clock.into()),
        }
    }
}

impl From<GameClock> for WrittenClock {
    fn from(clock: GameClock) -> WrittenClock {
        WrittenClock {
            bank_ms: millis(clock.bank),
            increment_ms: millis(clock.increment),
            move_cap_ms: clock.move_cap.map(millis),
        }
    }
}

impl From<WrittenClock> for GameClock {
    fn from(written: WrittenClock) -> GameClock {
        GameClock {
            bank: Duration::from_millis(written.bank_ms),
            increment: Duration::from_millis(written.increment_ms),
            move_cap: written.move_cap_ms.map(Duration::from_millis),
        }
    }
}

/// How far past a seat's time the referee waits before the seat forfeits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leeway {
    /// This much longer (zero by default; more on loaded machines).
    Margin(Duration),
    /// For ever: no deadline (debugging only: a hung bot hangs the game).
    Unlimited,
}

impl Leeway {
    /// The wait for something the bot is given `time` for; `None`: no limit.
    pub fn wait(self, time: Duration) -> Option<Duration> {
        match self {
            Leeway::Margin(margin) => Some(time.saturating_add(margin)),
            Leeway::Unlimited => None,
        }
    }
}

/// One seat's clock during a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    leeway: Leeway,
    /// What the bank holds (only for [`TimeControl::Clock`]).
    bank_left: Duration,
}

/// A seat whose time ran out before its reply came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime {
    /// The time the seat had for this reply (as it was told).
    pub allowed: Duration,
    /// When it was the game's bank that ran out (not a per-move limit or
    /// cap): the bank the game started with.
    pub bank: Option<Duration>,
}

impl Clock {
    /// A fresh clock for a new game.
    pub fn new(control: TimeControl, leeway: Leeway) -> Clock {
        let bank_left = control.clock().map_or(Duration::ZERO, |clock| clock.bank);
        Clock { control, leeway, bank_left }
    }

    /// The time control the clock counts by.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The time the seat has for its next reply, as it is told.
    pub fn allowance(&self) -> Duration {
        match self.control {
            TimeControl::PerMove { limit } => limit,
            TimeControl::Clock(GameClock { move_cap, .. }) => {
                move_cap.map_or(self.bank_left, |cap| cap.min(self.bank_left))
            }
        }
    }

    /// How long the referee waits for the next reply: the allowance and
    /// the leeway (`None`: no limit).
    pub fn deadline(&self) -> Option<Duration> {
        self.leeway.wait(self.allowance())
    }

    /// What the bank holds, for a game clock (sent to the bot with each
    /// request).
    pub fn bank_left(&self) -> Option<Duration> {
        self.control.clock().map(|_| self.bank_left)
    }

    /// Charges a reply that came in time and took `used`: the bank pays
    /// what the reply used (never below zero: the leeway is the referee's,
    /// not the bot's) and earns the increment.
    pub fn charge(&mut self, used: Duration) {
        if let TimeControl::Clock(clock) = self.control {
            self.bank_left = self.bank_left.saturating_sub(used).saturating_add(clock.increment);
        }
    }

    /// What runs out if the next reply does not come before its
    /// deadline: the time the seat is told it has, and whether that is the
    /// rest of the bank.
    pub fn out_of_time(&self) -> OutOfTime {
        let bank = match self.control {
            TimeControl::PerMove { .. } => None,
            TimeControl::Clock(clock) => {
                clock.move_cap.is_none_or(|cap| self.bank_left <= cap).then_some(clock.bank)
            }
        };
        OutOfTime { allowed: self.allowance(), bank }
    }
}

/// The two kinds of time control, as files and flags name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ControlKind {
    /// A limit per move (`per-move`).
    PerMove,
    /// A game clock (`clock`).
    Clock,
}

/// A time control as a user writes it, key by key (a tournament file's
/// keys, a bot's own keys, or command-line flags): what is left out comes
/// from the control these keys change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeKeys {
    /// `time_control`: the kind, when named.
    pub control: Option<ControlKind>,
    /// `move_timeout`: the limit per move.
    pub move_timeout: Option<Duration>,
    /// `bank`: a clock's time for the whole game.
    pub bank: Option<Duration>,
    /// `increment`: what a clock adds after every accepted move.
    pub increment: Option<Duration>,
    /// `move_cap`: the most one move of a clock may take.
    pub move_cap: Option<Duration>,
}

/// One of the keys of [`TimeKeys`], to name it in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKey {
    /// `time_control`.
    Control,
    /// `move_timeout`.
    MoveTimeout,
    /// `bank`.
    Bank,
    /// `increment`.
    Increment,
    /// `move_cap`.
    MoveCap,
}

impl TimeKey {
    /// Its name in a tournament file.
    pub fn file_key(self) -> &'static str {
        match self {
            TimeKey::Control => "time_control",
            TimeKey::MoveTimeout => "move_timeout",
            TimeKey::Bank => "bank",
            TimeKey::Increment => "increment",
            TimeKey::MoveCap => "move_cap",
        }
    }

    /// Its flag on the command line.
    pub fn flag(self) -> &'static str {
        match self {
            TimeKey::Control => "--time-control",
            TimeKey::MoveTimeout => "--move-timeout",
            TimeKey::Bank => "--bank",
            TimeKey::Increment => "--increment",
            TimeKey::MoveCap => "--move-cap",
        }
    }
}

/// Time keys that make no time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKeysError {
    /// A key of the other kind of control than the one the keys make.
    DoesNotApply {
        /// The key that does not apply.
        key: TimeKey,
        /// The kind the keys make.
        control: ControlKind,
    },
    /// A clock and no bank: `key` is what made it a clock.
    NoBank {
        /// The key that made it a clock.
        key: TimeKey,
    },
}

impl TimeKeysError {
    /// The key to point at.
    pub fn key(self) -> TimeKey {
        match self {
            TimeKeysError::DoesNotApply { key, .. } | TimeKeysError::NoBank { key } => key,
        }
    }

    /// The error in words, with keys named by `name` (file keys or flags).
    pub fn describe(self, name: impl Fn(TimeKey) -> &'static str) -> String {
        match self {
            TimeKeysError::DoesNotApply { key, control: ControlKind::Clock } => format!(
                "`{}` is the limit of a per-move time control, and this one is a game clock (it has a `{}`): leave it out, or limit each move of the clock with `{}`",
                name(key),
                name(TimeKey::Bank),
                name(TimeKey::MoveCap)
            ),
            TimeKeysError::DoesNotApply { key, control: ControlKind::PerMove } => format!(
                "`{}` belongs to a game clock, and this time control is per-move",
                name(key)
            ),
            TimeKeysError::NoBank { key } => format!(
                "`{}` makes a game clock, which needs `{}`: the time for the whole game, e.g. 10s",
                name(key),
                name(TimeKey::Bank)
            ),
        }
    }
}

impl TimeKeys {
    /// Whether no key is set: the keys change nothing.
    pub fn is_empty(&self) -> bool {
        *self == TimeKeys::default()
    }

    /// The control these keys make of `base`. The kind is the one
    /// `control` names, else a clock if a clock's key is set, else per move
    /// if `move_timeout` is, else `base`'s; every value left out is
    /// `base`'s (when of the same kind) or the default.
    pub fn over(&self, base: TimeControl) -> Result<TimeControl, TimeKeysError> {
        let clock_key = [
            (TimeKey::Bank, self.bank),
            (TimeKey::Increment, self.increment),
            (TimeKey::MoveCap, self.move_cap),
        ]
        .into_iter()
        .find_map(|(key, value)| value.map(|_| key));
        let kind = match (self.control, clock_key, self.move_timeout) {
            (Some(kind), _, _) => kind,
            (None, Some(_), _) => ControlKind::Clock,
            (None, None, Some(_)) => ControlKind::PerMove,
            (None, None, None) => base.kind(),
        };
        match kind {
            ControlKind::PerMove => {
                if let Some(key) = clock_key {
                    return Err(TimeKeysError::DoesNotApply { key, control: kind });
                }
                let inherited = match base {
                    TimeControl::PerMove { limit } => limit,
                    TimeControl::Clock(_) => DEFAULT_MOVE_TIMEOUT,
                };
                Ok(TimeControl::PerMove { limit: self.move_timeout.unwrap_or(inherited) })
            }
            ControlKind::Clock => {
                if self.move_timeout.is_some() {
                    return Err(TimeKeysError::DoesNotApply {
                        key: TimeKey::MoveTimeout,
                        control: kind,
                    });
                }
                let inherited = base.clock();
                let made_by = match (self.control, clock_key) {
                    (Some(_), _) => TimeKey::Control,
                    (None, key) => key.unwrap_or(TimeKey::Bank),
                };
                let bank = self
                    .bank
                    .or(inherited.map(|clock| clock.bank))
                    .ok_or(TimeKeysError::NoBank { key: made_by })?;
                Ok(TimeControl::Clock(GameClock {
                    bank,
                    increment: self
                        .increment
                        .or(inherited.map(|clock| clock.increment))
                        .unwrap_or_default(),
                    move_cap: self.move_cap.or(inherited.and_then(|clock| clock.move_cap)),
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    fn clock(bank: u64, increment: u64, move_cap: Option<u64>) -> TimeControl {
        TimeControl::Clock(GameClock {
            bank: ms(bank),
            increment: ms(increment),
            move_cap: move_cap.map(ms),
        })
    }

    #[test]
    fn a_per_move_limit_is_the_same_for_every_move() {
        let mut clock = Clock::new(TimeControl::PerMove { limit: ms(100) }, Leeway::Margin(ms(20)));
        assert_eq!(clock.allowance(), ms(100));
        assert_eq!(clock.deadline(), Some(ms(120)));
        assert_eq!(clock.bank_left(), None);
        clock.charge(ms(99));
        clock.charge(ms(115));
        assert_eq!(clock.allowance(), ms(100));
        assert_eq!(clock.out_of_time(), OutOfTime { allowed: ms(100), bank: None });
    }

    #[test]
    fn a_game_clock_spends_the_bank_and_adds_the_increment() {
        let mut clock = Clock::new(clock(1000, 50, None), Leeway::Margin(Duration::ZERO));
        assert_eq!(clock.bank_left(), Some(ms(1000)));
        assert_eq!(clock.deadline(), Some(ms(1000)));
        clock.charge(ms(300));
        assert_eq!(clock.bank_left(), Some(ms(750)));
        clock.charge(ms(750));
        assert_eq!(clock.bank_left(), Some(ms(50)), "spent to zero, then the increment");
        assert_eq!(clock.out_of_time(), OutOfTime { allowed: ms(50), bank: Some(ms(1000)) });
    }

    #[test]
    fn a_move_cap_bounds_a_move_but_not_the_bank() {
        let mut clock = Clock::new(clock(1000, 0, Some(200)), Leeway::Margin(Duration::ZERO));
        assert_eq!(clock.allowance(), ms(200));
        assert_eq!(clock.out_of_time(), OutOfTime { allowed: ms(200), bank: None });
        for _ in 0..4 {
            clock.charge(ms(200));
        }
        assert_eq!(clock.bank_left(), Some(ms(200)));
        clock.charge(ms(150));
        assert_eq!(clock.allowance(), ms(50), "the bank is now the tighter limit");
        assert_eq!(clock.out_of_time(), OutOfTime { allowed: ms(50), bank: Some(ms(1000)) });
    }

    #[test]
    fn the_margin_widens_the_wait_but_is_never_banked() {
        let mut clock = Clock::new(clock(100, 10, None), Leeway::Margin(ms(30)));
        assert_eq!(clock.deadline(), Some(ms(130)));
        assert_eq!(clock.allowance(), ms(100), "the bot is told its own time");
        clock.charge(ms(120));
        assert_eq!(clock.bank_left(), Some(ms(10)), "overdraft floored at zero");
    }

    #[test]
    fn no_limit_never_waits_out_but_keeps_the_books() {
        let mut clock = Clock::new(clock(100, 10, None), Leeway::Unlimited);
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.allowance(), ms(100));
        clock.charge(Duration::from_secs(3600));
        assert_eq!(clock.bank_left(), Some(ms(10)));
        let per_move = Clock::new(TimeControl::default(), Leeway::Unlimited);
        assert_eq!((per_move.allowance(), per_move.deadline()), (DEFAULT_MOVE_TIMEOUT, None));
    }

    #[test]
    fn controls_read_as_people_write_them_and_files_record_them() {
        assert_eq!(TimeControl::PerMove { limit: ms(500) }.to_string(), "500ms per move");
        assert_eq!(clock(10_000, 100, None).to_string(), "clock 10s + 100ms per move");
        assert_eq!(clock(60_000, 0, Some(5000)).to_string(), "clock 1m, at most 5s a move");
        for control in [TimeControl::default(), clock(10_000, 100, None), clock(9, 0, Some(3))] {
            let json = serde_json::to_string(&control).unwrap();
            assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), control, "{json}");
        }
        assert_eq!(
            serde_json::to_string(&clock(10_000, 100, None)).unwrap(),
            r#"{"kind":"clock","bank_ms":10000,"increment_ms":100}"#
        );
        assert_eq!(
            serde_json::to_string(&TimeControl::default()).unwrap(),
            r#"{"kind":"per-move","move_ms":1000}"#
        );
    }

    #[test]
    fn keys_make_a_control_over_a_base() {
        let per_move = TimeControl::PerMove { limit: ms(300) };
        let base_clock = clock(10_000, 100, None);
        let keys = |bank: Option<u64>, increment: Option<u64>| TimeKeys {
            bank: bank.map(ms),
            increment: increment.map(ms),
            ..TimeKeys::default()
        };
        assert_eq!(TimeKeys::default().over(per_move), Ok(per_move));
        assert_eq!(keys(Some(5000), None).over(per_move), Ok(clock(5000, 0, None)));
        assert_eq!(keys(Some(5000), None).over(base_clock), Ok(clock(5000, 100, None)));
        assert_eq!(keys(None, Some(0)).over(base_clock), Ok(clock(10_000, 0, None)));
        let only_timeout = TimeKeys { move_timeout: Some(ms(50)), ..TimeKeys::default() };
        assert_eq!(only_timeout.over(base_clock), Ok(TimeControl::PerMove { limit: ms(50) }));
        let per_move_by_name =
            TimeKeys { control: Some(ControlKind::PerMove), ..TimeKeys::default() };
        assert_eq!(per_move_by_name.over(base_clock), Ok(TimeControl::default()));
    }

    #[test]
    fn keys_that_make_no_control_name_the_key() {
        let per_move = TimeControl::default();
        let increment_alone = TimeKeys { increment: Some(ms(10)), ..TimeKeys::default() };
        assert_eq!(
            increment_alone.over(per_move),
            Err(TimeKeysError::NoBank { key: TimeKey::Increment })
        );
        let named_clock = TimeKeys { control: Some(ControlKind::Clock), ..TimeKeys::default() };
        assert_eq!(
            named_clock.over(per_move),
            Err(TimeKeysError::NoBank { key: TimeKey::Control })
        );
        let both =
            TimeKeys { bank: Some(ms(1000)), move_timeout: Some(ms(10)), ..TimeKeys::default() };
        let error = both.over(per_move).unwrap_err();
        assert_eq!(error.key(), TimeKey::MoveTimeout);
        assert!(error.describe(TimeKey::flag).contains("`--move-cap`"), "{error:?}");
        let bank_per_move = TimeKeys {
            control: Some(ControlKind::PerMove),
            bank: Some(ms(1000)),
            ..TimeKeys::default()
        };
        assert_eq!(
            bank_per_move.over(per_move),
            Err(TimeKeysError::DoesNotApply { key: TimeKey::Bank, control: ControlKind::PerMove })
        );
    }
}
