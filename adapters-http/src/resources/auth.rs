//! `/auth/`: logging in and out.

use crate::answer::{NoContent, SecretJson};
use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema, Tag};
use crate::error::ApiError;
use crate::extract::{ClientIp, User, Valid};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use domain::EmailAddress;
use serde::Serialize;
use serde_json::{Map, Value};

/// `email` of login, register and reset-password.
pub(crate) const EMAIL: Field = Field::email("email", "Email");
/// `password` of login.
pub(crate) const PASSWORD: Field = Field::password("password", "Password");

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Accounts,
            "/auth/",
            "Auth Token",
            "Log in with e-mail and password to obtain an API token (POST),\nor end the token used for this request (DELETE).",
        )
        .post("login", "Log in: get a new API token", login)
        .request_example(Credentials {
            email: ex::email(),
            password: ex::PASSWORD.to_owned(),
        })
        .throttled()
        .delete("logout", "Log out: end this token", logout),
        Route::new(
            Tag::Accounts,
            "/auth/logout-all/",
            "Logout All",
            "End every API token of the account, the one used for this request\nincluded: log out everywhere.",
        )
        .post(
            "logoutEverywhere",
            "Log out everywhere: end every token",
            logout_everywhere,
        ),
    ]
}

/// A login's body.
pub struct Credentials {
    pub(crate) email: EmailAddress,
    pub(crate) password: String,
}

impl FromForm for Credentials {
    const FIELDS: &'static [Field] = &[EMAIL, PASSWORD];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let email = form.email(&EMAIL);
        let password = form.text(&PASSWORD);
        Ok(Self {
            email: email?,
            password: password?,
        })
    }
}

impl ToForm for Credentials {
    fn to_form(&self) -> Map<String, Value> {
        form_of([
            (&EMAIL, self.email.as_str().into()),
            (&PASSWORD, self.password.as_str().into()),
        ])
    }
}

/// A new API token.
#[derive(Debug, Serialize)]
pub struct AuthToken {
    token: String,
}

impl AuthToken {
    /// Wraps a token.
    pub fn new(token: String) -> Self {
        Self { token }
    }
}

/// A new API token.
pub const AUTH_TOKEN_SCHEMA: ObjectSchema = ObjectSchema {
    name: "AuthToken",
    description: "A new API token: send it as `Authorization: Token <token>`.",
    fields: &[Field::read_only("token", "Token", FieldType::String)],
};

impl Described for AuthToken {
    const SCHEMA: &'static ObjectSchema = &AUTH_TOKEN_SCHEMA;

    fn example() -> Self {
        Self::new(ex::API_TOKEN.to_owned())
    }
}

/// `POST /auth/`: e-mail and password in, a new token out.
async fn login(
    state: Data<HttpState>,
    ClientIp(address): ClientIp,
    Valid(body): Valid<Credentials>,
) -> Result<SecretJson<AuthToken, 201>, ApiError> {
    let token = state
        .app
        .sessions
        .login(&body.email, &body.password, address)
        .await?;
    Ok(SecretJson(AuthToken::new(token)))
}

/// `DELETE /auth/`: ends the token of this request.
async fn logout(state: Data<HttpState>, user: User) -> Result<NoContent, ApiError> {
    state
        .app
        .sessions
        .logout(user.requester(), &user.token)
        .await?;
    Ok(NoContent)
}

/// `POST /auth/logout-all/`: ends every token of the account, this one too.
async fn logout_everywhere(state: Data<HttpState>, user: User) -> Result<NoContent, ApiError> {
    state
        .app
        .sessions
        .logout_everywhere(user.requester())
        .await?;
    Ok(NoContent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_token_answer_writes_its_described_fields() {
        assert_described(&AuthToken::new("t".into()));
    }
}
