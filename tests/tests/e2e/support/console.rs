//! The web console over plain HTTP, as a browser without script uses it: a
//! cookie jar, `Accept: text/html`, and forms found by the visible labels of
//! their fields and the text of their buttons (the names the contract fixes),
//! submitted with every hidden field they carry (the CSRF token among them).

use super::{Reply, Server, form_with_button};
use std::collections::BTreeMap;

/// The `Accept` header of a browser's navigation.
pub const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// One browser's cookies on one server.
pub struct Console<'a> {
    server: &'a Server,
    /// The cookies held, by name.
    pub cookies: BTreeMap<String, String>,
}

/// A form of a page: where it posts, and its fields in order.
#[derive(Debug, Clone)]
pub struct Form {
    /// The `action`, resolved against the page's path (the page itself when absent).
    pub action: String,
    /// `post` or `get`, lowercased.
    pub method: String,
    /// `(name, type, value, label)` of every `input`, `select` and `textarea`
    /// with a name; `label` is the text of its `<label>` or `aria-label`.
    pub fields: Vec<(String, String, String, String)>,
    /// The visible texts of its buttons.
    pub buttons: Vec<String>,
}

impl Form {
    /// The hidden fields whose name mentions `csrf` (case-insensitive).
    pub fn csrf_fields(&self) -> Vec<String> {
        self.fields
            .iter()
            .filter(|(name, kind, _, _)| kind == "hidden" && name.to_lowercase().contains("csrf"))
            .map(|(name, _, _, _)| name.clone())
            .collect()
    }

    /// The body a browser posts: every field's value, the labelled ones
    /// replaced by `filled` (label → value).
    #[track_caller]
    pub fn body(&self, filled: &[(&str, &str)]) -> Vec<(String, String)> {
        for (label, _) in filled {
            assert!(
                self.fields.iter().any(|(_, _, _, l)| l == label),
                "no field labelled {label:?} in {self:#?}"
            );
        }
        self.fields
            .iter()
            .map(|(name, _, value, label)| {
                let value = filled
                    .iter()
                    .find(|(l, _)| l == label)
                    .map_or(value.as_str(), |(_, v)| *v);
                (name.clone(), value.to_owned())
            })
            .collect()
    }
}

impl<'a> Console<'a> {
    /// A browser with no cookies.
    pub fn new(server: &'a Server) -> Self {
        Console {
            server,
            cookies: BTreeMap::new(),
        }
    }

    /// The `Cookie` header of the jar.
    pub fn cookie_header(&self) -> String {
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        pairs.join("; ")
    }

    fn keep_cookies(&mut self, reply: &Reply) {
        for line in reply.headers.get_all("set-cookie") {
            let line = line.to_str().unwrap_or_default();
            let pair = line.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                let expired = line.to_lowercase().contains("max-age=0") || value.is_empty();
                if expired {
                    self.cookies.remove(name.trim());
                } else {
                    self.cookies
                        .insert(name.trim().to_owned(), value.trim().to_owned());
                }
            }
        }
    }

    /// `GET path` as a browser navigates (no redirect followed).
    pub fn get(&mut self, path: &str) -> Reply {
        let mut call = self.server.get(path).header("Accept", BROWSER_ACCEPT);
        if !self.cookies.is_empty() {
            call = call.header("Cookie", &self.cookie_header());
        }
        let reply = call.send();
        self.keep_cookies(&reply);
        reply
    }

    /// `POST path` with this form body (no redirect followed).
    pub fn post(&mut self, path: &str, body: &[(String, String)]) -> Reply {
        let mut call = self
            .server
            .post(path)
            .header("Accept", BROWSER_ACCEPT)
            .body("application/x-www-form-urlencoded", form_encode(body));
        if !self.cookies.is_empty() {
            call = call.header("Cookie", &self.cookie_header());
        }
        let reply = call.send();
        self.keep_cookies(&reply);
        reply
    }

    /// The form of the page at `path` that has a button `button`.
    #[track_caller]
    pub fn form(&mut self, path: &str, button: &str) -> Form {
        let page = self.get(path);
        assert_eq!(page.status, 200, "{page}");
        form_with_button(&page.body, path, button)
            .unwrap_or_else(|| panic!("no form with a button {button:?} on {path}:\n{}", page.body))
    }

    /// Opens `path`, fills the form of button `button` by labels and posts it.
    #[track_caller]
    pub fn submit(&mut self, path: &str, button: &str, filled: &[(&str, &str)]) -> Reply {
        let form = self.form(path, button);
        self.post(&form.action.clone(), &form.body(filled))
    }

    /// Signs in through `/console/login/`; asserts the redirect to `/console/`.
    #[track_caller]
    pub fn sign_in(&mut self, email: &str, password: &str) -> Reply {
        let reply = self.sign_in_attempt(email, password);
        assert!(
            matches!(reply.status, 302 | 303) && location_path(&reply) == "/console/",
            "signing in should open /console/\n{reply}"
        );
        reply
    }

    /// Posts the sign-in form, whatever the outcome.
    pub fn sign_in_attempt(&mut self, email: &str, password: &str) -> Reply {
        self.submit(
            "/console/login/",
            "Log in",
            &[("E-mail", email), ("Password", password)],
        )
    }
}

/// `application/x-www-form-urlencoded` of these pairs.
pub fn form_encode(pairs: &[(String, String)]) -> String {
    let mut url = reqwest::Url::parse("http://x/").expect("a URL");
    url.query_pairs_mut().extend_pairs(pairs);
    url.query().unwrap_or_default().to_owned()
}

/// The path (without query) of a redirect's `Location`, absolute or not.
pub fn location_path(reply: &Reply) -> String {
    let location = reply.header("location").unwrap_or_default();
    let path = match location.find("://") {
        Some(at) => {
            let rest = &location[at + 3..];
            rest.find('/').map_or("/", |slash| &rest[slash..])
        }
        None => location,
    };
    path.split(['?', '#']).next().unwrap_or_default().to_owned()
}
