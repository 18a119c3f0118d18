//! A bot's command: how to start it, what it names, and why it cannot be
//! used.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena_system::os::sandbox::{BotSandbox, Sandbox};
use arena_system::sandbox::{CommandFiles, Declared, Roots, SandboxError, View};

/// How to start a bot.
#[derive(Clone, Debug, Default)]
pub struct BotCommand {
    /// Program and arguments; no shell is involved.
    pub argv: Vec<String>,
    /// Working directory; the arena's own when `None`.
    pub dir: Option<PathBuf>,
    /// Variables added to the environment: to the sandbox's allowed few,
    /// or to the arena's own when there is no sandbox.
    pub env: Vec<(String, String)>,
    /// What the maintainer declared of its box (its own folder, what it
    /// alone may read).
    pub declared: Declared,
    /// The program to exec in place of the one PATH finds for `argv[0]`,
    /// when that is a shim: what the shim runs ([`BotCommand::prepare_all`]).
    pub program: Option<PathBuf>,
    /// The sandbox its processes start in; `None` runs them as they are.
    pub sandbox: Option<Arc<BotSandbox>>,
}

impl BotCommand {
    /// The command `env` runs, for a command that is `env NAME=VALUE ...
    /// PROGRAM ARGS`: what names the bot and whose files are checked.
    pub fn run_by_env(&self) -> Option<BotCommand> {
        let (program, arguments) = self.argv.split_first()?;
        let run = arena_system::sandbox::run_by_env(program, arguments)?;
        Some(BotCommand { argv: run.to_vec(), ..self.clone() })
    }

    /// Splits a command line the way a POSIX shell would split words
    /// (quotes and backslashes), without running a shell. A line that
    /// names an existing file as it stands (`./my bot`, `Bob's bot.py`) is
    /// that file, not split: a path the shell gave as one word, spaces or
    /// quotes and all, means the file, and splitting it would name files
    /// that are not there.
    pub fn parse(command_line: &str) -> Result<BotCommand, CommandError> {
        if Path::new(command_line).is_file() {
            return BotCommand::from_argv(vec![command_line.to_owned()]);
        }
        let argv = shell_words::split(command_line).map_err(|error| CommandError::Split {
            command: command_line.to_owned(),
            message: error.to_string(),
        })?;
        BotCommand::from_argv(argv)
    }

    /// The command of these words, program first; refused when there is no program.
    pub fn from_argv(argv: Vec<String>) -> Result<BotCommand, CommandError> {
        if argv.first().is_none_or(|program| program.is_empty()) {
            return Err(CommandError::Empty);
        }
        Ok(BotCommand { argv, ..BotCommand::default() })
    }

    /// Checks that a bot's program can be found and run, so a typo is reported
    /// before any game starts instead of as a forfeit.
    pub fn check_program(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let program = Path::new(&self.argv[0]);
        let executable = |path: &Path| {
            path.metadata()
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        };
        if program.components().count() > 1 {
            let path = self.in_dir(program);
            return match path.metadata() {
                Err(_) => Err(format!(
                    "program `{}` does not exist{}",
                    path.display(),
                    Self::looked_from(&path)
                )),
                Ok(_) if !executable(&path) => Err(format!(
                    "program `{}` is not an executable file (a script needs `chmod +x` and a #! line, or name its interpreter first)",
                    path.display()
                )),
                Ok(_) if !runnable_format(&path) => Err(format!(
                    "program `{}` is neither a compiled program nor a script with a #! line (add one, such as `#!/usr/bin/env python3`, or name its interpreter first: `python3 {}`)",
                    path.display(),
                    self.argv[0]
                )),
                Ok(_) => missing_interpreter(&path).map_or(Ok(()), Err),
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        match std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|path| executable(path))
        {
            Some(found) => missing_interpreter(&found).map_or(Ok(()), Err),
            None => Err(format!("program `{}` was not found in PATH", program.display())),
        }
    }

    /// Makes `commands` (one run's programs, named in messages by
    /// `names`: "bot `x`", "the game program") ready to start: the program
    /// a shim first in PATH runs is looked up once (and started in its
    /// place, with its folder first in PATH, so no start goes through a
    /// version manager); with a sandbox, each one's box is worked out from
    /// what was declared for it ([`View`]) and a path a command names that
    /// its box would not show is refused here, before any game. Returns
    /// what the user should be warned of: a program whose own folder lies
    /// in a system folder, which every box shows.
    pub fn prepare_all(
        commands: &mut [BotCommand],
        names: &[String],
        sandbox: Option<&Arc<Sandbox>>,
    ) -> Result<Vec<String>, SandboxError> {
        let here = std::env::current_dir().unwrap_or_default();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let name = |index: usize| names.get(index).cloned().unwrap_or_else(|| "a program".into());
        let mut files = Vec::with_capacity(commands.len());
        for (index, command) in commands.iter_mut().enumerate() {
            let dir = command.dir.clone().unwrap_or_else(|| here.clone());
            let found = CommandFiles::of(&command.argv, &dir, &path).map_err(|error| {
                SandboxError::Shim { program: name(index), error: Box::new(error) }
            })?;
            if let Some(shim) = &found.shim {
                command.program = Some(shim.program.clone());
                if let Some(folder) = shim.program.parent() {
                    let before = std::env::join_paths(
                        std::iter::once(folder.to_path_buf())
                            .chain(std::env::split_paths(&command.path_variable())),
                    )
                    .unwrap_or_else(|_| path.clone());
                    command.env.retain(|(key, _)| key != "PATH");
                    command.env.push(("PATH".to_owned(), before.to_string_lossy().into_owned()));
                }
            }
            files.push(found);
        }
        let Some(sandbox) = sandbox else { return Ok(Vec::new()) };
        let roots = Roots::of_path(&path);
        let views: Vec<View> = files
            .iter()
            .zip(commands.iter())
            .enumerate()
            .map(|(index, (found, command))| {
                View::of(found, &command.declared, &sandbox.read_paths(), &roots).map_err(|error| {
                    SandboxError::NotShown { program: name(index), error: Box::new(error) }
                })
            })
            .collect::<Result<_, _>>()?;
        for (index, command) in commands.iter_mut().enumerate() {
            let others: Vec<&View> = views
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .map(|(_, view)| view)
                .collect();
            views[index].check_against(&others, sandbox.protected()).map_err(|error| {
                SandboxError::NotShown { program: name(index), error: Box::new(error) }
            })?;
            command.sandbox = Some(sandbox.for_bot(&command.display(), &views[index], &others)?);
        }
        let warnings = views
            .iter()
            .enumerate()
            .filter_map(|(index, view)| {
                let own = view.own.as_ref().filter(|own| arena_system::sandbox::in_system_folder(own))?;
                Some(format!(
                    "{}: its files (in {}) lie in a system folder, which every box shows: other programs can read them (keep a bot that must stay private in a folder of its own outside /usr and /opt)",
                    name(index),
                    own.display()
                ))
            })
            .collect();
        Ok(warnings)
    }

    /// The PATH the program gets: its own `env`'s, else arena's.
    fn path_variable(&self) -> std::ffi::OsString {
        match self.env.iter().find(|(key, _)| key == "PATH") {
            Some((_, value)) => value.into(),
            None => std::env::var_os("PATH").unwrap_or_default(),
        }
    }

    /// Where a path the command names lies: as typed (relative to arena's
    /// working directory) without a `dir`, else in `dir`, without the
    /// `./` that would show as `dir/./bot` in messages.
    pub(crate) fn in_dir(&self, file: &Path) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(file.strip_prefix(".").unwrap_or(file)),
            None => file.to_owned(),
        }
    }

    /// Where a relative `path` was looked for, for a message saying it is
    /// missing: " (from /home/me/league)"; nothing for an absolute one.
    pub(crate) fn looked_from(path: &Path) -> String {
        match std::env::current_dir() {
            Ok(here) if path.is_relative() => format!(" (from {})", here.display()),
            _ => String::new(),
        }
    }

    /// The command as a user would type it, for messages.
    pub fn display(&self) -> String {
        shell_words::join(&self.argv)
    }
}

/// What is wrong with the interpreter `script`'s #! line names, if it
/// names one that is not there (the kernel's error would blame the script).
fn missing_interpreter(script: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let count = std::fs::File::open(script).and_then(|mut file| file.read(&mut head)).ok()?;
    let line = head[..count].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&byte| byte == b'\n').unwrap_or(line.len())];
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_ascii_whitespace();
    let interpreter = words.next()?;
    let runs = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if !runs(Path::new(interpreter)) {
        return Some(format!(
            "program `{}` names the interpreter `{interpreter}` in its #! line, and there is no such program (install it, or correct the #! line)",
            script.display()
        ));
    }
    // `#!/usr/bin/env python3` finds its program in PATH.
    let name =
        words.find(|word| !word.starts_with('-')).filter(|_| interpreter.ends_with("/env"))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|folder| runs(&folder.join(name))) {
        return None;
    }
    Some(format!(
        "program `{}` runs `{name}` through `{interpreter}` (its #! line), and `{name}` was not found in PATH (install it, or correct the #! line)",
        script.display()
    ))
}

/// Whether the kernel can run `path` itself: an ELF program or a script
/// with a `#!` line (a script without one fails at exec, after the run has
/// begun).
fn runnable_format(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut file| file.read(&mut head));
    match read {
        Ok(count) => head[..count].starts_with(b"#!") || head[..count] == *b"\x7fELF",
        // Unreadable here: let exec have its say.
        Err(_) => true,
    }
}

/// A bot command that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A command with no program: empty, or an empty first word.
    #[error("the bot command is empty")]
    Empty,
    /// A command line that does not split into words (an unclosed quote).
    #[error("cannot split the command `{command}`: {message}")]
    Split {
        /// The command line, as written.
        command: String,
        /// Why it does not split.
        message: String,
    },
    /// The program could not be started.
    // The cause is part of the message, not a source of its own: a chain
    // printed in full would say it twice.
    #[error("cannot start `{command}`: {error}")]
    Spawn {
        /// The command, as a user would type it.
        command: String,
        /// Why it could not start.
        error: std::io::Error,
    },
    /// The program could not be started in its sandbox.
    #[error("cannot start `{command}`: {error}")]
    Sandbox {
        /// The command, as a user would type it.
        command: String,
        /// What the sandbox refused, or failed to set up.
        error: SandboxError,
    },
}
