//! `/`: where a visitor to the server starts. Until the web console
//! exists, that is the API's browsable documentation. Mounted as an
//! ordinary actix route before the API's dispatcher.

use crate::error::ApiError;
use actix_web::http::header;
use actix_web::{HttpResponse, guard, web};

/// Mounts `GET /` (and `HEAD /`); other methods get the DRF-style 405.
pub(crate) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/")
            .route(
                web::route()
                    .guard(guard::Any(guard::Get()).or(guard::Head()))
                    .to(to_docs),
            )
            .default_service(web::to(other_method)),
    );
}

/// 302 to the browsable API documentation.
async fn to_docs() -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, "/docs/"))
        .finish()
}

async fn other_method(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed {
        method: req.method().to_string(),
        allow: "GET, HEAD".to_owned(),
    })
}
