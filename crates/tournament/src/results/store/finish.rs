//! The final files of a results folder: games.csv put in schedule order,
//! standings, crosstable, history and exports; and `arena report`'s.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::Context;

use super::folder::ResultsFolder;
use super::games_csv::{RowParser, Rows, for_each_row};
use super::settings::RecordedSettings;
use super::sort::{Place, Sorter};
use super::{GAMES_CSV, NotResultsFolder, SET_ASIDE_CSV, SETTINGS_JSON, write_atomically};
use crate::events::{Event, Reporter};
use crate::results::store::export::{self, Export, Summary};
use crate::results::store::history::{self, HistoryEntry};
use crate::rows::GameRow;
use crate::schedule::Schedule;
use crate::standings::{Results, Standing, gauntlet_standings, standings};
use arena_base::bits::BitSet;

impl ResultsFolder {
    /// Puts games.csv in schedule order (numbered by `schedule`), each row
    /// of a game in `replaced` replaced by its row there (or, for `None`,
    /// moved to set-aside.csv), and writes
    /// standings.csv, crosstable.csv and `exports`.
    pub fn finish(
        &mut self,
        schedule: &Schedule,
        replaced: &BTreeMap<u64, Option<GameRow>>,
        exports: &[Export],
        reporter: &dyn Reporter,
    ) -> anyhow::Result<Vec<Standing>> {
        self.write_settings()?;
        let names = self.settings.bot_names();
        let results = self.settings.no_results();
        let results = order_games_csv(&self.path, &names, results, schedule, replaced, reporter)?;
        write_summaries(&self.path, &self.settings, &results, exports, true)
    }
}

/// Puts the games.csv of `folder` in schedule order, numbered by
/// `schedule`, and returns the results of its rows. A row that is no game
/// of the schedule, or repeats one, goes to set-aside.csv.
///
/// Rows are streamed, never all held: one pass counts them and checks
/// their order; only if a row is out of order, needs a new number or is
/// set aside, a second pass puts them in order (see [`Sorter`]) and
/// games.csv is rewritten row by row.
fn order_games_csv(
    folder: &Path,
    names: &[String],
    mut results: Results,
    schedule: &Schedule,
    replaced: &BTreeMap<u64, Option<GameRow>>,
    reporter: &dyn Reporter,
) -> anyhow::Result<Results> {
    let path = folder.join(GAMES_CSV);
    let numbering = Numbering::new(schedule, names);
    let Some(mut rows) = Rows::open(&path)? else { return Ok(results) };
    let source = File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut aside = Aside::new(folder, &source, rows.header_end())?;
    // Rows replaced, or set aside as played past a stop rule's decision
    // (said by the rule's result, not as rows of no game).
    let (mut replacing, mut past) = (false, 0);
    // One bit per game of the schedule: a second row for a game is set
    // aside like a row that is no game of it.
    let mut seen = BitSet::with_len(schedule.len());
    let (mut renumbered, mut in_order, mut last) = (false, true, 0);
    while let Some((mut row, range)) = rows.next_row()? {
        match numbering.apply(&mut row) {
            // Played past a stop rule's decision: kept apart, said by
            // the rule's result.
            Some(_) if matches!(replaced.get(&row.game_index), Some(None)) => {
                aside.add(&source, range)?;
                past += 1;
            }
            Some(changed) if seen.insert(row.game_index) => {
                renumbered |= changed;
                in_order &= row.game_index > last;
                last = row.game_index;
                match replaced.get(&row.game_index) {
                    Some(Some(replacement)) => {
                        replacing = true;
                        results.add(replacement);
                    }
                    _ => results.add(&row),
                }
            }
            _ => aside.add(&source, range)?,
        }
    }
    if aside.count > past {
        let message = format!(
            "{} rows of {} are no game of this tournament or repeat one; they are moved to {} and not counted",
            aside.count - past,
            path.display(),
            folder.join(SET_ASIDE_CSV).display()
        );
        reporter.report(&Event::Warning { message: &message });
    }
    if past > 0 {
        let message = format!(
            "{past} games of pairs after the deciding one finished while it was decided: they are moved to {} and not counted, so the results are those of the games that decided",
            folder.join(SET_ASIDE_CSV).display()
        );
        reporter.report(&Event::Warning { message: &message });
    }
    if renumbered || aside.count > 0 || !in_order || replacing {
        rewrite_in_order(&path, &source, &numbering, schedule, renumbered, replaced)?;
    }
    aside.finish()?;
    Ok(results)
}

/// Rows on their way to set-aside.csv.
struct Aside {
    out: Option<BufWriter<File>>,
    path: std::path::PathBuf,
    header: Vec<u8>,
    count: u64,
}

impl Aside {
    fn new(folder: &Path, source: &File, header_end: u64) -> anyhow::Result<Aside> {
        let mut header = vec![0; header_end as usize];
        source.read_exact_at(&mut header, 0)?;
        Ok(Aside { out: None, path: folder.join(SET_ASIDE_CSV), header, count: 0 })
    }

    /// Appends the row at `range` of `source`.
    fn add(&mut self, source: &File, range: std::ops::Range<u64>) -> anyhow::Result<()> {
        if self.out.is_none() {
            let new = !self.path.exists();
            let file = File::options()
                .create(true)
                .append(true)
                .open(&self.path)
                .with_context(|| format!("cannot open {}", self.path.display()))?;
            let mut out = BufWriter::new(file);
            if new {
                out.write_all(&self.header)
                    .with_context(|| format!("cannot write {}", self.path.display()))?;
            }
            self.out = Some(out);
        }
        let mut bytes = vec![0; (range.end - range.start) as usize];
        source.read_exact_at(&mut bytes, range.start)?;
        let out = self.out.as_mut().expect("opened above");
        out.write_all(&bytes).with_context(|| format!("cannot write {}", self.path.display()))?;
        self.count += 1;
        Ok(())
    }

    fn finish(self) -> anyhow::Result<()> {
        if let Some(out) = self.out {
            out.into_inner()
                .map_err(|error| error.into_error())
                .and_then(|file| file.sync_all())
                .with_context(|| format!("cannot write {}", self.path.display()))?;
        }
        Ok(())
    }
}

/// Rewrites games.csv (open as `source`) with the rows the first pass of
/// [`order_games_csv`] counted, in game order, those of `replaced`'s games
/// replaced; with `renumber`, each row is read and numbered again on the
/// way.
fn rewrite_in_order(
    path: &Path,
    source: &File,
    numbering: &Numbering<'_>,
    schedule: &Schedule,
    renumber: bool,
    replaced: &BTreeMap<u64, Option<GameRow>>,
) -> anyhow::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut rows = Rows::open(path)?.expect("read above");
    let mut sorter = Sorter::new(folder);
    let mut seen = BitSet::with_len(schedule.len());
    while let Some((mut row, range)) = rows.next_row()? {
        if numbering.apply(&mut row).is_some()
            && !matches!(replaced.get(&row.game_index), Some(None))
            && seen.insert(row.game_index)
        {
            let place =
                Place { game: row.game_index, source: 0, start: range.start, end: range.end };
            sorter.push(place).with_context(|| {
                format!(
                    "cannot put the rows of {} in order (in {})",
                    path.display(),
                    folder.display()
                )
            })?;
        }
    }
    // Half a copy never stands (a full disk least of all): `whole_file`.
    arena_base::whole_file::replace_with(path, 0o666, |out| -> anyhow::Result<()> {
        let writing = || format!("cannot write beside {}", path.display());
        let mut bytes = vec![0; rows.header_end() as usize];
        source.read_exact_at(&mut bytes, 0)?;
        out.write_all(&bytes).with_context(writing)?;
        let headers = csv::StringRecord::from_byte_record(
            csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(&bytes[..])
                .byte_headers()?
                .clone(),
        )
        .map_err(|error| {
            anyhow::anyhow!("{}: its header is not UTF-8 ({error})", path.display())
        })?;
        let sorting = || format!("cannot put the rows of {} in order", path.display());
        let mut parser = RowParser::new(headers);
        for place in sorter.sorted().with_context(sorting)? {
            let place = place.with_context(sorting)?;
            if let Some(Some(row)) = replaced.get(&place.game) {
                out.write_all(&row.csv_line(false)?).with_context(writing)?;
                continue;
            }
            bytes.resize((place.end - place.start) as usize, 0);
            source
                .read_exact_at(&mut bytes, place.start)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if renumber {
                let mut row = parser
                    .parse(&bytes)
                    .context("a row of games.csv changed while it was being rewritten")?;
                numbering.apply(&mut row);
                out.write_all(&row.csv_line(false)?)
            } else {
                out.write_all(&bytes)
            }
            .with_context(writing)?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot replace {}", path.display()))
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

/// Writes the exports asked for from a results folder as it stands (for
/// `arena report`), changing nothing in it; returns its standings.
pub fn report_folder(folder: &Path, exports: &[Export]) -> anyhow::Result<Vec<Standing>> {
    let path = folder.join(SETTINGS_JSON);
    let settings = match RecordedSettings::read(folder) {
        Ok(Some(settings)) => settings,
        // A run whose every game was void records no settings (so that
        // a corrected command may start it again): nothing to report yet.
        Ok(None) if folder.join(GAMES_CSV).is_file() => {
            return Err(NotResultsFolder(format!(
                "{} has nothing to report: no game in it was played to its end, so it has no {} (the run's messages and the logs in {} say why each game was void)",
                folder.display(),
                path.display(),
                folder.join("logs").display()
            ))
            .into());
        }
        Ok(None) => {
            return Err(NotResultsFolder(format!(
                "{} is not a results folder: it has no {}",
                folder.display(),
                path.display()
            ))
            .into());
        }
        Err(error) => return Err(NotResultsFolder(format!("{error:#}")).into()),
    };
    let mut results = settings.no_results();
    for_each_row(&folder.join(GAMES_CSV), |row| {
        results.add(&row);
        Ok(())
    })?;
    write_summaries(folder, &settings, &results, exports, false)
}

/// Writes `exports` and, when `record`ing a run's end, standings.csv,
/// crosstable.csv and a history.jsonl line; each file is replaced
/// atomically.
pub(super) fn write_summaries(
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
    use crate::events::Silent;
    use crate::results::store::games_csv::read_games_csv;
    use crate::results::store::settings::tests::settings;
    use crate::standings::tests::row;

    /// Rows written out of order and with stale numbers come out in schedule
    /// order, numbered by the schedule, and the standings count every row.
    #[test]
    fn finishing_sorts_and_renumbers_games_csv_by_streaming() {
        let folder = tempfile::tempdir().unwrap();
        let settings = settings();
        let names = settings.bot_names();
        let schedule = Schedule::new(3, 2, settings.seed);
        let games: Vec<_> = schedule.iter().collect();
        let mut store =
            ResultsFolder::open(folder.path(), settings, &schedule, false, None, &Silent).unwrap();
        for game in games.iter().rev() {
            let mut game_row = row(&names[game.seats[0]], &names[game.seats[1]], "seat1");
            game_row.seed = game.seed;
            game_row.game_index = 99;
            game_row.pairing = "stale".into();
            store.append(&game_row).unwrap();
        }
        let table = store.finish(&schedule, &BTreeMap::new(), &[], &Silent).unwrap();
        let rows = read_games_csv(&folder.path().join(GAMES_CSV)).unwrap();
        let indexes: Vec<u64> = rows.iter().map(|row| row.game_index).collect();
        assert_eq!(indexes, (1..=6).collect::<Vec<_>>());
        assert!(rows.iter().all(|row| row.pairing.contains(" vs ")));
        for (row, game) in rows.iter().zip(&games) {
            assert_eq!((row.seat1.as_str(), row.seed), (names[game.seats[0]].as_str(), game.seed));
        }
        assert_eq!(table.iter().map(|standing| standing.tally.games).sum::<u64>(), 12);
    }

    /// A disk that fills up while games.csv is put in order: the error
    /// names the file, and games.csv is left as it was.
    #[test]
    fn a_full_disk_during_the_final_rewrite_names_the_file() {
        let folder = tempfile::tempdir().unwrap();
        let settings = settings();
        let names = settings.bot_names();
        let schedule = Schedule::new(3, 2, settings.seed);
        let games: Vec<_> = schedule.iter().collect();
        let mut store =
            ResultsFolder::open(folder.path(), settings, &schedule, false, None, &Silent).unwrap();
        for game in games.iter().rev() {
            let mut game_row = row(&names[game.seats[0]], &names[game.seats[1]], "seat1");
            game_row.seed = game.seed;
            store.append(&game_row).unwrap();
        }
        let csv = folder.path().join(GAMES_CSV);
        let before = std::fs::read(&csv).unwrap();
        // Every write of the rewrite fails as on a full disk.
        let temporary = folder.path().join("games.csv.tmp-arena");
        std::os::unix::fs::symlink("/dev/full", &temporary).unwrap();
        let error = store.finish(&schedule, &BTreeMap::new(), &[], &Silent).unwrap_err();
        let error = format!("{error:#}");
        assert!(
            error.contains(&csv.display().to_string()) && error.contains("No space left"),
            "{error}"
        );
        assert!(!temporary.exists(), "the rewrite's copy was left");
        assert_eq!(std::fs::read(&csv).unwrap(), before, "games.csv was changed");
    }
}
