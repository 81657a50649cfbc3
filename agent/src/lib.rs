//! devmgr-agent: the program that runs on a device (a Raspberry Pi or any
//! Linux box). It enrols the device with a devmgr server, sends heartbeats
//! with the machine's facts, long-polls for commands and carries out reboots,
//! as described in `docs/agent-protocol.md`.
//!
//! The binary's `main` only calls [`main`]; everything lives in this library.

pub mod acknowledgements;
pub mod answer_limit;
pub mod backoff;
pub mod cli;
pub mod client;
pub mod command_decision;
pub mod command_journal;
pub mod commands;
pub mod config;
pub mod endpoints;
pub mod escape;
pub mod facts;
pub mod file_change;
pub mod install;
pub mod install_token;
pub mod private_file;
pub mod protocol;
pub mod retry;
pub mod run;
pub mod shutdown;

use clap::Parser;
use cli::{Cli, Command, RunArgs};
use config::{Config, ConfigError};
use install::InstallError;
use run::{Agent, RunError, RunOptions};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// The environment variable with the log filter (`info` by default).
pub const LOG_ENV: &str = "DEVMGR_AGENT_LOG";

/// How long to wait, on the way out, for blocking work (fact collection) to end.
const RUNTIME_SHUTDOWN_TIMEOUT: Duration = Duration::from_millis(200);

/// A failure of a subcommand: shown on stderr as `error: …`, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `install` failed.
    #[error(transparent)]
    Install(#[from] InstallError),
    /// `run` cannot start.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The async runtime or the signal handlers cannot be set up.
    #[error("cannot start: {0}")]
    Startup(std::io::Error),
    /// The result cannot be printed.
    #[error("cannot write to stdout: {0}")]
    Output(std::io::Error),
}

/// Runs the command line and returns the process's exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    init_logging();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {}", escape::Escaped(&error));
            ExitCode::from(1)
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .fmt_fields(escape::escaping_fields())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn execute(command: Command) -> Result<(), Error> {
    match command {
        Command::Install(args) => {
            let installed = block_on(install::install(&args))??;
            print_json(&installed)
        }
        Command::Run(args) => {
            let config = Config::load(&args.config.path)?;
            block_on(run_until_signalled(
                &args.config.path,
                config,
                options_of(&args),
            ))?
        }
        Command::Facts => print_json(&facts::Facts::collect()),
    }
}

fn options_of(args: &RunArgs) -> RunOptions {
    RunOptions {
        reboot_command: args.reboot_command.clone(),
        reboot_timeout: commands::REBOOT_TIMEOUT,
        max_backoff: Duration::from_secs(args.max_backoff),
    }
}

/// Runs the agent until SIGTERM or SIGINT, then returns `Ok`.
async fn run_until_signalled(
    config_path: &Path,
    config: Config,
    options: RunOptions,
) -> Result<(), Error> {
    // Listen first, so that a signal arriving at any later moment stops us cleanly.
    let mut signals = shutdown::ShutdownSignals::listen().map_err(Error::Startup)?;
    let mut agent = Agent::new(config_path, &config, options)?;
    tracing::info!(server = %config.server, serial = %config.serial, "agent started");
    tokio::select! {
        never = agent.run() => match never {},
        signal = signals.received() => tracing::info!(signal, "stopping"),
    }
    Ok(())
}

/// Runs a future on a single-threaded runtime (an agent needs no more).
fn block_on<F: Future>(future: F) -> Result<F::Output, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Startup)?;
    let output = runtime.block_on(future);
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN_TIMEOUT);
    Ok(output)
}

/// Prints one JSON object on stdout, for programs, with no raw control
/// character (its strings may come from the server).
fn print_json(value: &impl Serialize) -> Result<(), Error> {
    let json = serde_json::to_string(value).map_err(|error| Error::Output(error.into()))?;
    let text = escape::escape_json_controls(&json);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .map_err(Error::Output)
}
