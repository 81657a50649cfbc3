//! A browser for the console's handler tests: it keeps cookies, reads the
//! CSRF token of the page it last saw, and sends forms as a browser does.

use super::{Answer, TestApi};
use actix_web::http::{Method, header};
use application::use_cases::DeviceSpec;
use domain::{BoundedText, DeviceFacts, EmailAddress, ProfileName};
use std::collections::BTreeMap;

/// The password of accounts made by [`account`].
pub(crate) const PASSWORD: &str = "Correct-horse-9";

/// A browser: its cookies and the last page's CSRF token.
pub(crate) struct TestBrowser<'a> {
    pub(crate) api: &'a TestApi,
    pub(crate) cookies: BTreeMap<String, String>,
    pub(crate) csrf: String,
}

impl<'a> TestBrowser<'a> {
    pub(crate) fn new(api: &'a TestApi) -> Self {
        Self {
            api,
            cookies: BTreeMap::new(),
            csrf: String::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, answer: &Answer) {
        for set in answer.headers.get_all(header::SET_COOKIE) {
            let text = set.to_str().expect("a cookie is text");
            let pair = text.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').expect("name=value");
            if value.is_empty() || text.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        if let Some(html) = answer.body.as_str()
            && let Some(start) = html.find("name=\"csrf_token\" value=\"")
        {
            let rest = &html[start + 25..];
            self.csrf = rest[..rest.find('"').unwrap_or(0)].to_owned();
        }
    }

    /// `GET path` as a browser.
    pub(crate) async fn get(&mut self, path: &str) -> Answer {
        let cookie = self.cookie_header();
        let path = path.to_owned();
        let answer = self
            .api
            .send(move |r| {
                r.uri(&path)
                    .insert_header((header::ACCEPT, "text/html"))
                    .insert_header((header::COOKIE, cookie))
            })
            .await;
        self.keep(&answer);
        answer
    }

    /// Posts a form with this browser's CSRF token.
    pub(crate) async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let csrf = self.csrf.clone();
        let mut all = vec![("csrf_token", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// Posts exactly these fields (no CSRF token unless given).
    pub(crate) async fn post_raw(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let body = serde_urlencoded::to_string(fields).expect("a form");
        let cookie = self.cookie_header();
        let path = path.to_owned();
        let answer = self
            .api
            .send(move |r| {
                r.method(Method::POST)
                    .uri(&path)
                    .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                    .insert_header((header::COOKIE, cookie))
                    .set_payload(body)
            })
            .await;
        self.keep(&answer);
        answer
    }

    /// Signs in with the login form; the answer to the form.
    pub(crate) async fn sign_in(&mut self, email: &str, password: &str) -> Answer {
        self.get("/console/login/").await;
        self.post(
            "/console/login/",
            &[("email", email), ("password", password)],
        )
        .await
    }
}

/// A verified account with [`PASSWORD`]; its API token.
pub(crate) async fn account(api: &TestApi, email: &str) -> String {
    api.state()
        .app
        .accounts
        .create_user(
            EmailAddress::parse(email).expect("an address"),
            Some(PASSWORD),
            ProfileName::default(),
            true,
        )
        .await
        .expect("the account is made")
        .token
}

/// A device of the account with this address; its serial.
pub(crate) async fn device(api: &TestApi, email: &str, name: &str, online: bool) -> String {
    let spec = DeviceSpec {
        name: BoundedText::parse(name).expect("a name"),
        serial: None,
        description: BoundedText::parse("").expect("a description"),
        facts: DeviceFacts::default(),
        online,
        tags: domain::TagSet::default(),
    };
    let view = api
        .state()
        .app
        .devices
        .add(&EmailAddress::parse(email).expect("an address"), spec)
        .await
        .expect("the device is added");
    view.device.serial.as_str().to_owned()
}

/// The `Location` of an answer.
pub(crate) fn location(answer: &Answer) -> &str {
    answer
        .headers
        .get(header::LOCATION)
        .map(|value| value.to_str().expect("text"))
        .unwrap_or("")
}

/// The page's text (an HTML answer's body).
pub(crate) fn html(answer: &Answer) -> &str {
    answer.body.as_str().unwrap_or("")
}
