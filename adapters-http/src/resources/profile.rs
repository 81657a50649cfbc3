//! `/profile/`: the account's profile and its install token.

use crate::answer::SecretJson;
use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema, Tag};
use crate::error::ApiError;
use crate::extract::{BaseUrl, User, Valid};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use domain::{Account, InstallToken, ProfileName};
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

impl ProfileJson {
    /// The account as its owner sees it, its install command naming the
    /// server by `base_url`.
    pub fn new(account: &Account, base_url: &str) -> Self {
        Self {
            email: account.email.as_str().to_owned(),
            email_verified: account.email_verified,
            has_usable_password: account.has_usable_password(),
            install_command: install_command(base_url, &account.install_token),
            install_token: account.install_token.as_str().to_owned(),
            name: account.name.as_str().to_owned(),
        }
    }
}

/// The shell command a user runs on a device to enrol it with the server
/// at `base_url` (docs/agent-protocol.md).
pub fn install_command(base_url: &str, install_token: &InstallToken) -> String {
    format!("devmgr-agent install --server {base_url} --token {install_token}")
}

impl Described for ProfileJson {
    const SCHEMA: &'static ObjectSchema = &PROFILE_SCHEMA;

    fn example() -> Self {
        Self {
            email: ex::EMAIL.to_owned(),
            email_verified: true,
            has_usable_password: true,
            install_command: install_command(ex::BASE_URL, &ex::install_token()),
            install_token: ex::INSTALL_TOKEN.to_owned(),
            name: ex::PROFILE_NAME.to_owned(),
        }
    }
}

/// A profile change: only `name`; the other fields are ignored.
pub struct ProfileChange {
    pub(crate) name: Option<ProfileName>,
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
async fn show(user: User, BaseUrl(base): BaseUrl) -> Result<SecretJson<ProfileJson>, ApiError> {
    Ok(SecretJson(ProfileJson::new(&user.account, &base)))
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
        .rotate_install_token(user.requester())
        .await?;
    Ok(SecretJson(ProfileJson::new(&account, &base)))
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
        Some(name) => state.app.accounts.rename(user.requester(), &name).await?,
    };
    Ok(SecretJson(ProfileJson::new(&account, &base)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;
    use domain::{AccountId, EmailAddress};

    fn account() -> Account {
        Account {
            id: AccountId(1),
            email: EmailAddress::parse("a@example.com").unwrap(),
            name: ProfileName::parse("A").unwrap(),
            password_hash: Some("h".into()),
            email_verified: true,
            install_token: InstallToken::parse("k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j4").unwrap(),
            created_time: chrono::Utc::now(),
        }
    }

    #[test]
    fn the_profile_writes_its_described_fields() {
        assert_described(&ProfileJson::new(&account(), "http://base"));
    }

    #[test]
    fn the_profile_shows_the_install_command_under_the_base_url() {
        let profile = ProfileJson::new(&account(), "http://devmgr.example:8000");
        assert_eq!(
            profile.install_command,
            "devmgr-agent install --server http://devmgr.example:8000 \
             --token k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j4"
        );
        assert_eq!(profile.install_token, "k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j4");
        assert!(profile.has_usable_password && profile.email_verified);
    }
}
