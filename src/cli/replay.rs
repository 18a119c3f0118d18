//! `arena replay RESULTS --game N` or `arena replay TRANSCRIPT`: a game told
//! turn by turn (see `story`), its transcript printed (`--jsonl`), or the
//! lines arena sent one seat's bot (`--seat`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use super::options::UsageError;
use arena_base::text_file::read_bounded;
use arena_games::Seat;
use arena_referee::story::{sent_to, tell};
use arena_tournament::results::store::{MAX_TRANSCRIPT_BYTES, transcript_of_game};

/// Arguments of `arena replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A results folder (with --game), or a transcript file (JSON Lines).
    #[arg(value_name = "RESULTS|TRANSCRIPT")]
    target: PathBuf,
    /// The game to replay: its number in the folder's games.csv, or a
    /// void game's (told up to its game program's fault).
    #[arg(long, value_name = "N")]
    game: Option<u64>,
    /// Print the transcript itself (JSON Lines, as protocol.md describes
    /// it) instead of telling the game.
    #[arg(long)]
    jsonl: bool,
    /// Print the lines arena sent seat SEAT's bot (1 or 2), exactly as it
    /// wrote them to the bot's standard input, instead of telling the game:
    /// pipe them into the bot to play the game again from its side (see
    /// protocol.md, "Replaying a game into your bot").
    #[arg(long, value_name = "SEAT", value_parser = clap::value_parser!(u8).range(1..=2), conflicts_with = "jsonl")]
    seat: Option<u8>,
}

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let (name, text) = if args.target.is_dir() {
        let Some(game) = args.game else {
            return Err(UsageError(format!(
                "{} is a results folder: name a game with --game N (its number in games.csv)",
                args.target.display()
            ))
            .into());
        };
        let text = transcript_of_game(&args.target, game).map_err(UsageError)?;
        (format!("{} game {game}", args.target.display()), text)
    } else {
        if args.game.is_some() {
            return Err(UsageError(format!(
                "--game needs a results folder; {} is a transcript file",
                args.target.display()
            ))
            .into());
        }
        let file = args.target.display();
        let text = read_bounded(&args.target, MAX_TRANSCRIPT_BYTES)
            .map_err(|error| UsageError(format!("cannot read {file}: {error}")))?;
        (file.to_string(), text)
    };
    if args.jsonl {
        print_lines(&text.lines().map(str::to_owned).collect::<Vec<_>>())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(number) = args.seat {
        let seat = Seat::from_number(number).expect("clap keeps the seat to 1 or 2");
        let sent = sent_to(&text, seat).map_err(|error| UsageError(format!("{name}:{error}")))?;
        if sent.is_empty() {
            super::reporters::warn(&format!(
                "{name}: seat {number}'s bot was sent nothing in this game"
            ));
        }
        print_lines(&sent)?;
        return Ok(ExitCode::SUCCESS);
    }
    let story = tell(&text).map_err(|error| UsageError(format!("{name}:{error}")))?;
    print_lines(&story)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `lines` to stdout; a reader that stops early (`| head`) is fine.
fn print_lines(lines: &[String]) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let written =
        lines.iter().try_for_each(|line| writeln!(out, "{line}")).and_then(|()| out.flush());
    match written {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
