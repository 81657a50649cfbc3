//! Who the browser is: its console session (a cookie holding a secret
//! whose hash the store keeps) and its form key (the CSRF secret of a
//! browser not signed in). [`Browser`] reads both; [`Viewer`] insists on a
//! session and sends everyone else to the sign-in page.

use super::chrome::{Chrome, Place};
use super::failure::Failure;
use crate::extract::state;
use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieAge};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::Account;
use futures_util::future::LocalBoxFuture;
use sha2::{Digest, Sha256};

/// The cookie of a console session.
pub(crate) const SESSION_COOKIE: &str = "devmgr_session";
/// The cookie of a browser's form key, before it signs in.
pub(crate) const FORM_KEY_COOKIE: &str = "devmgr_form_key";
/// The hidden field every console form carries.
pub(crate) const CSRF_FIELD: &str = "csrf_token";

/// How long the browser keeps the session cookie; the server ends the
/// session itself after 14 days unused.
const SESSION_COOKIE_AGE: CookieAge = CookieAge::days(400);

/// The browser of a request: signed in or not, with its CSRF token.
#[derive(Clone)]
pub(crate) struct Browser {
    /// The account of a current session.
    pub(crate) account: Option<Account>,
    /// The session cookie's secret, current or not.
    session: Option<String>,
    /// The form key cookie's value.
    form_key: Option<String>,
    /// A form key made for this request, to be set as a cookie.
    new_form_key: Option<String>,
    /// Whether cookies carry `Secure` (the public URL is https).
    secure: bool,
}

impl Browser {
    /// The token this browser's forms carry: derived from the session
    /// secret when signed in, else the form key (made now if missing).
    pub(crate) fn csrf(&self) -> String {
        match (&self.account, &self.session) {
            (Some(_), Some(session)) => derive_csrf(session),
            _ => self
                .form_key
                .clone()
                .or_else(|| self.new_form_key.clone())
                .unwrap_or_default(),
        }
    }

    /// Whether `token` is one of this browser's secrets (the session's
    /// derived token or the form key), so the form came from our page.
    pub(crate) fn accepts(&self, token: &str) -> bool {
        let matches = |expected: &str| {
            !expected.is_empty() && subtle_equal(expected.as_bytes(), token.as_bytes())
        };
        self.session
            .as_deref()
            .is_some_and(|session| matches(&derive_csrf(session)))
            || self.form_key.as_deref().is_some_and(matches)
    }

    /// The cookie to set with the answer: a form key made for this request.
    pub(crate) fn cookie(&self) -> Option<Cookie<'static>> {
        self.new_form_key.as_ref().map(|key| {
            Cookie::build(FORM_KEY_COOKIE, key.clone())
                .path("/")
                .http_only(true)
                .same_site(SameSite::Strict)
                .secure(self.secure)
                .finish()
        })
    }

    /// The cookie of a new session.
    pub(crate) fn session_cookie(&self, secret: String) -> Cookie<'static> {
        Cookie::build(SESSION_COOKIE, secret)
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.secure)
            .max_age(SESSION_COOKIE_AGE)
            .finish()
    }

    /// The cookie that removes the session cookie.
    pub(crate) fn ended_session_cookie(&self) -> Cookie<'static> {
        let mut cookie = self.session_cookie(String::new());
        cookie.make_removal();
        cookie
    }

    /// The frame of a page for this browser: `place` is where the page is
    /// in the navigation.
    pub(crate) fn chrome(&self, title: impl Into<String>, place: Place) -> Chrome {
        Chrome {
            title: title.into(),
            email: self
                .account
                .as_ref()
                .map(|account| account.email.as_str().to_owned()),
            place,
            csrf: self.csrf(),
            notice: None,
        }
    }

    /// The session cookie's secret, if the browser sent one.
    pub(crate) fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }
}

fn derive_csrf(session: &str) -> String {
    let digest = Sha256::digest(format!("devmgr console form:{session}").as_bytes());
    URL_SAFE_NO_PAD.encode(digest)
}

fn subtle_equal(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// A cookie value that could be one of ours: URL-safe base64, bounded.
fn plausible(value: &str) -> bool {
    (32..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl FromRequest for Browser {
    type Error = Failure;
    type Future = LocalBoxFuture<'static, Result<Self, Failure>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            if let Some(known) = req.extensions().get::<Known>() {
                return Ok(known.0.clone());
            }
            let state = state(&req)?;
            let cookie = |name| {
                req.cookie(name)
                    .map(|c| c.value().to_owned())
                    .filter(|v| plausible(v))
            };
            let session = cookie(SESSION_COOKIE);
            let form_key = cookie(FORM_KEY_COOKIE);
            let account = match &session {
                Some(secret) => state.app.sessions.console_account(secret).await?,
                None => None,
            };
            let new_form_key = (account.is_none() && form_key.is_none())
                .then(|| state.app.sessions.mint_form_key());
            let browser = Browser {
                account,
                session,
                form_key,
                new_form_key,
                secure: state.secure_cookies(),
            };
            req.extensions_mut().insert(Known(browser.clone()));
            Ok(browser)
        })
    }
}

impl crate::extract::Extractor for Browser {
    const NEEDS: crate::extract::Needs = crate::extract::Needs::NOTHING;
}

/// The browser, once read for this request.
struct Known(Browser);

/// A signed-in browser: the account and the browser. Anyone else is sent
/// to the sign-in page.
pub(crate) struct Viewer {
    /// The signed-in account.
    pub(crate) account: Account,
    /// The browser.
    pub(crate) browser: Browser,
    /// The client's address, as the audit log records it.
    pub(crate) address: Option<std::net::IpAddr>,
}

impl Viewer {
    /// The signed-in user as the author of a change.
    pub(crate) fn requester(&self) -> application::Requester<'_> {
        application::Requester::new(&self.account, self.address)
    }
}

impl FromRequest for Viewer {
    type Error = Failure;
    type Future = LocalBoxFuture<'static, Result<Self, Failure>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let browser = Browser::from_request(req, payload);
        let address = req
            .app_data::<actix_web::web::Data<crate::state::HttpState>>()
            .and_then(|state| state.client_ip(req));
        Box::pin(async move {
            let browser = browser.await?;
            match browser.account.clone() {
                Some(account) => Ok(Viewer {
                    account,
                    browser,
                    address,
                }),
                None => Err(Failure::SignedOut),
            }
        })
    }
}
