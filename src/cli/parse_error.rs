//! A command-line error clap found, with a tip where arena can tell what
//! was meant.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// `error`, with a tip when a subcommand whose commands are each one
/// argument (`match`, `sprt`, `play`) got a word too many: a command of
/// several words typed without quotes (`arena match number-snatch python3
/// -u my_bot.py ...`) leaves its later words over. clap alone would only
/// say that the word was unexpected (and, for `-u`, suggest passing it
/// after `--`). A mistyped option that clap recognises keeps its own "a
/// similar argument exists". `sprt --league`, by analogy with `gauntlet
/// --league`, is told where a test from a file is written instead. `args`
/// are the words `arena` was given.
pub fn with_tip(mut error: clap::Error, args: &[OsString]) -> clap::Error {
    if error.kind() != ErrorKind::UnknownArgument || error.get(ContextKind::SuggestedArg).is_some()
    {
        return error;
    }
    let subcommand = args.get(1).and_then(|word| word.to_str());
    let unexpected = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(word)) => word.as_str(),
        _ => "",
    };
    if subcommand == Some("sprt") && unexpected.split('=').next() == Some("--league") {
        let tip = "`arena sprt` takes its two bots' commands; to test from a tournament file, give it an `[sprt]` table and exactly two bots, the new one first (tournaments/README.md), and run `arena run FILE`";
        error.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
        return error;
    }
    let example = match subcommand {
        Some("match") => "arena match number-snatch \"python3 my_bot.py\" \"node other_bot.js\"",
        Some("sprt") => {
            "arena sprt \"python3 new_bot.py\" \"python3 old_bot.py\" --game number-snatch"
        }
        Some("play") => "arena play \"python3 game.py\" --vs \"python3 my_bot.py\"",
        _ => return error,
    };
    let tip = format!(
        "each command is one argument: put a command of several words in quotes, as in `{example}`"
    );
    // In place of clap's own tip for a word such as `-u` (pass it after
    // `--`), which would make it a command of its own.
    error.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    error
}
