//! devmgr's JSON REST API on actix-web.
//!
//! The [app](app) mounts its own surfaces ([`home`], the web
//! [`console`]) as ordinary actix routes first; every other request goes to the API's
//! [dispatcher](dispatch::dispatch), which applies the conventions of
//! `docs/api.md` (Django REST Framework's) that must come before a handler,
//! then hands it to the endpoint from the [route table](route_table). Each API
//! resource is one module of [`resources`]: its routes, typed bodies, typed
//! answers and handlers, whose [extractors](extract) give them the caller,
//! the path, the query and the body already checked. Errors become DRF-style
//! bodies in [`error`] only.

mod answer;
mod auth;
mod background;
mod body;
mod console;
mod description;
mod dispatch;
mod error;
mod event_data;
mod extract;
mod fields;
mod fleet_reads;
mod home;
mod json_text;
mod kept_listings;
mod long_polls;
mod mail_links;
mod metrics;
mod observe;
mod openapi;
mod path_pattern;
mod refusals;
mod resources;
mod route;
mod route_table;
mod state;
#[cfg(test)]
mod tests;
mod throttle;
mod unread_body;

pub use event_data::HttpEventData;
pub use fields::messages;
pub use long_polls::LongPolls;
pub use mail_links::HttpMailLinks;
pub use metrics::{Metrics, MetricsError, MetricsListener};
pub use resources::devices::DeviceJson;
pub use state::HttpState;
pub use throttle::{AccountThrottle, AddressThrottle, MemoryRateLimits, Rate};

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse, fn_service};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use resources::docs::ApiDocument;
use std::net::TcpListener;

/// How much the server takes on at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// Worker threads.
    pub workers: usize,
    /// Connections served at once, over all workers; more wait in the
    /// listener's backlog.
    pub max_connections: usize,
}

/// How long requests in flight may take to finish once shutdown starts.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(4);

/// The servers of one process: the API with its pages and probes, and the
/// metrics listener when there is one.
pub struct Serving {
    api: Server,
    metrics: Option<Server>,
}

impl Serving {
    /// Stops the API server (the metrics listener follows it).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.api.handle()
    }

    /// Serves until the API server stops, then stops the metrics listener.
    pub async fn run(self) -> std::io::Result<()> {
        let metrics = self.metrics.map(|server| {
            let handle = server.handle();
            actix_web::rt::spawn(server);
            handle
        });
        let served = self.api.await;
        if let Some(metrics) = metrics {
            metrics.stop(true).await;
        }
        served
    }
}

/// Starts serving on an already bound listener, and metrics on theirs when
/// given. On SIGINT or SIGTERM the server answers every open long poll at
/// once, stops accepting connections, finishes the requests in flight (for
/// at most 4 s) and stops.
pub fn serve(
    listener: TcpListener,
    state: HttpState,
    limits: ServeLimits,
    metrics: Option<MetricsListener>,
) -> std::io::Result<Serving> {
    let workers = limits.workers.max(1);
    let state = web::Data::new(state);
    let polls = state.clone();
    let metrics = metrics
        .map(|listening| metrics::serve_metrics(listening, state.clone()))
        .transpose()?;
    let document = web::Data::new(ApiDocument(openapi::document_json()));
    let server = HttpServer::new(move || app(state.clone(), document.clone()))
        .workers(workers)
        // actix counts connections per worker.
        .max_connections(limits.max_connections.div_ceil(workers).max(1))
        .disable_signals()
        .shutdown_timeout(SHUTDOWN_GRACE.as_secs())
        .listen(listener)?
        .run();
    let handle = server.handle();
    actix_web::rt::spawn(async move {
        stop_signal().await;
        tracing::info!(
            open_long_polls = polls.long_polls.count(),
            "shutting down: answering long polls"
        );
        polls.long_polls.close_all();
        polls.stop_streams();
        handle.stop(true).await;
    });
    Ok(Serving {
        api: server,
        metrics,
    })
}

/// The whole server on an actix `App`: the state, the OpenAPI document, the
/// server's own surfaces, and the API's dispatcher for every other path.
/// Every request gets an id and a log line ([`observe`]); every answer sent
/// before its request's body has arrived whole closes the connection. `serve` and the in-crate tests use it alike.
pub(crate) fn app(
    state: web::Data<HttpState>,
    document: web::Data<ApiDocument>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .wrap(from_fn(unread_body::close_after_unread_body))
        .wrap(from_fn(observe::observe))
        .app_data(state)
        .app_data(document)
        .configure(home::mount)
        .configure(console::mount)
        .default_service(fn_service(dispatch::dispatch))
}

/// Resolves on the first SIGINT or SIGTERM.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(error) => {
            tracing::warn!(%error, "cannot listen for SIGTERM; stopping on SIGINT only");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
