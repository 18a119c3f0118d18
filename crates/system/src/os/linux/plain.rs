//! Starting a program without a sandbox: in a process group of its own
//! (killed as one), with arena's environment and the bot's variables, and
//! no descriptor but its three pipes, through the same clone as the
//! sandbox's fallback (which asks for the short slice from inside).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::sandbox::Spawned;
use super::sandbox::child::{ChildSetup, Identity, Session};
use super::sandbox::vfork::{self, Prepared};

/// Starts `argv` in `dir` (arena's own folder when `None`) with arena's
/// environment and `env` over it; the program is `program` when given,
/// else looked up in PATH (the one `env` gives, else arena's) unless it
/// names a path, which is then taken from `dir`.
pub fn spawn_plain(
    program: Option<&Path>,
    argv: &[String],
    dir: Option<&Path>,
    env: &[(String, String)],
) -> io::Result<Spawned> {
    let c_string = |bytes: &[u8]| {
        CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
    };
    let program = match argv.first() {
        _ if let Some(program) = program => c_string(program.as_os_str().as_bytes())?,
        Some(program) if program.contains('/') => c_string(program.as_bytes())?,
        Some(program) => {
            let path = env
                .iter()
                .find(|(key, _)| key == "PATH")
                .map(|(_, value)| std::ffi::OsString::from(value))
                .or_else(|| std::env::var_os("PATH"))
                .unwrap_or_default();
            let found = crate::sandbox::command_files::find_in_path(program, &path)
                .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
            c_string(found.as_os_str().as_bytes())?
        }
        None => return Err(io::Error::from(io::ErrorKind::InvalidInput)),
    };
    let argv = argv.iter().map(|word| c_string(word.as_bytes())).collect::<io::Result<_>>()?;
    let mut envp = Vec::new();
    for (key, value) in std::env::vars_os() {
        if !env.iter().any(|(theirs, _)| key.as_bytes() == theirs.as_bytes()) {
            envp.push(c_string(&[key.as_bytes(), b"=", value.as_bytes()].concat())?);
        }
    }
    for (key, value) in env {
        envp.push(c_string(format!("{key}={value}").as_bytes())?);
    }
    let mut prepared = Prepared {
        program,
        argv,
        envp,
        dir: dir.map(|dir| c_string(dir.as_os_str().as_bytes())).transpose()?,
        setup: ChildSetup {
            session: Session::Group,
            identity: Identity::Same,
            rlimits: Vec::new(),
            ruleset: None,
            filter: None,
        },
    };
    vfork::spawn(&mut prepared)
}
