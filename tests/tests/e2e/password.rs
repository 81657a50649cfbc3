//! POST /change-password/ (docs/api.md, Accounts) with the password rules, and
//! POST /reset-password/ with its e-mail.

use crate::support::*;
use serde_json::{Value, json};

const WRONG_OLD: &str = "Your old password was entered incorrectly. Please enter it again.";
const TOO_SHORT: &str = "This password is too short. It must contain at least 8 characters.";
const NUMERIC: &str = "This password is entirely numeric.";
const COMMON: &str = "This password is too common.";
const SIMILAR_EMAIL: &str = "The password is too similar to the email address.";
const SIMILAR_NAME: &str = "The password is too similar to the name.";
const SIMILAR_INSTALL_TOKEN: &str = "The password is too similar to the install token.";

/// A new password no rule refuses for the accounts below.
const NEW_PASSWORD: &str = "Velvet-Harbor-97";

fn change(server: &Server, token: &str, body: Value) -> Reply {
    server
        .post("/change-password/")
        .token(token)
        .json(&body)
        .send()
}

fn change_to(server: &Server, account: &Account, new_password: &str) -> Reply {
    change(
        server,
        &account.token,
        json!({"old_password": account.password, "new_password": new_password}),
    )
}

/// Asserts a 400 `{"new_password": [...]}` with these messages, in any order
/// (docs/api.md fixes the messages, not their order).
#[track_caller]
fn assert_new_password_errors(reply: &Reply, expected: &[&str]) {
    reply.expect_status(400);
    let body = reply.json();
    assert_eq!(keys(&body), ["new_password"], "{reply}");
    let mut messages: Vec<String> = body["new_password"]
        .as_array()
        .unwrap_or_else(|| panic!("a list of messages\n{reply}"))
        .iter()
        .map(|message| message.as_str().expect("messages are strings").to_owned())
        .collect();
    messages.sort();
    let mut expected: Vec<String> = expected
        .iter()
        .map(|message| (*message).to_owned())
        .collect();
    expected.sort();
    assert_eq!(messages, expected, "{reply}");
}

#[track_caller]
fn assert_refused_for(server: &Server, account: &Account, new_password: &str, expected: &[&str]) {
    assert_new_password_errors(&change_to(server, account, new_password), expected);
}

e2e!(changing_the_password_replaces_the_old_one);
fn changing_the_password_replaces_the_old_one() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change_to(&server, &alice, NEW_PASSWORD).expect_empty(204);
    server.login_token(&alice.email, NEW_PASSWORD);
    server
        .login(&alice.email, PASSWORD)
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
    // The token used for the change stays valid.
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(a_wrong_old_password_is_refused);
fn a_wrong_old_password_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change(
        &server,
        &alice.token,
        json!({"old_password": "Not-My-Password-1", "new_password": NEW_PASSWORD}),
    )
    .expect_field_errors("old_password", &[WRONG_OLD]);
    server.login_token(&alice.email, PASSWORD);
}

e2e!(the_old_password_is_needed_while_the_account_has_a_usable_one);
fn the_old_password_is_needed_while_the_account_has_a_usable_one() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let reply = change(&server, &alice.token, json!({"new_password": NEW_PASSWORD}));
    reply.expect_status(400);
    assert!(reply.json().get("old_password").is_some(), "{reply}");
    server.login_token(&alice.email, PASSWORD);
}

e2e!(the_new_password_is_required);
fn the_new_password_is_required() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change(&server, &alice.token, json!({"old_password": PASSWORD}))
        .expect_field_errors("new_password", &[REQUIRED]);
}

e2e!(each_password_rule_has_its_own_message);
fn each_password_rule_has_its_own_message() {
    let server = Server::start();
    let alice = server.account_with(
        "carol@example.com",
        &["--verified", "--name", "Zebulon Fairweather"],
    );
    assert_refused_for(&server, &alice, "xq7#Lz", &[TOO_SHORT]);
    assert_refused_for(&server, &alice, "84736291057", &[NUMERIC]);
    assert_refused_for(&server, &alice, "password1", &[COMMON]);
    assert_refused_for(&server, &alice, "PassWord1", &[COMMON]);
    assert_refused_for(&server, &alice, "fairweather!", &[SIMILAR_NAME]);
    assert_refused_for(&server, &alice, "carol@example", &[SIMILAR_EMAIL]);
    let like_install_token = &alice.install_token[..24];
    assert_refused_for(
        &server,
        &alice,
        like_install_token,
        &[SIMILAR_INSTALL_TOKEN],
    );
    // Nothing was changed by the refusals.
    server.login_token(&alice.email, PASSWORD);
}

e2e!(every_failing_rule_is_reported);
fn every_failing_rule_is_reported() {
    let server = Server::start();
    let alice = server.account("zqxvkj@example.com");
    assert_refused_for(&server, &alice, "123", &[TOO_SHORT, COMMON, NUMERIC]);
    assert_refused_for(&server, &alice, "1234", &[TOO_SHORT, COMMON, NUMERIC]);
    assert_refused_for(&server, &alice, "zqxvkj", &[TOO_SHORT, SIMILAR_EMAIL]);
    assert_refused_for(&server, &alice, "ZQXVKJ", &[TOO_SHORT, SIMILAR_EMAIL]);
    server.login_token(&alice.email, PASSWORD);
}

e2e!(an_account_without_a_usable_password_needs_no_old_password);
fn an_account_without_a_usable_password_needs_no_old_password() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    server.set_first_password(&token, NEW_PASSWORD);
    let profile = server.get("/profile/").token(&token).send().json();
    assert_eq!(profile["has_usable_password"], true);
    // The password is set: a login now fails only on the unverified address.
    server.login("dave@example.com", NEW_PASSWORD).expect(
        400,
        json!({"non_field_errors": ["E-mail address is not verified."]}),
    );
    // The policy applies here too.
    let other = server.register("erin@example.com");
    let reply = server
        .post("/change-password/")
        .token(&other)
        .json(&json!({"new_password": "123"}))
        .send();
    assert_new_password_errors(&reply, &[TOO_SHORT, COMMON, NUMERIC]);
}

e2e!(changing_the_password_needs_a_token);
fn changing_the_password_needs_a_token() {
    let server = Server::start();
    server
        .post("/change-password/")
        .json(&json!({"old_password": PASSWORD, "new_password": NEW_PASSWORD}))
        .send()
        .expect_401(NOT_PROVIDED);
}

e2e!(a_reset_mails_a_link_to_an_existing_account);
fn a_reset_mails_a_link_to_an_existing_account() {
    let server = Server::start();
    server.account("frank@example.com");
    server
        .post("/reset-password/")
        .json(&json!({"email": "frank@example.com"}))
        .send()
        .expect_empty(204);
    let mail = server.assert_only_mail_to("frank@example.com");
    let link = link_in(&mail, "/reset-password/confirm/");
    let prefix = format!("{}/reset-password/confirm/?key=", server.base());
    let key = link
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("link {link:?} should start with {prefix} in\n{mail}"));
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
}

e2e!(a_reset_looks_the_address_up_ignoring_letter_case);
fn a_reset_looks_the_address_up_ignoring_letter_case() {
    let server = Server::start();
    server.account("frank@example.com");
    server
        .post("/reset-password/")
        .json(&json!({"email": "FRANK@Example.COM"}))
        .send()
        .expect_empty(204);
    let mail = server.assert_only_mail_to("frank@example.com");
    link_in(&mail, "/reset-password/confirm/?key=");
}

e2e!(a_reset_for_an_unknown_address_is_204_without_mail);
fn a_reset_for_an_unknown_address_is_204_without_mail() {
    let server = Server::start();
    server.account("frank@example.com");
    server
        .post("/reset-password/")
        .json(&json!({"email": "nobody@example.com"}))
        .send()
        .expect_empty(204);
    // A known address afterwards: its mail must be the only one.
    server
        .post("/reset-password/")
        .json(&json!({"email": "frank@example.com"}))
        .send()
        .expect_empty(204);
    let mail = server.assert_only_mail_to("frank@example.com");
    assert!(!mail.contains("nobody@example.com"), "{mail}");
}

e2e!(a_reset_needs_a_well_formed_address);
fn a_reset_needs_a_well_formed_address() {
    let server = Server::start();
    server
        .post("/reset-password/")
        .json(&json!({}))
        .send()
        .expect_field_errors("email", &[REQUIRED]);
    for email in ["frank", "frank@", "frank@example"] {
        server
            .post("/reset-password/")
            .json(&json!({"email": email}))
            .send()
            .expect_field_errors("email", &["Enter a valid email address."]);
    }
    assert_eq!(server.mails().len(), 0);
}

e2e!(a_reset_while_signed_in_is_403_and_sends_nothing);
fn a_reset_while_signed_in_is_403_and_sends_nothing() {
    let server = Server::start();
    let frank = server.account("frank@example.com");
    server
        .post("/reset-password/")
        .token(&frank.token)
        .json(&json!({"email": "frank@example.com"}))
        .send()
        .expect_detail(403, "You are already signed in.");
    server
        .post("/reset-password/")
        .token("0123456789abcdef0123456789abcdef01234567")
        .json(&json!({"email": "frank@example.com"}))
        .send()
        .expect_401(INVALID_TOKEN);
    server.account("grace@example.com");
    server
        .post("/reset-password/")
        .json(&json!({"email": "grace@example.com"}))
        .send()
        .expect_empty(204);
    server.assert_only_mail_to("grace@example.com");
}

e2e!(the_reset_link_uses_the_public_url_when_configured);
fn the_reset_link_uses_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    server.account("frank@example.com");
    server
        .post("/reset-password/")
        .json(&json!({"email": "frank@example.com"}))
        .send()
        .expect_empty(204);
    let mail = server.assert_only_mail_to("frank@example.com");
    let link = link_in(&mail, "/reset-password/confirm/?key=");
    assert!(
        link.starts_with("https://devmgr.example.net/reset-password/confirm/?key="),
        "{link}"
    );
}
