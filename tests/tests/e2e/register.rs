//! POST /register/ (docs/api.md, Accounts) and its verification e-mail.

use crate::support::*;
use serde_json::json;

const DUPLICATE: &str = "An account with this e-mail already exists.";
const INVALID_EMAIL: &str = "Enter a valid email address.";

e2e!(registering_gives_a_token_usable_at_once_on_an_unverified_account);
fn registering_gives_a_token_usable_at_once_on_an_unverified_account() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    let reply = server.get("/profile/").token(&token).send();
    reply.expect_status(200);
    let profile = reply.json();
    assert_eq!(profile["email"], "dave@example.com", "{reply}");
    assert_eq!(profile["email_verified"], false, "{reply}");
    assert_eq!(profile["has_usable_password"], false, "{reply}");
    assert_eq!(profile["name"], "", "{reply}");
    server
        .get("/devices/")
        .token(&token)
        .send()
        .expect(200, json!([]));
}

e2e!(a_registered_account_without_a_password_cannot_log_in);
fn a_registered_account_without_a_password_cannot_log_in() {
    let server = Server::start();
    server.register("dave@example.com");
    for password in ["", "Sturdy-Lantern-42", "!"] {
        let reply = server.login("dave@example.com", password);
        reply.expect_status(400);
        if !password.is_empty() {
            reply.expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
        }
    }
}

e2e!(an_address_already_taken_is_refused_whatever_its_letter_case);
fn an_address_already_taken_is_refused_whatever_its_letter_case() {
    let server = Server::start();
    server.register("dave@example.com");
    server.account("erin@example.com");
    for email in [
        "dave@example.com",
        "DAVE@EXAMPLE.COM",
        "Dave@Example.Com",
        "erin@example.com",
        "ERIN@example.com",
    ] {
        server
            .post("/register/")
            .json(&json!({"email": email}))
            .send()
            .expect_field_errors("email", &[DUPLICATE]);
    }
}

e2e!(a_bad_or_missing_address_is_refused);
fn a_bad_or_missing_address_is_refused() {
    let server = Server::start();
    for email in [
        "not-an-email",
        "plain",
        "@example.com",
        "user@",
        "user@example",
        "us er@example.com",
        "a@@b.co",
    ] {
        server
            .post("/register/")
            .json(&json!({"email": email}))
            .send()
            .expect_field_errors("email", &[INVALID_EMAIL]);
    }
    server
        .post("/register/")
        .json(&json!({}))
        .send()
        .expect_field_errors("email", &[REQUIRED]);
    server
        .post("/register/")
        .json(&json!({"email": null}))
        .send()
        .expect_field_errors("email", &["This field may not be null."]);
    server
        .post("/register/")
        .json(&json!({"email": ""}))
        .send()
        .expect_field_errors("email", &["This field may not be blank."]);
    server
        .post("/register/")
        .json(&json!({"email": ["a@b.co"]}))
        .send()
        .expect_field_errors("email", &["Not a valid string."]);
    // Nothing was created or mailed on the way.
    assert_eq!(server.mails().len(), 0);
}

e2e!(the_domain_part_is_stored_lowercased_and_the_local_part_as_sent);
fn the_domain_part_is_stored_lowercased_and_the_local_part_as_sent() {
    let server = Server::start();
    let token = server.register("Erin.Smith@EXAMPLE.Org");
    let reply = server.get("/profile/").token(&token).send();
    assert_eq!(reply.json()["email"], "Erin.Smith@example.org", "{reply}");
}

e2e!(unknown_and_read_only_fields_are_ignored);
fn unknown_and_read_only_fields_are_ignored() {
    let server = Server::start();
    let token = new_token(
        &server
            .post("/register/")
            .json(&json!({"email": "frank@example.com", "email_verified": true, "password": "x", "name": "F"}))
            .send(),
    );
    let profile = server.get("/profile/").token(&token).send().json();
    assert_eq!(profile["email_verified"], false);
    assert_eq!(profile["has_usable_password"], false);
}

/// Registers and returns the key from the one verification mail, checking its link.
fn verification_link(server: &Server, email: &str) -> String {
    server.register(email);
    let mail = server.assert_only_mail_to(email);
    let link = link_in(&mail, "/verify-email/");
    let prefix = format!("{}/verify-email/", server.expected_base());
    let key = link
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("link {link:?} should be {prefix}<key>/ in\n{mail}"));
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
    link
}

e2e!(registering_mails_a_verification_link_under_the_request_host);
fn registering_mails_a_verification_link_under_the_request_host() {
    let server = Server::start();
    let link = verification_link(&server, "grace@example.com");
    assert!(
        link.starts_with(&format!("{}/verify-email/", server.base())),
        "{link}"
    );
}

e2e!(the_verification_link_uses_the_public_url_when_configured);
fn the_verification_link_uses_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let link = verification_link(&server, "heidi@example.com");
    assert!(
        link.starts_with("https://devmgr.example.net/verify-email/"),
        "{link}"
    );
}

e2e!(each_registration_gets_its_own_key);
fn each_registration_gets_its_own_key() {
    let server = Server::start();
    server.register("ivan@example.com");
    server.register("judy@example.com");
    let mails = server.wait_for_mails(2);
    let first = link_in(&mails[0], "/verify-email/");
    let second = link_in(&mails[1], "/verify-email/");
    assert_ne!(first, second);
}

e2e!(a_refused_registration_sends_no_mail);
fn a_refused_registration_sends_no_mail() {
    let server = Server::start();
    server.account("kim@example.com");
    server
        .post("/register/")
        .json(&json!({"email": "KIM@example.com"}))
        .send()
        .expect_field_errors("email", &[DUPLICATE]);
    server.register("leo@example.com");
    server.assert_only_mail_to("leo@example.com");
}

e2e!(the_verification_mail_is_a_7bit_multipart_text_and_html_message);
fn the_verification_mail_is_a_7bit_multipart_text_and_html_message() {
    // The mail directory is a subject too: only finished files in it.
    let server = Server::builder().mail_dir().start();
    let link = verification_link(&server, "mona@example.com");
    let mail = server.mails().remove(0);
    assert!(mail.is_ascii(), "the mail is 7bit ASCII:\n{mail}");
    for needle in [
        "multipart/alternative",
        "text/plain",
        "text/html",
        "To: ",
        "Subject: ",
    ] {
        assert!(mail.contains(needle), "{needle:?} missing from:\n{mail}");
    }
    assert!(
        mail.matches(link.as_str()).count() >= 2,
        "the link is in both parts:\n{mail}"
    );
    // Mails are written atomically: nothing but finished .eml files is left behind.
    for entry in std::fs::read_dir(server.mail_dir()).expect("the mail directory") {
        let path = entry.expect("an entry").path();
        assert!(
            path.extension().is_some_and(|ext| ext == "eml"),
            "stray file {path:?}"
        );
    }
}
