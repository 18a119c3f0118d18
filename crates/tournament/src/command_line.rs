//! Tournaments made on the command line rather than read from a file:
//! `arena match` (one pairing), `arena gauntlet` and `arena sprt` build a
//! [`Tournament`] here and play it like `arena run` plays a file's.

use std::path::PathBuf;

use super::config::BuildSettings;
use super::config::{BotEntry, DEFAULT_WITHDRAW_AFTER, Restart, Tournament};
use crate::config::TranscriptStore;
use arena_games::GameSetup;
use arena_referee::clock::TimeKeys;
use arena_referee::{BotCommand, Settings};
use arena_system::sandbox::SandboxSettings;

impl Tournament {
    /// A round robin of `bots` with the defaults a tournament file gets
    /// (two games per pair, seed 1, one game at once, transcripts in the
    /// archive), its results in `out`. Callers set the other fields from
    /// their flags. Unlike a file's, its workers are not pinned to CPUs by
    /// default: `arena match` never pinned, and it often shares the machine.
    pub fn from_command_line(setup: GameSetup, bots: Vec<BotEntry>, out: PathBuf) -> Tournament {
        Tournament {
            file: PathBuf::new(),
            game_dir: None,
            setup,
            seed: 1,
            games_per_pair: 2,
            settings: Settings::default(),
            concurrency: 1,
            withdraw_after: DEFAULT_WITHDRAW_AFTER,
            out,
            restart: Restart::AfterDoubt,
            transcripts: TranscriptStore::Archive,
            pin: false,
            sandbox: SandboxSettings::default(),
            build: BuildSettings::default(),
            bots,
            challengers: Vec::new(),
            sprt: None,
            openings: None,
            seed_key_file: None,
        }
    }
}

impl BotEntry {
    /// A bot given on the command line as `command` (parsed and checked by
    /// the caller), run from its folder or the current one. Its command is
    /// recorded as given, so a rerun from the same folder resumes.
    pub fn from_command_line(name: String, command: BotCommand) -> BotEntry {
        let dir = command.dir.clone().unwrap_or_else(|| PathBuf::from("."));
        BotEntry {
            name,
            dir: std::path::absolute(&dir).unwrap_or(dir),
            written_command: command.argv.clone(),
            argv: command.argv,
            env: command.env.into_iter().collect(),
            written_dir: None,
            read_paths: Vec::new(),
            version: None,
            build: None,
            time_keys: TimeKeys::default(),
            time_control: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_games::GameId;

    fn bot(name: &str, line: &str) -> BotEntry {
        BotEntry::from_command_line(name.to_owned(), BotCommand::parse(line).unwrap())
    }

    #[test]
    fn command_line_bots_keep_their_words() {
        let bot = bot("py", "python3 'bots/python/random_bot.py' -v");
        assert_eq!(bot.written_command, ["python3", "bots/python/random_bot.py", "-v"]);
        assert_eq!(bot.command().argv, bot.written_command);
        assert!(bot.dir.is_absolute());
    }

    #[test]
    fn a_command_line_tournament_has_the_file_defaults() {
        let setup = GameSetup::new(GameId::NumberSnatch, serde_json::Map::new()).unwrap();
        let bots = vec![bot("a", "python3"), bot("b", "python3")];
        let tournament = Tournament::from_command_line(setup, bots, "out".into());
        assert_eq!(tournament.schedule().len(), 2);
        assert_eq!(tournament.concurrency, 1);
        assert!(tournament.challengers.is_empty() && tournament.sprt.is_none());
    }
}
