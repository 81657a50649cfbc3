//! Password reset in the console: `/console/reset-password/` asks for the
//! link; the mailed link (`/reset-password/confirm/?key=…`) opens the page
//! that sets the new password, which posts to
//! `/console/reset-password/confirm/` and leads to the sign-in page.

use super::browser::Browser;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::shown::Shown;
use super::throttle;
use crate::error::ApiError;
use crate::resources::accounts::EmailBody;
use crate::resources::password_reset::body::Reset;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the reset routes.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/reset-password/")
                .route(web::get().to(show_request))
                .route(web::post().to(request)),
        )
        .service(
            web::resource("/reset-password/confirm/")
                .route(web::get().to(show_confirm))
                .route(web::post().to(confirm)),
        );
}

/// The page that asks for a reset link.
#[derive(Template)]
#[template(path = "console/reset_request.html")]
struct RequestPage {
    chrome: Chrome,
    email: String,
    errors: Shown,
}

/// The page of a mailed reset link.
#[derive(Template)]
#[template(path = "console/reset_confirm.html")]
struct ConfirmPage {
    chrome: Chrome,
    key: String,
    errors: Shown,
}

async fn show_request(browser: Browser, NoticeCode(notice): NoticeCode) -> HttpResponse {
    if browser.account.is_some() {
        return see_other("/console/account/");
    }
    let page = RequestPage {
        chrome: browser
            .chrome("Reset your password", "")
            .with_notice(notice.as_deref()),
        email: String::new(),
        errors: Shown::none(),
    };
    render(StatusCode::OK, &page, browser.cookie())
}

async fn request(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let again = |errors: Shown, status: StatusCode| {
        let page = RequestPage {
            chrome: posted.browser.chrome("Reset your password", ""),
            email: posted.text("email"),
            errors,
        };
        render(status, &page, posted.browser.cookie())
    };
    if posted.browser.account.is_some() {
        // As the API refuses a reset requested with a token.
        let error = ApiError::Forbidden("You are already signed in.");
        return Ok(again(Shown::of(error)?, StatusCode::FORBIDDEN));
    }
    if let Err(error) = throttle::check(&req, &state).await {
        let (errors, status) = Shown::refusal(error)?;
        return Ok(again(errors, status));
    }
    let body = match posted.read::<EmailBody>() {
        Ok(body) => body,
        Err(errors) => return Ok(again(errors, StatusCode::BAD_REQUEST)),
    };
    state.app.password_reset.request(&body.email).await?;
    Ok(see_other(&notices::after(
        "/console/reset-password/",
        "reset-sent",
    )))
}

/// The page of a mailed reset link, for `key` (checked when the form is sent).
pub(crate) fn reset_page(browser: &Browser, key: Option<&str>) -> HttpResponse {
    let page = ConfirmPage {
        chrome: browser.chrome("Set a new password", ""),
        key: key.unwrap_or_default().to_owned(),
        errors: Shown::none(),
    };
    render(StatusCode::OK, &page, browser.cookie())
}

async fn show_confirm(browser: Browser, req: HttpRequest) -> HttpResponse {
    let key = super::notice_query::url_query_value(req.query_string(), "key");
    reset_page(&browser, key.as_deref())
}

async fn confirm(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let again = |errors: Shown, status: StatusCode| {
        let page = ConfirmPage {
            chrome: posted.browser.chrome("Set a new password", ""),
            key: posted.text("key"),
            errors,
        };
        render(status, &page, posted.browser.cookie())
    };
    if let Err(error) = throttle::check(&req, &state).await {
        let (errors, status) = Shown::refusal(error)?;
        return Ok(again(errors, status));
    }
    let reset = match posted.read::<Reset>() {
        Ok(reset) => reset,
        Err(errors) => return Ok(again(errors, StatusCode::BAD_REQUEST)),
    };
    match state
        .app
        .password_reset
        .confirm(&reset.key, &reset.new_password, state.client_ip(&req))
        .await
    {
        Ok(()) => Ok(see_other(&notices::after(
            "/console/login/",
            "password-set",
        ))),
        Err(error) => {
            let error = ApiError::from(error);
            let (errors, status) = Shown::refusal(error)?;
            Ok(again(errors, status))
        }
    }
}
