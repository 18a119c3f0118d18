//! The final files of a results folder: games.csv put in schedule order,
//! standings, crosstable, history and exports; and `arena report`'s.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use anyhow::Context;

use super::folder::ResultsFolder;
use super::games_csv::{move_rows, read_games_csv, rewrite_in_order};
use super::settings::RecordedSettings;
use super::{GAMES_CSV, SET_ASIDE_CSV, SETTINGS_JSON, write_atomically};
use crate::events::{Event, Reporter, Silent};
use crate::results::GameRow;
use crate::tournament::export::{self, Export, Summary};
use crate::tournament::history::{self, HistoryEntry};
use crate::tournament::schedule::Schedule;
use crate::tournament::standings::{Results, Standing, gauntlet_standings, standings};

impl ResultsFolder {
    /// Puts games.csv in schedule order (numbered by `schedule`) and writes
    /// standings.csv, crosstable.csv and `exports`.
    ///
    /// Rows are streamed, never all held: one pass counts them and notes
    /// where each lies; games.csv is rewritten only if it is out of order or
    /// needs new numbers, copying row by row.
    pub fn finish(
        &mut self,
        schedule: &Schedule,
        exports: &[Export],
        reporter: &dyn Reporter,
    ) -> anyhow::Result<Vec<Standing>> {
        self.write_settings()?;
        let path = self.path.join(GAMES_CSV);
        let names = self.settings.bot_names();
        let numbering = Numbering::new(schedule, &names);
        let mut results = Results::new(&names);
        let mut places: Vec<(u64, u64, u64)> = Vec::new();
        let mut renumbered = false;
        let mut reader = csv::Reader::from_reader(std::io::BufReader::new(
            File::open(&path).with_context(|| format!("cannot open {}", path.display()))?,
        ));
        let headers = reader.headers()?.clone();
        let header_end = reader.position().byte();
        let mut record = csv::StringRecord::new();
        // One bit per game of the schedule: a second row for a game is set
        // aside like a row that is no game of it.
        let mut seen = vec![0u64; schedule.len().div_ceil(64) as usize];
        let mut set_aside: Vec<(u64, u64)> = Vec::new();
        loop {
            let start = reader.position().byte();
            if !reader.read_record(&mut record)? {
                break;
            }
            let mut row: GameRow = record.deserialize(Some(&headers)).with_context(|| {
                format!("{}: row {} cannot be read", path.display(), places.len() + 2)
            })?;
            let end = reader.position().byte();
            let Some(changed) = numbering.apply(&mut row) else {
                set_aside.push((start, end));
                continue;
            };
            let bit = row.game_index - 1;
            let word = &mut seen[(bit / 64) as usize];
            if *word & (1 << (bit % 64)) != 0 {
                set_aside.push((start, end));
                continue;
            }
            *word |= 1 << (bit % 64);
            renumbered |= changed;
            results.add(&row);
            places.push((row.game_index, start, end));
        }
        if !set_aside.is_empty() {
            let aside = self.path.join(SET_ASIDE_CSV);
            move_rows(&path, header_end, &set_aside, &aside)?;
            let message = format!(
                "{} rows of {} are no game of this tournament or repeat one; they are moved to {} and not counted",
                set_aside.len(),
                path.display(),
                aside.display()
            );
            reporter.report(&Event::Warning { message: &message });
        }
        if renumbered || !set_aside.is_empty() || !places.is_sorted_by_key(|place| place.0) {
            places.sort_by_key(|place| place.0);
            rewrite_in_order(
                &path,
                header_end,
                &places,
                renumbered.then_some((&numbering, &headers)),
            )?;
        }
        write_summaries(&self.path, &self.settings, &results, exports, true)
    }
}

/// Where each game sits in the current schedule, by its identity.
pub(super) struct Numbering<'a> {
    schedule: &'a Schedule,
    bots: &'a [String],
    index: HashMap<&'a str, usize>,
}

impl<'a> Numbering<'a> {
    pub(super) fn new(schedule: &'a Schedule, bots: &'a [String]) -> Numbering<'a> {
        let index = bots.iter().enumerate().map(|(i, bot)| (bot.as_str(), i)).collect();
        Numbering { schedule, bots, index }
    }

    /// Gives `row` the schedule's number, round and pairing; whether any
    /// changed, or `None` if the row is no game of the schedule.
    pub(super) fn apply(&self, row: &mut GameRow) -> Option<bool> {
        let (Some(&one), Some(&two)) =
            (self.index.get(row.seat1.as_str()), self.index.get(row.seat2.as_str()))
        else {
            return None;
        };
        let game = self.schedule.find([one, two], row.round, row.seed)?;
        let pairing = format!("{} vs {}", self.bots[game.pairing[0]], self.bots[game.pairing[1]]);
        let changed =
            row.game_index != game.index || row.round != game.round || row.pairing != pairing;
        row.game_index = game.index;
        row.round = game.round;
        row.pairing = pairing;
        Some(changed)
    }
}

/// Puts rows in schedule order and gives them the schedule's numbering.
/// Rows that are no game of the schedule are dropped.
pub fn renumber(rows: &mut Vec<GameRow>, schedule: &Schedule, bots: &[String]) {
    let numbering = Numbering::new(schedule, bots);
    rows.retain_mut(|row| numbering.apply(row).is_some());
    rows.sort_by_key(|row| row.game_index);
}

/// Writes games.csv (the rows, in order), standings.csv, crosstable.csv
/// and `exports`, each replaced atomically.
pub fn write_final_files(
    folder: &Path,
    settings: &RecordedSettings,
    rows: &[GameRow],
    exports: &[Export],
) -> anyhow::Result<Vec<Standing>> {
    let mut games = csv::Writer::from_writer(Vec::new());
    for row in rows {
        games.serialize(row)?;
    }
    write_atomically(&folder.join(GAMES_CSV), &games.into_inner()?)?;
    let results = Results::from_rows(&settings.bot_names(), rows);
    write_summaries(folder, settings, &results, exports, true)
}

/// Writes the exports asked for from a results folder as it stands (for
/// `arena report`), changing nothing in it; returns its standings.
pub fn report_folder(folder: &Path, exports: &[Export]) -> anyhow::Result<Vec<Standing>> {
    let path = folder.join(SETTINGS_JSON);
    let bytes = std::fs::read(&path).with_context(|| {
        format!("{} is not a results folder: cannot read {}", folder.display(), path.display())
    })?;
    let settings: RecordedSettings = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a tournament.json arena can read", path.display()))?;
    let rows = read_games_csv(&folder.join(GAMES_CSV), false, &Silent)?;
    let results = Results::from_rows(&settings.bot_names(), &rows);
    write_summaries(folder, &settings, &results, exports, false)
}

/// Writes `exports` and, when `record`ing a run's end, standings.csv,
/// crosstable.csv and a history.jsonl line; each file is replaced
/// atomically.
fn write_summaries(
    folder: &Path,
    settings: &RecordedSettings,
    results: &Results,
    exports: &[Export],
    record: bool,
) -> anyhow::Result<Vec<Standing>> {
    let table = match settings.challengers.is_empty() {
        true => standings(results),
        false => gauntlet_standings(results),
    };
    let history = if record {
        history::append(folder, HistoryEntry::now(&table, settings))?
    } else {
        history::read(folder)
    };
    let summary = Summary { folder, history: &history, settings, results, table: &table };
    let outputs = if record {
        export::outputs(folder, exports)
    } else {
        exports.iter().map(|export| (export.path.clone(), export.format.exporter())).collect()
    };
    for (path, exporter) in outputs {
        write_atomically(&path, &exporter.render(&summary))?;
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::standings::tests::row;
    use crate::tournament::store::settings::tests::settings;

    /// Rows written out of order and with stale numbers come out in schedule
    /// order, numbered by the schedule, and the standings count every row.
    #[test]
    fn finishing_sorts_and_renumbers_games_csv_by_streaming() {
        let folder = tempfile::tempdir().unwrap();
        let settings = settings();
        let names = settings.bot_names();
        let schedule = Schedule::new(3, 2, settings.seed);
        let games: Vec<_> = schedule.iter().collect();
        let mut store = ResultsFolder::open(folder.path(), settings, false, &Silent).unwrap();
        for game in games.iter().rev() {
            let mut game_row = row(&names[game.seats[0]], &names[game.seats[1]], "seat1");
            game_row.seed = game.seed;
            game_row.game_index = 99;
            game_row.pairing = "stale".into();
            store.append(&game_row).unwrap();
        }
        let table = store.finish(&schedule, &[], &Silent).unwrap();
        let rows = read_games_csv(&folder.path().join(GAMES_CSV), false, &Silent).unwrap();
        let indexes: Vec<u64> = rows.iter().map(|row| row.game_index).collect();
        assert_eq!(indexes, (1..=6).collect::<Vec<_>>());
        assert!(rows.iter().all(|row| row.pairing.contains(" vs ")));
        for (row, game) in rows.iter().zip(&games) {
            assert_eq!((row.seat1.as_str(), row.seed), (names[game.seats[0]].as_str(), game.seed));
        }
        assert_eq!(table.iter().map(|standing| standing.tally.games).sum::<u64>(), 12);
    }
}
