use super::{no_content, secret_json};
use crate::dispatch::Ctx;
use crate::error::{ApiError, NON_FIELD_ERRORS};
use crate::fields::validated;
use crate::routes::{EMAIL, PASSWORD};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use application::use_cases::LoginError;
use serde_json::json;

/// `POST /auth/`: e-mail and password in, a new token out.
pub async fn login(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let email = form.email(&EMAIL);
    let password = form.text(&PASSWORD);
    form.finish()?;
    let (email, password) = (validated(email)?, validated(password)?);
    match ctx.state.app.sessions.login(&email, &password).await {
        Ok(token) => Ok(secret_json(StatusCode::CREATED, &json!({ "token": token }))),
        Err(LoginError::InvalidCredentials) => Err(ApiError::field(
            NON_FIELD_ERRORS,
            "Unable to log in with provided credentials.",
        )),
        Err(LoginError::EmailNotVerified) => Err(ApiError::field(
            NON_FIELD_ERRORS,
            "E-mail address is not verified.",
        )),
        Err(LoginError::LockedOut { retry_after_secs }) => {
            Err(ApiError::Throttled(retry_after_secs))
        }
        Err(LoginError::Store(e)) => Err(e.into()),
    }
}

/// `POST /auth/logout-all/`: ends every token of the account, this one too.
pub async fn logout_everywhere(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    ctx.state
        .app
        .sessions
        .logout_everywhere(ctx.user()?)
        .await?;
    Ok(no_content())
}

/// `DELETE /auth/`: ends the token of this request.
pub async fn logout(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let token = ctx
        .token
        .as_deref()
        .ok_or_else(|| crate::auth::Scheme::Token.not_provided())?;
    ctx.state.app.sessions.logout(token).await?;
    Ok(no_content())
}
