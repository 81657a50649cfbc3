//! The running server: the composition root of `devmgr serve`, which tests
//! also start inside their own process ([`InProcessServer`]) on a listener
//! they bound, with a clock they control and, if they like, a mailer they
//! read.

use crate::cli::{Cli, Command, ServeArgs, Throttle};
use crate::limits::Limits;
use crate::{CommandError, mailer, os, wiring};
use adapters_http::{
    AccountThrottle, AddressThrottle, HttpEventData, HttpMailLinks, HttpState, Metrics,
    MetricsListener, ServeLimits,
};
use adapters_system::Argon2Hasher;
use adapters_webhooks::HttpTransport;
use application::ports::{Clock, LockoutPolicy, Mailer};
use application::{Services, Settings};
use chrono::Duration;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

/// How often idle throttling state, finished lockouts, expired keys and old
/// commands are forgotten.
const HOUSEKEEPING_EVERY: std::time::Duration = std::time::Duration::from_secs(60);
/// How often the job engine looks for due steps.
const JOB_TICK: std::time::Duration = std::time::Duration::from_millis(500);
/// How often the monitors are evaluated.
const MONITOR_TICK: std::time::Duration = std::time::Duration::from_millis(500);
/// How often the webhook worker looks for due deliveries: once a second,
/// the precision of their times, so that an idle server (and a database
/// shared by many) is not asked more often than that.
const WEBHOOK_LOOK: std::time::Duration = std::time::Duration::from_secs(1);
/// Webhook attempts made at once.
const WEBHOOK_ATTEMPTS: usize = 16;
/// How often audit entries past their retention are deleted (and once at start).
const AUDIT_RETENTION_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// A server serving, with the outbox worker and housekeeping running beside
/// it on the current actix system; await `server` to serve until it stops.
pub struct Started {
    /// The address it listens on.
    pub address: SocketAddr,
    /// The address of its metrics listener, if it has one.
    pub metrics_address: Option<SocketAddr>,
    /// The database's schema version.
    pub schema_version: i32,
    /// The server itself (and its metrics listener).
    pub server: adapters_http::Serving,
}

/// Migrates the database of `cli`, then serves it on the socket `listen`
/// gives (asked for once the database is ready) with the options of `args`,
/// mail through `mailer` and time from `clock`.
pub async fn start(
    cli: &Cli,
    args: &ServeArgs,
    listen: impl FnOnce() -> Result<TcpListener, CommandError>,
    mailer: Arc<dyn Mailer>,
    clock: Arc<dyn Clock>,
) -> Result<Started, CommandError> {
    let open_files = os::raise_open_file_limit();
    let (database, schema_version) = crate::store_marks::open_served(&cli.database_url).await?;
    let shared = Limits::of(&database);
    let throttled = args.throttle == Throttle::On;
    let settings = Settings {
        online_window: Duration::seconds(i64::from(args.online_window)),
        login_lockout: throttled.then(|| LockoutPolicy {
            max_failures: args.login_max_failures,
            period: Duration::seconds(i64::from(args.login_lockout)),
        }),
        registration: args.registration.into(),
        alert_mail_window: Duration::seconds(i64::from(args.alert_mail_window)),
        audit_retention: Duration::days(i64::from(args.audit_retention_days)),
        ..Settings::default()
    };
    let listener = listen()?;
    let address = listener.local_addr().map_err(CommandError::from_display)?;
    let links = HttpMailLinks::new(cli.public_url.as_deref(), &address.to_string());
    let hasher = wiring::hasher(wiring::HashLimits {
        threads: args
            .hash_threads
            .map_or_else(|| wiring::HashLimits::default().threads, usize::from),
        max_queue: args.max_hash_queue,
    })
    .await?;
    let metrics = match &args.metrics_bind {
        Some(bind) => Some(metrics_listener(bind, hasher.clone())?),
        None => None,
    };
    let metrics_address = metrics
        .as_ref()
        .map(|m| m.listener.local_addr())
        .transpose()
        .map_err(CommandError::from_display)?;
    let event_data = HttpEventData::new(cli.public_url.as_deref(), &address.to_string());
    let transport = HttpTransport::new(args.allow_private_webhooks);
    let app = wiring::application(
        database,
        mailer,
        settings,
        hasher,
        Arc::new(links),
        clock,
        (Arc::new(transport), Arc::new(event_data)),
    );
    let mut state = HttpState::new(app.clone(), cli.public_url.clone(), address.to_string())
        .with_trust_proxy(args.trust_proxy);
    state = state.with_long_polls(shared.long_polls.clone());
    if throttled {
        let (rate, trust_proxy) = (args.throttle_rate, args.trust_proxy);
        state = state
            .with_throttle(Arc::new(AddressThrottle::new(
                rate,
                trust_proxy,
                shared.rates.clone(),
            )))
            .with_password_change_throttle(Arc::new(AccountThrottle::new(
                args.password_change_rate,
                shared.rates.clone(),
            )));
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
    let server = adapters_http::serve(listener, state, limits, metrics)
        .map_err(CommandError::from_display)?;
    actix_web::rt::spawn({
        let app = app.clone();
        async move { app.mail.deliver_forever().await }
    });
    actix_web::rt::spawn(run_jobs(app.clone()));
    actix_web::rt::spawn(run_monitors(app.clone()));
    actix_web::rt::spawn(deliver_webhooks(app.clone()));
    actix_web::rt::spawn(keep_audit_retention(app.clone()));
    actix_web::rt::spawn(housekeeping(app, shared));
    Ok(Started {
        address,
        metrics_address,
        schema_version,
        server,
    })
}

/// The metrics listener of `--metrics-bind`, with the process's recorder
/// (installed now) and the password-hash queue read at each scrape.
fn metrics_listener(
    bind: &str,
    hasher: Arc<Argon2Hasher>,
) -> Result<MetricsListener, CommandError> {
    let listener = TcpListener::bind(bind)
        .map_err(|e| CommandError(format!("cannot listen for metrics on {bind}: {e}")))?;
    let metrics = Metrics::install()
        .map_err(CommandError::from_display)?
        .on_scrape(move || {
            metrics::gauge!("devmgr_password_hash_queue").set(hasher.queue_length() as f64);
        });
    Ok(MetricsListener { listener, metrics })
}

/// The job engine's ticker: twice a second, takes every step of every job
/// that is due (a scheduled start, a wave that ended, an interval that
/// passed), so each happens within a second of its time.
async fn run_jobs(app: Services) {
    let mut ticks = actix_web::rt::time::interval(JOB_TICK);
    loop {
        ticks.tick().await;
        if let Err(error) = app.job_runner.tick().await {
            tracing::warn!(error = ?error, "cannot look at the jobs");
        }
    }
}

/// The monitor engine's ticker: twice a second, evaluates every monitor
/// (so each is evaluated at least once a second) and sends the alert mail
/// digests that are due.
async fn run_monitors(app: Services) {
    let mut ticks = actix_web::rt::time::interval(MONITOR_TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(error) = app.monitor_engine.tick().await {
            tracing::warn!(error = ?error, "cannot evaluate the monitors");
        }
    }
}

/// The webhook worker: claims due deliveries as attempt slots free up and
/// makes each attempt in a task of its own, at most [`WEBHOOK_ATTEMPTS`] at
/// once, so a slow receiver holds only its own slot (10 s at most).
async fn deliver_webhooks(app: Services) {
    let slots = Arc::new(tokio::sync::Semaphore::new(WEBHOOK_ATTEMPTS));
    let mut ticks = actix_web::rt::time::interval(WEBHOOK_LOOK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let free = slots.available_permits();
        if free == 0 {
            continue;
        }
        let due = match app
            .webhook_dispatcher
            .claim(u32::try_from(free).unwrap_or(u32::MAX))
            .await
        {
            Ok(due) => due,
            Err(error) => {
                tracing::warn!(error = ?error, "cannot look at the webhook deliveries");
                continue;
            }
        };
        for delivery in due {
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return;
            };
            let dispatcher = app.webhook_dispatcher.clone();
            actix_web::rt::spawn(async move {
                if let Err(error) = dispatcher.attempt(delivery).await {
                    tracing::warn!(error = ?error, "cannot record a webhook attempt");
                }
                drop(slot);
            });
        }
    }
}

/// At start and then hourly, deletes the audit entries older than
/// `--audit-retention-days`, keeping the newest of them as the checkpoint
/// (docs/audit.md, Retention).
async fn keep_audit_retention(app: Services) {
    let mut ticks = actix_web::rt::time::interval(AUDIT_RETENTION_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(error) = app.audit.apply_retention().await {
            tracing::warn!(error = ?error, "cannot delete audit entries past their retention");
        }
    }
}

/// Now and then, forgets what throttling no longer needs, expired keys and
/// old commands, so nothing grows without bound.
async fn housekeeping(app: Services, limits: Limits) {
    let mut ticks = actix_web::rt::time::interval(HOUSEKEEPING_EVERY);
    loop {
        ticks.tick().await;
        limits.forget_idle().await;
        if let Err(error) = app.housekeeping.purge_login_failures().await {
            tracing::warn!(error = ?error, "cannot purge old failed logins");
        }
        if let Err(error) = app.housekeeping.purge_expired().await {
            tracing::warn!(error = ?error, "cannot purge expired keys and old commands");
        }
    }
}

/// The server of a `serve` command line, running on its own thread (with its
/// own actix system) inside the current process: what `devmgr serve` runs,
/// minus the process around it (no logging set up, no `{"listening": …}`
/// line, `--bind` ignored for the given listener). Stopped when dropped.
///
/// Like `devmgr serve`, it stops on SIGINT or SIGTERM sent to the process.
pub struct InProcessServer {
    address: SocketAddr,
    handle: actix_web::dev::ServerHandle,
    thread: Option<JoinHandle<()>>,
}

impl InProcessServer {
    /// Starts serving `cli` (which must be a `serve` command) on `listener`,
    /// an already bound socket, with time from `clock` and the mailer of the
    /// options (`--mail-dir`, `--smtp-url`, else the log). Returns once the
    /// database is migrated and the server accepts connections.
    pub fn start(
        cli: Cli,
        listener: TcpListener,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, CommandError> {
        let Command::Serve(args) = &cli.command else {
            return Err(CommandError("only a `serve` command can be started".into()));
        };
        let mailer = mailer::of_options(args)?;
        Self::start_with_mailer(cli, listener, clock, mailer)
    }

    /// Like [`start`](Self::start), with mail delivered by `mailer` (an
    /// `adapters_mail::MemoryMailer` the caller reads, say) whatever the
    /// mail options say.
    pub fn start_with_mailer(
        cli: Cli,
        listener: TcpListener,
        clock: Arc<dyn Clock>,
        mailer: Arc<dyn Mailer>,
    ) -> Result<Self, CommandError> {
        if !matches!(cli.command, Command::Serve(_)) {
            return Err(CommandError("only a `serve` command can be started".into()));
        }
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("devmgr-in-process".into())
            .spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    let Command::Serve(args) = &cli.command else {
                        unreachable!("checked before the thread started")
                    };
                    match start(&cli, args, || Ok(listener), mailer, clock).await {
                        Ok(started) => {
                            let _ = started_tx.send(Ok((started.address, started.server.handle())));
                            let _ = started.server.run().await;
                        }
                        Err(error) => {
                            let _ = started_tx.send(Err(error));
                        }
                    }
                });
            })
            .map_err(CommandError::from_display)?;
        let (address, handle) = started_rx
            .recv()
            .map_err(|_| CommandError("the server thread ended before it started".into()))??;
        Ok(Self {
            address,
            handle,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops at once (open connections are closed) and waits for the thread
    /// to end; the database is closed when this returns.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        // The command is sent when `stop` is called; its future only reports completion.
        drop(self.handle.stop(false));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}
