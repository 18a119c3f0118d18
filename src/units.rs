//! Units a user types: durations such as `500ms` or `5s`.

use std::time::Duration;

/// The longest time limit arena takes: a day. Far beyond any game, and
/// short enough that a deadline computed from it never overflows a clock.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// Parses a time limit such as "500ms", "5s" or "1m 30s"; zero and more
/// than [`MAX_DURATION`] are refused.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration_or_zero(text)?;
    if duration.is_zero() {
        return Err("a time limit must be more than zero".to_owned());
    }
    Ok(duration)
}

/// Like [`parse_duration`], for a time that may be none at all (an
/// increment, a margin): `0s` is taken.
pub fn parse_duration_or_zero(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text)
        .map_err(|error| format!("`{text}` is not a duration like 500ms or 5s ({error})"))?;
    if duration > MAX_DURATION {
        return Err(format!("`{text}` is longer than the longest time limit, 24h"));
    }
    Ok(duration)
}

/// A duration as users write one, to the millisecond (to the microsecond
/// below one): `1s 500ms`, `10s`, `412us`.
pub fn show_duration(duration: Duration) -> String {
    if duration.is_zero() {
        return "0ms".to_owned();
    }
    if duration < Duration::from_millis(1) {
        return format!("{}us", duration.as_micros());
    }
    let millis = Duration::from_millis(duration.as_millis().try_into().unwrap_or(u64::MAX));
    humantime::format_duration(millis).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_human_units() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("0s").is_err());
        assert_eq!(parse_duration("24h").unwrap(), MAX_DURATION);
        assert!(parse_duration("25h").unwrap_err().contains("24h"));
        assert!(parse_duration("500000000000y").is_err());
        assert_eq!(parse_duration_or_zero("0s").unwrap(), Duration::ZERO);
        assert!(parse_duration_or_zero("25h").is_err());
    }

    #[test]
    fn durations_show_as_they_are_written() {
        assert_eq!(show_duration(Duration::from_millis(1500)), "1s 500ms");
        assert_eq!(show_duration(Duration::from_micros(10_000_900)), "10s");
        assert_eq!(show_duration(Duration::from_micros(900)), "900us");
        assert_eq!(show_duration(Duration::ZERO), "0ms");
    }
}
