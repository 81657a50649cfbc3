use super::print_json;
use crate::cli::{Cli, ServeArgs};
use crate::{CommandError, mailer, server};
use adapters_system::SystemClock;
use std::net::TcpListener;
use std::sync::Arc;

/// `devmgr serve`: migrate, bind, announce the address on stdout, serve until
/// SIGINT or SIGTERM (then finish in-flight requests and stop). The outbox
/// worker runs beside the server and delivers queued mail.
pub async fn run(cli: &Cli, args: &ServeArgs) -> Result<(), CommandError> {
    let mailer = mailer::of_options(args)?;
    if args.smtp_url.is_some() && cli.public_url.is_none() {
        tracing::warn!(
            "mail leaves this machine but --public-url is not set: links in mail point to the \
             address devmgr listens on, which recipients may not reach"
        );
    }
    let listen = || {
        TcpListener::bind(&cli.bind)
            .map_err(|e| CommandError(format!("cannot listen on {}: {e}", cli.bind)))
    };
    let started = server::start(cli, args, listen, mailer, Arc::new(SystemClock)).await?;
    let address = started.address;
    tracing::info!(%address, schema_version = started.schema_version, throttle = ?args.throttle, "devmgr is listening");
    let mut listening = serde_json::json!({ "listening": format!("http://{address}") });
    if let Some(metrics) = started.metrics_address {
        listening["metrics"] = format!("http://{metrics}/metrics").into();
    }
    print_json(&listening)?;
    started
        .server
        .run()
        .await
        .map_err(CommandError::from_display)?;
    tracing::info!("devmgr stopped");
    Ok(())
}
