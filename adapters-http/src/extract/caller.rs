//! Extractors of who calls and what the path names. Each stands on its
//! own: it reads the `Authorization` header and looks the credentials up
//! itself, once per request (the answer is kept in the request for the
//! next extractor), so it works on any actix route.

use super::core::{Access, Extractor, Needs, from_request, param};
use crate::auth::{self, Presented, Scheme};
use crate::error::ApiError;
use crate::state::HttpState;
use actix_web::dev::Payload;
use actix_web::web::Data;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use application::Requester;
use domain::{Account, CommandId, Device, Serial};
use futures_util::future::LocalBoxFuture;
use std::net::IpAddr;

const USER: Needs = Needs {
    access: Access::User,
    ..Needs::NOTHING
};
const DEVICE: Needs = Needs {
    access: Access::Device,
    ..Needs::NOTHING
};

/// The valid credentials a request presented in one scheme: nothing, a
/// user's token, or a device's.
#[derive(Clone, Default)]
pub(crate) struct Caller {
    pub(crate) account: Option<Account>,
    pub(crate) token: Option<String>,
    pub(crate) device: Option<Device>,
}

/// A lookup already made for this request, in its scheme.
#[derive(Clone)]
struct Looked(Scheme, Caller);

/// The caller of `scheme`'s credentials: none presented is the default
/// caller; a malformed header, or an unknown or ended token, is 401. The
/// lookup is made once per request.
pub(crate) async fn authenticate(req: &HttpRequest, scheme: Scheme) -> Result<Caller, ApiError> {
    if let Some(Looked(looked, caller)) = req.extensions().get::<Looked>().cloned()
        && looked == scheme
    {
        return Ok(caller);
    }
    let caller = look_up(req, scheme).await?;
    req.extensions_mut().insert(Looked(scheme, caller.clone()));
    Ok(caller)
}

async fn look_up(req: &HttpRequest, scheme: Scheme) -> Result<Caller, ApiError> {
    let Presented::Token(token) = auth::presented(req, scheme)? else {
        return Ok(Caller::default());
    };
    let state = state(req)?;
    match scheme {
        Scheme::Token => match state.app.sessions.authenticate(&token).await? {
            Some(account) => Ok(Caller {
                account: Some(account),
                token: Some(token),
                device: None,
            }),
            None => Err(scheme.invalid_token()),
        },
        Scheme::Device => match state.app.fleet.authenticate(&token).await? {
            Some(device) => Ok(Caller {
                device: Some(device),
                ..Caller::default()
            }),
            None => Err(scheme.invalid_token()),
        },
    }
}

/// The HTTP adapter's state, which every app serving the API holds.
pub(crate) fn state(req: &HttpRequest) -> Result<&Data<HttpState>, ApiError> {
    req.app_data::<Data<HttpState>>()
        .ok_or_else(|| ApiError::Internal("no HTTP state".into()))
}

/// Implements [`FromRequest`] and [`Extractor`] for an extractor made from
/// the request's caller in one scheme.
macro_rules! from_caller {
    ($type:ty, $needs:expr, $scheme:expr, |$req:ident, $caller:ident| $read:expr) => {
        impl FromRequest for $type {
            type Error = ApiError;
            type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

            fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
                let $req = req.clone();
                Box::pin(async move {
                    let $caller = authenticate(&$req, $scheme).await?;
                    $read
                })
            }
        }

        impl Extractor for $type {
            const NEEDS: Needs = $needs;
        }
    };
}

/// The account of a valid user token, the token, and the client's address.
pub struct User {
    /// The account.
    pub account: Account,
    /// The token this request presented.
    pub token: String,
    /// The client's address, as the audit log records it.
    pub address: Option<IpAddr>,
}

impl User {
    /// The user as the author of a change.
    pub fn requester(&self) -> Requester<'_> {
        Requester::new(&self.account, self.address)
    }
}

from_caller!(User, USER, Scheme::Token, |req, caller| {
    match caller {
        Caller {
            account: Some(account),
            token: Some(token),
            ..
        } => Ok(User {
            account,
            token,
            address: state(&req)?.client_ip(&req),
        }),
        _ => Err(Scheme::Token.not_provided()),
    }
});

/// The device of a valid device token: the agent calling.
pub struct Agent(pub Device);

from_caller!(Agent, DEVICE, Scheme::Device, |_req, caller| {
    caller
        .device
        .map(Agent)
        .ok_or_else(|| Scheme::Device.not_provided())
});

/// A caller who presented no user token: 403 for one who did.
pub struct SignedOut;

from_caller!(SignedOut, Needs::NOTHING, Scheme::Token, |_req, caller| {
    match caller.account {
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

/// The client's address, as the audit log records it (the peer, or with
/// `--trust-proxy` the last `X-Forwarded-For` address).
pub struct ClientIp(pub Option<IpAddr>);

from_request!(ClientIp, Needs::NOTHING, |req| Ok(ClientIp(
    state(req)?.client_ip(req)
)));

/// The base of absolute URLs: `--public-url`, else `http://` + Host.
pub struct BaseUrl(pub String);

from_request!(BaseUrl, Needs::NOTHING, |req| Ok(BaseUrl(
    state(req)?.base_url(req)
)));

/// Whether the client asked for HTML (a browser opening a link).
pub struct WantsHtml(pub bool);

from_request!(WantsHtml, Needs::NOTHING, |req| Ok(WantsHtml(
    req.headers()
        .get_all(actix_web::http::header::ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.contains("text/html"))
)));

/// A password change allowed by the account's rate (`--password-change-rate`):
/// 429 once it is spent. Every request that gets this far counts.
pub struct PasswordChangeTurn;

from_caller!(PasswordChangeTurn, USER, Scheme::Token, |req, caller| {
    let account = caller.account.ok_or_else(|| Scheme::Token.not_provided())?;
    match state(&req)?.password_changes.clone() {
        Some(throttle) => throttle
            .check(account.id)
            .await
            .map(|()| PasswordChangeTurn),
        None => Ok(PasswordChangeTurn),
    }
});
