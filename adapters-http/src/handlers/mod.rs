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
use serde::Serialize;

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: &impl Serialize) -> HttpResponse {
    HttpResponse::build(status).json(body)
}

/// 204 with no body.
pub(crate) fn no_content() -> HttpResponse {
    HttpResponse::NoContent().finish()
}
