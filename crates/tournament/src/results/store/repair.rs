//! Repairs on resume: the archive checked frame by frame, and the rows of
//! games.csv that no longer count (their transcript lost, their bot
//! changed, or their game not played because a bot was withdrawn) set aside
//! in set-aside.csv, each cause said with its count.
//! One pass over games.csv; a second only when rows must move.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::games_csv::{Rows, set_aside};
use super::settings::RecordedSettings;
use super::{GAMES_CSV, SET_ASIDE_CSV};
use crate::events::{Event, Reporter};
use crate::results::archive;
use crate::rows::GameRow;
use crate::schedule::Schedule;
use arena_base::bits::BitSet;
use arena_protocol::ForfeitReason;

/// What [`repair`] leaves.
pub struct Repairs {
    /// The games of the schedule that games.csv holds, by number less one.
    pub done: BitSet,
    /// The number the next transcript of the archive gets.
    pub next_transcript: u64,
    /// Rows set aside per bot of `retired`.
    pub set_aside: HashMap<String, u64>,
}

/// Checks the archive of `folder` and sets aside the rows whose
/// transcript it lacks, the rows of `retired` bots and those of games a
/// withdrawn bot did not play (it may have been fixed since:
/// tournament/withdrawal.rs); returns the games of `schedule` that remain.
pub fn repair(
    folder: &Path,
    settings: &RecordedSettings,
    schedule: &Schedule,
    retired: &HashSet<&str>,
    reporter: &dyn Reporter,
) -> anyhow::Result<Repairs> {
    let archive_path = folder.join(archive::ARCHIVE_FILE);
    let checked = match archive_path.exists() {
        true => Some(archive::check(folder)?),
        false => None,
    };
    if let Some(checked) = &checked {
        say_archive_repairs(folder, checked, reporter);
    }
    let lost = |row: &GameRow| {
        archive::parse_reference(&row.transcript).is_some_and(|number| {
            !checked.as_ref().is_some_and(|checked| checked.present.contains(number))
        })
    };
    let retired_row = |row: &GameRow| {
        retired.contains(row.seat1.as_str()) || retired.contains(row.seat2.as_str())
    };
    let unplayed =
        |row: &GameRow| [row.forfeit1, row.forfeit2].contains(&Some(ForfeitReason::Withdrawn));
    let mut unplayed_rows = 0u64;
    let mut withdrawn: Vec<String> = Vec::new();
    let names = settings.bot_names();
    let index: HashMap<&str, usize> =
        names.iter().enumerate().map(|(i, name)| (name.as_str(), i)).collect();
    let mut done = BitSet::with_len(schedule.len());
    let mut set_aside_of: HashMap<String, u64> = HashMap::new();
    let (mut lost_rows, mut highest) =
        (0u64, checked.as_ref().map_or(0, |checked| checked.highest));
    let csv = folder.join(GAMES_CSV);
    if let Some(mut rows) = Rows::open(&csv)? {
        while let Some((row, _)) = rows.next_row()? {
            if let Some(number) = archive::parse_reference(&row.transcript) {
                highest = highest.max(number);
            }
            if retired_row(&row) {
                for bot in [&row.seat1, &row.seat2] {
                    if retired.contains(bot.as_str()) {
                        *set_aside_of.entry(bot.clone()).or_default() += 1;
                    }
                }
            } else if unplayed(&row) {
                unplayed_rows += 1;
                if !withdrawn.contains(&row.forfeiter) {
                    withdrawn.push(row.forfeiter.clone());
                }
            } else if lost(&row) {
                lost_rows += 1;
            } else if let (Some(&one), Some(&two)) =
                (index.get(row.seat1.as_str()), index.get(row.seat2.as_str()))
                && let Some(game) = schedule.find([one, two], row.round, row.seed)
            {
                done.insert(game.index - 1);
            }
        }
    }
    if lost_rows > 0 || unplayed_rows > 0 || !set_aside_of.is_empty() {
        set_aside(&csv, &folder.join(SET_ASIDE_CSV), |row| {
            !retired_row(row) && !unplayed(row) && !lost(row)
        })?;
    }
    if unplayed_rows > 0 {
        let message = format!(
            "{unplayed_rows} game{} of {} {} not played, a bot withdrawn ({}): set aside in {} and played now",
            if unplayed_rows == 1 { "" } else { "s" },
            csv.display(),
            if unplayed_rows == 1 { "was" } else { "were" },
            withdrawn.join(", "),
            SET_ASIDE_CSV
        );
        reporter.report(&Event::Warning { message: &message });
    }
    if lost_rows > 0 {
        let (games, have, they) = match lost_rows {
            1 => ("1 game".to_owned(), "has", "it is"),
            _ => (format!("{lost_rows} games"), "have", "they are"),
        };
        let message = format!(
            "{games} of {} {have} no whole transcript in {} (lost in a crash, or in a damaged part of it): {they} set aside in {} and played again",
            csv.display(),
            archive_path.display(),
            SET_ASIDE_CSV
        );
        reporter.report(&Event::Warning { message: &message });
    }
    Ok(Repairs { done, next_transcript: highest + 1, set_aside: set_aside_of })
}

/// Says what checking the archive found and did.
fn say_archive_repairs(folder: &Path, checked: &archive::Checked, reporter: &dyn Reporter) {
    let archive_path = folder.join(archive::ARCHIVE_FILE);
    if !checked.skipped.is_empty() {
        let bytes: u64 = checked.skipped.iter().map(|(_, len)| len).sum();
        let places: Vec<String> =
            checked.skipped.iter().take(5).map(|(at, len)| format!("{len} at byte {at}")).collect();
        let message = format!(
            "{}: {} damaged part{} ({bytes} bytes: {}{}) held no whole frame and {} skipped; every whole frame after them is kept",
            archive_path.display(),
            checked.skipped.len(),
            if checked.skipped.len() == 1 { "" } else { "s" },
            places.join(", "),
            if checked.skipped.len() > 5 { ", ..." } else { "" },
            if checked.skipped.len() == 1 { "is" } else { "are" },
        );
        reporter.report(&Event::Warning { message: &message });
    }
    if checked.cut > 0 {
        let message = format!(
            "{}: its last {} bytes held no whole frame (one torn by an interrupted write): cut off",
            archive_path.display(),
            checked.cut
        );
        reporter.report(&Event::Warning { message: &message });
    }
    if checked.index_rebuilt && checked.frames > 0 {
        let message = format!(
            "{} did not list the archive's {} whole frames as they are: written anew from them",
            folder.join(archive::INDEX_FILE).display(),
            checked.frames
        );
        reporter.report(&Event::Warning { message: &message });
    }
}
