//! The e-mailed reset link (docs/api.md, Accounts) — POST /reset-password/confirm/ and the
//! HTML form of GET /reset-password/confirm/?key=….

use crate::support::*;
use serde_json::{Value, json};

const INVALID_KEY: &str = "Invalid or expired key.";
const NOT_VERIFIED: &str = "E-mail address is not verified.";
const TOO_SHORT: &str = "This password is too short. It must contain at least 8 characters.";
const NUMERIC: &str = "This password is entirely numeric.";
const COMMON: &str = "This password is too common.";
const SIMILAR_EMAIL: &str = "The password is too similar to the email address.";
/// A new password no rule refuses for the accounts below.
const NEW_PASSWORD: &str = "Velvet-Harbor-97";
/// Well-formed but never issued: 43 URL-safe characters.
const UNKNOWN_KEY: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// Asks for a reset of `email` and returns the key of the mail it sends.
pub(crate) fn reset_mail_key(server: &Server, email: &str) -> String {
    let earlier = server.mails();
    server
        .post("/reset-password/")
        .json(&json!({ "email": email }))
        .send()
        .expect_empty(204);
    let mail = server.wait_for_new_mail(&earlier);
    assert!(
        mail.to_lowercase().contains(&email.to_lowercase()),
        "{mail}"
    );
    reset_key(&mail)
}

fn confirm(server: &Server, body: Value) -> Reply {
    server.post("/reset-password/confirm/").json(&body).send()
}

/// `POST /reset-password/confirm/` with this key and new password.
pub(crate) fn confirm_with(server: &Server, key: &str, new_password: &str) -> Reply {
    confirm(server, json!({"key": key, "new_password": new_password}))
}

/// The messages of `field` in a 400 body, sorted (docs/api.md fixes the
/// messages of the password rules, not their order).
#[track_caller]
fn sorted_messages(reply: &Reply, field: &str) -> Vec<String> {
    let mut messages: Vec<String> = reply.json()[field]
        .as_array()
        .unwrap_or_else(|| panic!("a list of messages under {field:?}\n{reply}"))
        .iter()
        .map(|message| message.as_str().expect("messages are strings").to_owned())
        .collect();
    messages.sort();
    messages
}

fn sorted(messages: &[&str]) -> Vec<String> {
    let mut messages: Vec<String> = messages.iter().map(|m| (*m).to_owned()).collect();
    messages.sort();
    messages
}

e2e!(confirming_sets_the_password_and_verifies_the_address);
fn confirming_sets_the_password_and_verifies_the_address() {
    let server = Server::start();
    let carol = server.account_with("carol@example.com", &[]);
    assert_eq!(profile(&server, &carol.token)["email_verified"], false);
    server
        .login(&carol.email, PASSWORD)
        .expect(400, json!({"non_field_errors": [NOT_VERIFIED]}));
    let key = reset_mail_key(&server, &carol.email);
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    let fresh = server.login_token(&carol.email, NEW_PASSWORD);
    server
        .login(&carol.email, PASSWORD)
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
    let profile = profile(&server, &fresh);
    assert_eq!(profile["email_verified"], true, "{profile}");
    assert_eq!(profile["has_usable_password"], true, "{profile}");
}

e2e!(tokens_made_before_the_reset_end_with_it);
fn tokens_made_before_the_reset_end_with_it() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let key = reset_mail_key(&server, &alice.email);
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    // Recovering an account cuts off whoever held it (docs/security.md).
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_401(INVALID_TOKEN);
    let fresh = server.login_token(&alice.email, NEW_PASSWORD);
    assert_eq!(profile(&server, &fresh)["email"], "alice@example.com");
}

e2e!(a_key_is_single_use);
fn a_key_is_single_use() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let key = reset_mail_key(&server, &alice.email);
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    confirm_with(&server, &key, "Another-Harbor-58").expect_field_errors("key", &[INVALID_KEY]);
    // The refused second use changed nothing.
    server.login_token(&alice.email, NEW_PASSWORD);
    server
        .login(&alice.email, "Another-Harbor-58")
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
}

e2e!(using_one_key_ends_every_other_reset_key_of_the_account);
fn using_one_key_ends_every_other_reset_key_of_the_account() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let first = reset_mail_key(&server, &alice.email);
    let second = reset_mail_key(&server, &alice.email);
    let bobs = reset_mail_key(&server, &bob.email);
    assert_ne!(first, second, "each reset mail has its own key");
    confirm_with(&server, &second, NEW_PASSWORD).expect_empty(204);
    confirm_with(&server, &first, "Another-Harbor-58").expect_field_errors("key", &[INVALID_KEY]);
    server.login_token(&alice.email, NEW_PASSWORD);
    // Another account's key is not touched.
    confirm_with(&server, &bobs, "Another-Harbor-58").expect_empty(204);
    server.login_token(&bob.email, "Another-Harbor-58");
}

e2e!(a_refused_password_does_not_use_the_key_up);
fn a_refused_password_does_not_use_the_key_up() {
    let server = Server::start();
    let frank = server.account("frank@example.com");
    let key = reset_mail_key(&server, &frank.email);
    for (password, expected) in [
        ("123", &[TOO_SHORT, COMMON, NUMERIC][..]),
        ("84736291057", &[NUMERIC]),
        ("password1", &[COMMON]),
        ("frank@example", &[SIMILAR_EMAIL]),
    ] {
        let reply = confirm_with(&server, &key, password);
        reply.expect_status(400);
        assert_eq!(keys(&reply.json()), ["new_password"], "{reply}");
        assert_eq!(
            sorted_messages(&reply, "new_password"),
            sorted(expected),
            "{reply}"
        );
    }
    // Nothing changed so far: the old password still works.
    server.login_token(&frank.email, PASSWORD);
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    server.login_token(&frank.email, NEW_PASSWORD);
}

e2e!(an_unknown_key_and_a_bad_password_are_both_reported);
fn an_unknown_key_and_a_bad_password_are_both_reported() {
    let server = Server::start();
    let reply = confirm_with(&server, UNKNOWN_KEY, "123");
    reply.expect_status(400);
    assert_eq!(keys(&reply.json()), ["key", "new_password"], "{reply}");
    assert_eq!(reply.json()["key"], json!([INVALID_KEY]), "{reply}");
    assert_eq!(
        sorted_messages(&reply, "new_password"),
        sorted(&[TOO_SHORT, COMMON, NUMERIC]),
        "{reply}"
    );
    confirm_with(&server, UNKNOWN_KEY, NEW_PASSWORD).expect_field_errors("key", &[INVALID_KEY]);
}

e2e!(a_verification_key_is_no_reset_key);
fn a_verification_key_is_no_reset_key() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    let key = verification_key(&server.assert_only_mail_to("dave@example.com"));
    confirm_with(&server, &key, NEW_PASSWORD).expect_field_errors("key", &[INVALID_KEY]);
    let profile = profile(&server, &token);
    assert_eq!(profile["has_usable_password"], false, "{profile}");
    assert_eq!(profile["email_verified"], false, "{profile}");
}

e2e!(confirming_needs_both_fields);
fn confirming_needs_both_fields() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    confirm(&server, json!({})).expect(400, json!({"key": [REQUIRED], "new_password": [REQUIRED]}));
    server
        .post("/reset-password/confirm/")
        .send()
        .expect(400, json!({"key": [REQUIRED], "new_password": [REQUIRED]}));
    let key = reset_mail_key(&server, &alice.email);
    confirm(&server, json!({ "key": key })).expect_field_errors("new_password", &[REQUIRED]);
    confirm(&server, json!({"new_password": NEW_PASSWORD})).expect_field_errors("key", &[REQUIRED]);
    // The key survived the incomplete request.
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    server.login_token(&alice.email, NEW_PASSWORD);
}

/// The text between `open` and the next `close` in `html`.
#[track_caller]
fn between<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    let start = html
        .find(open)
        .unwrap_or_else(|| panic!("no {open:?} in\n{html}"))
        + open.len();
    let end = html[start..]
        .find(close)
        .unwrap_or_else(|| panic!("no {close:?} after {open:?} in\n{html}"));
    &html[start..start + end]
}

/// The `<input …>` tag named `name` in `html`.
#[track_caller]
fn input_tag<'a>(html: &'a str, name: &str) -> &'a str {
    let needle = format!("name=\"{name}\"");
    html.match_indices("<input")
        .map(|(start, _)| {
            let end = html[start..]
                .find('>')
                .map_or(html.len(), |end| start + end + 1);
            &html[start..end]
        })
        .find(|tag| tag.contains(&needle))
        .unwrap_or_else(|| panic!("no <input {needle}> in\n{html}"))
}

/// The `value="…"` of an input tag, with HTML character references undone.
#[track_caller]
fn input_value(tag: &str) -> String {
    let value = between(tag, "value=\"", "\"");
    let mut out = value.to_owned();
    for (reference, character) in [
        ("&quot;", "\""),
        ("&#34;", "\""),
        ("&#x22;", "\""),
        ("&lt;", "<"),
        ("&#60;", "<"),
        ("&#x3c;", "<"),
        ("&gt;", ">"),
        ("&#62;", ">"),
        ("&#x3e;", ">"),
        ("&#39;", "'"),
        ("&#x27;", "'"),
        ("&#47;", "/"),
        ("&#x2f;", "/"),
        ("&amp;", "&"),
    ] {
        out = out.replace(reference, character);
    }
    out
}

e2e!(the_reset_link_opens_a_locked_down_form);
fn the_reset_link_opens_a_locked_down_form() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let key = reset_mail_key(&server, &alice.email);
    let reply = server
        .get(&format!("/reset-password/confirm/?key={key}"))
        .header("Accept", "text/html")
        .send();
    reply.expect_status(200);
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{reply}");
    let html = &reply.body;
    assert!(html.contains("<form"), "a form\n{reply}");
    let key_input = input_tag(html, "key");
    assert!(key_input.contains("type=\"hidden\""), "{key_input}");
    assert_eq!(input_value(key_input), key, "{key_input}");
    input_tag(html, "new_password");
    assert_eq!(
        reply.header("referrer-policy"),
        Some("no-referrer"),
        "{reply}"
    );
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{reply}");
    let policy = reply
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("a Content-Security-Policy\n{reply}"));
    let script_src = policy
        .split(';')
        .map(str::trim)
        .find(|directive| directive.starts_with("script-src "))
        .unwrap_or_else(|| panic!("a script-src directive\n{reply}"));
    // Script comes only from the server's own files, never inline.
    assert_eq!(script_src, "script-src 'self'", "{reply}");
    for tag in html.split("<script").skip(1) {
        assert!(
            tag.trim_start().starts_with("src="),
            "inline script\n{reply}"
        );
    }
    assert!(!script_src.contains("unsafe-inline"), "{reply}");
    // Showing the form did not use the key up.
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
}

e2e!(the_form_escapes_the_key);
fn the_form_escapes_the_key() {
    let server = Server::start();
    let reply = server
        .get("/reset-password/confirm/?key=a%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E%3Cb%3E")
        .header("Accept", "text/html")
        .send();
    reply.expect_status(200);
    assert!(!reply.body.contains("<script>alert"), "{reply}");
    assert!(!reply.body.contains("<b>"), "{reply}");
    let key_input = input_tag(&reply.body, "key");
    assert_eq!(
        input_value(key_input),
        "a\"><script>alert(1)</script><b>",
        "the key, escaped into the value\n{reply}"
    );
}

e2e!(the_confirm_route_has_its_allow_header_and_options);
fn the_confirm_route_has_its_allow_header_and_options() {
    let server = Server::start();
    let reply = server.options("/reset-password/confirm/").send();
    reply
        .expect_status(200)
        .expect_allow("GET, POST, HEAD, OPTIONS");
    let actions = &reply.json()["actions"];
    assert_eq!(keys(actions), ["POST"], "{reply}");
    assert_eq!(keys(&actions["POST"]), ["key", "new_password"], "{reply}");
    for field in ["key", "new_password"] {
        let meta = &actions["POST"][field];
        assert_eq!(meta["type"], "string", "{field}\n{reply}");
        assert_eq!(meta["required"], true, "{field}\n{reply}");
        assert_eq!(meta["read_only"], false, "{field}\n{reply}");
        assert!(meta["label"].is_string(), "{field}\n{reply}");
    }
    server
        .put("/reset-password/confirm/")
        .send()
        .expect_detail(405, "Method \"PUT\" not allowed.")
        .expect_allow("GET, POST, HEAD, OPTIONS");
    let reply = server.get("/reset-password/confirm?key=abc").send();
    reply.expect_status(301);
    assert_eq!(
        reply.header("location"),
        Some("/reset-password/confirm/?key=abc"),
        "{reply}"
    );
}
