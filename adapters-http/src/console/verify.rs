//! The page of a verification link opened in a browser.

use super::browser::Browser;
use super::chrome::Chrome;
use super::respond::render;
use crate::refusals::INVALID_KEY;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;

/// The outcome of a verification link.
#[derive(Template)]
#[template(path = "console/verified.html")]
struct VerifiedPage {
    chrome: Chrome,
    verified: bool,
    invalid_key: &'static str,
    signed_in: bool,
}

/// The page of a verification link: 200 when it verified the address, 400
/// (with the API's message) when the key opens nothing.
pub(crate) fn verification_page(browser: &Browser, verified: bool) -> HttpResponse {
    let title = if verified {
        "E-mail address verified"
    } else {
        "Invalid link"
    };
    let page = VerifiedPage {
        chrome: browser.chrome(title, ""),
        verified,
        invalid_key: INVALID_KEY,
        signed_in: browser.account.is_some(),
    };
    let status = if verified {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    render(status, &page, browser.cookie())
}
