//! `/console/account/`: the name, the password, a new install token, and
//! logging out everywhere.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::shown::Shown;
use crate::error::ApiError;
use crate::resources::accounts::PasswordChange;
use crate::resources::profile::ProfileChange;
use crate::state::HttpState;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use askama::Template;

/// Mounts the account page and its forms.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/account/").route(web::get().to(show)))
        .service(web::resource("/account/name/").route(web::post().to(rename)))
        .service(web::resource("/account/password/").route(web::post().to(change_password)))
        .service(web::resource("/account/install-token/").route(web::post().to(rotate)))
        .service(web::resource("/account/logout-all/").route(web::post().to(logout_everywhere)));
}

/// The account page.
#[derive(Template)]
#[template(path = "console/account.html")]
struct AccountPage {
    chrome: Chrome,
    email: String,
    verified: bool,
    name: String,
    has_password: bool,
    name_errors: Shown,
    password_errors: Shown,
}

impl AccountPage {
    fn of(viewer: &Viewer, notice: Option<&str>) -> Self {
        let account = &viewer.account;
        Self {
            chrome: viewer
                .browser
                .chrome("Account", "account")
                .with_notice(notice),
            email: account.email.as_str().to_owned(),
            verified: account.email_verified,
            name: account.name.as_str().to_owned(),
            has_password: account.password_hash.is_some(),
            name_errors: Shown::none(),
            password_errors: Shown::none(),
        }
    }
}

async fn show(viewer: Viewer, NoticeCode(notice): NoticeCode) -> HttpResponse {
    render(
        StatusCode::OK,
        &AccountPage::of(&viewer, notice.as_deref()),
        None,
    )
}

async fn rename(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let change = match posted.read::<ProfileChange>() {
        Ok(change) => change,
        Err(errors) => {
            let mut page = AccountPage::of(&viewer, None);
            page.name = posted.text("name");
            page.name_errors = errors;
            return Ok(render(StatusCode::BAD_REQUEST, &page, None));
        }
    };
    if let Some(name) = change.name {
        state.app.accounts.rename(viewer.requester(), &name).await?;
    }
    Ok(see_other(&notices::after(
        "/console/account/",
        "name-saved",
    )))
}

async fn change_password(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let refused = |errors: Shown, status: StatusCode| {
        let mut page = AccountPage::of(&viewer, None);
        page.password_errors = errors;
        render(status, &page, None)
    };
    if let Some(throttle) = &state.password_changes
        && let Err(error) = throttle.check(viewer.account.id).await
    {
        let (errors, status) = Shown::refusal(error)?;
        return Ok(refused(errors, status));
    }
    let change = match posted.read::<PasswordChange>() {
        Ok(change) => change,
        Err(errors) => return Ok(refused(errors, StatusCode::BAD_REQUEST)),
    };
    let outcome = state
        .app
        .accounts
        .change_password(
            viewer.requester(),
            change.old_password.as_deref().filter(|old| !old.is_empty()),
            &change.new_password,
        )
        .await;
    match outcome {
        Ok(()) => Ok(see_other(&notices::after(
            "/console/account/",
            "password-changed",
        ))),
        Err(error) => {
            let error = ApiError::from(error);
            let (errors, status) = Shown::refusal(error)?;
            Ok(refused(errors, status))
        }
    }
}

async fn rotate(
    state: Data<HttpState>,
    viewer: Viewer,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    state
        .app
        .accounts
        .rotate_install_token(viewer.requester())
        .await?;
    Ok(see_other(&notices::after(
        "/console/add-device/",
        "install-token",
    )))
}

async fn logout_everywhere(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    state
        .app
        .sessions
        .logout_everywhere(viewer.requester())
        .await?;
    let mut response = see_other(&notices::after("/console/login/", "signed-out-everywhere"));
    response
        .add_cookie(&posted.browser.ended_session_cookie())
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(response)
}
