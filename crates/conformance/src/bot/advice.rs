//! What a beginner can do about a forfeit, and the language a bot is
//! written in, for the one line that flushes a reply in it.

use std::path::{Path, PathBuf};

use arena_protocol::BadReplyKind;
use arena_referee::{Activity, BotCommand, Cause, Forfeit, Stall};

/// The languages whose way to flush a hint can name (protocol.md §8 has
/// them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// Python (`python3`, a `.py` script).
    Python,
    /// JavaScript (`node`, a `.js` script).
    JavaScript,
    /// Rust (a program in cargo's `target` folder).
    Rust,
    /// C.
    C,
    /// C++.
    Cpp,
    /// Go.
    Go,
    /// Java (`java`, a class path or a jar).
    Java,
    /// C# (`dotnet`, `mono`).
    CSharp,
    /// A shell script.
    Shell,
    /// Ruby.
    Ruby,
    /// Perl.
    Perl,
}

impl Language {
    /// The language's name, as a hint shows it.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::Rust => "Rust",
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Go => "Go",
            Language::Java => "Java",
            Language::CSharp => "C#",
            Language::Shell => "a shell script",
            Language::Ruby => "Ruby",
            Language::Perl => "Perl",
        }
    }

    /// How a reply is written and flushed in this language (as in
    /// protocol.md §8's table).
    fn flush(self) -> &'static str {
        match self {
            Language::Python => "print(json.dumps(reply), flush=True) (or run python3 -u)",
            Language::JavaScript => r#"process.stdout.write(JSON.stringify(reply) + "\n")"#,
            Language::Rust => r#"writeln!(out, "{line}")?; out.flush()?;"#,
            Language::C => {
                r#"printf("%s\n", line); fflush(stdout); (or setvbuf(stdout, NULL, _IOLBF, 0); once)"#
            }
            Language::Cpp => {
                r#"std::cout << line << std::endl; (std::endl flushes, "\n" does not, and after std::cin.tie(nullptr) reading std::cin no longer flushes std::cout)"#
            }
            Language::Go => r#"w.WriteString(line + "\n"); w.Flush() with a bufio.Writer w"#,
            Language::Java => {
                "System.out.println(line); System.out.flush(); (a Writer of your own: writer.flush())"
            }
            Language::CSharp => {
                "Console.WriteLine(line); (a StreamWriter of your own needs AutoFlush = true or Flush())"
            }
            Language::Shell => {
                r#"printf '%s\n' "$line" (a program it runs may buffer its output: stdbuf -oL program)"#
            }
            Language::Ruby => "puts line; $stdout.flush (or $stdout.sync = true once)",
            Language::Perl => "$| = 1; once, before the first print",
        }
    }

    /// The language of the bot `command` runs, as far as its words and
    /// files tell: its interpreter (`python3`), the extension of a file it
    /// names (`bot.rb`), the sources beside its program (a kit's launcher,
    /// `bots/cpp/bot`, sits beside `random_bot.cpp`), a Cargo build folder,
    /// or its program's `#!` line.
    pub fn of(command: &BotCommand) -> Option<Language> {
        let dir = command.dir.clone().unwrap_or_else(|| PathBuf::from("."));
        let program = command.argv.first()?;
        let name = Path::new(program).file_name()?.to_str()?;
        if let Some(language) = by_interpreter(name) {
            return Some(language);
        }
        if let Some(language) = command.argv.iter().find_map(|word| by_extension(word)) {
            return Some(language);
        }
        if !program.contains('/') {
            return None;
        }
        let path = dir.join(program);
        let folder = path.parent()?;
        if let Some(language) = by_sources_in(folder) {
            return Some(language);
        }
        let cargo_build =
            folder.file_name().is_some_and(|name| name == "release" || name == "debug")
                && folder.parent().and_then(Path::file_name).is_some_and(|name| name == "target");
        if cargo_build {
            return Some(Language::Rust);
        }
        let line = std::fs::read(&path).ok()?;
        let first = line.split(|&byte| byte == b'\n').next()?.strip_prefix(b"#!")?;
        let first = String::from_utf8_lossy(first);
        let mut words = first.split_ascii_whitespace();
        let interpreter = words.next()?;
        // `#!/usr/bin/env python3` names its interpreter after env.
        let interpreter = match interpreter.ends_with("/env") {
            true => words.find(|word| !word.starts_with('-'))?,
            false => interpreter,
        };
        by_interpreter(Path::new(interpreter).file_name()?.to_str()?)
    }
}

fn by_interpreter(name: &str) -> Option<Language> {
    Some(match name {
        _ if name.starts_with("python") || name.starts_with("pypy") => Language::Python,
        "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
        "java" => Language::Java,
        "ruby" => Language::Ruby,
        "perl" => Language::Perl,
        "sh" | "bash" | "dash" | "zsh" | "ksh" => Language::Shell,
        "dotnet" | "mono" => Language::CSharp,
        "go" => Language::Go,
        "cargo" => Language::Rust,
        _ => return None,
    })
}

fn by_extension(word: &str) -> Option<Language> {
    let extension = Path::new(word).extension()?.to_str()?;
    Some(match extension {
        "py" => Language::Python,
        "js" | "mjs" | "cjs" | "ts" => Language::JavaScript,
        "rb" => Language::Ruby,
        "pl" => Language::Perl,
        "sh" | "bash" => Language::Shell,
        "jar" | "java" | "class" => Language::Java,
        "dll" | "cs" => Language::CSharp,
        "go" => Language::Go,
        _ => return None,
    })
}

/// The language of the source files in `folder`, if it holds any.
fn by_sources_in(folder: &Path) -> Option<Language> {
    const SOURCES: [(&[&str], Language); 6] = [
        (&["cpp", "cc", "cxx", "hpp", "hh"], Language::Cpp),
        (&["c"], Language::C),
        (&["go"], Language::Go),
        (&["java"], Language::Java),
        (&["rs"], Language::Rust),
        (&["cs"], Language::CSharp),
    ];
    let entries = std::fs::read_dir(folder).ok()?;
    let extensions: Vec<String> = entries
        .flatten()
        .take(500)
        .filter_map(|entry| {
            Some(Path::new(&entry.file_name()).extension()?.to_str()?.to_ascii_lowercase())
        })
        .collect();
    SOURCES.iter().find_map(|(wanted, language)| {
        extensions.iter().any(|extension| wanted.contains(&extension.as_str())).then_some(*language)
    })
}

/// "flush stdout after every line: in Python, print(...); protocol.md §8
/// shows how in each language".
fn flush_advice(language: Option<Language>) -> String {
    match language {
        Some(language) => format!(
            "flush stdout after every line; in {}: {}; protocol.md §8 has every language",
            language.name(),
            language.flush()
        ),
        None => {
            "flush stdout after every line (protocol.md §8 shows how in each language)".to_owned()
        }
    }
}

/// What a beginner can do about a forfeit, by its typed cause. `log` is
/// the bot's stderr log of the game, when it is kept; `language` the
/// bot's, when known.
pub fn hint(forfeit: &Forfeit, log: Option<&Path>, language: Option<Language>) -> String {
    let request = if forfeit.request.is_start() { "start" } else { "move" };
    match &forfeit.cause {
        Cause::Timeout(timeout) => match timeout.stall {
            Stall::InputNotRead => {
                "read your stdin as requests come: the referee could not even write its request"
                    .to_owned()
            }
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::WaitingForInput }
            | Stall::Stuck { partial_bytes: 0, .. } => format!(
                "your bot was waiting for its next request: if it wrote a reply, the reply is still in its output buffer: {}; if it skipped this `{request}` request, answer every `start` and every `move` it is sent (in a simultaneous turn both seats are asked)",
                flush_advice(language)
            ),
            // The JVM and Node do not read their input on the process's
            // first thread, the one the system is asked about: for them
            // "busy" may be a stuck reply too.
            Stall::NoLine { partial_bytes: 0, bot_was: Activity::Busy }
                if !matches!(language, Some(Language::Java | Language::JavaScript)) =>
            {
                format!(
                "your bot was still at work when its time ran out: answer every `{request}` request within the time (the request's `time_ms`)"
            )
            }
            Stall::NoLine { partial_bytes: 0, .. } => format!(
                "if your bot did answer, its reply is still in its output buffer: {}; if it did not, answer every `{request}` request within the time",
                flush_advice(language)
            ),
            Stall::NoLine { partial_bytes, .. } | Stall::Stuck { partial_bytes, .. } => format!(
                "{partial_bytes} bytes came without a newline: end each reply with \"\\n\" and {}",
                flush_advice(language)
            ),
        },
        Cause::AnsweredNotice { .. } => {
            "answer only `start` and `move`: `over` and `reveal` need no answer; after one, keep reading (the next line is the next request, the next game's `start`, or the end of input)".to_owned()
        }
        Cause::BadReply(BadReplyKind::IdNotANumber) => {
            "copy the `id` of each request into your reply as the number it is (\"id\": 2, not \"id\": \"2\")".to_owned()
        }
        Cause::BadReply(kind) if kind.is_about_the_id() => {
            "copy the `id` of each request into your reply, as the number it is".to_owned()
        }
        Cause::BadReply(BadReplyKind::SplitOverLines) => {
            "write each reply as one line of compact JSON, with no line breaks inside (no indent or pretty-printing)".to_owned()
        }
        Cause::BadReply(kind) if kind.is_stray_output() => {
            "only protocol replies go to stdout, one JSON object per line: debug prints go to stderr".to_owned()
        }
        Cause::BadReply(BadReplyKind::NotAMove) | Cause::IllegalMove => {
            "reply with one element of the request's `legal_moves`, copied as it is (same shape and types)".to_owned()
        }
        Cause::BadReply(_) => {
            "answer `start` with {\"type\":\"ready\",\"id\":ID} and `move` with {\"type\":\"move\",\"id\":ID,\"move\":M}".to_owned()
        }
        Cause::LineTooLong { .. } => {
            "only protocol replies go to stdout, one JSON object per line: debug prints go to stderr".to_owned()
        }
        // `arena check` withdraws no bot; a run that did said why.
        Cause::SkippedStart => {
            "answer every `start` with {\"type\":\"ready\",\"id\":ID}, in every game of the session, before the move request that may come with it (protocol.md §2)".to_owned()
        }
        Cause::Withdrawn => "fix what made it crash, then run again: its games are played again".to_owned(),
        Cause::Crash(crash) => {
            let mut hint = match crash.stderr_tail.is_empty() {
                true => "your bot stopped and wrote nothing to stderr".to_owned(),
                false => "your bot stopped: the error is most likely in what it wrote to stderr, quoted above".to_owned(),
            };
            let advice = missing_package_advice(&crash.stderr_tail)
                .or_else(|| missing_file_advice(&crash.stderr_tail));
            if let Some(advice) = advice {
                hint.push_str("; ");
                hint.push_str(advice);
            }
            if let Some(log) = log {
                hint.push_str(&format!("; its whole stderr is in {}", log.display()));
            }
            hint
        }
    }
}

/// What to do when the last lines a bot wrote to stderr say that a
/// package it imports cannot be found: most often one installed where
/// its box does not look (`pip install --user` in a home folder) or for
/// another interpreter than the one the command runs.
fn missing_package_advice(stderr_tail: &[String]) -> Option<&'static str> {
    // Python's last line names the module; node's message is above the
    // stack it prints, out of the quoted tail.
    stderr_tail.iter().any(|line| line.contains("ModuleNotFoundError: No module named")).then_some(
        "a package it imports is not installed for the python that runs it, or lies where its box does not look (`pip install --user` puts it in your home folder, which the box does not show): install it in a virtual environment and run the bot with that environment's python, e.g. \"/path/to/.venv/bin/python my_bot.py\" (docs/sandbox.md, Bots with dependencies)",
    )
}

/// What to do when the last lines a bot wrote to stderr say a file it
/// opened is not there: most often one named relative to the bot's own
/// folder, while the bot runs in another (arena's working directory, or a
/// tournament bot's `dir`), or one outside what its box shows.
fn missing_file_advice(stderr_tail: &[String]) -> Option<&'static str> {
    let missing = |line: &String| super::checklist::MISSING.iter().any(|sign| line.contains(sign));
    stderr_tail.iter().any(missing).then_some(
        "a file it opens is not there: a bot runs in arena's working directory (in a tournament, in its `dir`), not in the folder of its program, so open its own files by a path from the program (Python: `pathlib.Path(__file__).parent / \"config.json\"`), and its box shows only its own folder, the system and `read_paths` (protocol.md §1, docs/sandbox.md)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bots_language_comes_from_its_interpreter_files_or_folder() {
        let of = |line: &str| Language::of(&BotCommand::parse(line).unwrap());
        // The kits, by their paths in the repository (tests run in the
        // crate's folder).
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let kit = |path: &str| of(repo.join(path).to_str().unwrap());
        assert_eq!(of("python3 -u my_bot.py"), Some(Language::Python));
        assert_eq!(of("/usr/bin/node x/strong.js"), Some(Language::JavaScript));
        assert_eq!(of("java -cp build Main"), Some(Language::Java));
        assert_eq!(of("./my_bot.rb"), Some(Language::Ruby));
        assert_eq!(of("perl bot.pl"), Some(Language::Perl));
        // The kits' launchers are shell scripts beside their sources.
        assert_eq!(kit("bots/cpp/bot"), Some(Language::Cpp));
        assert_eq!(kit("bots/go/bot"), Some(Language::Go));
        assert_eq!(kit("bots/java/bot"), Some(Language::Java));
        assert_eq!(kit("target/release/random-bot"), Some(Language::Rust));
        assert_eq!(kit("bots/measure.sh"), Some(Language::Shell));
        assert_eq!(of("mystery-program"), None);
        // A script without an extension, by its #! line.
        let scratch = tempfile::tempdir().unwrap();
        let script = scratch.path().join("runme");
        std::fs::write(&script, "#!/usr/bin/env -S ruby -w\nputs 1\n").unwrap();
        assert_eq!(of(script.to_str().unwrap()), Some(Language::Ruby));
    }

    #[test]
    fn a_missing_package_is_told_where_to_install_it() {
        let tail = |lines: &[&str]| lines.iter().map(|line| line.to_string()).collect::<Vec<_>>();
        let python = tail(&[
            "  File \"/home/me/my_bot.py\", line 3, in <module>",
            "import numpy",
            "ModuleNotFoundError: No module named 'numpy'",
        ]);
        let advice = missing_package_advice(&python).unwrap();
        assert!(advice.contains("virtual environment") && advice.contains("pip install --user"));
        let other =
            tail(&["Traceback (most recent call last):", "ZeroDivisionError: division by zero"]);
        assert_eq!(missing_package_advice(&other), None);
    }

    #[test]
    fn a_missing_file_is_told_the_bot_runs_elsewhere() {
        let tail = |lines: &[&str]| lines.iter().map(|line| line.to_string()).collect::<Vec<_>>();
        let python = tail(&[
            "    with open(\"config.json\") as file:",
            "FileNotFoundError: [Errno 2] No such file or directory: 'config.json'",
        ]);
        let advice = missing_file_advice(&python).unwrap();
        assert!(advice.contains("not in the folder of its program") && advice.contains("__file__"));
        let node = tail(&["Error: ENOENT: no such file or directory, open 'weights.bin'"]);
        assert!(missing_file_advice(&node).is_some());
        let other = tail(&["ZeroDivisionError: division by zero"]);
        assert_eq!(missing_file_advice(&other), None);
    }

    #[test]
    fn the_flush_advice_names_the_languages_way() {
        assert!(flush_advice(Some(Language::Cpp)).contains("std::endl"));
        assert!(flush_advice(Some(Language::Python)).contains("flush=True"));
        assert!(flush_advice(None).contains("protocol.md §8 shows how in each language"));
    }
}
