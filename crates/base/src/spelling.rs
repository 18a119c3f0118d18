//! A name suggested for one misspelt: what "did you mean" messages offer,
//! for a tournament file's keys and a game's parameters alike.

/// The name of `names` closest to `written`, if one is close enough to be
/// what was meant (a third of its letters wrong at most, or two).
pub fn closest<'a>(written: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names
        .into_iter()
        .map(|name| (strsim::damerau_levenshtein(written, name), name))
        .min()
        .filter(|(distance, name)| *distance <= (name.len() / 3).max(2))
        .map(|(_, name)| name)
}

/// A serde message of an unknown field ("unknown field `max_turn`,
/// expected one of `name`, `max_turns`") with the field it was likely
/// meant to be named first; any other message as it is.
pub fn suggest_field(message: String) -> String {
    let Some((field, expected)) =
        message.strip_prefix("unknown field `").and_then(|rest| rest.split_once("`, expected "))
    else {
        return message;
    };
    // A name of a letter or two is as near to many as to the one meant.
    if field.chars().count() < 3 {
        return message;
    }
    // The expected names are the words between backticks.
    let names = expected.split('`').skip(1).step_by(2);
    match closest(field, names) {
        Some(near) => {
            format!("unknown field `{field}`: did you mean `{near}`? (expected {expected})")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::{closest, suggest_field};

    #[test]
    fn an_unknown_field_is_told_the_near_one() {
        let said = suggest_field(
            "unknown field `max_turn`, expected one of `name`, `max_turns`, `params`".to_owned(),
        );
        assert_eq!(
            said,
            "unknown field `max_turn`: did you mean `max_turns`? (expected one of `name`, `max_turns`, `params`)"
        );
        let far = "unknown field `depth`, expected `name` or `seats`".to_owned();
        assert_eq!(suggest_field(far.clone()), far);
        let short = "unknown field `id`, expected one of `min`, `max`, `name`".to_owned();
        assert_eq!(suggest_field(short.clone()), short);
        assert_eq!(suggest_field("missing field `x`".to_owned()), "missing field `x`");
    }

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let names = ["stones", "take", "games_per_pair"];
        assert_eq!(closest("stone", names), Some("stones"));
        assert_eq!(closest("games_per_pairs", names), Some("games_per_pair"));
        assert_eq!(closest("depth", names), None);
    }
}
