//! devmgr's JSON REST API on actix-web.
//!
//! Every request goes through [`dispatch`](dispatch::dispatch), which applies
//! the conventions of CONTRACT §1 (Django REST Framework's) in one place, then
//! calls the endpoint from the [route table](routes). Endpoints turn bodies
//! into domain values, call a use case, and render the result; errors become
//! DRF-style bodies in [`error`] only.

pub mod auth;
pub mod body;
pub mod device_json;
pub mod dispatch;
pub mod error;
pub mod fields;
mod handlers;
pub mod openapi;
mod pages;
pub mod resources;
pub mod routes;
pub mod state;
pub mod throttle;

pub use device_json::DeviceJson;
pub use state::HttpState;
pub use throttle::{AddressThrottle, Rate};

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use std::net::TcpListener;

/// Starts serving on an already bound listener with `workers` threads.
/// The server stops gracefully on SIGINT and SIGTERM.
pub fn serve(listener: TcpListener, state: HttpState, workers: usize) -> std::io::Result<Server> {
    let state = web::Data::new(state);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            // The dispatcher reads bodies itself, with its own limit.
            .app_data(web::PayloadConfig::new(body::MAX_BODY_BYTES + 1))
            .default_service(web::to(dispatch::dispatch))
    })
    .workers(workers.max(1))
    .listen(listener)?
    .run();
    Ok(server)
}
