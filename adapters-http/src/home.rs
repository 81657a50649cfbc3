//! `/`: where a visitor to the server starts. A browser (a client that
//! accepts HTML) goes to the web console; any other client gets the API's
//! 404, as for any path that is not a route. Mounted as an ordinary actix
//! route before the API's dispatcher.

use crate::error::ApiError;
use crate::extract::WantsHtml;
use actix_web::http::header;
use actix_web::{HttpResponse, guard, web};

/// Mounts `GET /` (and `HEAD /`); other methods get the DRF-style 405.
pub(crate) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/")
            .route(
                web::route()
                    .guard(guard::Any(guard::Get()).or(guard::Head()))
                    .to(start),
            )
            .default_service(web::to(other_method)),
    );
}

/// 302 to the console for a browser; the API's 404 for anyone else.
async fn start(WantsHtml(html): WantsHtml) -> Result<HttpResponse, ApiError> {
    if !html {
        return Err(ApiError::NotFound);
    }
    Ok(HttpResponse::Found()
        .insert_header((header::LOCATION, "/console/"))
        .finish())
}

async fn other_method(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed {
        method: req.method().to_string(),
        allow: "GET, HEAD".to_owned(),
    })
}
