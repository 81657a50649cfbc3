//! `/profile/`: the account's profile and its install token.

use crate::answer::SecretJson;
use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema, Tag};
use crate::error::ApiError;
use crate::extract::{BaseUrl, User, Valid};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm, form_of};
use crate::route_table::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use domain::ProfileName;
use serde::Serialize;
use serde_json::{Map, Value};

/// `name` of the profile, its only writable field.
pub(crate) const PROFILE_NAME: Field = Field::bounded::<ProfileName>("name", "Name").optional();

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Accounts,
            "/profile/",
            "Profile",
            "The account's profile. Only `name` can be changed.",
        )
        .get("getProfile", "Show the profile", show)
        .put("replaceProfile", "Replace the profile's name", update)
        .request_example(example_change())
        .patch("updateProfile", "Change the profile's name", update)
        .request_example(example_change()),
        Route::new(
            Tag::Accounts,
            "/profile/install-token/",
            "Profile Install Token",
            "Replace the account's install token: the old one ends at once.\nEnrolled devices are not affected. No body needed.",
        )
        .post(
            "replaceInstallToken",
            "Replace the install token",
            rotate_install_token,
        ),
    ]
}

/// The examples' new display name.
fn example_change() -> ProfileChange {
    ProfileChange {
        name: Some(ProfileName::parse(ex::PROFILE_NAME).expect("a valid name")),
    }
}

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// The profile as PUT and PATCH see it.
pub(crate) const PROFILE_FIELDS: &[Field] = &[
    shown("email", "Email", FieldType::Email),
    shown("email_verified", "Email verified", FieldType::Boolean),
    shown(
        "has_usable_password",
        "Has usable password",
        FieldType::Boolean,
    ),
    shown("install_command", "Install command", FieldType::String),
    shown("install_token", "Install token", FieldType::String),
    PROFILE_NAME,
];

/// The account's profile.
pub const PROFILE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Profile",
    description: "The account's profile. Only `name` can be changed.",
    fields: PROFILE_FIELDS,
};

/// The profile as the API shows it.
#[derive(Debug, Serialize)]
pub struct ProfileJson {
    email: String,
    email_verified: bool,
    has_usable_password: bool,
    install_command: String,
    install_token: String,
    name: String,
}

impl From<domain::Profile> for ProfileJson {
    fn from(profile: domain::Profile) -> Self {
        Self {
            email: profile.email,
            email_verified: profile.email_verified,
            has_usable_password: profile.has_usable_password,
            install_command: profile.install_command,
            install_token: profile.install_token,
            name: profile.name,
        }
    }
}

impl Described for ProfileJson {
    const SCHEMA: &'static ObjectSchema = &PROFILE_SCHEMA;

    fn example() -> Self {
        Self {
            email: ex::EMAIL.to_owned(),
            email_verified: true,
            has_usable_password: true,
            install_command: domain::account::install_command(ex::BASE_URL, ex::INSTALL_TOKEN),
            install_token: ex::INSTALL_TOKEN.to_owned(),
            name: ex::PROFILE_NAME.to_owned(),
        }
    }
}

/// A profile change: only `name`; the other fields are ignored.
pub struct ProfileChange {
    name: Option<ProfileName>,
}

impl FromForm for ProfileChange {
    const FIELDS: &'static [Field] = PROFILE_FIELDS;

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        Ok(Self {
            name: form.optional_checked(&PROFILE_NAME)?,
        })
    }
}

impl ToForm for ProfileChange {
    fn to_form(&self) -> Map<String, Value> {
        match &self.name {
            Some(name) => form_of([(&PROFILE_NAME, name.as_str().into())]),
            None => Map::new(),
        }
    }
}

/// `GET /profile/`.
async fn show(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
) -> Result<SecretJson<ProfileJson>, ApiError> {
    let profile = state.app.accounts.profile(&user.account, &base);
    Ok(SecretJson(profile.into()))
}

/// `POST /profile/install-token/`: a new install token; the old one ends.
async fn rotate_install_token(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
) -> Result<SecretJson<ProfileJson>, ApiError> {
    let account = state
        .app
        .accounts
        .rotate_install_token(&user.account)
        .await?;
    Ok(SecretJson(
        state.app.accounts.profile(&account, &base).into(),
    ))
}

/// `PUT` and `PATCH /profile/`: only `name` changes; other fields are ignored.
async fn update(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
    Valid(change): Valid<ProfileChange>,
) -> Result<SecretJson<ProfileJson>, ApiError> {
    let account = match change.name {
        None => user.account,
        Some(name) => state.app.accounts.rename(&user.account, &name).await?,
    };
    Ok(SecretJson(
        state.app.accounts.profile(&account, &base).into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_profile_writes_its_described_fields() {
        assert_described(&ProfileJson::from(domain::Profile {
            email: "a@example.com".into(),
            email_verified: true,
            has_usable_password: true,
            install_command: "install".into(),
            install_token: "token".into(),
            name: String::new(),
        }));
    }
}
