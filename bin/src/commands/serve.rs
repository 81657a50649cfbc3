use crate::cli::{Cli, ServeArgs, SmtpStartTls, Throttle};
use crate::{CommandError, os, print_json, wiring};
use adapters_http::{AccountThrottle, AddressThrottle, HttpMailLinks, HttpState, ServeLimits};
use adapters_mail::{DirMailer, LogMailer, SmtpMailer, StartTls, smtp_url_has_user};
use application::ports::{LockoutPolicy, Mailer};
use application::{Services, Settings};
use chrono::Duration;
use lettre::message::Mailbox;
use std::net::TcpListener;
use std::sync::Arc;

/// How often idle throttling state, finished lockouts, expired keys and old
/// commands are forgotten.
const HOUSEKEEPING_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

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
    let open_files = os::raise_open_file_limit();
    let (store, version) = wiring::open_store(&cli.database_url).await?;
    let throttled = args.throttle == Throttle::On;
    let settings = Settings {
        online_window: Duration::seconds(i64::from(args.online_window)),
        login_lockout: throttled.then(|| LockoutPolicy {
            max_failures: args.login_max_failures,
            period: Duration::seconds(i64::from(args.login_lockout)),
        }),
        ..Settings::default()
    };
    let listener = TcpListener::bind(&args.bind)
        .map_err(|e| CommandError(format!("cannot listen on {}: {e}", args.bind)))?;
    let address = listener.local_addr().map_err(CommandError::from_display)?;
    let links = HttpMailLinks::new(cli.public_url.as_deref(), &address.to_string());
    let app = wiring::application(
        store,
        mailer,
        settings,
        args.max_hash_queue,
        Arc::new(links),
    )
    .await?;
    let mut state = HttpState::new(app.clone(), cli.public_url.clone(), address.to_string());
    let throttles = throttled.then(|| Throttles {
        addresses: Arc::new(AddressThrottle::new(args.throttle_rate, args.trust_proxy)),
        password_changes: Arc::new(AccountThrottle::new(args.password_change_rate)),
    });
    if let Some(throttles) = &throttles {
        state = state
            .with_throttle(throttles.addresses.clone())
            .with_password_change_throttle(throttles.password_changes.clone());
    }
    let limits = ServeLimits {
        workers: args
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from)),
        max_connections: args.max_connections.map_or_else(
            || os::default_max_connections(open_files),
            |n| usize::try_from(n).unwrap_or(usize::MAX),
        ),
    };
    tracing::info!(
        open_files,
        max_connections = limits.max_connections,
        "connection limits"
    );
    let server =
        adapters_http::serve(listener, state, limits).map_err(CommandError::from_display)?;
    actix_web::rt::spawn({
        let app = app.clone();
        async move { app.mail.deliver_forever().await }
    });
    actix_web::rt::spawn(housekeeping(app, throttles));
    tracing::info!(%address, schema_version = version, throttle = ?args.throttle, "devmgr is listening");
    print_json(&serde_json::json!({ "listening": format!("http://{address}") }))?;
    server.await.map_err(CommandError::from_display)?;
    tracing::info!("devmgr stopped");
    Ok(())
}

/// The rate limiters, when throttling is on.
struct Throttles {
    addresses: Arc<AddressThrottle>,
    password_changes: Arc<AccountThrottle>,
}

/// Now and then, forgets what throttling no longer needs, expired keys and
/// old commands, so nothing grows without bound.
async fn housekeeping(app: Services, throttles: Option<Throttles>) {
    let mut ticks = actix_web::rt::time::interval(HOUSEKEEPING_EVERY);
    loop {
        ticks.tick().await;
        if let Some(throttles) = &throttles {
            throttles.addresses.forget_idle();
            throttles.password_changes.forget_idle();
        }
        if let Err(error) = app.housekeeping.purge_login_failures().await {
            tracing::warn!(error = ?error, "cannot purge old failed logins");
        }
        if let Err(error) = app.housekeeping.purge_expired().await {
            tracing::warn!(error = ?error, "cannot purge expired keys and old commands");
        }
    }
}

fn mailer(args: &ServeArgs) -> Result<Arc<dyn Mailer>, CommandError> {
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
