//! What a run knows a bot and the game program by: their fingerprints
//! (the files they run, see `config::BotEntry::fingerprints`), with what
//! no fingerprint reads, and the warning of one edited while a run played.

use anyhow::Context;

use super::Tournament;
use super::config;
use crate::events::{Event, Reporter};
use crate::identity::Fingerprint;

/// Each bot's fingerprint, in file order, with the one arena's earlier way
/// gave when it differs. The results folder is left out of every bot's
/// files (it may lie inside a bot's folder).
pub(super) fn fingerprint_bots(
    tournament: &Tournament,
) -> anyhow::Result<Vec<(Fingerprint, Option<Fingerprint>)>> {
    crate::results::store::create_folder(&tournament.out)?;
    tournament.fingerprints()
}

impl Tournament {
    /// Each bot's fingerprint, in file order, with the one arena's earlier
    /// way gave when it differs (see `config::BotEntry::fingerprints`). The
    /// results folder is left out of every bot's files (it may lie inside
    /// a bot's folder).
    pub fn fingerprints(&self) -> anyhow::Result<Vec<(Fingerprint, Option<Fingerprint>)>> {
        let excluded = self.fingerprint_exclusions();
        self.bots
            .iter()
            .map(|bot| {
                bot.fingerprints(&excluded).with_context(|| {
                    format!("bot `{}`: cannot read its files to tell its version", bot.name)
                })
            })
            .collect()
    }

    /// What no fingerprint reads: the results folder, and the tournament
    /// file itself (a bot or game program whose folder holds it is not a
    /// new version when a `[[bot]]` is added; its settings are compared on
    /// their own).
    pub fn fingerprint_exclusions(&self) -> Vec<std::path::PathBuf> {
        let mut excluded = vec![self.out.canonicalize().unwrap_or_else(|_| self.out.clone())];
        if let Ok(file) = self.file.canonicalize() {
            excluded.push(file);
        }
        excluded
    }
}

/// The game program's fingerprint, when the game is one: its files, as a
/// bot's without a `dir` or `version` key (see `BotEntry::fingerprints`).
/// Left out: what no fingerprint reads (the results folder and the
/// tournament file). The bots' files are not left out, as which files are a
/// bot's depends on the file's bots (a bot added would change the game):
/// a game keeps to a folder of its own.
pub(super) fn fingerprint_game(tournament: &Tournament) -> anyhow::Result<Option<Fingerprint>> {
    let Some(program) = tournament.setup.game().program() else { return Ok(None) };
    let here = std::env::current_dir().unwrap_or_default();
    let identity = config::BotEntry {
        name: program.declaration.name.clone(),
        argv: program.argv.clone(),
        dir: program.dir.clone().unwrap_or(here),
        env: std::collections::BTreeMap::new(),
        written_command: program.written.clone(),
        written_dir: tournament.game_dir.clone(),
        read_paths: Vec::new(),
        version: None,
        build: None,
        time_keys: Default::default(),
        time_control: None,
    };
    let (fingerprint, _) = identity
        .fingerprints(&tournament.fingerprint_exclusions())
        .context("the game program: cannot read its files to tell its version")?;
    Ok(Some(fingerprint))
}

/// Warns of each bot (and the game program) whose files changed while the
/// run played: its games were recorded under the version it started with,
/// though a later game may have run the new one. The next run tells the
/// versions apart, sets those games aside and plays them again.
pub(super) fn warn_of_edits(
    tournament: &Tournament,
    started: &[(Fingerprint, Option<Fingerprint>)],
    game_started: Option<Fingerprint>,
    reporter: &dyn Reporter,
) {
    let excluded = tournament.fingerprint_exclusions();
    let mut changed: Vec<String> = tournament
        .bots
        .iter()
        .zip(started)
        .filter(|(bot, (before, _))| {
            bot.fingerprints(&excluded).ok().map(|(now, _)| now).as_ref() != Some(before)
        })
        .map(|(bot, _)| format!("bot `{}`", bot.name))
        .collect();
    if game_started.is_some() && fingerprint_game(tournament).ok().flatten() != game_started {
        changed.push("the game program".to_owned());
    }
    for what in changed {
        let message = format!(
            "{what} changed while this run played (its files are not what they were when the run began): its games here are recorded under the version it began with, though later ones may have run the new one; run again, and they are set aside and played again with the new version (stop a run before editing what it plays)"
        );
        reporter.report(&Event::Warning { message: &message });
    }
}
