//! A tournament file's TOML syntax errors, told in the file's terms where
//! the parser's words do not say what to do: a key given twice, and the
//! bot tables written `[bot]` that cause it.

use super::check::Problem;

/// The problems of `text`, whose TOML parser reported `errors`.
/// `is_bot_key` tells the keys of a `[[bot]]` table.
pub(super) fn problems(
    text: &str,
    errors: Vec<toml::de::Error>,
    is_bot_key: impl Fn(&str) -> bool,
) -> Vec<Problem> {
    let mut problems: Vec<Problem> = errors
        .into_iter()
        .map(|error| {
            let span = error.span().unwrap_or(0..0);
            let message = match error.message().starts_with(DUPLICATE) {
                true => duplicate_key(text.get(span.clone()).unwrap_or_default(), &is_bot_key)
                    .unwrap_or_else(|| error.message().to_owned()),
                false => error.message().to_owned(),
            };
            Problem { span, message }
        })
        .collect();
    // The duplicate keys from a `[bot]` on are its consequence.
    let bots = single_bracket_bots(text);
    if let Some(from) = bots.first().map(|bot| bot.span.start) {
        let caused =
            |problem: &Problem| problem.span.start >= from && problem.message.contains(TWICE);
        if problems.iter().any(caused) {
            problems.retain(|problem| !caused(problem));
            problems.extend(bots);
            problems.sort_by_key(|problem| problem.span.start);
        }
    }
    problems
}

/// How the parser begins the error for a key or table given twice.
const DUPLICATE: &str = "duplicate key";

/// What every message about a key given twice says.
const TWICE: &str = "is given twice";

/// The message for `written`, a key given twice in one table (a bot key
/// most often because a bot's `[[bot]]` line is missing).
fn duplicate_key(written: &str, is_bot_key: impl Fn(&str) -> bool) -> Option<String> {
    let key = written.trim().trim_matches(|c| c == '[' || c == ']').trim();
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return None;
    }
    Some(match is_bot_key(key) {
        true => format!(
            "duplicate key: `{key}` {TWICE} in one table: each bot's keys follow a [[bot]] line of their own"
        ),
        false => format!("duplicate key: `{key}` {TWICE} in one table: keep one"),
    })
}

/// The `[bot]` headers of a file with more than one bot table, which the
/// TOML parser refuses as a "duplicate key" (a table defined twice): the
/// mistake is the single brackets, told where they are.
fn single_bracket_bots(text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or_default();
        let header = code.trim().strip_prefix('[').and_then(|inner| inner.strip_suffix(']'));
        if header.is_some_and(|name| name.trim() == "bot") {
            let start = offset + (code.len() - code.trim_start().len());
            problems.push(Problem {
                span: start..start + code.trim().len(),
                message: "bot: `[bot]` makes a single table, which a second bot cannot share (its keys come out as duplicates): write [[bot]], with two brackets, before each bot".to_owned(),
            });
        }
        offset += line.len();
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::super::check::tests::{BOT, problems};

    #[test]
    fn bot_tables_with_single_brackets_are_told_to_take_two() {
        const TOLD: &str = "bot: `[bot]` makes a single table, which a second bot cannot share (its keys come out as duplicates): write [[bot]], with two brackets, before each bot";
        let two = "game = \"number-snatch\"\n[bot]\nname = \"a\"\ncommand = [\"a\"]\n\n[bot]\nname = \"b\"\ncommand = [\"b\"]\n";
        assert_eq!(problems(two), [(2, TOLD.to_owned()), (6, TOLD.to_owned())]);
        let mixed =
            format!("game = \"number-snatch\"\n{BOT}  [ bot ]  # the second\nname = \"b\"\n");
        assert_eq!(problems(&mixed), [(6, TOLD.to_owned())]);
        let first = format!("game = \"number-snatch\"\n[bot]\nname = \"b\"\n{BOT}");
        assert_eq!(problems(&first), [(2, TOLD.to_owned())]);
        // Another table defined twice is the parser's to tell.
        let sprt = format!("game = \"number-snatch\"\n[sprt]\n[sprt]\n{BOT}");
        assert!(problems(&sprt).iter().all(|(_, message)| message.starts_with("duplicate key")));
        let before = format!("game = \"number-snatch\"\nseed = 1\nseed = 2\n[bot]\n{BOT}");
        let found = problems(&before);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].0 == 3 && found[0].1.starts_with("duplicate key"), "{found:?}");
        assert_eq!(found[1], (4, TOLD.to_owned()));
    }

    #[test]
    fn a_key_given_twice_is_named_and_a_missing_bot_line_suggested() {
        let text = format!("game = \"number-snatch\"\nseed = 1\n{BOT}name = \"b\"\n");
        assert_eq!(
            problems(&text),
            [
                (7, "duplicate key: `name` is given twice in one table: each bot's keys follow a [[bot]] line of their own".to_owned()),
            ]
        );
        let top = "game = \"number-snatch\"\nseed = 1\nseed = 2\n";
        assert_eq!(
            problems(top),
            [(3, "duplicate key: `seed` is given twice in one table: keep one".to_owned())]
        );
    }
}
