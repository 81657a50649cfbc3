//! `/register/` and `/change-password/`: creating an account and setting its
//! password.

use super::auth::{AuthToken, EMAIL};
use crate::answer::{Detail, NoContent, SecretJson};
use crate::description::Tag;
use crate::description::examples as ex;
use crate::error::ApiError;
use crate::extract::{ClientIp, PasswordChangeTurn, User, Valid};
use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::refusals::REGISTRATION_CLOSED;
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use domain::EmailAddress;
use serde_json::{Map, Value};

/// `old_password` of change-password: needed only while a password is usable.
pub(crate) const OLD_PASSWORD: Field = Field::password("old_password", "Old password").optional();
/// `new_password` of change-password and of a reset.
pub(crate) const NEW_PASSWORD: Field = Field::password("new_password", "New password");

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Accounts,
            "/register/",
            "Register",
            "Create an account from an e-mail address. Returns an API token;\na verification link is mailed.",
        )
        .post("register", "Create an account", register)
        .request_example(EmailBody {
            email: ex::new_email(),
        })
        .permission(registration_open)
        .failure_example(403, Detail::new(REGISTRATION_CLOSED))
        .throttled(),
        Route::new(
            Tag::Accounts,
            "/change-password/",
            "Change Password",
            "Set a new password. `old_password` is needed while the account has a usable password.",
        )
        .post("changePassword", "Change the password", change_password)
        .request_example(PasswordChange {
            old_password: Some(ex::PASSWORD.to_owned()),
            new_password: ex::NEW_PASSWORD.to_owned(),
        }),
    ]
}

/// A body with one e-mail address.
pub struct EmailBody {
    /// The address.
    pub email: EmailAddress,
}

impl FromForm for EmailBody {
    const FIELDS: &'static [Field] = &[EMAIL];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        Ok(Self {
            email: form.email(&EMAIL)?,
        })
    }
}

impl ToForm for EmailBody {
    fn to_form(&self) -> Map<String, Value> {
        form_of([(&EMAIL, self.email.as_str().into())])
    }
}

/// A password change's body.
pub struct PasswordChange {
    pub(crate) old_password: Option<String>,
    pub(crate) new_password: String,
}

impl FromForm for PasswordChange {
    const FIELDS: &'static [Field] = &[OLD_PASSWORD, NEW_PASSWORD];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let old_password = form.optional_text(&OLD_PASSWORD);
        let new_password = form.text(&NEW_PASSWORD);
        Ok(Self {
            old_password: old_password?,
            new_password: new_password?,
        })
    }
}

impl ToForm for PasswordChange {
    fn to_form(&self) -> Map<String, Value> {
        let mut form = form_of([(&NEW_PASSWORD, self.new_password.as_str().into())]);
        if let Some(old_password) = &self.old_password {
            form.extend(form_of([(&OLD_PASSWORD, old_password.as_str().into())]));
        }
        form
    }
}

/// Refuses registering while the server's registration is closed
/// (`--registration closed`), before the body is read or throttled.
fn registration_open(state: &HttpState) -> Result<(), ApiError> {
    if state.app.accounts.registration_is_open() {
        Ok(())
    } else {
        Err(ApiError::Forbidden(REGISTRATION_CLOSED))
    }
}

/// `POST /register/`: a new unverified account and its first token.
async fn register(
    state: Data<HttpState>,
    ClientIp(address): ClientIp,
    Valid(body): Valid<EmailBody>,
) -> Result<SecretJson<AuthToken, 201>, ApiError> {
    let token = state.app.accounts.register(body.email, address).await?;
    Ok(SecretJson(AuthToken::new(token)))
}

/// `POST /change-password/`: every problem of both fields reported at once.
/// Every request counts against the account's rate, successful ones too
/// (the [`PasswordChangeTurn`] comes before the body).
async fn change_password(
    state: Data<HttpState>,
    user: User,
    _turn: PasswordChangeTurn,
    Valid(body): Valid<PasswordChange>,
) -> Result<NoContent, ApiError> {
    state
        .app
        .accounts
        .change_password(
            user.requester(),
            body.old_password.as_deref(),
            &body.new_password,
        )
        .await?;
    Ok(NoContent)
}
