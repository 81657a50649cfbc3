//! `/verify-email/`: proving an account's e-mail address.

use super::accounts::EmailBody;
use super::password_reset::{KEY, KEY_PARAMETER};
use crate::answer::{Detail, Json, JsonOrPage, NoContent};
use crate::console::{Browser, verification_page};
use crate::description::Tag;
use crate::description::examples as ex;
use crate::error::ApiError;
use crate::extract::{KeyPath, Valid, WantsHtml};
use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use application::use_cases::VerifyEmailError;
use serde_json::{Map, Value};

const VERIFIED: Detail = Detail::new("E-mail address verified.");

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Accounts,
            "/verify-email/",
            "Verify Email",
            "Verify the account's e-mail address with the key of a verification link.",
        )
        .post("verifyEmail", "Verify an e-mail address", verify)
        .request_example(KeyBody {
            key: ex::KEY.to_owned(),
        })
        .answer_example(VERIFIED)
        .throttled(),
        Route::new(
            Tag::Accounts,
            "/verify-email/resend/",
            "Resend Verification Email",
            "Mail a fresh verification link to the address, if an unverified account has it.",
        )
        .post(
            "resendVerificationEmail",
            "Mail a new verification link",
            resend,
        )
        .request_example(EmailBody {
            email: ex::new_email(),
        })
        .throttled(),
        Route::new(
            Tag::Accounts,
            "/verify-email/{key}/",
            "Verify Email Link",
            "The e-mailed verification link: verifies the address. Browsers get a page.",
        )
        .parameter(KEY_PARAMETER)
        .get(
            "openVerificationLink",
            "Open a verification link",
            verify_link,
        )
        .answer_example(VERIFIED)
        .bad_request_example(&invalid_key())
        .throttled()
        .fails(&[400]),
    ]
}

/// A verification's body: the link's key.
pub struct KeyBody {
    key: String,
}

impl FromForm for KeyBody {
    const FIELDS: &'static [Field] = &[KEY];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        Ok(Self {
            key: form.text(&KEY)?,
        })
    }
}

impl ToForm for KeyBody {
    fn to_form(&self) -> Map<String, Value> {
        form_of([(&KEY, self.key.as_str().into())])
    }
}

/// The answer to a key that verifies nothing.
fn invalid_key() -> ApiError {
    ApiError::field(KEY.name, "Invalid or expired key.")
}

/// `POST /verify-email/ {key}`.
async fn verify(
    state: Data<HttpState>,
    Valid(body): Valid<KeyBody>,
) -> Result<Json<Detail>, ApiError> {
    state.app.verification.verify(&body.key).await?;
    Ok(Json(VERIFIED))
}

/// `GET /verify-email/{key}/`, the e-mailed link: JSON like the POST, or a
/// page for a browser.
async fn verify_link(
    state: Data<HttpState>,
    KeyPath(key): KeyPath,
    WantsHtml(html): WantsHtml,
    browser: Browser,
) -> Result<JsonOrPage<Detail>, ApiError> {
    let verified = match state.app.verification.verify(&key).await {
        Ok(()) => true,
        Err(VerifyEmailError::InvalidKey) => false,
        Err(VerifyEmailError::Store(e)) => return Err(e.into()),
    };
    if html {
        Ok(JsonOrPage::Page(verification_page(&browser, verified)))
    } else if verified {
        Ok(JsonOrPage::Json(VERIFIED))
    } else {
        Err(invalid_key())
    }
}

/// `POST /verify-email/resend/ {email}`: 204 whatever the address, at once
/// (the look-up and the mail happen after the answer).
async fn resend(
    state: Data<HttpState>,
    Valid(body): Valid<EmailBody>,
) -> Result<NoContent, ApiError> {
    let app = state.app.clone();
    crate::background::in_background("verification resend", async move {
        app.verification.resend(&body.email).await
    });
    Ok(NoContent)
}
