//! `/reset-password/`: recovering an account through a mailed link.

use super::accounts::EmailBody;
use crate::answer::{NoContent, Page};
use crate::console::{Browser, reset_page};
use crate::description::examples as ex;
use crate::description::{Parameter, Tag};
use crate::error::ApiError;
use crate::extract::{ClientIp, PageKey, SignedOut, Valid};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;

pub(crate) mod body;

pub(crate) use body::{KEY, Reset};

/// The key of an e-mailed link, in its path or its query.
pub(crate) const KEY_PARAMETER: Parameter = Parameter {
    name: KEY.name,
    description: "The key from the e-mailed link.",
    format: None,
    example: || ex::KEY.into(),
};

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Accounts,
            "/reset-password/",
            "Reset Password",
            "Mail a link for setting a new password to the address, if it has an account.",
        )
        .post(
            "requestPasswordReset",
            "Ask for a password reset link",
            request,
        )
        .request_example(EmailBody { email: ex::email() })
        .throttled()
        .fails(&[403]),
        Route::new(
            Tag::Accounts,
            "/reset-password/confirm/",
            "Reset Password Confirm",
            "Set a new password with the key of a reset link (POST), or open the\nlink's page with a form for it (GET with `?key=`).",
        )
        .parameter(KEY_PARAMETER)
        .get("showPasswordResetForm", "The reset link's page", page)
        .post(
            "confirmPasswordReset",
            "Set a new password with a reset key",
            confirm,
        )
        .request_example(Reset {
            key: ex::KEY.to_owned(),
            new_password: ex::NEW_PASSWORD.to_owned(),
        })
        .throttled(),
    ]
}

/// `POST /reset-password/`: 204 whether or not the address has an account,
/// at once either way (the look-up and the mail happen after the answer).
async fn request(
    state: Data<HttpState>,
    _: SignedOut,
    Valid(body): Valid<EmailBody>,
) -> Result<NoContent, ApiError> {
    let app = state.app.clone();
    crate::background::in_background("password reset request", async move {
        app.password_reset.request(&body.email).await
    });
    Ok(NoContent)
}

/// `POST /reset-password/confirm/ {key, new_password}`: both fields'
/// problems reported at once; a refused password leaves the key usable.
async fn confirm(
    state: Data<HttpState>,
    ClientIp(address): ClientIp,
    Valid(body): Valid<Reset>,
) -> Result<NoContent, ApiError> {
    state
        .app
        .password_reset
        .confirm(&body.key, &body.new_password, address)
        .await?;
    Ok(NoContent)
}

/// `GET /reset-password/confirm/?key=…`, the e-mailed link: a page with a
/// form for the new password. The key is checked when the form is sent.
async fn page(PageKey(key): PageKey, browser: Browser) -> Result<Page, ApiError> {
    Ok(Page(reset_page(&browser, key.as_deref())))
}
