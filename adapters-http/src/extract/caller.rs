//! Extractors of who calls and what the path names.

use super::core::{Access, Caller, Needs, caller, from_request, param};
use crate::auth::Scheme;
use crate::error::ApiError;
use crate::state::HttpState;
use actix_web::web::Data;
use domain::{Account, CommandId, Device, Serial};

const USER: Needs = Needs {
    access: Access::User,
    ..Needs::NOTHING
};
const DEVICE: Needs = Needs {
    access: Access::Device,
    ..Needs::NOTHING
};

/// The account of a valid user token, and the token.
pub struct User {
    /// The account.
    pub account: Account,
    /// The token this request presented.
    pub token: String,
}

from_request!(User, USER, |req| {
    match caller(req) {
        Caller {
            account: Some(account),
            token: Some(token),
            ..
        } => Ok(User { account, token }),
        _ => Err(Scheme::Token.not_provided()),
    }
});

/// The device of a valid device token: the agent calling.
pub struct Agent(pub Device);

from_request!(Agent, DEVICE, |req| {
    caller(req)
        .device
        .map(Agent)
        .ok_or_else(|| Scheme::Device.not_provided())
});

/// A caller who presented no user token: 403 for one who did.
pub struct SignedOut;

from_request!(SignedOut, Needs::NOTHING, |req| {
    match caller(req).account {
        None => Ok(SignedOut),
        Some(_) => Err(ApiError::Forbidden("You are already signed in.")),
    }
});

/// The `{serial}` of the path, in its canonical form only; anything else is 404.
pub struct SerialPath(pub Serial);

from_request!(SerialPath, Needs::NOTHING, |req| {
    param(req, "serial")
        .and_then(|raw| Serial::parse(&raw).ok().filter(|s| s.as_str() == raw))
        .map(SerialPath)
        .ok_or(ApiError::NotFound)
});

/// The `{id}` of a command in the path: a canonical UUID, else 404.
pub struct CommandIdPath(pub CommandId);

from_request!(CommandIdPath, Needs::NOTHING, |req| {
    param(req, "id")
        .and_then(|raw| CommandId::parse(&raw).ok())
        .map(CommandIdPath)
        .ok_or(ApiError::NotFound)
});

/// The `{key}` of an e-mailed link's path.
pub struct KeyPath(pub String);

from_request!(KeyPath, Needs::NOTHING, |req| {
    param(req, "key").map(KeyPath).ok_or(ApiError::NotFound)
});

/// The `{file}` of a documentation file's path.
pub struct FilePath(pub String);

from_request!(FilePath, Needs::NOTHING, |req| {
    param(req, "file").map(FilePath).ok_or(ApiError::NotFound)
});

/// The base of absolute URLs: `--public-url`, else `http://` + Host.
pub struct BaseUrl(pub String);

from_request!(BaseUrl, Needs::NOTHING, |req| {
    match req.app_data::<Data<HttpState>>() {
        Some(state) => Ok(BaseUrl(state.base_url(req))),
        None => Err(ApiError::Internal("no HTTP state".into())),
    }
});

/// Whether the client asked for HTML (a browser opening a link).
pub struct WantsHtml(pub bool);

from_request!(WantsHtml, Needs::NOTHING, |req| Ok(WantsHtml(
    crate::pages::wants_html(req)
)));

/// A password change allowed by the account's rate (`--password-change-rate`):
/// 429 once it is spent. Every request that gets this far counts.
pub struct PasswordChangeTurn;

from_request!(PasswordChangeTurn, USER, |req| {
    let account = caller(req)
        .account
        .ok_or_else(|| Scheme::Token.not_provided())?;
    match req
        .app_data::<Data<HttpState>>()
        .and_then(|state| state.password_changes.clone())
    {
        Some(throttle) => throttle
            .check(account.id)
            .map(|()| PasswordChangeTurn)
            .map_err(ApiError::Throttled),
        None => Ok(PasswordChangeTurn),
    }
});
