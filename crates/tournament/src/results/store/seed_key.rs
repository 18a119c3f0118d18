//! Which key a run's seat seeds derive with.
//!
//! A key given to the run (`ARENA_SEED_KEY`, or a key file: what the shards
//! of one tournament share) is taken. Without one, a results folder keys
//! its seat seeds with a random key of its own, kept in the folder
//! ([`SEED_KEY_FILE`]), which no bot can read (the sandbox keeps bots out of
//! the results folder): every resume of the folder takes it again, and a
//! fresh folder (or `--fresh`) gets a new one. A folder written by an
//! earlier arena, which keyed seat seeds with a public default unless
//! `ARENA_SEED_KEY` was set, resumes with that default. tournament.json
//! records the key's fingerprint, never the key: a resume or merge under
//! another key is refused.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::ResumeRefused;
use super::settings::RecordedSettings;
use arena_referee::seeds::{PUBLIC_KEY_FINGERPRINT, SEED_KEY_VARIABLE, SeedKey};

/// The file a results folder keeps its own seat-seed key in. Secret: a
/// folder published with it lets anyone predict the seat seeds of games a
/// resume would add.
pub const SEED_KEY_FILE: &str = ".arena-seed-key";

/// Where a key given to the run came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GivenBy {
    /// `ARENA_SEED_KEY`.
    Environment,
    /// A key file (`--seed-key-file`).
    File(PathBuf),
}

/// The key a run keys seat seeds with, and where it came from.
#[derive(Debug)]
pub struct RunKey {
    /// The key.
    pub key: SeedKey,
    /// Where it came from.
    pub from: KeyFrom,
    /// A key of the folder's own made for this run, to be written with its
    /// first game.
    pub new: Option<NewKey>,
}

/// Where a run's key came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyFrom {
    /// Given to the run, by the environment or a file.
    Given(GivenBy),
    /// The results folder's own, from an earlier run.
    Folder,
    /// New: the folder's own from now on.
    New,
    /// The public default an earlier arena keyed this folder's seeds with.
    EarlierDefault,
}

/// A new key of a folder's own, not yet written.
#[derive(Clone)]
pub struct NewKey {
    secret: String,
}

impl std::fmt::Debug for NewKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself: it may end up in logs.
        f.write_str("NewKey")
    }
}

impl NewKey {
    /// Writes the key into `folder`, readable by its owner only.
    pub fn write(&self, folder: &Path) -> anyhow::Result<()> {
        let path = folder.join(SEED_KEY_FILE);
        arena_base::whole_file::replace_private(&path, format!("{}\n", self.secret).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

impl RunKey {
    /// The key of a run on `folder`: `given` if there is one; else,
    /// unless `fresh`, the folder's own (or, for a folder an earlier arena
    /// wrote, the public default it used); else a new key of the folder's
    /// own.
    pub fn choose(
        folder: &Path,
        fresh: bool,
        given: Option<(SeedKey, GivenBy)>,
    ) -> anyhow::Result<RunKey> {
        if let Some((key, by)) = given {
            return Ok(RunKey { key, from: KeyFrom::Given(by), new: None });
        }
        if !fresh {
            let own = folder.join(SEED_KEY_FILE);
            if own.exists() {
                let key = SeedKey::from_file(&own).map_err(anyhow::Error::msg)?;
                return Ok(RunKey { key, from: KeyFrom::Folder, new: None });
            }
            if let Some(recorded) = RecordedSettings::read(folder)? {
                match recorded.seed_key.as_str() {
                    // Recorded before arena recorded keys: its default.
                    "" | PUBLIC_KEY_FINGERPRINT => {
                        let from = KeyFrom::EarlierDefault;
                        return Ok(RunKey { key: SeedKey::default(), from, new: None });
                    }
                    fingerprint => {
                        return Err(ResumeRefused(format!(
                            "{} was played with seat seeds keyed by a key given to it (fingerprint {fingerprint}), by {SEED_KEY_VARIABLE} or --seed-key-file: give the same key to resume it, or start over with --fresh",
                            folder.display()
                        ))
                        .into());
                    }
                }
            }
        }
        let secret = SeedKey::new_secret().context("cannot draw a seat-seed key")?;
        let key = SeedKey::from_secret(&secret);
        Ok(RunKey { key, from: KeyFrom::New, new: Some(NewKey { secret }) })
    }

    /// What repeats the run's games in another folder besides its seed,
    /// said after `--seed N`: the key file to give (` --seed-key-file
    /// PATH`, the folder's own where the key is), or the variable to set
    /// again. Empty for the public default of an earlier arena, which no
    /// new folder uses.
    pub fn repeat_flags(&self, folder: &Path) -> String {
        let file = |path: &Path| {
            format!(" --seed-key-file {}", shell_words::quote(&path.to_string_lossy()))
        };
        match &self.from {
            KeyFrom::Given(GivenBy::Environment) => format!(" and the same {SEED_KEY_VARIABLE}"),
            KeyFrom::Given(GivenBy::File(path)) => file(path),
            KeyFrom::Folder | KeyFrom::New => file(&folder.join(SEED_KEY_FILE)),
            KeyFrom::EarlierDefault => String::new(),
        }
    }

    /// How the run's line says the key: "seat seeds keyed by ...".
    pub fn describe(&self, folder: &Path) -> String {
        let fingerprint = self.key.fingerprint();
        match &self.from {
            KeyFrom::Given(GivenBy::Environment) => {
                format!("seat seeds keyed by {SEED_KEY_VARIABLE} (its fingerprint {fingerprint})")
            }
            KeyFrom::Given(GivenBy::File(path)) => {
                format!(
                    "seat seeds keyed by the key in {} (its fingerprint {fingerprint})",
                    path.display()
                )
            }
            KeyFrom::Folder => format!(
                "seat seeds keyed by the results folder's own key (in {}; its fingerprint {fingerprint})",
                folder.join(SEED_KEY_FILE).display()
            ),
            KeyFrom::New => format!(
                "seat seeds keyed by a new random key of the results folder's own (kept in {}; its fingerprint {fingerprint})",
                folder.join(SEED_KEY_FILE).display()
            ),
            KeyFrom::EarlierDefault => format!(
                "seat seeds keyed by the public default, as the earlier arena that wrote this folder keyed them (set {SEED_KEY_VARIABLE} if it was played under one)"
            ),
        }
    }
}

/// The key given to a run: the key file's if one is named, else
/// `ARENA_SEED_KEY`'s if it is set.
pub fn given_key(file: Option<&Path>) -> Result<Option<(SeedKey, GivenBy)>, String> {
    if let Some(file) = file {
        return SeedKey::from_file(file).map(|key| Some((key, GivenBy::File(file.to_owned()))));
    }
    Ok(SeedKey::given_by_environment().map(|key| (key, GivenBy::Environment)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_keeps_its_own_key_and_fresh_makes_another() {
        let folder = tempfile::tempdir().unwrap();
        let first = RunKey::choose(folder.path(), false, None).unwrap();
        assert_eq!(first.from, KeyFrom::New);
        assert!(first.key.is_secret());
        first.new.as_ref().unwrap().write(folder.path()).unwrap();
        let again = RunKey::choose(folder.path(), false, None).unwrap();
        assert_eq!((again.from, again.key), (KeyFrom::Folder, first.key));
        use std::os::unix::fs::PermissionsExt;
        let mode =
            std::fs::metadata(folder.path().join(SEED_KEY_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let fresh = RunKey::choose(folder.path(), true, None).unwrap();
        assert_ne!(fresh.key, first.key);
        let given = SeedKey::from_secret("shared");
        let chosen = RunKey::choose(folder.path(), false, Some((given, GivenBy::Environment)));
        assert_eq!(chosen.unwrap().key, given);
    }

    #[test]
    fn an_earlier_folder_keeps_the_public_default_and_a_given_key_must_be_given_again() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("tournament.json"),
            crate::results::store::settings::tests::EARLIER,
        )
        .unwrap();
        let chosen = RunKey::choose(folder.path(), false, None).unwrap();
        assert_eq!((chosen.from, chosen.key), (KeyFrom::EarlierDefault, SeedKey::default()));

        let mut recorded = crate::results::store::settings::tests::settings();
        recorded.seed_key = SeedKey::from_secret("ci").fingerprint();
        std::fs::write(
            folder.path().join("tournament.json"),
            serde_json::to_vec(&recorded).unwrap(),
        )
        .unwrap();
        let error = RunKey::choose(folder.path(), false, None).unwrap_err().to_string();
        assert!(
            error.contains("give the same key") && error.contains(&recorded.seed_key),
            "{error}"
        );
    }
}
