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

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let names = ["stones", "take", "games_per_pair"];
        assert_eq!(closest("stone", names), Some("stones"));
        assert_eq!(closest("games_per_pairs", names), Some("games_per_pair"));
        assert_eq!(closest("depth", names), None);
    }
}
