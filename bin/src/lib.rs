//! devmgr's composition root: the command line, configuration, and the
//! wiring that chooses which adapter fills each port.
//!
//! Besides [`main`], the end-to-end tests use [`server::InProcessServer`]
//! (the server of `devmgr serve` inside their own process) and [`run_once`]
//! (a one-shot command's result without a process).

pub mod cli;
mod commands;
mod config_file;
pub mod database_url;
mod limits;
mod mailer;
mod os;
pub mod server;
mod store_marks;
mod wiring;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// A failure of a command, shown on stderr; the process exits with status 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

impl CommandError {
    /// Wraps any displayable error.
    pub fn from_display(error: impl std::fmt::Display) -> Self {
        Self(error.to_string())
    }
}

/// A failed command as the process ends: the error shown on stderr and
/// the exit status (1, or 2 when `devmgr audit` cannot read the log).
#[derive(Debug)]
pub struct Failure {
    /// The exit status.
    pub status: u8,
    /// What went wrong.
    pub error: CommandError,
}

impl From<CommandError> for Failure {
    fn from(error: CommandError) -> Self {
        Self { status: 1, error }
    }
}

/// Runs the command line and returns the process's exit status.
pub fn main() -> ExitCode {
    let cli = match config_file::parse(std::env::args_os()) {
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
    init_logging(&cli);
    os::create_files_privately();
    let outcome = actix_web::rt::System::new().block_on(commands::run(cli));
    match outcome {
        Ok(status) => status,
        Err(Failure { status, error }) => {
            let _ = writeln!(std::io::stderr(), "error: {error}");
            ExitCode::from(status)
        }
    }
}

/// Runs a one-shot command line (`devmgr` and its arguments, any subcommand
/// but `serve`) in this process, on an actix system of its own, and returns
/// the JSON object `devmgr` would print. Refusals of the command line itself
/// (unknown options, bad values) are errors too.
pub fn run_once<I, T>(args: I) -> Result<serde_json::Value, CommandError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = cli::Cli::from_args(args)?;
    actix_web::rt::System::new().block_on(commands::run_once(&cli))
}

fn init_logging(cli: &cli::Cli) {
    let default = if matches!(cli.command, cli::Command::Serve(_)) {
        "info"
    } else {
        "warn"
    };
    let directives = log_directives(cli.log_level.clone(), |name| std::env::var(name).ok())
        .unwrap_or_else(|| default.to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(&directives).unwrap_or_else(|error| {
        let _ = writeln!(
            std::io::stderr(),
            "warning: ignoring the log level {directives:?} ({error}); logging at {default}"
        );
        tracing_subscriber::EnvFilter::new(default)
    });
    let lines = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match cli.log_format {
        cli::LogFormat::Text => lines.with_ansi(std::io::stderr().is_terminal()).init(),
        cli::LogFormat::Json => lines
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// The log filter asked for: `--log-level` (or `DEVMGR_LOG_LEVEL`, which clap
/// reads for it), else `DEVMGR_LOG` (its older name), else `RUST_LOG`.
fn log_directives(
    flag: Option<String>,
    environment: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    flag.or_else(|| environment("DEVMGR_LOG"))
        .or_else(|| environment("RUST_LOG"))
}

#[cfg(test)]
mod tests {
    use super::log_directives;

    #[test]
    fn the_log_level_comes_from_the_flag_then_the_older_name_then_rust_log() {
        let both = |name: &str| match name {
            "DEVMGR_LOG" => Some("warn".to_owned()),
            "RUST_LOG" => Some("trace".to_owned()),
            _ => None,
        };
        let rust_log_only = |name: &str| (name == "RUST_LOG").then(|| "trace".to_owned());
        assert_eq!(
            log_directives(Some("debug".into()), both).as_deref(),
            Some("debug")
        );
        assert_eq!(log_directives(None, both).as_deref(), Some("warn"));
        assert_eq!(
            log_directives(None, rust_log_only).as_deref(),
            Some("trace")
        );
        assert_eq!(log_directives(None, |_| None), None);
    }
}
