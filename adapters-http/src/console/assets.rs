//! The console's stylesheet and script, compiled into the binary (nothing
//! is fetched at run time). Both are devmgr's own, under its licence.

use actix_web::http::header::{self, ContentType};
use actix_web::web;
use actix_web::{HttpResponse, mime};

/// The stylesheet: one for every page, light and dark by the system setting.
const STYLESHEET: &str = include_str!("../../assets/console.css");
/// The script: live updates, search as you type, dialogs, copy, relative times.
const SCRIPT: &str = include_str!("../../assets/console.js");
/// The icon of the browser's tab.
const ICON: &str = include_str!("../../assets/icon.svg");

/// Mounts `/console/static/console.css`, `console.js` and `icon.svg`.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .route(
            "/static/console.css",
            web::get().to(|| async { asset(ContentType(mime::TEXT_CSS_UTF_8), STYLESHEET) }),
        )
        .route(
            "/static/console.js",
            web::get()
                .to(|| async { asset(ContentType(mime::APPLICATION_JAVASCRIPT_UTF_8), SCRIPT) }),
        )
        .route(
            "/static/icon.svg",
            web::get().to(|| async { asset(ContentType(mime::IMAGE_SVG), ICON) }),
        );
}

fn asset(content_type: ContentType, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(content_type)
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}
