//! What the tournament commands (`run`, `match`, `gauntlet`, `sprt`) say
//! as a run starts and as it ends, in each verbosity, and the flags that
//! name two bots: one place, so that their banners, their JSON objects and
//! their "nothing to play" agree.

use arena_tournament::results::store::GAMES_CSV;
use arena_tournament::standings::standings_text;
use arena_tournament::{Standing, Tournament};

use super::gauntlet::{challengers_json, challengers_text};
use super::reporters::Verbosity;
use super::tournament_args::{Prepared, say_numbered, say_settings};

/// `--name1` and `--name2`: the names of the two bots a command is given.
#[derive(Debug, clap::Args)]
pub struct PairNames {
    /// Name of the first bot given [default: from its command, e.g.
    /// random_bot].
    #[arg(long)]
    pub name1: Option<String>,
    /// Name of the second bot given [default: from its command].
    #[arg(long)]
    pub name2: Option<String>,
}

impl PairNames {
    pub fn names(&self) -> [Option<String>; 2] {
        [self.name1.clone(), self.name2.clone()]
    }
}

/// How a command announces its run: its own first line for people, and
/// the fields its `run` object has beyond those every command's has.
pub struct Start<'a> {
    pub line: String,
    pub fields: serde_json::Value,
    /// Which command each numbered bot name stands for, if any clashed.
    pub numbered: Option<&'a str>,
}

/// Says that `tournament` starts: the command's line and the run's
/// settings (openings, sandbox, seat seeds, time), or one `run` object.
pub fn say_start(verbosity: Verbosity, tournament: &Tournament, prepared: &Prepared, start: Start) {
    match verbosity {
        Verbosity::Human => {
            crate::say!("{}", start.line);
            say_settings(tournament, &prepared.sandbox_line, &prepared.seeds);
            say_numbered(start.numbered);
        }
        Verbosity::Json => {
            let mut run = serde_json::json!({
                "type": "run",
                "game": tournament.setup.game(),
                "seed": tournament.seed,
                "concurrency": tournament.concurrency,
                "openings": tournament.openings.as_ref().map(|openings| &openings.path),
                "out": tournament.out,
                "sandbox": prepared.sandbox_line,
                "seed_key": tournament.settings.seed_key.fingerprint(),
            });
            let fields = run.as_object_mut().expect("an object");
            if let serde_json::Value::Object(own) = start.fields {
                fields.extend(own);
            }
            crate::say!("{run}");
        }
        Verbosity::Quiet => {}
    }
}

/// Says that a rerun found every game of the schedule already played.
pub fn say_nothing_to_play(tournament: &Tournament, already: u64) {
    crate::say!(
        "nothing to play: {already} games already in {}, by these same bots (no file their commands name has changed): add --fresh to play them again",
        tournament.out.display()
    );
}

/// Says how a completed tournament ended: its standings (and a
/// gauntlet's challengers) and where its results are, or one `complete`
/// object.
pub fn say_standings(verbosity: Verbosity, tournament: &Tournament, standings: &[Standing]) {
    let gauntlet = !tournament.challengers.is_empty();
    match verbosity {
        Verbosity::Human => {
            crate::say!();
            crate::say_raw!("{}", standings_text(standings));
            if gauntlet {
                crate::say!();
                crate::say_raw!("{}", challengers_text(tournament, standings));
            }
            crate::say!(
                "\nresults: {}, standings.csv, crosstable.csv",
                tournament.out.join(GAMES_CSV).display()
            );
        }
        Verbosity::Json => {
            let mut done = serde_json::json!({"type": "complete", "out": tournament.out});
            if gauntlet {
                done["challengers"] = challengers_json(tournament, standings);
            }
            crate::say!("{done}");
        }
        Verbosity::Quiet => {}
    }
}
