//! What a bot is, for its results: a fingerprint of what runs.
//!
//! A bot's results stay its own only while the bot stays the same, so a
//! results folder keys them by the bot's name and a fingerprint: a SHA-256
//! over its command words (as the tournament file writes them), its
//! environment, its `version` key, and the files it runs — every file under
//! its `dir` when the file sets one, else the program and script files and
//! folders its command names (a file beside a `build.sh`, a starter kit's
//! launcher, stands for its whole folder: a rebuild changes what the
//! launcher runs). An edit to any of them is a new version.
//!
//! Paths enter the fingerprint relative to the folder they were found from,
//! never absolute, so a checkout anywhere on any machine fingerprints the
//! same bot the same. What the bot merely uses is left out: the
//! interpreter's installation (upgrading Python is not a new bot), `.git`
//! folders, and the results folder when it lies inside the bot's folder.
//!
//! A bot built by a `build` command is its sources: its build command
//! counts, and of its folder only the files no `.gitignore` leaves out (in
//! the folder, below it or above it), so what a build makes (which may
//! differ from machine to machine, or be missing from a fresh checkout) is
//! no part of its version. Nor is arena's record of its last build
//! ([`BUILD_RECORD`], in its folder).

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The file in a built bot's folder where `arena build` records what the
/// build left (see `tournament::build`): arena's, never a part of the bot.
pub const BUILD_RECORD: &str = ".arena-built";

/// The fingerprint of one bot version: a SHA-256, shown as hex.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The whole digest, as 64 hex digits (what files keep).
    pub fn hex(&self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The first 12 hex digits, enough to tell versions apart on screen.
    pub fn short(&self) -> String {
        self.hex()[..12].to_owned()
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.short())
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

/// What goes into a bot's fingerprint.
#[derive(Clone, Debug)]
pub struct BotMaterial<'a> {
    /// The command's words as the tournament file writes them.
    pub command: &'a [String],
    /// The environment the tournament file gives it.
    pub env: &'a BTreeMap<String, String>,
    /// The tournament file's `version` key, for what files cannot show
    /// (an image tag, a remote service).
    pub version: Option<&'a str>,
    /// The bot's build command, if it has one.
    pub build: Option<&'a [String]>,
    /// The program a version manager's shim runs for it (its path: which
    /// version the manager chose), when PATH finds a shim for its program.
    pub interpreter: Option<PathBuf>,
    /// Leave out of `trees` what `.gitignore` files leave out: a built
    /// bot's fingerprint covers its sources, not what its build made.
    pub sources_only: bool,
    /// Files and folders that make up the bot, each with the folder its
    /// path is taken relative to.
    pub trees: Vec<Tree>,
    /// Folders never read into the fingerprint (the results folder).
    pub excluded: Vec<PathBuf>,
}

/// A file or folder of a bot, and the folder to name its contents from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// The file or folder.
    pub path: PathBuf,
    /// The folder its files are named from in the fingerprint.
    pub relative_to: PathBuf,
}

/// A file of the bot that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {error}", path.display())]
pub struct FingerprintError {
    /// The file or folder.
    pub path: PathBuf,
    /// What the system said.
    /// (In the message, so not a source as well: said once.)
    pub error: io::Error,
}

impl BotMaterial<'_> {
    /// Reads every file and hashes the lot. Files are visited in name
    /// order, so the result does not depend on the order a folder lists.
    pub fn fingerprint(&self) -> Result<Fingerprint, FingerprintError> {
        let mut hasher = Sha256::new();
        field(&mut hasher, b'c', &self.command.len().to_le_bytes());
        for word in self.command {
            field(&mut hasher, b'w', word.as_bytes());
        }
        for (key, value) in self.env {
            field(&mut hasher, b'k', key.as_bytes());
            field(&mut hasher, b'v', value.as_bytes());
        }
        if let Some(version) = self.version {
            field(&mut hasher, b'V', version.as_bytes());
        }
        if let Some(build) = self.build {
            field(&mut hasher, b'B', &build.len().to_le_bytes());
            for word in build {
                field(&mut hasher, b'b', word.as_bytes());
            }
        }
        if let Some(interpreter) = &self.interpreter {
            field(&mut hasher, b'I', interpreter.as_os_str().as_encoded_bytes());
        }
        let entries = self.entries()?;
        let mut buffer = vec![0; 64 * 1024];
        for (name, entry) in &entries {
            field(&mut hasher, b'n', name.as_bytes());
            match entry {
                Entry::File(path) => hash_file(&mut hasher, path, &mut buffer)
                    .map_err(|error| FingerprintError { path: path.clone(), error })?,
                Entry::Link(target) => field(&mut hasher, b'l', target.as_bytes()),
            }
        }
        Ok(Fingerprint(hasher.finalize().into()))
    }

    /// Each file of the bot by the name it has in the fingerprint, with a
    /// digest of its content (of its target, for a link).
    pub fn file_digests(&self) -> Result<BTreeMap<String, Fingerprint>, FingerprintError> {
        let mut buffer = vec![0; 64 * 1024];
        let mut digests = BTreeMap::new();
        for (name, entry) in self.entries()? {
            let mut hasher = Sha256::new();
            match &entry {
                Entry::File(path) => hash_file(&mut hasher, path, &mut buffer)
                    .map_err(|error| FingerprintError { path: path.clone(), error })?,
                Entry::Link(target) => field(&mut hasher, b'l', target.as_bytes()),
            }
            digests.insert(name, Fingerprint(hasher.finalize().into()));
        }
        Ok(digests)
    }

    /// The bot's files and links by name.
    fn entries(&self) -> Result<BTreeMap<String, Entry>, FingerprintError> {
        let mut entries = BTreeMap::new();
        for tree in &self.trees {
            if self.sources_only {
                self.collect_sources(&tree.path, &tree.relative_to, &mut entries)?;
            } else {
                self.collect(&tree.path, &tree.relative_to, &mut entries)?;
            }
        }
        Ok(entries)
    }

    /// Adds the files at or under `path`, named relative to `base`.
    fn collect(
        &self,
        path: &Path,
        base: &Path,
        entries: &mut BTreeMap<String, Entry>,
    ) -> Result<(), FingerprintError> {
        let unreadable = |error| FingerprintError { path: path.to_owned(), error };
        if self.excluded.iter().any(|excluded| path.starts_with(excluded)) {
            return Ok(());
        }
        let metadata = fs::symlink_metadata(path).map_err(unreadable)?;
        let name = relative_name(path, base);
        if metadata.is_symlink() {
            // The link itself, not what it leads to: links may loop or
            // leave the bot's folder.
            let target = fs::read_link(path).map_err(unreadable)?;
            entries.insert(name, Entry::Link(target.to_string_lossy().into_owned()));
        } else if metadata.is_dir() {
            if path.file_name().is_some_and(|name| name == ".git") {
                return Ok(());
            }
            let mut children: Vec<PathBuf> = fs::read_dir(path)
                .map_err(unreadable)?
                .map(|child| child.map(|child| child.path()))
                .collect::<Result<_, _>>()
                .map_err(unreadable)?;
            children.sort();
            for child in children {
                self.collect(&child, base, entries)?;
            }
        } else if metadata.is_file() {
            entries.insert(name, Entry::File(path.to_owned()));
        }
        Ok(())
    }
}

impl BotMaterial<'_> {
    /// Adds the files at or under `path` that no `.gitignore` leaves out
    /// (those of `path`'s folders, below it and above it), named relative
    /// to `base`.
    fn collect_sources(
        &self,
        path: &Path,
        base: &Path,
        entries: &mut BTreeMap<String, Entry>,
    ) -> Result<(), FingerprintError> {
        let excluded = self.excluded.clone();
        let mut walk = ignore::WalkBuilder::new(path);
        walk.standard_filters(false)
            .git_ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|one, other| one.cmp(other))
            .filter_entry(move |entry| {
                entry.file_name() != ".git"
                    && entry.file_name() != BUILD_RECORD
                    && !excluded.iter().any(|excluded| entry.path().starts_with(excluded))
            });
        for found in walk.build() {
            let found = found.map_err(|error| FingerprintError {
                path: path.to_owned(),
                error: io::Error::other(error.to_string()),
            })?;
            let Some(kind) = found.file_type() else { continue };
            let name = relative_name(found.path(), base);
            if kind.is_symlink() {
                let target = fs::read_link(found.path())
                    .map_err(|error| FingerprintError { path: found.path().to_owned(), error })?;
                entries.insert(name, Entry::Link(target.to_string_lossy().into_owned()));
            } else if kind.is_file() {
                entries.insert(name, Entry::File(found.into_path()));
            }
        }
        Ok(())
    }
}

enum Entry {
    File(PathBuf),
    Link(String),
}

/// `path` relative to `base`, with `/` between parts whatever the platform;
/// a path outside `base` keeps only its file name (its place on this
/// machine is not part of the bot).
fn relative_name(path: &Path, base: &Path) -> String {
    let relative = path
        .strip_prefix(base)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.file_name().map(PathBuf::from).unwrap_or_default());
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Hashes a tagged, length-prefixed field, so that no two different
/// sequences of fields hash the same bytes.
fn field(hasher: &mut Sha256, tag: u8, bytes: &[u8]) {
    hasher.update([tag]);
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

fn hash_file(hasher: &mut Sha256, path: &Path, buffer: &mut [u8]) -> io::Result<()> {
    let mut file = fs::File::open(path)?;
    let length = file.metadata()?.len();
    hasher.update([b'f']);
    hasher.update(length.to_le_bytes());
    let mut read_so_far = 0;
    loop {
        let read = file.read(buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        read_so_far += read as u64;
    }
    if read_so_far != length {
        // Changed while read: hashing what was read would name a version
        // that never existed.
        return Err(io::Error::other("the file changed while it was read"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Bot {
        root: tempfile::TempDir,
        command: Vec<String>,
        env: BTreeMap<String, String>,
    }

    impl Bot {
        fn new() -> Bot {
            let root = tempfile::tempdir().unwrap();
            fs::create_dir_all(root.path().join("bot/lib")).unwrap();
            fs::write(root.path().join("bot/main.py"), "print('hi')\n").unwrap();
            fs::write(root.path().join("bot/lib/util.py"), "X = 1\n").unwrap();
            Bot {
                root,
                command: vec!["python3".into(), "bot/main.py".into()],
                env: BTreeMap::new(),
            }
        }

        fn fingerprint(&self) -> Fingerprint {
            self.material(None).fingerprint().unwrap()
        }

        fn material(&self, version: Option<&'static str>) -> BotMaterial<'_> {
            let folder = self.root.path().join("bot");
            BotMaterial {
                command: &self.command,
                env: &self.env,
                version,
                build: None,
                interpreter: None,
                sources_only: false,
                trees: vec![Tree { path: folder.clone(), relative_to: folder }],
                excluded: vec![self.root.path().join("bot/results")],
            }
        }
    }

    #[test]
    fn any_change_to_what_runs_is_a_new_version() {
        let mut bot = Bot::new();
        let original = bot.fingerprint();
        assert_eq!(bot.fingerprint(), original, "the same bot twice");

        fs::write(bot.root.path().join("bot/lib/util.py"), "X = 2\n").unwrap();
        let edited = bot.fingerprint();
        assert_ne!(edited, original);

        fs::write(bot.root.path().join("bot/lib/new.py"), "").unwrap();
        let added = bot.fingerprint();
        assert_ne!(added, edited, "an empty new file counts");

        bot.env.insert("DEPTH".into(), "3".into());
        let with_env = bot.fingerprint();
        assert_ne!(with_env, added);

        bot.command.push("--fast".into());
        let with_flag = bot.fingerprint();
        assert_ne!(with_flag, with_env);

        assert_ne!(bot.material(Some("v2")).fingerprint().unwrap(), with_flag);
    }

    #[test]
    fn where_the_checkout_lives_and_what_is_excluded_do_not_count() {
        let first = Bot::new();
        let second = Bot::new();
        assert_ne!(first.root.path(), second.root.path());
        assert_eq!(first.fingerprint(), second.fingerprint());

        fs::create_dir_all(first.root.path().join("bot/results")).unwrap();
        fs::write(first.root.path().join("bot/results/games.csv"), "rows").unwrap();
        fs::create_dir_all(first.root.path().join("bot/.git")).unwrap();
        fs::write(first.root.path().join("bot/.git/HEAD"), "ref").unwrap();
        assert_eq!(first.fingerprint(), second.fingerprint());
    }

    #[test]
    fn moving_bytes_between_files_or_names_is_a_change() {
        let bot = Bot::new();
        let original = bot.fingerprint();
        fs::write(bot.root.path().join("bot/main.py"), "print('hi')\nX = 1\n").unwrap();
        fs::write(bot.root.path().join("bot/lib/util.py"), "").unwrap();
        assert_ne!(bot.fingerprint(), original);

        let bot = Bot::new();
        fs::rename(bot.root.path().join("bot/lib/util.py"), bot.root.path().join("bot/lib/u.py"))
            .unwrap();
        assert_ne!(bot.fingerprint(), original);
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let bot = Bot::new();
        let mut material = bot.material(None);
        let missing = bot.root.path().join("bot/missing.py");
        material.trees.push(Tree { path: missing.clone(), relative_to: bot.root.path().into() });
        let error = material.fingerprint().unwrap_err();
        assert_eq!(error.path, missing);
        assert!(error.to_string().contains("missing.py"), "{error}");
    }

    #[test]
    fn a_built_bot_is_its_sources_and_build_command() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("bots/cpp");
        fs::create_dir_all(folder.join("build")).unwrap();
        fs::write(folder.join("bot.cpp"), "int main() {}\n").unwrap();
        fs::write(folder.join(".gitignore"), "/a.out\n").unwrap();
        // The checkout's own .gitignore, above the bot's folder.
        fs::write(root.path().join(".gitignore"), "/bots/*/build/\n").unwrap();
        let words = |words: &[&str]| words.iter().map(|word| word.to_string()).collect();
        let command: Vec<String> = words(&["./a.out"]);
        let build: Vec<String> = words(&["g++", "bot.cpp"]);
        let env = BTreeMap::new();
        let material = |build: &[String], sources_only| {
            BotMaterial {
                command: &command,
                env: &env,
                version: None,
                build: Some(build),
                interpreter: None,
                sources_only,
                trees: vec![Tree { path: folder.clone(), relative_to: folder.clone() }],
                excluded: Vec::new(),
            }
            .fingerprint()
            .unwrap()
        };
        let build = &build[..];
        let sources = material(build, true);

        // What the build makes, left out by either .gitignore, is no change.
        fs::write(folder.join("a.out"), "\x7fELF one build").unwrap();
        fs::write(folder.join("build/bot.o"), "object").unwrap();
        assert_eq!(material(build, true), sources);
        fs::write(folder.join("a.out"), "\x7fELF another build").unwrap();
        assert_eq!(material(build, true), sources);
        // Counted when every file counts.
        assert_ne!(material(build, false), sources);

        // A source file, a new file or another build command is a change.
        fs::write(folder.join("notes.txt"), "").unwrap();
        let with_notes = material(build, true);
        assert_ne!(with_notes, sources);
        fs::write(folder.join("bot.cpp"), "int main() { return 0; }\n").unwrap();
        assert_ne!(material(build, true), with_notes);
        assert_ne!(material(&words(&["make"]), true), material(build, true));
    }

    #[test]
    fn fingerprints_show_as_hex() {
        let fingerprint = Bot::new().fingerprint();
        assert_eq!(fingerprint.hex().len(), 64);
        assert!(fingerprint.hex().starts_with(&fingerprint.short()));
        assert_eq!(fingerprint.short().len(), 12);
    }
}
