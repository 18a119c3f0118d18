use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

/// arena referees games between bot programs that speak JSON lines on
/// stdin/stdout, in any language. See protocol.md for the bot protocol.
#[derive(Parser)]
#[command(name = "arena", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: arena::cli::Command,
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    match Cli::try_parse_from(&args) {
        Ok(cli) => arena::cli::run(cli.command),
        Err(error) => arena::cli::with_tip(error, &args).exit(),
    }
}
