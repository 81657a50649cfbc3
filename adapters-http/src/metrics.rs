//! Prometheus metrics (`docs/operations.md`, "Health, metrics and logs"):
//! the process's recorder, the counts the request log adds to, and the
//! listener of their own that serves `GET /metrics`. Counts that live in the
//! database (devices, commands, the outbox) and the process's own figures
//! are read when Prometheus scrapes, not kept up to date on every change.

use crate::state::HttpState;
use actix_web::dev::Server;
use actix_web::http::{Method, StatusCode};
use actix_web::web::Data;
use actix_web::{App, HttpResponse, HttpServer, web};
use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A metric label's value: a `&'static str` costs no allocation.
pub(crate) type Label = metrics::SharedString;

/// Whether a recorder is installed: without one, requests skip building
/// their labels.
static RECORDING: AtomicBool = AtomicBool::new(false);

/// Request durations, in seconds: 1 ms … 10 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Waits for a pooled database connection, in seconds: 0.1 ms … 5 s.
const POOL_WAIT_BUCKETS: &[f64] = &[
    0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0,
];
/// How long a scrape waits for the database before it reports it down.
const DATABASE_TIMEOUT: Duration = Duration::from_secs(1);
/// How often histogram samples are folded in when nobody scrapes, so they
/// cannot pile up in memory.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The process's Prometheus recorder. Installed once per process: every
/// `metrics::…!` call anywhere in devmgr records into it.
#[derive(Clone)]
pub struct Metrics {
    handle: PrometheusHandle,
    process: Arc<metrics_process::Collector>,
    on_scrape: Vec<Arc<dyn Fn() + Send + Sync>>,
}

/// Why the recorder could not be installed.
#[derive(Debug, thiserror::Error)]
#[error("cannot record metrics: {0}")]
pub struct MetricsError(String);

impl Metrics {
    /// Installs the recorder for this process (there can be only one).
    pub fn install() -> Result<Self, MetricsError> {
        let failed = |e: metrics_exporter_prometheus::BuildError| MetricsError(e.to_string());
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full("devmgr_http_request_duration_seconds".into()),
                LATENCY_BUCKETS,
            )
            .map_err(failed)?
            .set_buckets_for_metric(
                Matcher::Full("devmgr_db_pool_wait_seconds".into()),
                POOL_WAIT_BUCKETS,
            )
            .map_err(failed)?
            .install_recorder()
            .map_err(failed)?;
        RECORDING.store(true, Ordering::Relaxed);
        describe();
        let process = metrics_process::Collector::default();
        process.describe();
        gauge!("devmgr_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
        // Shown from the start, not from the first failure.
        counter!("devmgr_db_unavailable_total").absolute(0);
        Ok(Self {
            handle,
            process: Arc::new(process),
            on_scrape: Vec::new(),
        })
    }

    /// Runs `refresh` before each scrape: for figures an adapter outside
    /// this crate knows (the password-hash queue).
    pub fn on_scrape(mut self, refresh: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_scrape.push(Arc::new(refresh));
        self
    }

    /// The text exposition, with every figure read now.
    async fn scrape(&self, state: &HttpState) -> String {
        read_database(state).await;
        gauge!("devmgr_long_polls_open").set(state.long_polls.count() as f64);
        for refresh in &self.on_scrape {
            refresh();
        }
        self.process.collect();
        self.handle.render()
    }
}

/// What Prometheus shows as each metric's help.
fn describe() {
    describe_counter!(
        "devmgr_http_requests_total",
        "HTTP requests answered, by route pattern, method and status."
    );
    describe_histogram!(
        "devmgr_http_request_duration_seconds",
        metrics::Unit::Seconds,
        "Time from a request's arrival to its answer's head, by route pattern and method \
         (a long poll lasts up to its wait)."
    );
    describe_gauge!("devmgr_devices", "Devices, over every account.");
    describe_gauge!(
        "devmgr_devices_online",
        "Devices whose last heartbeat is within the online window, over every account."
    );
    describe_gauge!(
        "devmgr_long_polls_open",
        "Agents' long polls open on this instance."
    );
    describe_gauge!("devmgr_commands", "Device commands remembered, by state.");
    describe_gauge!(
        "devmgr_outbox_backlog",
        "Mail queued and not yet delivered."
    );
    describe_gauge!(
        "devmgr_password_hash_queue",
        "Password hashes waiting for a hashing thread on this instance."
    );
    describe_histogram!(
        "devmgr_db_pool_wait_seconds",
        metrics::Unit::Seconds,
        "Time waited for a pooled database connection."
    );
    describe_counter!(
        "devmgr_db_unavailable_total",
        "Database operations that failed because the database was out of reach."
    );
    describe_gauge!(
        "devmgr_database_up",
        "1 when the database answered a trivial query within 1 s at the last scrape, else 0."
    );
    describe_gauge!("devmgr_build_info", "The running version, as a label.");
}

/// The database's figures, or `devmgr_database_up 0` when it does not
/// answer in time (the other figures then keep their last values).
async fn read_database(state: &HttpState) {
    let probes = &state.app.probes;
    let up = matches!(
        tokio::time::timeout(DATABASE_TIMEOUT, probes.database()).await,
        Ok(Ok(()))
    );
    gauge!("devmgr_database_up").set(if up { 1.0 } else { 0.0 });
    if !up {
        return;
    }
    match tokio::time::timeout(DATABASE_TIMEOUT, probes.census()).await {
        Ok(Ok(census)) => {
            gauge!("devmgr_devices").set(census.devices as f64);
            gauge!("devmgr_devices_online").set(census.devices_online as f64);
            gauge!("devmgr_outbox_backlog").set(census.outbox_backlog as f64);
            for (state, count) in census.commands.by_state() {
                gauge!("devmgr_commands", "state" => state.code()).set(count as f64);
            }
        }
        Ok(Err(error)) => tracing::warn!(%error, "metrics: cannot count the database's rows"),
        Err(_) => tracing::warn!("metrics: counting the database's rows took over 1 s"),
    }
}

/// Counts one answered request and its duration, when metrics are on.
pub(crate) fn count_request(route: &Label, method: &Method, status: StatusCode, took: Duration) {
    if !RECORDING.load(Ordering::Relaxed) {
        return;
    }
    let method = method_label(method);
    counter!(
        "devmgr_http_requests_total",
        "route" => route.clone(),
        "method" => method,
        "status" => status_label(status),
    )
    .increment(1);
    histogram!(
        "devmgr_http_request_duration_seconds",
        "route" => route.clone(),
        "method" => method,
    )
    .record(took.as_secs_f64());
}

/// Standard methods by name; any other is `other` (a label per invented
/// method would let clients grow the metrics without bound).
fn method_label(method: &Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

fn status_label(status: StatusCode) -> Label {
    match status.as_u16() {
        200 => "200".into(),
        201 => "201".into(),
        202 => "202".into(),
        204 => "204".into(),
        code => code.to_string().into(),
    }
}

/// A listener for `GET /metrics`, and the recorder it shows.
pub struct MetricsListener {
    /// The bound socket.
    pub listener: TcpListener,
    /// The recorder.
    pub metrics: Metrics,
}

/// Serves `GET /metrics` on the listener (one worker); anything else is 404.
/// Folds histogram samples in every few seconds even when nobody scrapes.
pub(crate) fn serve_metrics(
    listening: MetricsListener,
    state: Data<HttpState>,
) -> std::io::Result<Server> {
    let metrics = Data::new(listening.metrics);
    let upkeep = metrics.handle.clone();
    actix_web::rt::spawn(async move {
        let mut ticks = actix_web::rt::time::interval(UPKEEP_EVERY);
        loop {
            ticks.tick().await;
            upkeep.run_upkeep();
        }
    });
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(metrics.clone())
            .route("/metrics", web::get().to(scrape))
            .default_service(web::to(HttpResponse::NotFound))
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(1)
    .listen(listening.listener)?
    .run())
}

async fn scrape(state: Data<HttpState>, metrics: Data<Metrics>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.scrape(&state).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_methods_share_one_label() {
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
        assert_eq!(&*status_label(StatusCode::IM_A_TEAPOT), "418");
        assert_eq!(&*status_label(StatusCode::OK), "200");
    }
}
