//! The API's own description: the OpenAPI document and Swagger UI, whose
//! files are compiled in (utoipa-swagger-ui's vendored copy), so the docs
//! work with no internet access.

use crate::answer::Page;
use crate::error::ApiError;
use crate::extract::FilePath;
use crate::route::Route;
use actix_web::HttpResponse;
use actix_web::http::header::{self, ContentType};
use actix_web::web::Data;
use std::sync::{Arc, LazyLock};
use utoipa_swagger_ui::Config;

/// The OpenAPI document as served, made once at start-up.
pub struct ApiDocument(pub &'static str);

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::undocumented(
            "/docs/",
            "Docs",
            "Browsable API documentation (Swagger UI) of /openapi.json.",
        )
        .get("showDocs", "Browsable API documentation", page),
        Route::undocumented(
            "/docs/{file}",
            "Docs File",
            "A file of the browsable API documentation.",
        )
        .get("getDocsFile", "A file of the documentation", file),
        Route::undocumented(
            "/openapi.json",
            "OpenAPI",
            "This API's OpenAPI 3.1 document.",
        )
        .get("getOpenApiDocument", "The OpenAPI document", openapi),
    ]
}

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
async fn openapi(document: Data<ApiDocument>) -> Result<Page, ApiError> {
    Ok(Page(
        HttpResponse::Ok()
            .insert_header(ContentType::json())
            .body(document.0),
    ))
}

/// `GET /docs/`: Swagger UI's page.
async fn page() -> Result<Page, ApiError> {
    swagger_file("index.html")
}

/// `GET /docs/{file}`: one of Swagger UI's files.
async fn file(FilePath(name): FilePath) -> Result<Page, ApiError> {
    swagger_file(&name)
}

fn swagger_file(name: &str) -> Result<Page, ApiError> {
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
    Ok(Page(response.body(file.bytes.into_owned())))
}
