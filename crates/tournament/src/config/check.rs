//! A tournament file checked against the keys it may hold, before its
//! values are read: every unknown key (with the key it most likely means),
//! every value of the wrong kind or form (said in the file's terms, with
//! the line to write instead), all at once, each where it is in the file.
//! What needs more than one value to judge (a bot named twice, a clock
//! without a bank) is checked after, when the file is read.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::ConfigError;
use arena_base::units::{parse_duration_or_zero, parse_size};
use arena_games::GameId;

/// One mistake: where it is (bytes of the file) and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) span: Range<usize>,
    pub(super) message: String,
}

/// What a key's value must be, in the terms a user writes it.
#[derive(Clone, Copy)]
enum Expect {
    /// A string; the words say what it names, e.g. "a path".
    Text(&'static str),
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A game id.
    Game,
    /// A duration in quotes: "500ms", "5s".
    Duration,
    /// A size in quotes: "512MiB".
    Size,
    /// A whole number.
    Whole,
    /// Any number.
    Number,
    Bool,
    /// `true`, `false` or "required".
    Sandbox,
    /// A list of strings; the words say what they are.
    Texts(&'static str),
    /// A table of any keys (game parameters).
    AnyTable,
    /// A table whose values are strings (environment variables).
    TableOfTexts,
    /// A table of these keys.
    Table(&'static str, &'static [Key]),
    /// A list of tables of these keys, written `[[name]]`.
    Tables(&'static [Key]),
}

/// A value written with its unit, and how a bare number is read.
struct Quantity {
    what: &'static str,
    examples: &'static str,
    /// The unit a bare number most likely meant.
    unit: &'static str,
    unit_words: &'static str,
    parse: fn(&str) -> Result<(), String>,
}

impl Quantity {
    const DURATION: Quantity = Quantity {
        what: "duration",
        examples: "\"500ms\" or \"5s\"",
        unit: "ms",
        unit_words: "milliseconds",
        parse: |text| parse_duration_or_zero(text).map(drop),
    };
    const SIZE: Quantity = Quantity {
        what: "size",
        examples: "\"512MiB\" or \"2GiB\"",
        unit: "MiB",
        unit_words: "mebibytes",
        parse: |text| parse_size(text).map(drop),
    };
}

/// A key a table may hold.
#[derive(Clone, Copy)]
struct Key {
    name: &'static str,
    expect: Expect,
}

const fn key(name: &'static str, expect: Expect) -> Key {
    Key { name, expect }
}

const CONTROLS: &[&str] = &["per-move", "clock"];

const BOT_KEYS: &[Key] = &[
    key("name", Expect::Text("a name")),
    key("command", Expect::Texts("the program and its arguments")),
    key("build", Expect::Texts("the build program and its arguments")),
    key("dir", Expect::Text("a path")),
    key("read_paths", Expect::Texts("paths")),
    key("env", Expect::TableOfTexts),
    key("version", Expect::Text("a version")),
    key("time_control", Expect::OneOf(CONTROLS)),
    key("move_timeout", Expect::Duration),
    key("bank", Expect::Duration),
    key("increment", Expect::Duration),
    key("move_cap", Expect::Duration),
];

const SPRT_KEYS: &[Key] = &[
    key("elo0", Expect::Number),
    key("elo1", Expect::Number),
    key("alpha", Expect::Number),
    key("beta", Expect::Number),
    key("payoff0", Expect::Number),
    key("payoff1", Expect::Number),
    key("max_games", Expect::Whole),
];

/// Every key of a tournament file (tournaments/README.md documents them).
const FILE_KEYS: &[Key] = &[
    key("game", Expect::Game),
    key("game_command", Expect::Texts("the game program and its arguments")),
    key("game_dir", Expect::Text("a path")),
    key("game_timeout", Expect::Duration),
    key("params", Expect::AnyTable),
    key("openings", Expect::Text("a path")),
    key("seed", Expect::Whole),
    key("games_per_pair", Expect::Whole),
    key("startup_timeout", Expect::Duration),
    key("move_timeout", Expect::Duration),
    key("time_control", Expect::OneOf(CONTROLS)),
    key("bank", Expect::Duration),
    key("increment", Expect::Duration),
    key("move_cap", Expect::Duration),
    key("time_margin", Expect::Duration),
    key("concurrency", Expect::Whole),
    key("withdraw_after", Expect::Whole),
    key("out", Expect::Text("a path")),
    key("restart", Expect::OneOf(&["after-doubt", "every-game"])),
    key("transcripts", Expect::Bool),
    key("pin", Expect::Bool),
    key("max_line_bytes", Expect::Whole),
    key("stderr_cap", Expect::Whole),
    key("sandbox", Expect::Sandbox),
    key("memory_limit", Expect::Size),
    key("process_limit", Expect::Whole),
    key("cpu_limit", Expect::Duration),
    key("open_files_limit", Expect::Whole),
    key("file_size_limit", Expect::Size),
    key("scratch_limit", Expect::Size),
    key("network", Expect::Bool),
    key("read_paths", Expect::Texts("paths")),
    key("build_network", Expect::Bool),
    key("build_timeout", Expect::Duration),
    key("bot", Expect::Tables(BOT_KEYS)),
    key("challengers", Expect::Texts("bot names")),
    key("sprt", Expect::Table("sprt", SPRT_KEYS)),
];

/// The keys a tournament file may hold at its top, in a `[[bot]]` and in
/// `[sprt]`, for the test that keeps these lists and the file's reader in
/// step.
#[cfg(test)]
pub(super) fn known_keys() -> [Vec<&'static str>; 3] {
    [FILE_KEYS, BOT_KEYS, SPRT_KEYS].map(|keys| keys.iter().map(|key| key.name).collect())
}

/// The problems of `file` (whose text is `text`) as one error: the first
/// at its place, then each other on a line of its own, each with the file,
/// line and column, as a compiler lists them.
pub(super) fn error(file: &Path, text: &str, problems: &[Problem]) -> Option<ConfigError> {
    let mut errors = problems.iter().map(|problem| {
        ConfigError::at(file, text, Some(problem.span.clone()), problem.message.clone())
    });
    let mut first = errors.next()?;
    let others: Vec<String> = errors.map(|error| error.to_string()).collect();
    if !others.is_empty() {
        for other in &others {
            first.message.push('\n');
            first.message.push_str(other);
        }
        first.message.push_str(&format!("\n({} problems in {})", problems.len(), file.display()));
    }
    Some(first)
}

/// Every problem of the tournament file `text`: its TOML syntax first (all
/// that the parser can recover from), then its keys and values.
pub(super) fn check(text: &str) -> Vec<Problem> {
    let (document, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return super::syntax::problems(text, errors, |key| {
            BOT_KEYS.iter().any(|known| known.name == key)
        });
    }
    let mut problems = Vec::new();
    check_table(document.get_ref(), FILE_KEYS, "", &mut problems);
    let has = |key: &str| document.get_ref().keys().any(|name| name.get_ref() == key);
    if !has("game") && !has("game_command") {
        problems.push(Problem {
            span: 0..0,
            message: "game: missing: name the game, e.g. game = \"number-snatch\" (`arena games` lists them), or give a game program's command, game_command = [\"python3\", \"my_game.py\"] (game-protocol.md)".to_owned(),
        });
    }
    if let (Some(game), true) = (document.get_ref().get("game"), has("game_command")) {
        // Said once: whether the id is known is beside the point.
        let span = game.span();
        problems.retain(|problem| problem.span != span);
        problems.push(Problem { span, message: GAME_AND_COMMAND.to_owned() });
    }
    problems.sort_by_key(|problem| problem.span.start);
    problems
}

/// What is wrong with a file that has both `game` and `game_command`.
pub(super) const GAME_AND_COMMAND: &str =
    "give either `game` (a built-in game) or `game_command` (a game program), not both";

/// What `text`, given as `game` but no game's id, most likely means: a
/// game's id misspelt ("did you mean `number-snatch`?"), or a game
/// program's command line, shown as the `game_command` that runs it
/// (`["python3", "game.py"]`; a program alone named by its path, as
/// commands name one not looked up in PATH).
fn meant_game(text: &str) -> Option<String> {
    let ids = GameId::ALL.iter().map(|id| id.as_str());
    if let Some(id) = arena_base::spelling::closest(text, ids) {
        return Some(format!("did you mean `{id}`?"));
    }
    if !text.contains(['/', '.']) && !text.contains(char::is_whitespace) {
        return None;
    }
    let mut words = shell_words::split(text).ok().filter(|words| !words.is_empty())?;
    if words.len() == 1 && !words[0].contains('/') {
        words[0] = format!("./{}", words[0]);
    }
    let quoted: Vec<String> =
        words.into_iter().map(|word| toml::Value::String(word).to_string()).collect();
    Some(format!(
        "a game program is given by its command: game_command = [{}] (game-protocol.md)",
        quoted.join(", ")
    ))
}

/// Checks each key of `table` against `keys`; `prefix` names the table in
/// messages ("[sprt], ", "[[bot]] 2 (`alpha`), ").
fn check_table(table: &DeTable<'_>, keys: &[Key], prefix: &str, problems: &mut Vec<Problem>) {
    for (name, value) in table.iter() {
        let written = name.get_ref().as_ref();
        match keys.iter().find(|key| key.name == written) {
            Some(key) => check_value(key, value, prefix, problems),
            None => problems.push(Problem {
                span: name.span(),
                message: format!("{prefix}{}", unknown_key(written, keys)),
            }),
        }
    }
}

/// "unknown key `games_per_pairs`: did you mean `games_per_pair`?"
fn unknown_key(written: &str, keys: &[Key]) -> String {
    // A quoted key may hold control characters (`"a\u001b"`): shown escaped.
    let shown = arena_base::printable::printable(written);
    match arena_base::spelling::closest(written, keys.iter().map(|key| key.name)) {
        Some(name) => format!("unknown key `{shown}`: did you mean `{name}`?"),
        None => {
            let known: Vec<&str> = keys.iter().map(|key| key.name).collect();
            format!("unknown key `{shown}` (the keys here are {})", known.join(", "))
        }
    }
}

/// A value in words: "the string \"20\"", "the number 500", "a table".
fn found(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(text) => format!("the string {text:?}"),
        DeValue::Integer(number) => format!("the number {number}"),
        DeValue::Float(number) => format!("the number {number}"),
        DeValue::Boolean(value) => format!("{value}"),
        DeValue::Datetime(when) => format!("the date {when}"),
        DeValue::Array(_) => "a list".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}

fn check_value(key: &Key, value: &Spanned<DeValue<'_>>, prefix: &str, problems: &mut Vec<Problem>) {
    let name = key.name;
    let span = value.span();
    let mut fail = |message: String| {
        problems.push(Problem { span: span.clone(), message: format!("{prefix}{name}: {message}") })
    };
    let text = value.get_ref().as_str();
    let got = found(value.get_ref());
    match key.expect {
        Expect::Text(what) => {
            if text.is_none() {
                fail(format!("expected {what} in quotes, got {got}"));
            }
        }
        Expect::OneOf(words) => match text {
            Some(word) if words.contains(&word) => {}
            _ => fail(format!(
                "expected {}, got {got}",
                words.iter().map(|word| format!("\"{word}\"")).collect::<Vec<_>>().join(" or ")
            )),
        },
        Expect::Game => match text.map(str::parse::<GameId>) {
            Some(Ok(_)) => {}
            Some(Err(error)) => fail(match text.map(meant_game) {
                Some(Some(meant)) => format!("{error}; {meant}"),
                _ => error.to_string(),
            }),
            None => fail(format!(
                "expected a game id in quotes, such as \"number-snatch\", got {got} (`arena games` lists them)"
            )),
        },
        Expect::Duration | Expect::Size => {
            let quantity = match key.expect {
                Expect::Duration => Quantity::DURATION,
                _ => Quantity::SIZE,
            };
            let expected = format!(
                "expected a {} with its unit, in quotes, such as {}",
                quantity.what, quantity.examples
            );
            match (text, value.get_ref()) {
                (Some(text), _) => {
                    if let Err(error) = (quantity.parse)(text) {
                        fail(error);
                    }
                }
                (None, DeValue::Integer(number)) => fail(format!(
                    "{expected}, got {got}: write {name} = \"{number}{}\" for {number} {}",
                    quantity.unit, quantity.unit_words
                )),
                (None, _) => fail(format!("{expected}, got {got}")),
            }
        }
        Expect::Whole => match value.get_ref() {
            DeValue::Integer(_) => {}
            DeValue::String(text) if text.trim().parse::<u64>().is_ok() => fail(format!(
                "expected a whole number, got {got}: write it without quotes, {name} = {}",
                text.trim()
            )),
            _ => fail(format!("expected a whole number, such as 20, got {got}")),
        },
        Expect::Number => match value.get_ref() {
            DeValue::Integer(_) | DeValue::Float(_) => {}
            DeValue::String(text) if text.trim().parse::<f64>().is_ok() => fail(format!(
                "expected a number, got {got}: write it without quotes, {name} = {}",
                text.trim()
            )),
            _ => fail(format!("expected a number, such as 0.05, got {got}")),
        },
        Expect::Bool => match (value.get_ref(), text) {
            (DeValue::Boolean(_), _) => {}
            (_, Some(word @ ("true" | "false"))) => fail(format!(
                "expected true or false, got {got}: write it without quotes, {name} = {word}"
            )),
            _ => fail(format!("expected true or false, got {got}")),
        },
        Expect::Sandbox => match (value.get_ref(), text) {
            (DeValue::Boolean(_), _) | (_, Some("required")) => {}
            _ => fail(format!("expected true, false or \"required\", got {got}")),
        },
        Expect::Texts(what) => match value.get_ref() {
            DeValue::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if item.get_ref().as_str().is_none() {
                        problems.push(Problem {
                            span: item.span(),
                            message: format!(
                                "{prefix}{name}: item {} is {}, where {what} are strings in quotes",
                                index + 1,
                                found(item.get_ref())
                            ),
                        });
                    }
                }
            }
            DeValue::String(line) => {
                let words: Vec<String> =
                    line.split_whitespace().map(|word| format!("{word:?}")).collect();
                fail(format!(
                    "expected a list of {what}, got {got}: write {name} = [{}]",
                    words.join(", ")
                ));
            }
            _ => fail(format!("expected a list of {what}, such as [\"a\", \"b\"], got {got}")),
        },
        Expect::AnyTable => {
            if !matches!(value.get_ref(), DeValue::Table(_)) {
                fail(format!(
                    "expected a table, such as [{name}] with a key per line, or {name} = {{ count = 12 }}, got {got}"
                ));
            }
        }
        Expect::TableOfTexts => match value.get_ref() {
            DeValue::Table(table) => {
                for (variable, item) in table.iter() {
                    if item.get_ref().as_str().is_none() {
                        problems.push(Problem {
                            span: item.span(),
                            message: format!(
                                "{prefix}{name}.{}: expected a string in quotes, got {}",
                                variable.get_ref(),
                                found(item.get_ref())
                            ),
                        });
                    }
                }
            }
            _ => {
                fail(format!("expected a table of strings, such as {{ LEVEL = \"3\" }}, got {got}"))
            }
        },
        Expect::Table(title, keys) => match value.get_ref() {
            DeValue::Table(table) => {
                check_table(table, keys, &format!("{prefix}[{title}], "), problems)
            }
            _ => {
                fail(format!("expected a table, written [{title}] with a key per line, got {got}"))
            }
        },
        Expect::Tables(keys) => match value.get_ref() {
            DeValue::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let label =
                        match item.get_ref().get("name").and_then(|name| name.get_ref().as_str()) {
                            Some(bot) => format!("{prefix}[[{name}]] {} (`{bot}`), ", index + 1),
                            None => format!("{prefix}[[{name}]] {}, ", index + 1),
                        };
                    match item.get_ref() {
                        DeValue::Table(table) => {
                            check_table(table, keys, &label, problems);
                            // A key misspelt into an unknown one is told
                            // once, by its suggestion, not again as missing.
                            // (A key the table knows is closest to itself.)
                            let misspelt = |required: &str| {
                                table.iter().any(|(key, _)| {
                                    let names = keys.iter().map(|known| known.name);
                                    arena_base::spelling::closest(key.get_ref(), names)
                                        == Some(required)
                                })
                            };
                            for required in ["name", "command"] {
                                if name == "bot"
                                    && table.get(required).is_none()
                                    && !misspelt(required)
                                {
                                    problems.push(Problem {
                                        span: item.span(),
                                        message: format!("{label}`{required}`: missing"),
                                    });
                                }
                            }
                        }
                        other => problems.push(Problem {
                            span: item.span(),
                            message: format!(
                                "{prefix}{name}: expected a list of [[{name}]] tables, got {} in it",
                                found(other)
                            ),
                        }),
                    }
                }
            }
            DeValue::Table(_) => fail(format!(
                "expected a list of [[{name}]] tables, got a single table: write [[{name}]], with two brackets, before each {name}"
            )),
            _ => fail(format!(
                "expected a list of [[{name}]] tables (a [[{name}]] line before each), got {got}"
            )),
        },
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The messages of `text`'s problems, with their lines.
    pub(in crate::config) fn problems(text: &str) -> Vec<(usize, String)> {
        check(text)
            .into_iter()
            .map(|problem| (text[..problem.span.start].matches('\n').count() + 1, problem.message))
            .collect()
    }

    pub(in crate::config) const BOT: &str =
        "\n[[bot]]\nname = \"a\"\ncommand = [\"python3\", \"a.py\"]\n";

    #[test]
    fn a_good_file_has_no_problem() {
        let text = format!(
            "game = \"number-snatch\"\nseed = 3\nmove_timeout = \"500ms\"\nsandbox = \"required\"\n[params]\ncount = 4\n[sprt]\nelo1 = 5\n{BOT}"
        );
        assert_eq!(problems(&text), []);
    }

    #[test]
    fn values_of_the_wrong_kind_are_said_in_the_files_terms() {
        let text = format!(
            "game = \"number-snatch\"\ngames_per_pair = \"20\"\nmove_timeout = 500\ntranscripts = \"false\"\nmemory_limit = 512\n{BOT}"
        );
        assert_eq!(
            problems(&text),
            [
                (2, "games_per_pair: expected a whole number, got the string \"20\": write it without quotes, games_per_pair = 20".to_owned()),
                (3, "move_timeout: expected a duration with its unit, in quotes, such as \"500ms\" or \"5s\", got the number 500: write move_timeout = \"500ms\" for 500 milliseconds".to_owned()),
                (4, "transcripts: expected true or false, got the string \"false\": write it without quotes, transcripts = false".to_owned()),
                (5, "memory_limit: expected a size with its unit, in quotes, such as \"512MiB\" or \"2GiB\", got the number 512: write memory_limit = \"512MiB\" for 512 mebibytes".to_owned()),
            ]
        );
    }

    #[test]
    fn a_single_bot_table_is_told_to_take_two_brackets() {
        let text = "game = \"number-snatch\"\n[bot]\nname = \"a\"\ncommand = [\"a\"]\n";
        assert_eq!(
            problems(text),
            [(2, "bot: expected a list of [[bot]] tables, got a single table: write [[bot]], with two brackets, before each bot".to_owned())]
        );
    }

    #[test]
    fn control_characters_of_a_file_are_shown_escaped() {
        let text = "game = \"snatch\\u001b[31m\"\n\"x\\u001b[2J\" = 1\n[[bot]]\nname = \"a\"\ncommand = \"a\"\n";
        let found = problems(text);
        let messages: Vec<&str> = found.iter().map(|(_, message)| message.as_str()).collect();
        assert!(messages.iter().all(|message| !message.contains('\u{1b}')), "{messages:?}");
        assert!(messages[0].contains("unknown game `snatch\\u{1b}[31m`"), "{messages:?}");
        assert!(
            messages[1].starts_with("unknown key `x\\u{1b}[2J` (the keys here are"),
            "{messages:?}"
        );
    }

    #[test]
    fn misspelt_keys_get_a_suggestion_and_every_problem_is_told() {
        let text = "game = \"number-snach\"\ngames_per_pairs = 4\n[[bot]]\nname = \"a\"\ncomand = \"python3 a.py\"\nmove_timeout = \"soon\"\n[sprt]\nmax_game = 10\nxyzzy = 1\n";
        let found = problems(text);
        let messages: Vec<&str> = found.iter().map(|(_, message)| message.as_str()).collect();
        assert!(messages[0].starts_with("game: "), "{messages:?}");
        assert_eq!(messages[1], "unknown key `games_per_pairs`: did you mean `games_per_pair`?");
        // Misspelt, `command` is told once: not also as missing.
        assert!(
            messages.contains(&"[[bot]] 1 (`a`), unknown key `comand`: did you mean `command`?"),
            "{messages:?}"
        );
        assert!(!messages.iter().any(|message| message.ends_with("missing")), "{messages:?}");
        assert!(
            messages.iter().any(|message| message.starts_with("[[bot]] 1 (`a`), move_timeout: "))
        );
        assert!(messages.contains(&"[sprt], unknown key `max_game`: did you mean `max_games`?"));
        assert!(messages.iter().any(|message| {
            message.starts_with("[sprt], unknown key `xyzzy` (the keys here are elo0, elo1")
        }));
        assert_eq!(found.len(), 6, "{found:?}");
        // Left out, it is missing.
        let without = "game = \"number-snatch\"\n[[bot]]\nname = \"a\"\n";
        assert_eq!(problems(without), [(2, "[[bot]] 1 (`a`), `command`: missing".to_owned())]);
    }

    #[test]
    fn a_command_written_as_one_string_is_shown_as_a_list() {
        let text = "game = \"number-snatch\"\n[[bot]]\nname = \"a\"\ncommand = \"python3 a.py\"\n";
        assert_eq!(
            problems(text),
            [(4, "[[bot]] 1 (`a`), command: expected a list of the program and its arguments, got the string \"python3 a.py\": write command = [\"python3\", \"a.py\"]".to_owned())]
        );
    }

    #[test]
    fn syntax_errors_come_first_and_alone() {
        // An unclosed string: the syntax error alone, at its line, and not
        // the `game` it hides told as missing.
        let found = problems("game = \"number-snatch\nseed = 3\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 1, "{found:?}");
        assert!(!found[0].1.contains("missing"), "{found:?}");
        assert!(problems("").iter().any(|(_, message)| message.starts_with("game: missing")));
    }
}
