//! One module per subcommand.

mod backup;
mod copy_store;
mod demo;
mod device;
mod restore;
mod serve;
mod user;

use crate::cli::{Cli, Command, DEFAULT_BIND, DeviceCommand, UserCommand};
use crate::{CommandError, wiring};
use adapters_http::HttpMailLinks;
use adapters_mail::LogMailer;
use adapters_system::SystemClock;
use application::{Services, Settings};
use serde_json::Value;
use std::io::Write;
use std::sync::Arc;

/// Runs the chosen subcommand; one-shot commands print their result.
pub async fn run(cli: Cli) -> Result<(), CommandError> {
    match cli.command {
        Command::Serve(ref args) => serve::run(&cli, args).await,
        _ => print_json(&run_once(&cli).await?),
    }
}

/// Runs a one-shot subcommand (any but `serve`) and returns its result.
pub async fn run_once(cli: &Cli) -> Result<Value, CommandError> {
    match cli.command {
        Command::Serve(_) => Err(CommandError(
            "`serve` runs until stopped: it has no result".into(),
        )),
        Command::Migrate => {
            let (_, version) = wiring::open_store(&cli.database_url).await?;
            Ok(serde_json::json!({ "migrated": true, "schema_version": version }))
        }
        Command::User(UserCommand::Create(ref args)) => {
            user::create(&offline_app(cli).await?, args).await
        }
        Command::Device(DeviceCommand::Add(ref args)) => {
            device::add(&offline_app(cli).await?, &base_url(cli), args).await
        }
        Command::Backup(ref args) => backup::run(cli, args).await,
        Command::Restore(ref args) => restore::run(cli, args).await,
        Command::CopyStore(ref args) => copy_store::run(args).await,
        Command::Demo => demo::run(&offline_app(cli).await?, &base_url(cli)).await,
    }
}

/// The application for one-shot commands: mail is only logged.
async fn offline_app(cli: &Cli) -> Result<Services, CommandError> {
    let (database, _) = wiring::open_store(&cli.database_url).await?;
    let links = HttpMailLinks::new(cli.public_url.as_deref(), DEFAULT_BIND);
    let hasher = wiring::hasher(wiring::HashLimits::default()).await?;
    Ok(wiring::application(
        database,
        Arc::new(LogMailer),
        Settings::default(),
        hasher,
        Arc::new(links),
        Arc::new(SystemClock),
    ))
}

/// The base of URLs printed by one-shot commands.
fn base_url(cli: &Cli) -> String {
    cli.public_url
        .as_deref()
        .map(|url| url.trim_end_matches('/').to_owned())
        .unwrap_or_else(|| format!("http://{DEFAULT_BIND}"))
}

/// Prints one JSON object on stdout, for programs.
fn print_json(value: &Value) -> Result<(), CommandError> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{value}")
        .and_then(|()| stdout.flush())
        .map_err(CommandError::from_display)
}
