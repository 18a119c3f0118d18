//! The standings as tables: standings.csv, crosstable.csv and the
//! terminal's table.

use super::{BOUND_NOTE, Results, Standing};
use arena_protocol::ForfeitReason;

/// standings.csv.
pub fn standings_csv(table: &[Standing]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["rank", "bot", "games", "wins", "draws", "losses", "points", "score_pct"];
    let forfeit_columns: Vec<String> =
        ForfeitReason::ALL.iter().map(|reason| format!("forfeits_{reason}")).collect();
    header.extend(forfeit_columns.iter().map(String::as_str));
    // Payoff columns always, empty where the game has none: a sheet or a
    // CI job reads the same columns from every game.
    header.extend(["elo", "elo_low", "elo_high", "payoff", "payoff_low", "payoff_high"]);
    writer.write_record(&header).expect("writing to memory");
    for standing in table {
        let tally = &standing.tally;
        let mut record = count_cells(standing).to_vec();
        record.push(format!("{:.1}", standing.score_percent()));
        record.extend(
            ForfeitReason::ALL.iter().map(|reason| {
                tally.forfeits.get(reason.as_str()).copied().unwrap_or(0).to_string()
            }),
        );
        let (low, high) = standing.elo_interval();
        record.extend([format!("{:.1}", standing.elo), format_bound(low), format_bound(high)]);
        match standing.payoff {
            Some(payoff) => {
                let (low, high) = payoff.interval();
                let bound = |value: f64| match value.is_finite() {
                    true => format!("{value:.6}"),
                    false => String::new(),
                };
                record.extend([format!("{:.6}", payoff.mean), bound(low), bound(high)]);
            }
            None => record.extend([String::new(), String::new(), String::new()]),
        }
        writer.write_record(&record).expect("writing to memory");
    }
    String::from_utf8(writer.into_inner().expect("flushing memory")).expect("CSV of UTF-8 is UTF-8")
}

/// crosstable.csv: the points each bot (row) scored against each other bot
/// (column), as numbers a spreadsheet can sum (empty where they did not
/// play); the games per pair are in tournament.json.
pub fn crosstable_csv(results: &Results, table: &[Standing]) -> String {
    let bots = &results.bots;
    let order: Vec<usize> = table.iter().map(|standing| results.index[&standing.bot]).collect();
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["bot".to_owned()];
    header.extend(order.iter().map(|&i| bots[i].clone()));
    writer.write_record(&header).expect("writing to memory");
    for &i in &order {
        let mut record = vec![bots[i].clone()];
        record.extend(order.iter().map(|&j| {
            if i == j || results.games[i][j] == 0.0 {
                String::new()
            } else {
                format_number(results.points[i][j])
            }
        }));
        writer.write_record(&record).expect("writing to memory");
    }
    String::from_utf8(writer.into_inner().expect("flushing memory")).expect("CSV of UTF-8 is UTF-8")
}

/// Column titles of the human-readable tables, and whether each is numeric
/// (right-aligned); a payoff game's tables add [`PAYOFF_COLUMN`] after
/// the score.
const DISPLAY_COLUMNS: [(&str, bool); 10] = [
    ("rank", true),
    ("bot", false),
    ("games", true),
    ("wins", true),
    ("draws", true),
    ("losses", true),
    ("points", true),
    ("score", true),
    ("Elo (95%)", false),
    ("forfeits", false),
];

/// The payoff column of a payoff game's tables.
const PAYOFF_COLUMN: (&str, bool) = ("payoff (95%)", false);

/// Where [`PAYOFF_COLUMN`] goes: after the score.
const PAYOFF_AT: usize = 8;

/// One standing as the human-readable tables show it.
fn display_cells(standing: &Standing) -> Vec<String> {
    let [rank, bot, games, wins, draws, losses, points] = count_cells(standing);
    let score = format!("{:.1}%", standing.score_percent());
    let forfeits = standing.tally.forfeits_in_words();
    let mut cells =
        vec![rank, bot, games, wins, draws, losses, points, score, standing.elo_text(), forfeits];
    if let Some(payoff) = standing.payoff {
        cells.insert(PAYOFF_AT, payoff.text());
    }
    cells
}

/// The cells every standings table starts with: rank, bot, games, wins,
/// draws, losses, points.
fn count_cells(standing: &Standing) -> [String; 7] {
    let tally = &standing.tally;
    [
        standing.rank.to_string(),
        standing.bot.clone(),
        tally.games.to_string(),
        tally.wins.to_string(),
        tally.draws.to_string(),
        tally.losses.to_string(),
        format_number(tally.points()),
    ]
}

/// The standings as a plain-text table for the terminal.
pub fn standings_text(table: &[Standing]) -> String {
    let rows: Vec<Vec<String>> = table.iter().map(display_cells).collect();
    let mut columns = DISPLAY_COLUMNS.to_vec();
    if table.iter().any(|standing| standing.payoff.is_some()) {
        columns.insert(PAYOFF_AT, PAYOFF_COLUMN);
    }
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(column, (name, _))| {
            rows.iter()
                .map(|cells| cells[column].chars().count())
                .chain([name.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(columns.iter().zip(&widths))
            .map(
                |(cell, ((_, numeric), width))| {
                    if *numeric { format!("{cell:>width$}") } else { format!("{cell:<width$}") }
                },
            )
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut text = line(columns.iter().map(|(name, _)| *name).collect());
    for cells in &rows {
        text.push_str(&line(cells.iter().map(String::as_str).collect()));
    }
    if table.iter().any(Standing::elo_is_bound) {
        text.push_str(&format!("{BOUND_NOTE}\n"));
    }
    text
}

/// A rating or a change of one as people read it: signed, whole, halves
/// away from zero (as the page rounds), and never `-0` (which would read
/// as a change).
pub fn signed(value: f64) -> String {
    let rounded = value.round();
    match rounded {
        0.0 => "0".to_owned(),
        _ if rounded > 0.0 => format!("+{rounded}"),
        _ => format!("{rounded}"),
    }
}

fn format_number(value: f64) -> String {
    if value.fract() == 0.0 { format!("{value:.0}") } else { format!("{value}") }
}

fn format_bound(value: f64) -> String {
    if value.is_finite() { format!("{value:.1}") } else { String::new() }
}
