//! Units a user types: durations such as `500ms` or `5s`, and sizes such
//! as `512MiB`.

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

/// A size as people write it: `1 GiB`, `64 MiB`, `512 KiB`, `100 bytes`.
pub fn show_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] =
        [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{} {unit}", bytes / size);
        }
    }
    for (unit, size) in UNITS {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// Reads a size: a whole number of bytes with an optional unit, `512MiB`,
/// `1 GiB`, `64MB` (decimal units are powers of ten).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (write e.g. 512MiB or 1GiB)"))?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "`{text}`: unknown unit `{other}` (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)"
            ));
        }
    };
    number.checked_mul(multiplier).ok_or_else(|| format!("`{text}` is too large"))
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

    #[test]
    fn sizes_read_and_show() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size(" 64 MiB "), Ok(64 << 20));
        assert_eq!(parse_size("10MB"), Ok(10_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
        assert!(parse_size("99999999999999TiB").is_err());
        assert_eq!(show_size(1 << 30), "1 GiB");
        assert_eq!(show_size(1536 << 20), "1536 MiB");
        assert_eq!(show_size(1_610_612_737), "1.5 GiB");
        assert_eq!(show_size(100), "100 bytes");
    }
}
