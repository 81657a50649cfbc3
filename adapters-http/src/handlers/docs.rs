//! The API's own description: the OpenAPI document and Swagger UI, whose
//! files are compiled in (utoipa-swagger-ui's vendored copy), so the docs
//! work with no internet access.

use crate::dispatch::Ctx;
use crate::error::ApiError;
use crate::openapi;
use actix_web::HttpResponse;
use actix_web::http::header::{self, ContentType};
use std::sync::{Arc, LazyLock};
use utoipa_swagger_ui::Config;

/// Swagger UI's settings: our document, and no online validator badge
/// (Swagger UI would fetch it from the internet).
static CONFIG: LazyLock<Arc<Config<'static>>> = LazyLock::new(|| {
    Arc::new(
        Config::new(["/openapi.json"])
            .validator_url("none")
            .display_operation_id(false)
            .deep_linking(true)
            .filter(true),
    )
});

/// Swagger UI loads only its own files and talks only to this server.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; \
form-action 'none'; frame-ancestors 'none'";

/// `GET /openapi.json`.
pub async fn openapi(_ctx: Ctx) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .insert_header(ContentType::json())
        .body(openapi::document_json()))
}

/// `GET /docs/`: Swagger UI's page.
pub async fn page(_ctx: Ctx) -> Result<HttpResponse, ApiError> {
    swagger_file("index.html")
}

/// `GET /docs/{file}`: one of Swagger UI's files.
pub async fn file(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    swagger_file(&ctx.params[0])
}

fn swagger_file(name: &str) -> Result<HttpResponse, ApiError> {
    let file = utoipa_swagger_ui::serve(name, CONFIG.clone())
        .map_err(|e| ApiError::Internal(format!("Swagger UI file {name}: {e}")))?
        .ok_or(ApiError::NotFound)?;
    let mut response = HttpResponse::Ok();
    response
        .insert_header((header::CONTENT_TYPE, file.content_type))
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if file.gzpipped {
        response.insert_header((header::CONTENT_ENCODING, "gzip"));
    }
    Ok(response.body(file.bytes.into_owned()))
}
