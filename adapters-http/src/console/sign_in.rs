//! `/console/login/` and `/console/logout/`: signing in with the API's
//! checks, lockout and throttle, and signing out.

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
use crate::resources::auth::Credentials;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the sign-in and sign-out routes.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/login/")
                .route(web::get().to(show))
                .route(web::post().to(sign_in)),
        )
        .service(web::resource("/logout/").route(web::post().to(sign_out)));
}

/// The sign-in page.
#[derive(Template)]
#[template(path = "console/login.html")]
struct LoginPage {
    chrome: Chrome,
    email: String,
    errors: Shown,
    /// Whether to offer the registration page.
    registration_open: bool,
}

fn page(
    state: &HttpState,
    browser: &Browser,
    email: String,
    errors: Shown,
    status: StatusCode,
    notice: Option<&str>,
) -> HttpResponse {
    let page = LoginPage {
        chrome: browser.chrome("Log in", "").with_notice(notice),
        email,
        errors,
        registration_open: state.app.accounts.registration_is_open(),
    };
    render(status, &page, browser.cookie())
}

async fn show(
    state: Data<HttpState>,
    browser: Browser,
    NoticeCode(notice): NoticeCode,
) -> HttpResponse {
    if browser.account.is_some() {
        return see_other("/console/");
    }
    page(
        &state,
        &browser,
        String::new(),
        Shown::none(),
        StatusCode::OK,
        notice.as_deref(),
    )
}

async fn sign_in(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let email = posted.text("email");
    if let Err(error) = throttle::check(&req, &state).await {
        return refused(&state, &posted.browser, email, error);
    }
    let credentials = match posted.read::<Credentials>() {
        Ok(credentials) => credentials,
        Err(errors) => {
            return Ok(page(
                &state,
                &posted.browser,
                email,
                errors,
                StatusCode::BAD_REQUEST,
                None,
            ));
        }
    };
    match state
        .app
        .sessions
        .open_console(&credentials.email, &credentials.password)
        .await
    {
        Ok(secret) => {
            let mut response = see_other("/console/");
            response
                .add_cookie(&posted.browser.session_cookie(secret))
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            Ok(response)
        }
        Err(error) => refused(&state, &posted.browser, email, error.into()),
    }
}

/// The sign-in page again, with the API's refusal.
fn refused(
    state: &HttpState,
    browser: &Browser,
    email: String,
    error: ApiError,
) -> Result<HttpResponse, Failure> {
    let (errors, status) = Shown::refusal(error)?;
    Ok(page(state, browser, email, errors, status, None))
}

async fn sign_out(state: Data<HttpState>, posted: Posted) -> Result<HttpResponse, Failure> {
    if let (Some(account), Some(session)) = (&posted.browser.account, posted.browser.session()) {
        state.app.sessions.close_console(account, session).await?;
    }
    let mut response = see_other(&notices::after("/console/login/", "signed-out"));
    response
        .add_cookie(&posted.browser.ended_session_cookie())
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(response)
}
