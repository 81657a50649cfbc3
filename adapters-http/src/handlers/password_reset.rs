use super::{in_background, no_content};
use crate::dispatch::Ctx;
use crate::error::{ApiError, FieldErrors};
use crate::fields::validated;
use crate::pages;
use crate::routes::{EMAIL, KEY, NEW_PASSWORD};
use actix_web::HttpResponse;
use actix_web::web::Query;
use application::use_cases::ConfirmResetError;
use serde::Deserialize;
use serde_json::json;

/// `POST /reset-password/`: 204 whether or not the address has an account,
/// at once either way (the look-up and the mail happen after the answer).
pub async fn request(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    if ctx.account.is_some() {
        return Err(ApiError::Forbidden("You are already signed in."));
    }
    let mut form = ctx.form();
    let email = form.email(&EMAIL);
    form.finish()?;
    let email = validated(email)?;
    let app = ctx.state.app.clone();
    in_background("password reset request", async move {
        app.password_reset.request(&email).await
    });
    Ok(no_content())
}

/// `POST /reset-password/confirm/ {key, new_password}`: both fields'
/// problems reported at once; a refused password leaves the key usable.
pub async fn confirm(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let key = form.text(&KEY);
    let new_password = form.text(&NEW_PASSWORD);
    form.finish()?;
    let (key, new_password) = (validated(key)?, validated(new_password)?);
    match ctx
        .state
        .app
        .password_reset
        .confirm(&key, &new_password)
        .await
    {
        Ok(()) => Ok(no_content()),
        Err(ConfirmResetError::Rejected {
            invalid_key,
            new_password,
        }) => {
            let mut errors = FieldErrors::new();
            if invalid_key {
                errors.insert("key".into(), json!(["Invalid or expired key."]));
            }
            if !new_password.is_empty() {
                let messages: Vec<String> = new_password.iter().map(ToString::to_string).collect();
                errors.insert("new_password".into(), json!(messages));
            }
            Err(ApiError::Validation(errors))
        }
        Err(ConfirmResetError::Store(e)) => Err(e.into()),
    }
}

#[derive(Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

/// `GET /reset-password/confirm/?key=…`, the e-mailed link: a page with a
/// form for the new password. The key is checked when the form is sent.
pub async fn page(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let key = Query::<KeyQuery>::from_query(ctx.req.query_string())
        .ok()
        .and_then(|query| query.into_inner().key);
    Ok(pages::reset_form(key.as_deref()))
}
