//! One HTTP request and its response, read whole.

use reqwest::blocking::RequestBuilder;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

/// A request being built; [`Call::send`] sends it.
pub struct Call {
    pub(super) what: String,
    pub(super) builder: RequestBuilder,
}

impl Call {
    /// `Authorization: Token <token>`.
    pub fn token(self, token: &str) -> Self {
        self.authorization(&format!("Token {token}"))
    }

    /// A raw `Authorization` header.
    pub fn authorization(self, value: &str) -> Self {
        self.header("Authorization", value)
    }

    /// Any header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.what = format!("{} [{name}: {value}]", self.what);
        self.builder = self.builder.header(name, value);
        self
    }

    /// A JSON body with `Content-Type: application/json`.
    pub fn json(mut self, body: &Value) -> Self {
        let text = body.to_string();
        let shown: String = text.chars().take(200).collect();
        self.what = format!("{} {shown}", self.what);
        self.builder = self.builder.json(body);
        self
    }

    /// A raw body with the given `Content-Type`.
    pub fn body(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        let body = body.into();
        self.what = format!("{} ({content_type}, {} bytes)", self.what, body.len());
        self.builder = self.builder.header("Content-Type", content_type).body(body);
        self
    }

    /// Sends the request and reads the whole response.
    #[track_caller]
    pub fn send(self) -> Reply {
        let what = self.what;
        let response = self
            .builder
            .send()
            .unwrap_or_else(|error| panic!("{what}: {error:?}"));
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .text()
            .unwrap_or_else(|error| panic!("{what}: body: {error:?}"));
        Reply {
            what,
            status,
            headers,
            body,
        }
    }
}

/// A response, read whole.
pub struct Reply {
    /// The request, for messages.
    pub what: String,
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub body: String,
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} → {}\n{:?}\n{}",
            self.what, self.status, self.headers, self.body
        )
    }
}

impl Reply {
    /// A header's value, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body as JSON, with `Content-Type: application/json` asserted.
    #[track_caller]
    pub fn json(&self) -> Value {
        let content_type = self.header("content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("application/json"),
            "Content-Type should be application/json, is {content_type:?}\n{self}"
        );
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("the body is not JSON ({error})\n{self}"))
    }

    /// Asserts the status code.
    #[track_caller]
    pub fn expect_status(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status\n{self}");
        self
    }

    /// Asserts the status and the exact JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16, body: Value) -> &Self {
        self.expect_status(status);
        assert_eq!(self.json(), body, "unexpected body\n{self}");
        self
    }

    /// Asserts the status and a body `{"detail": detail}`.
    #[track_caller]
    pub fn expect_detail(&self, status: u16, detail: &str) -> &Self {
        self.expect(status, json!({ "detail": detail }))
    }

    /// Asserts the status and an empty body.
    #[track_caller]
    pub fn expect_empty(&self, status: u16) -> &Self {
        self.expect_status(status);
        assert_eq!(self.body, "", "the body should be empty\n{self}");
        self
    }

    /// Asserts a 401 with `{"detail": detail}` and `WWW-Authenticate: Token`.
    #[track_caller]
    pub fn expect_401(&self, detail: &str) -> &Self {
        self.expect_detail(401, detail);
        assert_eq!(
            self.header("www-authenticate"),
            Some("Token"),
            "WWW-Authenticate\n{self}"
        );
        self
    }

    /// Asserts a 400 whose body maps `field` to exactly these messages.
    #[track_caller]
    pub fn expect_field_errors(&self, field: &str, messages: &[&str]) -> &Self {
        self.expect(400, json!({ field: messages }))
    }

    /// Asserts an `Allow` header.
    #[track_caller]
    pub fn expect_allow(&self, allow: &str) -> &Self {
        assert_eq!(self.header("allow"), Some(allow), "Allow header\n{self}");
        self
    }

    /// Asserts a 429 `{"detail": "Request was throttled. Expected available in
    /// N seconds."}` with `Retry-After: N`, N ≥ 1, and returns N.
    #[track_caller]
    pub fn expect_throttled(&self) -> u64 {
        self.expect_status(429);
        let retry_after = self
            .header("retry-after")
            .unwrap_or_else(|| panic!("a 429 needs Retry-After\n{self}"));
        let seconds: u64 = retry_after
            .parse()
            .unwrap_or_else(|_| panic!("Retry-After should be whole seconds\n{self}"));
        assert!(seconds >= 1, "Retry-After should be at least 1\n{self}");
        self.expect_detail(
            429,
            &format!("Request was throttled. Expected available in {seconds} seconds."),
        );
        seconds
    }
}
