//! The endpoints, by resource.

pub mod accounts;
pub mod agent;
pub mod auth;
pub mod devices;
pub mod docs;
pub mod password_reset;
pub mod verification;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CacheControl, CacheDirective};
use serde::Serialize;
use std::future::Future;

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: &impl Serialize) -> HttpResponse {
    HttpResponse::build(status).json(body)
}

/// A JSON response that carries a secret (a token, an install token): no
/// cache, shared or private, may keep it.
pub(crate) fn secret_json(status: StatusCode, body: &impl Serialize) -> HttpResponse {
    let mut response = json(status, body);
    if let Ok(value) = CacheControl(vec![CacheDirective::NoStore])
        .to_string()
        .parse()
    {
        response.headers_mut().insert(CACHE_CONTROL, value);
    }
    response
}

/// Runs work whose outcome the client must not learn, not even from the
/// answer's timing (whether an address has an account), after answering.
/// Failures are logged.
pub(crate) fn in_background(
    what: &'static str,
    work: impl Future<Output = Result<(), application::StoreError>> + 'static,
) {
    actix_web::rt::spawn(async move {
        if let Err(error) = work.await {
            tracing::error!(%error, what, "background work failed");
        }
    });
}

/// 204 with no body.
pub(crate) fn no_content() -> HttpResponse {
    HttpResponse::NoContent().finish()
}
