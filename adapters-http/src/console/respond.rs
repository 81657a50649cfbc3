//! Answers of console pages: HTML with the console's security headers, and
//! redirects after a form.

use actix_web::HttpResponse;
use actix_web::cookie::Cookie;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use askama::Template;

/// The console's Content-Security-Policy: its own stylesheet and script
/// only, no inline script or style, never inside a frame.
pub(crate) const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; \
     frame-ancestors 'none'";

/// Sets the headers every console answer carries.
pub(crate) fn secure_headers(response: &mut actix_web::HttpResponseBuilder) {
    response
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
}

/// A rendered page with `status`, setting `cookie` when given.
pub(crate) fn render(
    status: StatusCode,
    page: &impl Template,
    cookie: Option<Cookie<'static>>,
) -> HttpResponse {
    let html = match page.render() {
        Ok(html) => html,
        Err(error) => {
            tracing::error!(%error, "a console template failed to render");
            return HttpResponse::InternalServerError()
                .content_type(ContentType::plaintext())
                .body("A server error occurred.");
        }
    };
    let mut response = HttpResponse::build(status);
    secure_headers(&mut response);
    if let Some(cookie) = cookie {
        response.cookie(cookie);
    }
    response.content_type(ContentType::html()).body(html)
}

/// 303 to `location` (after a form: the browser GETs it).
pub(crate) fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}
