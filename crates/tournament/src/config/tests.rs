use std::path::Path;
use std::time::Duration;

use super::*;
use crate::sprt::DEFAULT_MAX_GAMES;
use arena_games::GameId;
use arena_referee::TimeControl;

const GOOD: &str = r#"
game = "number-snatch"
seed = 3
games_per_pair = 4
move_timeout = "200ms"

[params]
count = 12

[[bot]]
name = "a"
command = ["sh", "-c", "true"]

[[bot]]
name = "b"
command = ["cat"]
env = { LEVEL = "3" }
"#;

fn parse(text: &str) -> Result<Tournament, ConfigError> {
    Tournament::parse(Path::new("t.toml"), text, None)
}

#[test]
fn a_good_file_reads_with_defaults_filled_in() {
    let tournament = parse(GOOD).unwrap();
    assert_eq!(tournament.setup.game().builtin(), Some(GameId::NumberSnatch));
    assert_eq!(tournament.games_per_pair, 4);
    assert_eq!(
        tournament.settings.time_control,
        TimeControl::PerMove { limit: Duration::from_millis(200) }
    );
    assert_eq!(tournament.settings.time_margin, Duration::ZERO);
    assert_eq!(tournament.bots[0].time_control, None);
    assert_eq!(tournament.settings.startup_timeout, Duration::from_secs(5));
    assert_eq!(tournament.concurrency, 1);
    assert_eq!(tournament.out, Path::new("results/t"));
    assert_eq!(tournament.bots[1].env["LEVEL"], "3");
    assert_eq!(tournament.setup.overrides()["count"], 12);
}

#[test]
fn paths_are_tidied_of_steps_back() {
    use super::parse::tidy;
    // Tests run in the package's folder, which holds tournaments/.
    assert_eq!(tidy(Path::new("tournaments/../results/demo")), Path::new("results/demo"));
    assert_eq!(tidy(Path::new("no-such/../x/./y")), Path::new("x/y"));
    assert_eq!(tidy(Path::new("results/demo")), Path::new("results/demo"));
    let outside = tidy(Path::new("../elsewhere"));
    assert!(outside.is_absolute() && outside.ends_with("elsewhere"), "{outside:?}");
}

/// The check that runs first (check.rs) knows every key the reader takes,
/// and no other: serde's refusal of an unknown key lists them.
#[test]
fn the_file_check_knows_the_keys_the_reader_takes() {
    use super::raw::{RawBot, RawSprt, RawTournament};
    fn keys_of<T: serde::de::DeserializeOwned>(text: &str) -> Vec<String> {
        let error = toml::from_str::<T>(text).err().expect("an unknown key").to_string();
        let listed = error.split("expected one of ").nth(1).expect("the keys").lines().next();
        let mut keys: Vec<String> = listed
            .unwrap_or_default()
            .split(", ")
            .map(|key| key.trim().trim_matches('`').to_owned())
            .collect();
        keys.sort();
        keys
    }
    let [file, bot, sprt] = super::check::known_keys().map(|mut keys| {
        keys.sort();
        keys
    });
    assert_eq!(keys_of::<RawTournament>("xyzzy = 1"), file);
    assert_eq!(keys_of::<RawBot>("xyzzy = 1"), bot);
    assert_eq!(keys_of::<RawSprt>("xyzzy = 1"), sprt);
}

fn error_of(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn errors_name_the_file_line_and_key() {
    let error = error_of(&GOOD.replace("games_per_pair = 4", "games_per_pair = 3"));
    assert!(error.starts_with("t.toml:4:") && error.contains("games_per_pair"), "{error}");
    let error = error_of(&GOOD.replace("seed = 3", "sed = 3"));
    assert!(error.starts_with("t.toml:3:") && error.contains("sed"), "{error}");
    let error = error_of(&GOOD.replace("seed = 3", "seed = \"x\""));
    assert!(
        error.starts_with(
            "t.toml:3:8: seed: expected a whole number, such as 20, got the string \"x\""
        ),
        "{error}"
    );
    let error = error_of(&GOOD.replace("[\"cat\"]", "[\"cat\", 4]"));
    assert!(
        error.starts_with("t.toml:16:")
            && error.contains("[[bot]] 2 (`b`), command: item 2 is the number 4"),
        "{error}"
    );
    let error = error_of(&GOOD.replace("number-snatch", "chess"));
    assert!(error.starts_with("t.toml:2:") && error.contains("number-duel"), "{error}");
    let error = error_of(&GOOD.replace("count = 12", "colour = 12"));
    assert!(error.starts_with("t.toml:8:10: ") && error.contains("`colour`"), "{error}");
    let error = error_of(&GOOD.replace("count = 12", "max = 30\ncount = \"x\""));
    assert!(
        error.starts_with("t.toml:9:9: ")
            && error.ends_with(
                "params: parameter `count` of number-snatch: expected a whole number, got \"x\""
            ),
        "{error}"
    );
    let error = error_of(&GOOD.replace("name = \"b\"", "name = \"a\""));
    assert!(error.starts_with("t.toml:15:") && error.contains("used twice"), "{error}");
    let error = error_of(&GOOD.replace("name = \"b\"", "name = \" \""));
    assert!(error.contains("empty"), "{error}");
    let error = error_of(&GOOD.replace("[\"cat\"]", "[\"no-such-program-here\"]"));
    assert!(
        error.starts_with("t.toml:16:")
            && error.contains("bot `b`")
            && error.contains("no-such-program-here"),
        "{error}"
    );
    let error = error_of(&GOOD.replace("move_timeout = \"200ms\"", "move_timeout = \"fast\""));
    assert!(error.starts_with("t.toml:5:") && error.contains("move_timeout"), "{error}");
}

/// GOOD with a clock instead of its limit per move, and `bot_b`'s keys
/// in the second bot's table.
fn with_clock(top: &str, bot_b: &str) -> String {
    GOOD.replace("move_timeout = \"200ms\"", top)
        .replace("env = { LEVEL = \"3\" }", &format!("env = {{ LEVEL = \"3\" }}\n{bot_b}"))
}

#[test]
fn a_clock_a_margin_and_a_handicap_read_from_their_keys() {
    let ms = Duration::from_millis;
    let text = with_clock(
        "time_control = \"clock\"\nbank = \"10s\"\nincrement = \"100ms\"\ntime_margin = \"50ms\"",
        "bank = \"5s\"",
    );
    let tournament = parse(&text).unwrap();
    let clock = |bank, increment| {
        TimeControl::Clock(arena_referee::GameClock {
            bank: ms(bank),
            increment: ms(increment),
            move_cap: None,
        })
    };
    assert_eq!(tournament.settings.time_control, clock(10_000, 100));
    assert_eq!(tournament.settings.time_margin, ms(50));
    assert_eq!(tournament.bots[0].time_control, None);
    assert_eq!(tournament.bots[1].time_control, Some(clock(5000, 100)), "the rest inherited");

    // The command line changes the file's keys; the bot's own still apply.
    let mut changed = tournament.clone();
    let flags = TimeKeys { increment: Some(Duration::ZERO), ..TimeKeys::default() };
    changed.change_time_control(&flags).unwrap();
    assert_eq!(changed.settings.time_control, clock(10_000, 0));
    assert_eq!(changed.bots[1].time_control, Some(clock(5000, 0)));
    let mut per_move = tournament.clone();
    let flags = TimeKeys { move_timeout: Some(ms(300)), ..TimeKeys::default() };
    per_move.change_time_control(&flags).unwrap();
    assert_eq!(per_move.settings.time_control, TimeControl::PerMove { limit: ms(300) });
    assert_eq!(per_move.bots[1].time_control, Some(clock(5000, 0)), "its bank alone");

    let mut inherits_the_bank =
        parse(&with_clock("bank = \"10s\"", "time_control = \"clock\"\nincrement = \"1s\""))
            .unwrap();
    assert_eq!(inherits_the_bank.bots[1].time_control, Some(clock(10_000, 1000)));
    let error = inherits_the_bank.change_time_control(&flags).unwrap_err();
    assert!(error.starts_with("bot `b`: `time_control` makes a game clock"), "{error}");
    assert!(error.ends_with("(over the time control the command line sets)"), "{error}");

    let handicap = parse(&with_clock("", "move_timeout = \"50ms\"")).unwrap();
    assert_eq!(handicap.settings.time_control, TimeControl::default());
    assert_eq!(handicap.bots[1].time_control, Some(TimeControl::PerMove { limit: ms(50) }));
}

#[test]
fn time_keys_that_make_no_control_are_named_with_their_place() {
    let error = error_of(&with_clock("increment = \"1s\"", ""));
    assert!(
        error.starts_with("t.toml:5:13: `increment` makes a game clock, which needs `bank`"),
        "{error}"
    );
    let error = error_of(&with_clock("bank = \"5s\"\nmove_timeout = \"1s\"", ""));
    assert!(
        error.starts_with("t.toml:6:")
            && error.contains("`move_timeout` is the limit of a per-move time control")
            && error.contains("`move_cap`"),
        "{error}"
    );
    let error = error_of(&with_clock("bank = \"0s\"", ""));
    assert!(error.starts_with("t.toml:5:8: bank: a time limit must be more than zero"), "{error}");
    let error = error_of(&with_clock("time_control = \"sundial\"", ""));
    assert!(error.starts_with("t.toml:5:") && error.contains("time_control"), "{error}");
    let error = error_of(&with_clock("time_margin = \"soon\"", ""));
    assert!(error.starts_with("t.toml:5:") && error.contains("time_margin: "), "{error}");
    let error = error_of(&with_clock("", "time_control = \"clock\""));
    assert!(
        error.starts_with("t.toml:18:16: bot `b`: `time_control` makes a game clock"),
        "{error}"
    );
    let error = error_of(&with_clock("", "increment = \"fast\""));
    assert!(error.starts_with("t.toml:18:13: [[bot]] 2 (`b`), increment: `fast`"), "{error}");
}

#[test]
fn openings_are_read_beside_the_file_and_set_games_per_pair() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join("openings")).unwrap();
    let openings = folder.path().join("openings/o.jsonl");
    std::fs::write(&openings, "{\"seed\": 5}\n{\"params\": {\"count\": 4}}\n").unwrap();
    let text = GOOD.replace("games_per_pair = 4\n", "openings = \"openings/o.jsonl\"\n");
    let file = folder.path().join("t.toml");
    let tournament = Tournament::parse(&file, &text, None).unwrap();
    assert_eq!(tournament.games_per_pair, 4, "each setup in both seat orders");
    assert_eq!(tournament.setup_of(1), &tournament.setup);
    assert_eq!(tournament.setup.overrides()["count"], 12);
    assert_eq!(tournament.setup_of(2).overrides()["count"], 4, "the entry's over the file's");
    assert_eq!(tournament.setup_of(3), &tournament.setup, "cycled");
    let schedule = tournament.schedule();
    let seeds: Vec<u64> = schedule.iter().map(|game| game.seed).collect();
    assert_eq!(seeds[..2], [5, 5]);
    assert_eq!(seeds[2], tournament.setup_seeds().seed(1));

    // A line of the openings file that is wrong is named, with its field.
    std::fs::write(&openings, "{\"seed\": 5}\n{\"params\": {\"count\": \"x\"}}\n").unwrap();
    let error = Tournament::parse(&file, &text, None).unwrap_err().to_string();
    assert!(error.starts_with(&format!("{}:2:", openings.display())), "{error}");
    assert!(
        error.contains("parameter `count` of number-snatch: expected a whole number"),
        "{error}"
    );
    // A missing one is named where the tournament file names it.
    let text = text.replace("o.jsonl", "missing.jsonl");
    let error = Tournament::parse(&file, &text, None).unwrap_err().to_string();
    assert!(error.starts_with(&format!("{}:4:", file.display())), "{error}");
    assert!(error.contains("openings: cannot read") && error.contains("missing.jsonl"), "{error}");
}

#[test]
fn overrides_replace_the_files_values() {
    let mut tournament = parse(GOOD).unwrap();
    Overrides::default().apply(&mut tournament);
    assert_eq!((tournament.seed, tournament.games_per_pair, tournament.concurrency), (3, 4, 1));
    let overrides = Overrides { seed: Some(8), games_per_pair: Some(10), concurrency: Some(2) };
    overrides.apply(&mut tournament);
    assert_eq!((tournament.seed, tournament.games_per_pair, tournament.concurrency), (8, 10, 2));
    assert!(check_games_per_pair(3).is_err() && check_games_per_pair(0).is_err());
    assert!(check_concurrency(0).is_err() && check_concurrency(MAX_CONCURRENCY + 1).is_err());
}

#[test]
fn challengers_make_a_gauntlet_and_must_be_bots() {
    let three = format!("{GOOD}\n[[bot]]\nname = \"c\"\ncommand = [\"cat\"]\n");
    let gauntlet = parse(&three.replace("seed = 3", "seed = 3\nchallengers = [\"c\"]")).unwrap();
    assert_eq!(gauntlet.challengers, [2]);
    assert_eq!(gauntlet.schedule().len(), 2 * 4, "c plays a and b, who do not meet");
    let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"x\"]"));
    assert!(
        error.starts_with("t.toml:4:") && error.contains("challengers: no [[bot]] is named `x`"),
        "{error}"
    );
    let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"a\", \"b\"]"));
    assert!(error.starts_with("t.toml:4:") && error.contains("field"), "{error}");
    let error = error_of(&GOOD.replace("seed = 3", "seed = 3\nchallengers = [\"a\", \"a\"]"));
    assert!(error.contains("named twice"), "{error}");
}

#[test]
fn an_sprt_table_is_checked_and_sets_the_most_games() {
    let without_count = GOOD.replace("games_per_pair = 4\n", "");
    let with_table =
        |table: &str| without_count.replace("[params]", &format!("[sprt]\n{table}\n\n[params]"));
    let tournament = parse(&with_table("elo1 = 5\nmax_games = 400")).unwrap();
    let settings = tournament.sprt.unwrap();
    assert_eq!((settings.elo0, settings.elo1, settings.alpha), (0.0, 5.0, 0.05));
    assert_eq!(tournament.games_per_pair, 400);
    assert_eq!(parse(&with_table("")).unwrap().games_per_pair, DEFAULT_MAX_GAMES);
    let error = error_of(&with_table("elo0 = 5\nelo1 = 5"));
    assert!(
        error.starts_with("t.toml:") && error.contains("sprt: elo0 (5) must be less than elo1 (5)"),
        "{error}"
    );
    let error = error_of(&with_table("max_games = 3"));
    assert!(error.contains("sprt.max_games") && error.contains("even"), "{error}");
    let error = error_of(&with_table("elo2 = 3"));
    assert!(error.contains("elo2"), "{error}");
    let error = error_of(&GOOD.replace("[params]", "[sprt]\n\n[params]"));
    assert!(error.starts_with("t.toml:4:") && error.contains("max_games"), "{error}");
    let three = format!("{}\n[[bot]]\nname = \"c\"\ncommand = [\"cat\"]\n", with_table(""));
    assert!(error_of(&three).contains("exactly two bots"));
}

#[test]
fn fewer_than_two_bots_is_refused() {
    let one_bot = &GOOD[..GOOD.rfind("[[bot]]").unwrap()];
    assert!(error_of(one_bot).contains("at least two"));
}

#[test]
fn a_built_bot_needs_a_folder_and_may_be_unbuilt_when_read() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join("cpp")).unwrap();
    std::fs::write(folder.path().join("cpp/build.sh"), "g++ -o bot bot.cpp\n").unwrap();
    let file = folder.path().join("t.toml");
    let parse = |bot: &str| {
        Tournament::parse(&file, &format!("{GOOD}\n[[bot]]\nname = \"c\"\n{bot}\n"), None)
            .map_err(|error| error.to_string())
    };
    // Its program is made by its build: not there yet, and that is fine.
    let tournament = parse("dir = \"cpp\"\nbuild = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]")
        .expect("a bot to build");
    let bot = &tournament.bots[2];
    assert_eq!(bot.build.as_deref(), Some(&["sh".to_owned(), "build.sh".to_owned()][..]));
    let build = bot.build_command().unwrap();
    let real = folder.path().join("cpp").canonicalize().unwrap();
    assert_eq!(build.dir.as_deref(), Some(real.as_path()));
    // A folder named through `..` is resolved: a bot's box holds the
    // folders on the way to its own, not those a `..` passes through.
    let tournament =
        parse("dir = \"cpp/../cpp\"\nbuild = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]")
            .expect("a folder through ..");
    assert_eq!(tournament.bots[2].dir, real);
    // Without a build, a missing program is refused as before.
    let error = parse("dir = \"cpp\"\ncommand = [\"./bot\"]").unwrap_err();
    assert!(
        error.contains("bot `c`: command: program") && error.contains("does not exist"),
        "{error}"
    );
    let error = parse("build = [\"sh\", \"build.sh\"]\ncommand = [\"./bot\"]").unwrap_err();
    assert!(error.contains(":21:") && error.contains("`build` needs `dir`"), "{error}");
    let error = parse("dir = \"cpp\"\nbuild = []\ncommand = [\"./bot\"]").unwrap_err();
    assert!(error.contains("bot `c`: build is empty"), "{error}");
    let error =
        parse("dir = \"cpp\"\nbuild = [\"./missing.sh\"]\ncommand = [\"./bot\"]").unwrap_err();
    assert!(error.contains("bot `c`: build: program") && error.contains("missing.sh"), "{error}");
}
