//! One bot's sandbox, and the start of its processes: in a box, or in the
//! fallback.

use std::ffi::CString;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bot_boxes::{BotBoxes, Inputs};
use super::started::{StartError, Started};
use super::{Sandbox, fallback};
use crate::sandbox::command_files;
use crate::sandbox::{Limits, SandboxError};

/// One bot's sandbox: the run's, and what this bot may see.
pub struct BotSandbox {
    pub(super) sandbox: Arc<Sandbox>,
    pub(super) kind: BotKind,
}

pub(super) enum BotKind {
    /// Its boxes: the steps that build one, and those made ahead.
    Boxed(Arc<BotBoxes>),
    /// The fallback, where no box can be made.
    Fallback(fallback::Fallback),
}

impl fmt::Debug for BotSandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotSandbox").finish_non_exhaustive()
    }
}

/// Variables a bot gets from the arena's environment; everything else is
/// left out (tokens and keys included).
const PASSED_VARIABLES: [&str; 3] = ["PATH", "LANG", "TZ"];

impl BotSandbox {
    /// The run's limits.
    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Starts `argv` (run in `dir`, with `env` added to the allowed
    /// environment; `program` exec'd when given, else the one PATH finds)
    /// in its sandbox.
    pub fn start(
        &self,
        program: Option<&Path>,
        argv: &[String],
        dir: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Started, StartError> {
        let c_string = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| SandboxError::Setup("a NUL byte in the command".into()))
        };
        let program = match program {
            Some(program) => program.to_path_buf(),
            None => program_path(argv)?,
        };
        let argv_c: Vec<CString> =
            argv.iter().map(|word| c_string(word.as_bytes())).collect::<Result<_, _>>()?;
        match &self.kind {
            BotKind::Boxed(boxes) => {
                let workdir = match dir {
                    Some(dir) => std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
                    None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
                };
                let program = c_string(program.as_os_str().as_bytes())?;
                boxes.start(Inputs { program, argv: argv_c, workdir, env: env.to_vec() })
            }
            BotKind::Fallback(fallback) => {
                let program = c_string(program.as_os_str().as_bytes())?;
                fallback.start(&self.sandbox, program, argv_c, dir, env)
            }
        }
    }
}

/// The program to exec for `argv`, found as execvp would find it in
/// arena's PATH (which the bot gets).
fn program_path(argv: &[String]) -> Result<PathBuf, SandboxError> {
    if argv[0].contains('/') {
        return Ok(PathBuf::from(&argv[0]));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    command_files::find_in_path(&argv[0], &path)
        .ok_or_else(|| SandboxError::Setup(format!("program `{}` was not found in PATH", argv[0])))
}

/// The environment: the passed variables, HOME and TMPDIR, the memory
/// limit told to runtimes, the bot's own.
pub(super) fn environment(
    scratch: &[u8],
    env: &[(String, String)],
    memory: u64,
) -> Result<Vec<CString>, SandboxError> {
    let c_string = |bytes: Vec<u8>| {
        CString::new(bytes).map_err(|_| SandboxError::Setup("a NUL byte in the environment".into()))
    };
    let mut envp = Vec::new();
    for (key, value) in std::env::vars_os() {
        // The bot's own (a PATH before arena's, say) replaces arena's.
        let passed = key.to_str().is_some_and(|key| {
            (PASSED_VARIABLES.contains(&key) || key.starts_with("LC_"))
                && env.iter().all(|(theirs, _)| theirs != key)
        });
        if passed {
            envp.push(c_string([key.as_bytes(), b"=", value.as_bytes()].concat())?);
        }
    }
    envp.push(c_string([b"HOME=", scratch].concat())?);
    envp.push(c_string([b"TMPDIR=", scratch].concat())?);
    let told = runtime_sizes(scratch, memory);
    for (key, ours) in &told {
        let theirs = env.iter().find(|(their_key, _)| their_key == key).map(|(_, value)| value);
        let value = match theirs {
            // A memory limit of the bot's own replaces ours.
            Some(theirs) if *key == "GOMEMLIMIT" => theirs.clone(),
            // Options: the bot's come after, so theirs win.
            Some(theirs) => format!("{ours} {theirs}"),
            None => ours.clone(),
        };
        envp.push(c_string(format!("{key}={value}").into_bytes())?);
    }
    for (key, value) in env.iter().filter(|(key, _)| told.iter().all(|(told, _)| told != key)) {
        envp.push(c_string(format!("{key}={value}").into_bytes())?);
    }
    Ok(envp)
}

/// What runtimes that size their memory by the machine's are told of the
/// box's limit, which they cannot see (no cgroup files in a box), by
/// variable: else a JVM commits a 64th of the machine at start and grows
/// to a quarter, and Go and V8 let garbage pile up far past the limit
/// before collecting. A JVM grows to a quarter of the limit (half of a
/// small one), as in a container, keeps no performance data file, and its
/// home is the scratch folder, as
/// HOME says (not the host's home of the box's user, which is not shown);
/// Go collects harder past three quarters of the limit, and V8's old
/// space stops there.
fn runtime_sizes(scratch: &[u8], memory: u64) -> [(&'static str, String); 3] {
    // No performance data file: the JVM locks it (a lock no box may take:
    // see the seccomp filter), and says so on stdout, which is the bot's
    // protocol.
    let mut java = format!("-XX:MaxRAM={memory} -XX:-UsePerfData");
    if let Ok(home) = std::str::from_utf8(scratch)
        && !home.contains(char::is_whitespace)
    {
        java = format!("{java} -Duser.home={home}");
    }
    let most = memory / 4 * 3;
    [
        ("JAVA_TOOL_OPTIONS", java),
        ("GOMEMLIMIT", most.to_string()),
        ("NODE_OPTIONS", format!("--max-old-space-size={}", (most >> 20).max(16))),
    ]
}

#[cfg(test)]
mod tests {
    use super::environment;

    fn told(env: &[(String, String)], key: &str) -> Vec<String> {
        let envp = environment(b"/tmp", env, 1 << 30).unwrap();
        envp.iter()
            .map(|entry| entry.to_str().unwrap().to_owned())
            .filter(|entry| entry.starts_with(&format!("{key}=")))
            .collect()
    }

    #[test]
    fn runtimes_are_told_the_memory_limit_before_the_bots_own_options() {
        let ours = "JAVA_TOOL_OPTIONS=-XX:MaxRAM=1073741824 -XX:-UsePerfData -Duser.home=/tmp";
        assert_eq!(told(&[], "JAVA_TOOL_OPTIONS"), [ours]);
        let theirs = [("JAVA_TOOL_OPTIONS".to_owned(), "-Xmx200m".to_owned())];
        assert_eq!(told(&theirs, "JAVA_TOOL_OPTIONS"), [format!("{ours} -Xmx200m")]);
        assert_eq!(told(&[], "GOMEMLIMIT"), ["GOMEMLIMIT=805306368"]);
        let theirs = [("GOMEMLIMIT".to_owned(), "500MiB".to_owned())];
        assert_eq!(told(&theirs, "GOMEMLIMIT"), ["GOMEMLIMIT=500MiB"]);
        let theirs = [("NODE_OPTIONS".to_owned(), "--enable-source-maps".to_owned())];
        assert_eq!(
            told(&theirs, "NODE_OPTIONS"),
            ["NODE_OPTIONS=--max-old-space-size=768 --enable-source-maps"]
        );
    }
}
