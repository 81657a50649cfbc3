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
}

fn page(browser: &Browser, email: String, errors: Shown, status: StatusCode) -> HttpResponse {
    let page = RegisterPage {
        chrome: browser.chrome("Create an account", ""),
        email,
        errors,
    };
    render(status, &page, browser.cookie())
}

async fn show(browser: Browser) -> HttpResponse {
    if browser.account.is_some() {
        return see_other("/console/");
    }
    page(&browser, String::new(), Shown::none(), StatusCode::OK)
}

async fn register(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let email = posted.text("email");
    let refused = |error: ApiError| -> Result<HttpResponse, Failure> {
        let (errors, status) = Shown::refusal(error)?;
        Ok(page(&posted.browser, email.clone(), errors, status))
    };
    if let Err(error) = throttle::check(&req, &state) {
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
    let account = match state.app.accounts.register_for_console(body.email).await {
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
