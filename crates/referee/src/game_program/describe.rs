//! A game program made a game: asked to describe itself (in the sandbox
//! its bots will have), its parameters checked against what it declared,
//! then by the program itself (it must set up a game with them). What
//! every command and tournament file does with a game program before
//! anything is played.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{GameFault, GameProgram, ProgramSettings};
use crate::{BotCommand, reaper};
use arena_games::program::ProgramGame;
use arena_games::{GameSetup, SetupError};
use arena_protocol::game::Refusal;
use arena_system::os::sandbox::Sandbox;
use arena_system::sandbox::{SandboxError, SandboxSettings};

/// Why a game program could not be made a game.
#[derive(Debug, thiserror::Error)]
pub enum DescribeError {
    // The cause is part of the message, not a source: said once. (A CLI
    // command gives it back as the context of its own error.)
    /// The program could not be put in its sandbox.
    #[error("cannot put the game program in its sandbox: {0}")]
    Sandbox(SandboxError),
    /// The async runtime the program is asked in could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The program failed `hello` or `init`.
    #[error("{}", .0.detail())]
    Fault(Box<GameFault>),
    /// A parameter its declaration does not allow.
    #[error("{0}")]
    Params(SetupError),
    /// The program refused parameters its declaration allows.
    #[error("the game {game} (`{program}`) refuses its parameters: {refusal}")]
    Refused {
        /// The game's name.
        game: String,
        /// The program, as a user would type its command.
        program: String,
        /// The parameter at fault, if named, and why.
        refusal: Refusal,
    },
}

impl DescribeError {
    /// Whether the program ran out of its time for an answer while at
    /// work: one slow to start may need more (the user's setting says how
    /// much).
    pub fn may_need_more_time(&self) -> bool {
        matches!(self, DescribeError::Fault(fault) if fault.may_need_more_time())
    }
}

/// The game the program `command` runs (written as `written`), with
/// `overrides` as its parameters. It runs in a sandbox of `sandbox`'s
/// settings that may not read `protected` (none when the sandbox is off).
pub fn describe_program(
    command: &BotCommand,
    written: &[String],
    overrides: Map<String, Value>,
    sandbox: &SandboxSettings,
    protected: &[&Path],
    settings: ProgramSettings,
) -> Result<GameSetup, DescribeError> {
    let mut sandboxed = command.clone();
    if let Some(sandbox) = Sandbox::new(sandbox, protected).map_err(DescribeError::Sandbox)? {
        BotCommand::prepare_all(
            std::slice::from_mut(&mut sandboxed),
            &["the game program".to_owned()],
            Some(&sandbox),
        )
        .map_err(DescribeError::Sandbox)?;
    } else {
        BotCommand::prepare_all(std::slice::from_mut(&mut sandboxed), &[], None)
            .map_err(DescribeError::Sandbox)?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(DescribeError::Runtime)?;
    // Whatever the program starts comes back to be killed with it.
    let _ = reaper::become_subreaper();
    runtime.block_on(async {
        let mut program = GameProgram::new(sandboxed, settings);
        let described = describe(&mut program, command, written, overrides).await;
        program.stop().await;
        described
    })
}

async fn describe(
    program: &mut GameProgram,
    command: &BotCommand,
    written: &[String],
    overrides: Map<String, Value>,
) -> Result<GameSetup, DescribeError> {
    let fault = |fault| DescribeError::Fault(Box::new(fault));
    let declaration = program.hello().await.map_err(fault)?;
    let game = Arc::new(ProgramGame {
        argv: command.argv.clone(),
        written: written.to_vec(),
        dir: command.dir.clone(),
        folder: command.declared.folder.clone(),
        declaration,
    });
    let setup =
        GameSetup::program(Arc::clone(&game), overrides.clone()).map_err(DescribeError::Params)?;
    match program.refusal(&setup).await.map_err(fault)? {
        // What the answer to `init` declares for these parameters holds for
        // every game of them (GameProgram checked it against `hello`).
        None => match program.declares() {
            None => Ok(setup),
            Some(declares) => {
                let declaration =
                    game.declaration.with(declares).expect("checked as the answer was read");
                let game = Arc::new(ProgramGame { declaration, ..(*game).clone() });
                GameSetup::program(game, overrides).map_err(DescribeError::Params)
            }
        },
        Some(refusal) => Err(DescribeError::Refused {
            game: setup.game().name().to_owned(),
            program: command.display(),
            refusal,
        }),
    }
}
