use crate::cli::{Cli, ServeArgs, SmtpStartTls};
use crate::{CommandError, print_json, server};
use adapters_mail::{DirMailer, LogMailer, SmtpMailer, StartTls, smtp_url_has_user};
use adapters_system::SystemClock;
use application::ports::Mailer;
use lettre::message::Mailbox;
use std::net::TcpListener;
use std::sync::Arc;

/// `devmgr serve`: migrate, bind, announce the address on stdout, serve until
/// SIGINT or SIGTERM (then finish in-flight requests and stop). The outbox
/// worker runs beside the server and delivers queued mail.
pub async fn run(cli: &Cli, args: &ServeArgs) -> Result<(), CommandError> {
    let mailer = mailer(args)?;
    if args.smtp_url.is_some() && cli.public_url.is_none() {
        tracing::warn!(
            "mail leaves this machine but --public-url is not set: links in mail point to the \
             address devmgr listens on, which recipients may not reach"
        );
    }
    let listen = || {
        TcpListener::bind(&args.bind)
            .map_err(|e| CommandError(format!("cannot listen on {}: {e}", args.bind)))
    };
    let started = server::start(cli, args, listen, mailer, Arc::new(SystemClock)).await?;
    let address = started.address;
    tracing::info!(%address, schema_version = started.schema_version, throttle = ?args.throttle, "devmgr is listening");
    print_json(&serde_json::json!({ "listening": format!("http://{address}") }))?;
    started.server.await.map_err(CommandError::from_display)?;
    tracing::info!("devmgr stopped");
    Ok(())
}

/// The mailer of `serve`'s options: SMTP, an `.eml` folder, or the log.
pub(crate) fn mailer(args: &ServeArgs) -> Result<Arc<dyn Mailer>, CommandError> {
    if args.mail_dir.is_none() && args.smtp_url.is_none() {
        return Ok(Arc::new(LogMailer));
    }
    let from: Mailbox = args
        .mail_from
        .parse()
        .map_err(|e| CommandError(format!("--mail-from is not a valid address: {e}")))?;
    if let Some(url) = &args.smtp_url {
        let starttls = match (args.smtp_starttls, smtp_url_has_user(url)) {
            (Some(SmtpStartTls::Off), true) => {
                return Err(CommandError(
                    "--smtp-starttls off with a user in --smtp-url would send the SMTP password \
                     in clear: use --smtp-starttls required, or smtps://"
                        .into(),
                ));
            }
            (Some(SmtpStartTls::Off), false) => StartTls::Off,
            (Some(SmtpStartTls::Opportunistic), _) | (None, false) => StartTls::Opportunistic,
            (Some(SmtpStartTls::Required), _) | (None, true) => StartTls::Required,
        };
        let mailer = SmtpMailer::new(url, starttls, from)
            .map_err(|e| CommandError(format!("cannot use --smtp-url: {e}")))?;
        return Ok(Arc::new(mailer));
    }
    let dir = args.mail_dir.clone().unwrap_or_default();
    let mailer = DirMailer::new(dir.clone(), from)
        .map_err(|e| CommandError(format!("cannot use --mail-dir {}: {e}", dir.display())))?;
    Ok(Arc::new(mailer))
}
