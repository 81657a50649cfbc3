//! One module per subcommand.

mod audit;
mod backup;
mod copy_store;
mod demo;
mod device;
mod restore;
mod serve;
mod user;

use crate::cli::{AuditCommand, Cli, Command, DeviceCommand, UserCommand};
use crate::{CommandError, Failure, wiring};
use adapters_http::{HttpEventData, HttpMailLinks};
use adapters_mail::LogMailer;
use adapters_system::SystemClock;
use adapters_webhooks::HttpTransport;
use application::{Services, Settings};
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs the chosen subcommand; one-shot commands print their result.
/// Returns the exit status (`audit verify` exits 1 for a broken chain).
pub async fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Serve(ref args) => serve::run(&cli, args).await?,
        Command::Audit(ref command) => return audit::run(&cli, command).await,
        _ => print_json(&run_once(&cli).await?)?,
    }
    Ok(ExitCode::SUCCESS)
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
        Command::Audit(AuditCommand::Verify) => audit::verdict(cli).await,
        Command::Audit(AuditCommand::Export(_)) => Err(CommandError(
            "`audit export` prints JSON lines, not one result: run it as a process".into(),
        )),
    }
}

/// The application for one-shot commands: mail is only logged.
async fn offline_app(cli: &Cli) -> Result<Services, CommandError> {
    let (database, _) = wiring::open_store(&cli.database_url).await?;
    app_over(cli, database).await
}

/// The application of a one-shot command over `database` (opened by the
/// command, migrated or not): mail is only logged.
async fn app_over(cli: &Cli, database: wiring::Database) -> Result<Services, CommandError> {
    let links = HttpMailLinks::new(cli.public_url.as_deref(), &reachable(&cli.bind));
    let hasher = wiring::hasher(wiring::HashLimits::default()).await?;
    Ok(wiring::application(
        database,
        Arc::new(LogMailer),
        Settings::default(),
        hasher,
        Arc::new(links),
        Arc::new(SystemClock),
        (
            Arc::new(HttpTransport::new(false)),
            Arc::new(HttpEventData::new(
                cli.public_url.as_deref(),
                &reachable(&cli.bind),
            )),
        ),
    ))
}

/// The base of URLs printed by one-shot commands: `--public-url`, else the
/// address `serve` is told to listen on (`--bind`).
fn base_url(cli: &Cli) -> String {
    cli.public_url
        .as_deref()
        .map(|url| url.trim_end_matches('/').to_owned())
        .unwrap_or_else(|| format!("http://{}", reachable(&cli.bind)))
}

/// `bind` as a client on this machine reaches it: a wildcard address
/// (`0.0.0.0`, `[::]`) listens on loopback too, which a link can name.
fn reachable(bind: &str) -> String {
    match bind.parse::<std::net::SocketAddr>() {
        Ok(address) if address.ip().is_unspecified() => {
            let loopback: std::net::IpAddr = if address.is_ipv4() {
                std::net::Ipv4Addr::LOCALHOST.into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            std::net::SocketAddr::new(loopback, address.port()).to_string()
        }
        _ => bind.to_owned(),
    }
}

/// Prints one JSON object on stdout, for programs.
fn print_json(value: &Value) -> Result<(), CommandError> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{value}")
        .and_then(|()| stdout.flush())
        .map_err(CommandError::from_display)
}

#[cfg(test)]
mod tests {
    use super::reachable;

    #[test]
    fn printed_links_name_the_bound_address_or_loopback_for_a_wildcard() {
        assert_eq!(reachable("127.0.0.1:8000"), "127.0.0.1:8000");
        assert_eq!(reachable("192.0.2.7:9000"), "192.0.2.7:9000");
        assert_eq!(reachable("0.0.0.0:8080"), "127.0.0.1:8080");
        assert_eq!(reachable("[::]:8443"), "[::1]:8443");
        assert_eq!(reachable("devmgr.lan:8000"), "devmgr.lan:8000");
    }
}
