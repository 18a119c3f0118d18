//! The time flags of `arena match` and `arena run`: a limit per move or a
//! game clock, a margin, and no limit at all.

use std::time::Duration;

use arena_base::units::{parse_duration, parse_duration_or_zero, show_duration};
use arena_referee::clock::TimeKeys;
use arena_referee::{Settings, TimeControl};
use arena_tournament::Tournament;

/// How bots are timed (in `arena run` and `arena gauntlet --league`, each
/// flag overrides the tournament file's key of the same name; a bot's own
/// keys still apply).
#[derive(Debug, Default, clap::Args)]
#[command(next_help_heading = "Time")]
pub struct TimeArgs {
    /// Time for each move reply, e.g. 200ms or 2s [default: 1s]. Over a
    /// tournament file (`arena run`, `gauntlet --league`), each time flag
    /// replaces its key of the same name (`time_margin` for --margin); a
    /// bot's own keys still apply.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    move_timeout: Option<Duration>,
    /// Play with a game clock instead of a limit per move: each bot's bank
    /// for the whole game, e.g. 10s. Every reply's think time is taken from
    /// it; a bot whose bank runs out loses on time.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "move_timeout")]
    bank: Option<Duration>,
    /// Under a game clock: time added to a bot's bank after each of its
    /// moves, e.g. 100ms [default: 0s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_or_zero)]
    increment: Option<Duration>,
    /// Under a game clock: the most one move may take, whatever the bank
    /// holds [default: no cap].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "move_timeout")]
    move_cap: Option<Duration>,
    /// Extra time the referee waits past every deadline, for loaded
    /// machines, e.g. 50ms. Bots are told their time without it, and their
    /// banks never gain it [default: 0s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_or_zero)]
    margin: Option<Duration>,
    /// Wait for every reply as long as it takes, for debugging (a debugger,
    /// a debug build, breakpoints). Bots are still told their time and
    /// their clocks still run; a hung bot hangs the game.
    #[arg(long)]
    no_time_limit: bool,
}

impl TimeArgs {
    /// The time keys the flags set.
    pub fn keys(&self) -> TimeKeys {
        TimeKeys {
            control: None,
            move_timeout: self.move_timeout,
            bank: self.bank,
            increment: self.increment,
            move_cap: self.move_cap,
        }
    }

    /// Sets the margin and the limit from the flags.
    pub fn apply_leeway(&self, settings: &mut Settings) {
        if let Some(margin) = self.margin {
            settings.time_margin = margin;
        }
        settings.no_time_limit |= self.no_time_limit;
    }

    /// The flags as typed (one word each, unquoted), to repeat them in a
    /// command to resume with.
    pub fn words(&self) -> Vec<String> {
        let mut words = Vec::new();
        let durations = [
            ("--move-timeout", self.move_timeout),
            ("--bank", self.bank),
            ("--increment", self.increment),
            ("--move-cap", self.move_cap),
            ("--margin", self.margin),
        ];
        for (flag, value) in durations {
            if let Some(value) = value {
                words.push(flag.to_owned());
                words.push(show_duration(value));
            }
        }
        if self.no_time_limit {
            words.push("--no-time-limit".to_owned());
        }
        words
    }
}

/// The time settings in a line, when they are not the defaults: `time:
/// clock 10s + 100ms per move; margin 50ms`. `handicaps` are bots with a
/// control of their own.
pub fn time_line<'a>(
    settings: &Settings,
    handicaps: impl IntoIterator<Item = (&'a str, TimeControl)>,
) -> Option<String> {
    let mut parts = Vec::new();
    if settings.time_control != TimeControl::default() {
        parts.push(settings.time_control.to_string());
    }
    for (bot, control) in handicaps {
        parts.push(format!("bot `{bot}`: {control}"));
    }
    if !settings.time_margin.is_zero() {
        parts.push(format!("margin {}", show_duration(settings.time_margin)));
    }
    if settings.no_time_limit {
        parts.push("no time limit (--no-time-limit): a hung bot hangs its game".to_owned());
    }
    (!parts.is_empty()).then(|| format!("time: {}", parts.join("; ")))
}

/// [`time_line`] for a tournament: its settings, and its bots with a time
/// control of their own.
pub fn tournament_time_line(tournament: &Tournament) -> Option<String> {
    let handicaps = tournament
        .bots
        .iter()
        .filter_map(|bot| bot.time_control.map(|control| (bot.name.as_str(), control)));
    time_line(&tournament.settings, handicaps)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        time: TimeArgs,
    }

    #[test]
    fn flags_are_repeated_in_words_they_parse_back_from() {
        let typed = ["arena", "--bank", "1s 500ms", "--increment", "0s", "--no-time-limit"];
        let words = Command::parse_from(typed).time.words();
        assert_eq!(words, ["--bank", "1s 500ms", "--increment", "0ms", "--no-time-limit"]);
        let again = Command::parse_from(std::iter::once("arena".to_owned()).chain(words));
        assert_eq!(again.time.keys(), Command::parse_from(typed).time.keys());
    }

    #[test]
    fn the_time_line_shows_only_what_is_not_the_default() {
        assert_eq!(time_line(&Settings::default(), []), None);
        let mut settings =
            Settings { time_margin: Duration::from_millis(50), ..Settings::default() };
        let time = Command::parse_from(["arena", "--bank", "10s"]).time;
        settings.time_control = time.keys().over(settings.time_control).unwrap();
        time.apply_leeway(&mut settings);
        let handicap = TimeControl::PerMove { limit: Duration::from_millis(300) };
        assert_eq!(
            time_line(&settings, [("weak", handicap)]).unwrap(),
            "time: clock 10s; bot `weak`: 300ms per move; margin 50ms"
        );
    }
}
