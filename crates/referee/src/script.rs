//! Before the first game: the files a bot's command names are there and
//! readable. A mistyped script (`python3 bots/nope.py`) is refused at once,
//! naming it, instead of every game being recorded as a crash.

use std::path::Path;

use super::BotCommand;
use arena_system::sandbox::path_list;

/// How an interpreter's words are read: the options after which it runs
/// code given inline or a module rather than a script, and those that take
/// the next word as their value.
struct Interpreter {
    names: &'static [&'static str],
    /// A script's name for a message's example.
    example: &'static str,
    inline: &'static [&'static str],
    with_value: &'static [&'static str],
}

const INTERPRETERS: [Interpreter; 5] = [
    Interpreter {
        names: &["python", "pypy"],
        example: "main.py",
        inline: &["-c", "-m"],
        with_value: &["-W", "-X", "--check-hash-based-pycs"],
    },
    Interpreter {
        names: &["node", "nodejs", "bun", "deno"],
        example: "main.js",
        inline: &["-e", "-p", "--eval", "--print", "run", "eval"],
        with_value: &["-r", "--require", "--import", "--loader", "--conditions", "-C"],
    },
    Interpreter {
        names: &["ruby"],
        example: "main.rb",
        inline: &["-e"],
        with_value: &["-I", "-r", "-C", "-E"],
    },
    Interpreter {
        names: &["perl"],
        example: "main.pl",
        inline: &["-e", "-E"],
        with_value: &["-I", "-M", "-m"],
    },
    Interpreter {
        names: &["sh", "bash", "dash", "zsh", "ksh"],
        example: "main.sh",
        inline: &["-c"],
        with_value: &["-o", "-O", "+o", "+O"],
    },
];

/// What a command's interpreter runs, as far as arena knows its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script<'a> {
    /// This file (a script, or `java -jar`'s archive).
    File(&'a str),
    /// Code given inline (`python3 -c`, `node -e`), a module (`python3
    /// -m`) or a main class (`java -cp build Main`): no file to look for.
    Inline,
    /// An interpreter given nothing to run (`python3`, `python3 -u`): it would
    /// read a program from its input, where arena writes its messages.
    /// The example names a script for this interpreter (`main.py`).
    Absent {
        /// A script name for this interpreter.
        example: &'static str,
    },
    /// A program whose words arena does not know.
    Unknown,
}

impl BotCommand {
    /// Checks the program ([`BotCommand::check_program`]) and the file an
    /// interpreter is given to run (a script, or `java -jar`'s archive):
    /// it must exist and be readable. The error says what is wrong with
    /// which file; the caller names the bot.
    pub fn check_files(&self) -> Result<(), String> {
        self.check_program()?;
        if let Some(run) = self.run_by_env() {
            return run.check_files();
        }
        self.check_class_path()?;
        let script = match self.script() {
            Script::File(script) => script,
            Script::Absent { example } => {
                return Err(format!(
                    "`{command}` is given no file to run: alone, `{program}` would read a program from its input, where arena writes its messages; name the file after it, as in `{command} {example}` (on a command line, a command of several words goes in quotes)",
                    command = self.display(),
                    program = self.argv[0],
                ));
            }
            Script::Inline | Script::Unknown => return Ok(()),
        };
        let path = self.in_dir(Path::new(script));
        let what = match self.argv.iter().any(|word| word == "-jar") {
            true => "archive",
            false => "script",
        };
        match path.metadata() {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(format!(
                "{what} `{}` does not exist{} (`{}` runs it)",
                path.display(),
                Self::looked_from(&path),
                self.argv[0]
            )),
            Err(error) => Err(format!("{what} `{}` cannot be reached: {error}", path.display())),
            // A folder is a script to Python (its __main__.py).
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => match std::fs::File::open(&path) {
                Ok(_) => Ok(()),
                Err(error) => Err(format!(
                    "{what} `{}` cannot be read ({error}): make it readable, e.g. chmod a+r",
                    path.display()
                )),
            },
        }
    }

    /// For `java`, its class path (the last `-cp`, `-classpath` or
    /// `--class-path` before the main class) must name something that
    /// exists: with none of its entries there (a path typed from another
    /// folder), Java would only say that it cannot find the main class. A
    /// missing entry beside one that exists is Java's to skip.
    fn check_class_path(&self) -> Result<(), String> {
        let Some((program, words)) = self.argv.split_first() else { return Ok(()) };
        if Path::new(program).file_name().is_none_or(|name| name != "java") {
            return Ok(());
        }
        let mut class_path = None;
        let mut words = words.iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "-cp" | "-classpath" | "--class-path" => class_path = words.next(),
                // Options whose value is the next word.
                "-p" | "--module-path" | "--upgrade-module-path" | "--add-modules" => {
                    words.next();
                }
                // An archive's own class path, or a module, runs instead.
                "-jar" | "-m" | "--module" => return Ok(()),
                option if option.starts_with('-') => {
                    if let Some(list) = option.strip_prefix("--class-path=") {
                        class_path = Some(word).filter(|_| !list.is_empty());
                    }
                }
                // The main class: what follows is the program's own.
                _ => break,
            }
        }
        let Some(list) = class_path else { return Ok(()) };
        let list = list.strip_prefix("--class-path=").unwrap_or(list);
        let mut entries = path_list(list).map(|entry| self.in_dir(Path::new(entry)));
        let Some(first) = entries.next() else { return Ok(()) };
        if first.exists() || entries.any(|entry| entry.exists()) {
            return Ok(());
        }
        Err(format!(
            "class path `{list}` names nothing that exists: `{}` does not exist{} (`{}` looks for classes there)",
            first.display(),
            Self::looked_from(&first),
            self.argv[0]
        ))
    }

    /// The file the command's interpreter runs, for an interpreter whose
    /// words arena knows: the first word that is not an option (nor an
    /// option's value), or for `java` the archive of `-jar`.
    pub fn script(&self) -> Script<'_> {
        let Some((program, words)) = self.argv.split_first() else { return Script::Unknown };
        let Some(name) = Path::new(program).file_name().and_then(|name| name.to_str()) else {
            return Script::Unknown;
        };
        if name == "java" {
            let archive = words.iter().position(|word| word == "-jar").map(|at| words.get(at + 1));
            return archive.flatten().map_or(Script::Inline, |archive| Script::File(archive));
        }
        let Some(interpreter) = INTERPRETERS.iter().find(|interpreter| {
            interpreter.names.iter().any(|known| {
                name.strip_prefix(known)
                    .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
            })
        }) else {
            return Script::Unknown;
        };
        let absent = Script::Absent { example: interpreter.example };
        let mut words = words.iter();
        while let Some(word) = words.next() {
            let option = word.split('=').next().unwrap_or(word);
            if interpreter.inline.contains(&option) {
                return Script::Inline;
            }
            if interpreter.with_value.contains(&word.as_str()) {
                words.next();
            } else if word == "--" {
                return words.next().map_or(absent, |script| Script::File(script));
            } else if !word.starts_with('-') && !word.starts_with('+') {
                return Script::File(word);
            }
        }
        absent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(line: &str) -> Option<String> {
        match BotCommand::parse(line).unwrap().script() {
            Script::File(file) => Some(file.to_owned()),
            Script::Inline | Script::Absent { .. } | Script::Unknown => None,
        }
    }

    #[test]
    fn the_script_is_the_interpreters_first_word_that_is_not_an_option() {
        assert_eq!(
            script("python3 -u bots/my_bot.py --level 3").as_deref(),
            Some("bots/my_bot.py")
        );
        assert_eq!(script("/usr/bin/python3.11 -W ignore bot.py").as_deref(), Some("bot.py"));
        assert_eq!(script("python3 -c 'import a.b'"), None);
        assert_eq!(script("python3 -m my.bot"), None);
        assert_eq!(script("node --require ./x.js strong.js").as_deref(), Some("strong.js"));
        assert_eq!(script("node -e 'x'"), None);
        assert_eq!(script("java -jar build/bot.jar --fast").as_deref(), Some("build/bot.jar"));
        assert_eq!(script("java -cp build Main"), None);
        assert_eq!(script("bash -o errexit run.sh").as_deref(), Some("run.sh"));
        assert_eq!(script("target/release/random-bot bot.py"), None);
        assert_eq!(script("python3"), None);
    }

    #[test]
    fn an_interpreter_given_nothing_to_run_is_told_from_inline_code() {
        // What `script` said, without the file it borrows.
        let of = |line: &str| match BotCommand::parse(line).unwrap().script() {
            Script::File(_) => "file",
            Script::Inline => "inline",
            Script::Absent { example } => example,
            Script::Unknown => "unknown",
        };
        for line in ["python3", "python3 -u", "/usr/bin/python3.11 -W ignore", "bash -e"] {
            assert!(of(line).starts_with("main."), "{line}: {}", of(line));
        }
        assert_eq!(of("node --"), "main.js");
        for line in ["python3 -c pass", "python3 -m my.bot", "node -e 1", "java -cp build Main"] {
            assert_eq!(of(line), "inline", "{line}");
        }
        assert_eq!(of("target/release/random-bot"), "unknown");
        let refused = BotCommand::parse("python3 -u").unwrap().check_files().unwrap_err();
        assert!(refused.contains("as in `python3 -u main.py`"), "{refused}");
    }

    #[test]
    fn a_missing_or_unreadable_script_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let command = |line: &str| {
            let mut command = BotCommand::parse(line).unwrap();
            command.dir = Some(folder.path().to_owned());
            command
        };
        let missing = command("python3 nope.py").check_files().unwrap_err();
        assert!(missing.starts_with("script `") && missing.contains("nope.py` does not exist"));
        std::fs::write(folder.path().join("bot.py"), "").unwrap();
        assert_eq!(command("python3 bot.py").check_files(), Ok(()));
        assert_eq!(command("python3 -c 'import nope.py'").check_files(), Ok(()));
        let behind_env = command("env A=1 python3 nope.py").check_files().unwrap_err();
        assert!(behind_env.contains("nope.py` does not exist"), "{behind_env}");
        let jar = command("java -jar bot.jar").check_files().unwrap_err();
        assert!(jar.starts_with("archive `"), "{jar}");
        std::fs::create_dir_all(folder.path().join("classes")).unwrap();
        std::fs::create_dir_all(folder.path().join("lib")).unwrap();
        assert_eq!(command("java -cp classes:lib/* Main").check_files(), Ok(()));
        // Java skips a missing entry beside one that is there.
        assert_eq!(command("java -cp classes:libs Main").check_files(), Ok(()));
        assert_eq!(command("java -cp * Main nope").check_files(), Ok(()));
        assert_eq!(command("java -cp nope -cp classes Main").check_files(), Ok(()));
        assert_eq!(command("java -cp nope -jar bot.jar").check_files().unwrap_err(), jar);
        let class_path = command("java -cp nope:libs Main").check_files().unwrap_err();
        assert!(class_path.starts_with("class path `nope:libs` names nothing"), "{class_path}");
        assert!(class_path.contains("nope` does not exist"), "{class_path}");
        let option = command("java --class-path=nope Main").check_files().unwrap_err();
        assert!(option.contains("nope` does not exist"), "{option}");
    }

    #[test]
    fn a_missing_file_is_named_as_typed_or_in_its_folder() {
        let here = BotCommand::parse("./nope_bot --fast").unwrap().check_files().unwrap_err();
        assert!(here.starts_with("program `./nope_bot` does not exist (from /"), "{here}");
        let in_dir = |line: &str| {
            let mut command = BotCommand::parse(line).unwrap();
            command.dir = Some("/no/such/folder".into());
            command.check_files().unwrap_err()
        };
        let program = in_dir("./bot");
        assert!(program.starts_with("program `/no/such/folder/bot` does not exist"), "{program}");
        let script = in_dir("python3 ./nope.py");
        assert!(script.starts_with("script `/no/such/folder/nope.py` does not exist"), "{script}");
    }
}
