//! What a finished results folder tells a reader: the Markdown for a pull
//! request or a CI job summary, and the data of the leaderboard page.
//!
//! Both show the standings against the previous run recorded in
//! history.jsonl (the latest one whose standings differ): rank and Elo
//! changes, and bots that are new or a new version since.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use super::export::Summary;
use super::history::{HistoryBot, HistoryEntry};
use super::{GAMES_CSV, TranscriptReader, for_each_row};
use crate::html_page::{Crosstable, HistoryPoint, PageBot, PageData, PageGame};
use crate::rows::GameRow;
use crate::standings::{Standing, signed};

/// The most games whose replays the page embeds (the latest ones): a page
/// of a million-game league would not open. `arena replay` tells any game.
pub const MAX_PAGE_REPLAYS: usize = 2_000;
/// The most games the page lists (the latest ones).
pub const MAX_PAGE_GAMES: usize = 20_000;

/// How a bot stands against the previous run.
enum Change<'a> {
    /// Not in the previous run.
    New,
    /// In it, as another version.
    Changed(&'a HistoryBot),
    /// In it, as the same version.
    Same(&'a HistoryBot),
    /// No previous run.
    Unknown,
}

/// The previous run to compare with: the latest recorded one whose
/// standings differ from these.
fn previous<'a>(summary: &'a Summary<'_>) -> Option<&'a HistoryEntry> {
    let now = HistoryEntry::now(summary.table, summary.settings);
    summary.history.iter().rev().find(|entry| !entry.same_standings(&now))
}

fn change<'a>(
    previous: Option<&'a HistoryEntry>,
    standing: &Standing,
    version: &str,
) -> Change<'a> {
    let Some(previous) = previous else { return Change::Unknown };
    match previous.bots.get(&standing.bot) {
        None => Change::New,
        Some(before) if before.version != version => Change::Changed(before),
        Some(before) => Change::Same(before),
    }
}

fn version_of<'a>(summary: &'a Summary<'_>, bot: &str) -> &'a str {
    summary
        .settings
        .bots
        .iter()
        .find(|recorded| recorded.name == bot)
        .map_or("", |recorded| recorded.short_fingerprint())
}

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

/// `text` as a Markdown code span, where nothing is markup: for what a game
/// program says of itself (its title, its version), which a CI job posts
/// as a comment, where a link, an image, an HTML tag or an @mention in it
/// would otherwise be rendered.
fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // A space between a fence and a backtick of the text, which CommonMark
    // strips again.
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The game's title as the report shows it: a game program's, which it
/// chose itself, as a code span.
fn game_title(settings: &super::RecordedSettings) -> String {
    match &settings.game_program {
        Some(_) => code_span(settings.game_title()),
        None => settings.game_title().to_owned(),
    }
}

/// A bot's rank and Elo change since `before`, and its `mark`.
fn moved(
    before: &HistoryBot,
    standing: &Standing,
    mark: &'static str,
) -> (String, String, &'static str) {
    let rank = match before.rank as i64 - standing.rank as i64 {
        0 => "=".to_owned(),
        up if up > 0 => format!("▲{up}"),
        down => format!("▼{}", -down),
    };
    (rank, signed(standing.elo - before.elo), mark)
}

/// The Markdown report: standings with the change since the previous run,
/// the crosstable, and the settings.
pub fn markdown(summary: &Summary<'_>) -> String {
    let settings = summary.settings;
    let previous = previous(summary);
    let mut text = format!("## {} standings ({} games)\n\n", game_title(settings), summary.games());
    // A payoff game's table has its ranking column, mean payoff, after the score.
    let payoffs = summary.table.iter().any(|standing| standing.payoff.is_some());
    let (payoff_title, payoff_rule) = match payoffs {
        true => (" payoff (95%) |", "---|"),
        false => ("", ""),
    };
    text.push_str(&format!(
        "| rank | ± | bot | games | W | D | L | points | score |{payoff_title} Elo (95%) | ± Elo | forfeits |\n",
    ));
    text.push_str(&format!(
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|{payoff_rule}---|---:|---|\n"
    ));
    for standing in summary.table {
        let version = version_of(summary, &standing.bot);
        let (rank_change, elo_change, mark) = match change(previous, standing, version) {
            Change::Unknown => (String::new(), String::new(), ""),
            Change::New => ("new".to_owned(), String::new(), " (new)"),
            Change::Changed(before) => moved(before, standing, " (changed)"),
            Change::Same(before) => moved(before, standing, ""),
        };
        let tally = &standing.tally;
        let interval = standing.elo_text();
        let payoff =
            standing.payoff.map(|payoff| format!(" {} |", payoff.text())).unwrap_or_default();
        text.push_str(&format!(
            "| {} | {rank_change} | {}{mark} | {} | {} | {} | {} | {} | {:.1}% |{payoff} {interval} | {elo_change} | {} |\n",
            standing.rank,
            escape(&standing.bot),
            tally.games,
            tally.wins,
            tally.draws,
            tally.losses,
            tally.points(),
            standing.score_percent(),
            escape(&tally.forfeits_in_words()),
        ));
    }
    if summary.table.iter().any(crate::standings::Standing::elo_is_bound) {
        text.push_str(&format!("\n{}\n", crate::standings::BOUND_NOTE));
    }
    if let Some(previous) = previous {
        let gone: Vec<&str> = previous
            .bots
            .keys()
            .filter(|name| !summary.table.iter().any(|standing| &standing.bot == *name))
            .map(String::as_str)
            .collect();
        text.push_str(&format!(
            "\nChanges since the previous run ({} games then).",
            previous.games
        ));
        if !gone.is_empty() {
            text.push_str(&format!(" No longer playing: {}.", gone.join(", ")));
        }
        text.push('\n');
    }

    let crosstable = crosstable(summary);
    text.push_str("\n### Crosstable\n\nPoints of the row's bot against the column's bot.\n\n| |");
    for standing in summary.table {
        text.push_str(&format!(" {} |", escape(&standing.bot)));
    }
    text.push_str("\n|---|");
    text.push_str(&"---:|".repeat(summary.table.len()));
    text.push('\n');
    for (row, standing) in summary.table.iter().enumerate() {
        text.push_str(&format!("| {} |", escape(&standing.bot)));
        for column in 0..summary.table.len() {
            let cell = if row == column || crosstable.games[row][column] == 0 {
                "–".to_owned()
            } else {
                format!("{}", crosstable.points[row][column])
            };
            text.push_str(&format!(" {cell} |"));
        }
        text.push('\n');
    }
    text.push_str("\n### Settings\n\n");
    for (key, value) in settings_list(summary, code_span) {
        text.push_str(&format!("- {key}: {value}\n"));
    }
    text
}

/// The crosstable in standings order.
fn crosstable(summary: &Summary<'_>) -> Crosstable {
    let mut crosstable = Crosstable::default();
    for row in summary.table {
        let (points, games): (Vec<f64>, Vec<u64>) = summary
            .table
            .iter()
            .map(|column| summary.results.head_to_head(&row.bot, &column.bot))
            .unzip();
        crosstable.points.push(points);
        crosstable.games.push(games);
    }
    crosstable
}

/// The settings in words; `chosen` shows what the game program chose to
/// say of itself (its declared version).
fn settings_list(summary: &Summary<'_>, chosen: fn(&str) -> String) -> Vec<(String, String)> {
    let settings = summary.settings;
    let mut list = vec![
        ("game".to_owned(), settings.game.to_string()),
        ("params".to_owned(), serde_json::to_string(&settings.params).unwrap_or_default()),
        ("seed".to_owned(), settings.seed.to_string()),
        // A test plays until it decides: its count is its most games.
        (
            if settings.sprt.is_some() { "most games" } else { "games per pair" }.to_owned(),
            settings.games_per_pair.to_string(),
        ),
    ];
    // Which rules were played, as a bot's version says which bot played.
    if let Some(program) = &settings.game_program {
        let mut described = format!(
            "{} (version {}",
            shell_words::join(&program.command),
            program.fingerprint.get(..12).unwrap_or("(none)")
        );
        if let Some(version) = &program.version {
            described.push_str(&format!(", declared {}", chosen(version)));
        }
        described.push(')');
        list.insert(1, ("game program".to_owned(), described));
    }
    if let Some(openings) = &settings.openings {
        list.push(("openings".to_owned(), openings.describe()));
    }
    list.extend([
        match settings.move_timeout_ms {
            Some(move_ms) if settings.clock.is_none() => {
                ("move timeout".to_owned(), format!("{move_ms} ms"))
            }
            _ => ("time control".to_owned(), settings.time_control().to_string()),
        },
        ("startup timeout".to_owned(), format!("{} ms", settings.startup_timeout_ms)),
    ]);
    if settings.time_margin_ms > 0 {
        list.push(("time margin".to_owned(), format!("{} ms", settings.time_margin_ms)));
    }
    if settings.no_time_limit {
        list.push(("time limit".to_owned(), "none (--no-time-limit)".to_owned()));
    }
    if !settings.protections.is_empty() {
        let sandbox =
            settings.protections.strip_prefix("sandbox: ").unwrap_or(&settings.protections);
        list.push(("sandbox".to_owned(), sandbox.to_owned()));
    }
    if !settings.seed_key.is_empty() {
        // A fingerprint: the key itself stays in the folder.
        list.push(("seat-seed key's fingerprint".to_owned(), settings.seed_key.clone()));
    }
    for bot in &settings.bots {
        let mut described =
            format!("{} (version {})", shell_words::join(&bot.command), bot.short_fingerprint());
        if let Some(control) = bot.time_control {
            described.push_str(&format!(", time control {control}"));
        }
        list.push((format!("bot {}", bot.name), described));
    }
    list
}

/// The leaderboard page's data for the results folder `folder`. games.csv
/// is read row by row, keeping only the rows the page lists, and the
/// archive is opened once for every replay. What crashed bots wrote to
/// stderr is quoted in the replays only when `shows_stderr`.
pub fn page_data(summary: &Summary<'_>, folder: &Path, shows_stderr: bool) -> PageData {
    // The latest games as the page lists them, the rows of the latest
    // (whose replays it embeds), and the slowest reply of each bot (from
    // every row).
    let mut listed: VecDeque<PageGame> = VecDeque::new();
    let mut replayed: VecDeque<GameRow> = VecDeque::new();
    let mut slowest: BTreeMap<String, f64> = BTreeMap::new();
    let read = for_each_row(&folder.join(GAMES_CSV), |row| {
        for (name, ms) in [(&row.seat1, row.slowest1_ms), (&row.seat2, row.slowest2_ms)] {
            match slowest.get_mut(name) {
                Some(slowest) => *slowest = slowest.max(ms),
                None => {
                    slowest.insert(name.clone(), ms);
                }
            }
        }
        if listed.len() == MAX_PAGE_GAMES {
            listed.pop_front();
        }
        listed.push_back(PageGame {
            number: row.game_index,
            round: row.round,
            seats: [row.seat1.clone(), row.seat2.clone()],
            winner: row.winner.clone(),
            outcome: row.outcome.to_string(),
            reason: row.reason.to_string(),
            plies: row.plies,
            turns: Vec::new(),
        });
        if replayed.len() == MAX_PAGE_REPLAYS {
            replayed.pop_front();
        }
        replayed.push_back(row);
        Ok(())
    });
    if read.is_err() {
        listed.clear();
        replayed.clear();
    }
    // Think times, from the transcripts read for replays.
    let mut think: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    let mut transcripts = TranscriptReader::new(folder);
    let first_replayed = listed.len() - replayed.len();
    for (game, row) in listed.iter_mut().skip(first_replayed).zip(&replayed) {
        game.turns = replay_steps(&mut transcripts, row, &mut think, shows_stderr);
    }
    let games = listed.into();
    let bots = summary
        .table
        .iter()
        .map(|standing| {
            let tally = &standing.tally;
            let (elo_low, elo_high) = standing.elo_interval();
            let payoff_interval = standing.payoff.map(|payoff| payoff.interval());
            let finite = |value: f64| Some(value).filter(|value| value.is_finite());
            PageBot {
                rank: standing.rank,
                name: standing.bot.clone(),
                games: tally.games,
                wins: tally.wins,
                draws: tally.draws,
                losses: tally.losses,
                points: tally.points(),
                score_percent: standing.score_percent(),
                elo: standing.elo,
                elo_low,
                elo_high,
                payoff: standing.payoff.map(|payoff| payoff.mean),
                payoff_low: payoff_interval.and_then(|(low, _)| finite(low)),
                payoff_high: payoff_interval.and_then(|(_, high)| finite(high)),
                forfeits: tally
                    .forfeits
                    .iter()
                    .map(|(reason, count)| (reason.to_string(), *count))
                    .collect(),
                mean_think_ms: think
                    .get(&standing.bot)
                    .filter(|(_, moves)| *moves > 0)
                    .map(|(total, moves)| total / *moves as f64),
                slowest_think_ms: slowest.get(&standing.bot).copied().filter(|ms| *ms > 0.0),
            }
        })
        .collect();
    let history = summary
        .history
        .iter()
        .map(|entry| HistoryPoint {
            time: entry.time,
            elo: entry.bots.iter().map(|(name, bot)| (name.clone(), bot.elo)).collect(),
        })
        .collect();
    PageData {
        title: format!("{} leaderboard", summary.settings.game_title()),
        game: summary.settings.game_title().to_owned(),
        games_played: summary.games(),
        bots,
        crosstable: crosstable(summary),
        history,
        games,
        settings: settings_list(summary, str::to_owned),
        updated: summary.history.last().map_or_else(
            || HistoryEntry::now(summary.table, summary.settings).time,
            |entry| entry.time,
        ),
        shows_stderr,
    }
}

/// The game of `row` told in steps (blocks of the story, as `arena replay`
/// prints it), adding its think times to `think`, with what a crashed bot
/// wrote to stderr left out unless `shows_stderr`. No steps when its
/// transcript is missing or does not replay.
fn replay_steps(
    transcripts: &mut TranscriptReader,
    row: &GameRow,
    think: &mut BTreeMap<String, (f64, u64)>,
    shows_stderr: bool,
) -> Vec<String> {
    let Ok(mut text) = transcripts.read(row) else { return Vec::new() };
    if !shows_stderr {
        text = without_stderr(&text);
    }
    for line in text.lines() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if value["type"] == "move"
            && let (Some(seat), Some(think_us)) =
                (value["seat"].as_u64(), value["think_us"].as_f64())
        {
            let name = if seat == 1 { &row.seat1 } else { &row.seat2 };
            let entry = think.entry(name.clone()).or_insert((0.0, 0));
            entry.0 += think_us / 1000.0;
            entry.1 += 1;
        }
    }
    let Ok(story) = arena_referee::story::tell(&text) else { return Vec::new() };
    let mut steps: Vec<String> = Vec::new();
    let mut block = String::new();
    for line in story {
        if line.trim().is_empty() {
            if !block.is_empty() {
                steps.push(std::mem::take(&mut block));
            }
        } else {
            if !block.is_empty() {
                block.push('\n');
            }
            block.push_str(&line);
        }
    }
    if !block.is_empty() {
        steps.push(block);
    }
    steps
}

/// A transcript whose forfeits no longer quote what the bot wrote to
/// stderr (a visitor of a public page sees a crash, not a bot's logs).
fn without_stderr(transcript: &str) -> String {
    let mut kept = String::with_capacity(transcript.len());
    for line in transcript.lines() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(mut value)
                if value["type"] == "forfeit"
                    && value["detail"].as_str().is_some_and(|detail| {
                        arena_referee::forfeit::without_stderr(detail).len() < detail.len()
                    }) =>
            {
                let detail = value["detail"].as_str().unwrap_or_default();
                let hidden = format!(
                    "{}; what it wrote to stderr is not shown here",
                    arena_referee::forfeit::without_stderr(detail)
                );
                value["detail"] = serde_json::Value::String(hidden);
                kept.push_str(&value.to_string());
            }
            _ => kept.push_str(line),
        }
        kept.push('\n');
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_game_program_says_of_itself_is_a_code_span() {
        let injected = "Safe [evil](https://example.com) <img src=x> @octocat";
        assert_eq!(code_span(injected), format!("`{injected}`"));
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
    }
}
