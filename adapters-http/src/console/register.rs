//! `/console/register/`: creating an account, which signs it in (as the
//! API's registration gives a token) and sends the verification link.

use super::browser::Browser;
use super::chrome::Chrome;
use super::failure::Failure;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::shown::Shown;
use super::throttle;
use crate::error::ApiError;
use crate::resources::accounts::EmailBody;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the registration route.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/register/")
            .route(web::get().to(show))
            .route(web::post().to(register)),
    );
}

/// The registration page.
#[derive(Template)]
#[template(path = "console/register.html")]
struct RegisterPage {
    chrome: Chrome,
    email: String,
    errors: Shown,
    /// False on a server whose registration is closed: the page says so
    /// instead of showing the form.
    open: bool,
}

fn page(browser: &Browser, email: String, errors: Shown, status: StatusCode) -> HttpResponse {
    let page = RegisterPage {
        chrome: browser.chrome("Create an account", ""),
        email,
        errors,
        open: true,
    };
    render(status, &page, browser.cookie())
}

/// The page of a server whose registration is closed (403, as the API).
fn closed(browser: &Browser) -> HttpResponse {
    let page = RegisterPage {
        chrome: browser.chrome("Registration is closed", ""),
        email: String::new(),
        errors: Shown::none(),
        open: false,
    };
    render(StatusCode::FORBIDDEN, &page, browser.cookie())
}

async fn show(state: Data<HttpState>, browser: Browser) -> HttpResponse {
    if browser.account.is_some() {
        return see_other("/console/");
    }
    if !state.app.accounts.registration_is_open() {
        return closed(&browser);
    }
    page(&browser, String::new(), Shown::none(), StatusCode::OK)
}

async fn register(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    if !state.app.accounts.registration_is_open() {
        return Ok(closed(&posted.browser));
    }
    let email = posted.text("email");
    let refused = |error: ApiError| -> Result<HttpResponse, Failure> {
        let (errors, status) = Shown::refusal(error)?;
        Ok(page(&posted.browser, email.clone(), errors, status))
    };
    if let Err(error) = throttle::check(&req, &state).await {
        return refused(error);
    }
    let body = match posted.read::<EmailBody>() {
        Ok(body) => body,
        Err(errors) => {
            return Ok(page(
                &posted.browser,
                email,
                errors,
                StatusCode::BAD_REQUEST,
            ));
        }
    };
    let account = match state
        .app
        .accounts
        .register_for_console(body.email, state.client_ip(&req))
        .await
    {
        Ok(account) => account,
        Err(error) => return refused(error.into()),
    };
    let secret = state.app.sessions.open_console_for(&account).await?;
    let mut response = see_other("/console/");
    response
        .add_cookie(&posted.browser.session_cookie(secret))
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(response)
}
