//! A bot's command: how to start it, what it names, and why it cannot be
//! used.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::sandbox::{BotSandbox, CommandFiles, Sandbox, SandboxError};

/// How to start a bot.
#[derive(Clone, Debug)]
pub struct BotCommand {
    /// Program and arguments; no shell is involved.
    pub argv: Vec<String>,
    /// Working directory; the arena's own when `None`.
    pub dir: Option<PathBuf>,
    /// Variables added to the environment: to the sandbox's allowed few,
    /// or to the arena's own when there is no sandbox.
    pub env: Vec<(String, String)>,
    /// The sandbox its processes start in; `None` runs them as they are.
    pub sandbox: Option<Arc<BotSandbox>>,
}

impl BotCommand {
    /// The command `env` runs, for a command that is `env NAME=VALUE ...
    /// PROGRAM ARGS`: what names the bot and whose files are checked.
    pub fn run_by_env(&self) -> Option<BotCommand> {
        let (program, arguments) = self.argv.split_first()?;
        let run = crate::sandbox::run_by_env(program, arguments)?;
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

    pub fn from_argv(argv: Vec<String>) -> Result<BotCommand, CommandError> {
        if argv.first().is_none_or(|program| program.is_empty()) {
            return Err(CommandError::Empty);
        }
        Ok(BotCommand { argv, dir: None, env: Vec::new(), sandbox: None })
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

    /// Puts each of `commands` in `sandbox`, each bot's files set apart
    /// from the others' (no bot may read another's program or script).
    pub fn sandbox_all(
        commands: &mut [BotCommand],
        sandbox: &Arc<Sandbox>,
    ) -> Result<(), SandboxError> {
        let here = std::env::current_dir().unwrap_or_default();
        let files: Vec<CommandFiles> = commands
            .iter()
            .map(|command| {
                Sandbox::command_files(&command.argv, command.dir.as_deref().unwrap_or(&here))
            })
            .collect();
        for (index, command) in commands.iter_mut().enumerate() {
            let others: Vec<CommandFiles> = files
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .map(|(_, files)| files.clone())
                .collect();
            command.sandbox = Some(sandbox.for_bot(&command.display(), &files[index], &others)?);
        }
        Ok(())
    }

    /// Where a path the command names lies: as typed (relative to arena's
    /// working directory) without a `dir`, else in `dir`, without the
    /// `./` that would show as `dir/./bot` in messages.
    pub(in crate::referee) fn in_dir(&self, file: &Path) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(file.strip_prefix(".").unwrap_or(file)),
            None => file.to_owned(),
        }
    }

    /// Where a relative `path` was looked for, for a message saying it is
    /// missing: " (from /home/me/league)"; nothing for an absolute one.
    pub(in crate::referee) fn looked_from(path: &Path) -> String {
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
    #[error("the bot command is empty")]
    Empty,
    #[error("cannot split the command `{command}`: {message}")]
    Split { command: String, message: String },
    // The cause is part of the message, not a source of its own: a chain
    // printed in full would say it twice.
    #[error("cannot start `{command}`: {error}")]
    Spawn { command: String, error: std::io::Error },
    #[error("cannot start `{command}`: {error}")]
    Sandbox { command: String, error: SandboxError },
}
