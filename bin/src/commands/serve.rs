use crate::cli::{Cli, ServeArgs, SmtpStartTls, Throttle};
use crate::{CommandError, print_json, wiring};
use adapters_http::{AddressThrottle, HttpState};
use adapters_mail::{DirMailer, LogMailer, SmtpMailer, StartTls};
use application::ports::{LockoutPolicy, Mailer};
use application::{DevMgr, Settings};
use chrono::Duration;
use lettre::message::Mailbox;
use std::net::TcpListener;
use std::sync::Arc;

/// How often idle throttling state and finished lockouts are forgotten.
const HOUSEKEEPING_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// `devmgr serve`: migrate, bind, announce the address on stdout, serve until
/// SIGINT or SIGTERM (then finish in-flight requests and stop). The outbox
/// worker runs beside the server and delivers queued mail.
pub async fn run(cli: &Cli, args: &ServeArgs) -> Result<(), CommandError> {
    let mailer = mailer(args)?;
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
    let app = wiring::application(store, mailer, settings).await?;
    let listener = TcpListener::bind(&args.bind)
        .map_err(|e| CommandError(format!("cannot listen on {}: {e}", args.bind)))?;
    let address = listener.local_addr().map_err(CommandError::from_display)?;
    let mut state = HttpState::new(app.clone(), cli.public_url.clone(), address.to_string());
    let throttle =
        throttled.then(|| Arc::new(AddressThrottle::new(args.throttle_rate, args.trust_proxy)));
    if let Some(throttle) = &throttle {
        state = state.with_throttle(throttle.clone());
    }
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let server =
        adapters_http::serve(listener, state, workers).map_err(CommandError::from_display)?;
    actix_web::rt::spawn({
        let app = app.clone();
        async move { app.deliver_mail_forever().await }
    });
    actix_web::rt::spawn(housekeeping(app, throttle));
    tracing::info!(%address, schema_version = version, throttle = ?args.throttle, "devmgr is listening");
    print_json(&serde_json::json!({ "listening": format!("http://{address}") }))?;
    server.await.map_err(CommandError::from_display)?;
    tracing::info!("devmgr stopped");
    Ok(())
}

/// Now and then, forgets what throttling no longer needs.
async fn housekeeping(app: DevMgr, throttle: Option<Arc<AddressThrottle>>) {
    let mut ticks = actix_web::rt::time::interval(HOUSEKEEPING_EVERY);
    loop {
        ticks.tick().await;
        if let Some(throttle) = &throttle {
            throttle.forget_idle();
        }
        if let Err(error) = app.purge_login_failures().await {
            tracing::warn!(error = ?error, "cannot purge old failed logins");
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
        let starttls = match args.smtp_starttls {
            SmtpStartTls::Off => StartTls::Off,
            SmtpStartTls::Opportunistic => StartTls::Opportunistic,
            SmtpStartTls::Required => StartTls::Required,
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
