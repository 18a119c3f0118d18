//! A tournament played with the sandbox of another file (`--sandbox-from
//! BASE`): a pull request's league file decides its bots and games, but
//! what widens a box (the sandbox's mode, limits and network, the
//! `read_paths` of the file and of each bot, how builds run) comes from the
//! base branch's file, which the maintainer merged. What the two differ in
//! is said, so that the pull request is told it was played without it.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use super::BuildSettings;
use super::Tournament;
use arena_system::sandbox::SandboxMode;
use arena_system::sandbox::files::real_path;

impl Tournament {
    /// Takes the sandbox and build settings and each bot's `read_paths`
    /// from `base` (a bot `base` lacks gets none), paths under `base`'s
    /// folder read as the same paths under this file's. Returns what this
    /// file set otherwise, one sentence each. A bot's own folder (`dir`)
    /// must lie inside `within` (the checkout): the error names the bot.
    pub fn take_sandbox_from(
        &mut self,
        base: &Tournament,
        within: &Path,
    ) -> Result<Vec<String>, String> {
        let within = real_path(within);
        for bot in &self.bots {
            let own = real_path(&bot.dir);
            if bot.written_dir.is_some() && (!own.starts_with(&within) || own == within) {
                return Err(format!(
                    "bot `{}`: its dir {} is not a folder inside {} (the checkout), as --sandbox-from asks of every bot",
                    bot.name,
                    own.display(),
                    within.display()
                ));
            }
        }
        let here = real_path(self.file.parent().unwrap_or(Path::new(".")));
        let there = real_path(base.file.parent().unwrap_or(Path::new(".")));
        let moved = |paths: &[PathBuf]| -> Vec<PathBuf> {
            paths
                .iter()
                .map(|path| match real_path(path).strip_prefix(&there) {
                    Ok(inside) => here.join(inside),
                    Err(_) => path.clone(),
                })
                .collect()
        };
        let mut differences = Vec::new();
        let mut differ = |what: &str, ours: &dyn Debug, theirs: &dyn Debug| {
            let (ours, theirs) = (format!("{ours:?}"), format!("{theirs:?}"));
            if ours != theirs {
                differences.push(format!("{what}: {ours} here, {theirs} in the base file"));
            }
        };
        let (ours, theirs) = (&self.sandbox, &base.sandbox);
        differ(
            "`sandbox`",
            &Word(mode_word(ours.mode).into()),
            &Word(mode_word(theirs.mode).into()),
        );
        differ("the limits", &Word(ours.limits.to_string()), &Word(theirs.limits.to_string()));
        differ("`network`", &ours.network, &theirs.network);
        let shared = moved(&theirs.read_paths);
        differ("`read_paths`", &shown(&ours.read_paths), &shown(&shared));
        differ("`build_network`", &self.build.network, &base.build.network);
        let timeout =
            |build: &BuildSettings| Word(humantime::format_duration(build.timeout).to_string());
        differ("`build_timeout`", &timeout(&self.build), &timeout(&base.build));
        let mut bots_read = Vec::with_capacity(self.bots.len());
        for bot in &self.bots {
            let theirs = base
                .bots
                .iter()
                .find(|theirs| theirs.name == bot.name)
                .map(|theirs| moved(&theirs.read_paths))
                .unwrap_or_default();
            differ(
                &format!("bot `{}`'s `read_paths`", bot.name),
                &shown(&bot.read_paths),
                &shown(&theirs),
            );
            bots_read.push(theirs);
        }
        self.sandbox = base.sandbox.clone();
        self.sandbox.read_paths = shared;
        self.build = base.build;
        for (bot, read_paths) in self.bots.iter_mut().zip(bots_read) {
            bot.read_paths = read_paths;
        }
        Ok(differences)
    }
}

/// A value shown as its word, without Debug's quotes.
struct Word(String);

impl Debug for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `sandbox` as a file writes it.
fn mode_word(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::Off => "false",
        SandboxMode::On => "true",
        SandboxMode::Required => "\"required\"",
    }
}

/// Paths as a user reads them, links resolved (so that the same file
/// written two ways is the same), relative to the working folder where
/// they lie in it.
fn shown(paths: &[PathBuf]) -> Vec<String> {
    let here = std::env::current_dir().map(|here| real_path(&here)).unwrap_or_default();
    paths
        .iter()
        .map(|path| {
            let real = real_path(path);
            real.strip_prefix(&here).unwrap_or(&real).display().to_string()
        })
        .collect()
}
