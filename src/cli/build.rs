//! `arena build FILE`: runs the build command of each bot of a tournament
//! file that declares one, each in a box of its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use super::options::UsageError;
use super::reporters::warn;
use super::sandbox_from::SandboxFromArgs;
use super::sandboxing::prepare_build_sandbox;
use arena_base::printable::printable;
use arena_base::units::parse_duration;
use arena_referee as referee;
use arena_system::sandbox::SandboxMode;
use arena_tournament::Tournament;
use arena_tournament::build::{BuildError, build_bot};

/// Arguments of `arena build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The tournament file whose bots to build.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Build only this bot (repeatable) [default: every bot with a build
    /// command].
    #[arg(long = "bot", value_name = "NAME")]
    bots: Vec<String>,
    /// Let builds use the network (to download dependencies), as the
    /// file's `build_network = true` does.
    #[arg(long)]
    network: bool,
    /// Kill a build that runs longer than this [default: the file's
    /// `build_timeout`, else 10m].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    timeout: Option<Duration>,
    /// Run builds outside any box: as arena's user, with its environment
    /// (secrets included), files and network. For your own bots on your
    /// own machine only.
    #[arg(long, conflicts_with = "sandbox_from")]
    no_sandbox: bool,
    #[command(flatten)]
    sandbox_from: SandboxFromArgs,
}

pub fn run(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let mut tournament =
        Tournament::load(&args.file, None).map_err(|error| UsageError(error.to_string()))?;
    for name in &args.bots {
        tournament.bot_index(name).map_err(|error| UsageError(format!("--bot {name}: {error}")))?;
    }
    args.sandbox_from.apply(&mut tournament)?;
    tournament.build.network |= args.network;
    if let Some(timeout) = args.timeout {
        tournament.build.timeout = timeout;
    }
    let mut settings = tournament.build.sandbox(&tournament.sandbox);
    if args.no_sandbox {
        settings.mode = SandboxMode::Off;
    }
    let chosen: Vec<usize> = (0..tournament.bots.len())
        .filter(|index| args.bots.is_empty() || args.bots.contains(&tournament.bots[*index].name))
        .collect();
    let with_build: Vec<usize> =
        chosen.iter().copied().filter(|index| tournament.bots[*index].build.is_some()).collect();
    if !args.bots.is_empty() {
        for index in chosen.iter().filter(|index| !with_build.contains(index)) {
            crate::say!("bot `{}` has no build command", tournament.bots[*index].name);
        }
    }
    if with_build.is_empty() {
        if args.bots.is_empty() {
            crate::say!("no bot of {} has a build command", args.file.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let protected = tournament.protected_paths();
    let (sandbox, line) = prepare_build_sandbox(&settings, &protected)?;
    crate::say!(
        "builds: {line}; each within {}",
        humantime::format_duration(tournament.build.timeout)
    );
    if let Err(error) = referee::reaper::become_subreaper() {
        warn(&format!("cannot become a subreaper ({error})"));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut failed = Vec::new();
    let mut built = 0;
    for index in with_build {
        let bot = &tournament.bots[index];
        let words = shell_words::join(bot.build.iter().flatten());
        crate::say!("building `{}` in {}: {words}", bot.name, shown(&bot.dir));
        let mut lines = OutputLines::default();
        let result = runtime.block_on(build_bot(
            &tournament,
            index,
            sandbox.as_ref(),
            &tournament.build,
            |bytes| lines.take(bytes),
        ));
        lines.finish();
        match result {
            Ok(done) => {
                built += 1;
                crate::say!("built `{}` in {:.1}s", bot.name, done.elapsed.as_secs_f64());
                if !done.touched_sources.is_empty() {
                    let mut names = done.touched_sources.clone();
                    let more = names.len().saturating_sub(5);
                    names.truncate(5);
                    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                    warn(&format!(
                        "bot `{}`: its build wrote files its fingerprint covers ({}{more}): list what it makes in a .gitignore in its folder, or every build is a new version of the bot",
                        bot.name,
                        names.join(", ")
                    ));
                }
            }
            Err(error @ BuildError::NoBuild { .. }) => crate::say!("{error}"),
            Err(error) => {
                eprintln!("arena: {error}");
                failed.push(bot.name.clone());
            }
        }
    }
    referee::reaper::sweep_orphans();
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(anyhow::anyhow!(
            "{} of {} builds failed: {}",
            failed.len(),
            failed.len() + built,
            failed.join(", ")
        ))
    }
}

/// A build's output on arena's stderr, a line at a time, each made safe
/// for a terminal (a build is a bot author's code: its escape sequences
/// are shown, not obeyed).
#[derive(Default)]
struct OutputLines {
    partial: Vec<u8>,
}

impl OutputLines {
    fn take(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        let Some(end) = self.partial.iter().rposition(|byte| *byte == b'\n') else { return };
        let mut stderr = std::io::stderr().lock();
        for line in self.partial[..end].split(|byte| *byte == b'\n') {
            // What a terminal would leave of a line redrawn with `\r`.
            let line = match line.iter().rposition(|byte| *byte == b'\r') {
                Some(last) if last + 1 < line.len() => &line[last + 1..],
                _ => line,
            };
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let _ = writeln!(stderr, "{}", printable(&String::from_utf8_lossy(line)));
        }
        self.partial.drain(..=end);
    }

    fn finish(&mut self) {
        if !self.partial.is_empty() {
            self.take(b"\n");
        }
    }
}

/// `path` relative to the working directory where it lies under it.
fn shown(path: &Path) -> String {
    let here = std::env::current_dir().unwrap_or_default();
    match path.strip_prefix(&here) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
