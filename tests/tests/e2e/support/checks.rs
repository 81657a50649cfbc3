//! Messages of the API, and checks of the shapes of what it answers.

use super::{Reply, Server};
use serde_json::Value;

/// The 401 detail when no credentials were sent.
pub const NOT_PROVIDED: &str = "Authentication credentials were not provided.";
/// The 401 detail for an unknown or deleted token.
pub const INVALID_TOKEN: &str = "Invalid token.";
/// The 404 detail.
pub const NOT_FOUND: &str = "Not found.";
/// The login failure message.
pub const BAD_CREDENTIALS: &str = "Unable to log in with provided credentials.";
/// The message for a required field.
pub const REQUIRED: &str = "This field is required.";

/// A string field of a JSON object (asserted present and a string).
#[track_caller]
pub fn string(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key:?} should be a string in {value:#}"))
        .to_owned()
}

/// The sorted keys of a JSON object.
#[track_caller]
pub fn keys(value: &Value) -> Vec<String> {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value:#}"));
    let mut keys: Vec<String> = object.keys().cloned().collect();
    keys.sort();
    keys
}

/// Asserts a 201 `{"token": <40 lowercase hex>}` and returns the token.
#[track_caller]
pub fn new_token(reply: &Reply) -> String {
    reply.expect_status(201);
    let body = reply.json();
    assert_eq!(keys(&body), ["token"], "{reply}");
    let token = string(&body, "token");
    assert!(
        is_auth_token(&token),
        "a token is 40 lowercase hex characters: {token:?}"
    );
    token
}

/// 40 lowercase hexadecimal characters.
pub fn is_auth_token(text: &str) -> bool {
    text.len() == 40
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

/// 32 characters of `[a-z0-9]`.
pub fn is_install_token(text: &str) -> bool {
    text.len() == 32
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// A lowercase UUID: 8-4-4-4-12 lowercase hexadecimal digits.
pub fn is_lowercase_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|group| group.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|group| {
            group
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        })
}

/// `YYYY-MM-DDTHH:MM:SS`, nothing more.
pub fn is_timestamp(text: &str) -> bool {
    let pattern = "dddd-dd-ddTdd:dd:dd";
    text.len() == pattern.len()
        && text
            .chars()
            .zip(pattern.chars())
            .all(|(c, p)| if p == 'd' { c.is_ascii_digit() } else { c == p })
}

/// `^[a-z0-9-]{1,40}$`.
pub fn is_slug(text: &str) -> bool {
    (1..=40).contains(&text.len())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The first link in `mail` that contains `marker`: from its `http` to the
/// first white space, quote or angle bracket.
#[track_caller]
pub fn link_in(mail: &str, marker: &str) -> String {
    let at = mail
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in the mail:\n{mail}"));
    let start = mail[..at]
        .rfind("http")
        .unwrap_or_else(|| panic!("no http… before {marker:?} in the mail:\n{mail}"));
    let end = mail[at..]
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>'))
        .map_or(mail.len(), |offset| at + offset);
    mail[start..end].to_owned()
}

/// `GET /profile/` with `token`; asserts a 200 and returns the profile.
#[track_caller]
pub fn profile(server: &Server, token: &str) -> Value {
    let reply = server.get("/profile/").token(token).send();
    reply.expect_status(200);
    reply.json()
}

/// Characters allowed in an e-mailed key: URL-safe, at least 32 of them.
pub fn is_mail_key(key: &str) -> bool {
    key.len() >= 32
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The key of the verification link in `mail`, `<base>/verify-email/<key>/`,
/// checked to be 32+ URL-safe characters.
#[track_caller]
pub fn verification_key(mail: &str) -> String {
    let link = link_in(mail, "/verify-email/");
    let (_, rest) = link
        .split_once("/verify-email/")
        .expect("the marker is in the link");
    let key = rest
        .strip_suffix('/')
        .unwrap_or_else(|| panic!("link {link:?} should end in <key>/ in\n{mail}"));
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
    key.to_owned()
}

/// The key of the reset link in `mail`, `<base>/reset-password/confirm/?key=<key>`,
/// checked to be 32+ URL-safe characters.
#[track_caller]
pub fn reset_key(mail: &str) -> String {
    let link = link_in(mail, "/reset-password/confirm/?key=");
    let (_, key) = link
        .split_once("/reset-password/confirm/?key=")
        .expect("the marker is in the link");
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
    key.to_owned()
}
