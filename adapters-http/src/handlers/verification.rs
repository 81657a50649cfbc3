use super::{in_background, json, no_content};
use crate::dispatch::Ctx;
use crate::error::ApiError;
use crate::fields::validated;
use crate::pages;
use crate::routes::{EMAIL, KEY};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use application::use_cases::VerifyEmailError;
use serde_json::json;

const VERIFIED: &str = "E-mail address verified.";
const INVALID_KEY: &str = "Invalid or expired key.";

/// `POST /verify-email/ {key}`.
pub async fn verify(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let key = form.text(&KEY);
    form.finish()?;
    match ctx.state.app.verification.verify(&validated(key)?).await {
        Ok(()) => Ok(json(StatusCode::OK, &json!({ "detail": VERIFIED }))),
        Err(VerifyEmailError::InvalidKey) => Err(ApiError::field("key", INVALID_KEY)),
        Err(VerifyEmailError::Store(e)) => Err(e.into()),
    }
}

/// `GET /verify-email/{key}/`, the e-mailed link: JSON like the POST, or a
/// page for a browser.
pub async fn verify_link(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let verified = match ctx.state.app.verification.verify(&ctx.params[0]).await {
        Ok(()) => true,
        Err(VerifyEmailError::InvalidKey) => false,
        Err(VerifyEmailError::Store(e)) => return Err(e.into()),
    };
    if pages::wants_html(&ctx.req) {
        return Ok(pages::verification(verified));
    }
    if verified {
        Ok(json(StatusCode::OK, &json!({ "detail": VERIFIED })))
    } else {
        Err(ApiError::field("key", INVALID_KEY))
    }
}

/// `POST /verify-email/resend/ {email}`: 204 whatever the address, at once
/// (the look-up and the mail happen after the answer).
pub async fn resend(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let email = form.email(&EMAIL);
    form.finish()?;
    let email = validated(email)?;
    let app = ctx.state.app.clone();
    in_background("verification resend", async move {
        app.verification.resend(&email).await
    });
    Ok(no_content())
}
