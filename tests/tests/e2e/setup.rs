//! Registration and verification together (docs/api.md, Accounts): an account made by POST /register/ is set up
//! end to end — verified through its e-mailed link, given a password by
//! change-password or by the reset link — and then logs in.

use crate::support::*;
use serde_json::json;

const NOT_VERIFIED: &str = "E-mail address is not verified.";
const NEW_PASSWORD: &str = "Velvet-Harbor-97";

#[track_caller]
fn assert_state(server: &Server, token: &str, verified: bool, usable_password: bool) {
    let profile = profile(server, token);
    assert_eq!(profile["email_verified"], verified, "{profile}");
    assert_eq!(profile["has_usable_password"], usable_password, "{profile}");
}

e2e!(register_verify_set_a_password_then_log_in);
fn register_verify_set_a_password_then_log_in() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    assert_state(&server, &token, false, false);
    server
        .get("/devices/")
        .token(&token)
        .send()
        .expect(200, json!([]));

    // The link from the mail, as the user would follow it.
    let mail = server.assert_only_mail_to("dave@example.com");
    let link = link_in(&mail, "/verify-email/");
    let path = link
        .strip_prefix(server.base())
        .unwrap_or_else(|| panic!("{link:?} should be under {}", server.base()));
    server
        .get(path)
        .send()
        .expect_detail(200, "E-mail address verified.");
    assert_state(&server, &token, true, false);
    // Without a password there is nothing to log in with yet.
    server
        .login("dave@example.com", NEW_PASSWORD)
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));

    server.set_first_password(&token, NEW_PASSWORD);
    assert_state(&server, &token, true, true);

    let session = server.login_token("dave@example.com", NEW_PASSWORD);
    let profile = profile(&server, &session);
    assert_eq!(profile["email"], "dave@example.com", "{profile}");
    // The registration token still works alongside the new one.
    assert_state(&server, &token, true, true);
}

e2e!(a_password_set_before_verifying_logs_in_once_verified);
fn a_password_set_before_verifying_logs_in_once_verified() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    server.set_first_password(&token, NEW_PASSWORD);
    assert_state(&server, &token, false, true);
    server
        .login("dave@example.com", NEW_PASSWORD)
        .expect(400, json!({"non_field_errors": [NOT_VERIFIED]}));
    // The wrong password does not tell whether the address is verified.
    server
        .login("dave@example.com", "Wrong-Lantern-42")
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));

    let key = verification_key(&server.assert_only_mail_to("dave@example.com"));
    server
        .post("/verify-email/")
        .json(&json!({ "key": key }))
        .send()
        .expect_detail(200, "E-mail address verified.");
    server.login_token("dave@example.com", NEW_PASSWORD);
    server.login_token("DAVE@example.com", NEW_PASSWORD);
}

e2e!(register_then_set_the_password_by_the_reset_link_and_log_in);
fn register_then_set_the_password_by_the_reset_link_and_log_in() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    let verification = server.wait_for_mails(1);
    server
        .post("/reset-password/")
        .json(&json!({"email": "dave@example.com"}))
        .send()
        .expect_empty(204);
    let mail = server.wait_for_new_mail(&verification);
    assert!(mail.contains("dave@example.com"), "{mail}");
    let key = reset_key(&mail);
    server
        .post("/reset-password/confirm/")
        .json(&json!({"key": key, "new_password": NEW_PASSWORD}))
        .send()
        .expect_empty(204);
    // The reset ended the registration's token (docs/security.md); the
    // reset link proved the address: no verification link was needed.
    server
        .get("/profile/")
        .token(&token)
        .send()
        .expect_401(INVALID_TOKEN);
    let session = server.login_token("dave@example.com", NEW_PASSWORD);
    assert_state(&server, &session, true, true);
    // The unused verification link is still valid, and changes nothing.
    let verification_key = verification_key(&verification[0]);
    server
        .get(&format!("/verify-email/{verification_key}/"))
        .send()
        .expect_detail(200, "E-mail address verified.");
    assert_state(&server, &session, true, true);
}

e2e!(a_registered_account_needs_no_old_password_only_until_it_has_one);
fn a_registered_account_needs_no_old_password_only_until_it_has_one() {
    let server = Server::start();
    let token = server.register("dave@example.com");
    server.set_first_password(&token, NEW_PASSWORD);
    // Now it has one: a change needs it.
    let reply = server
        .post("/change-password/")
        .token(&token)
        .json(&json!({"new_password": "Another-Harbor-58"}))
        .send();
    reply.expect_status(400);
    assert!(reply.json().get("old_password").is_some(), "{reply}");
    server
        .post("/change-password/")
        .token(&token)
        .json(&json!({"old_password": NEW_PASSWORD, "new_password": "Another-Harbor-58"}))
        .send()
        .expect_empty(204);
    let key = verification_key(&server.assert_only_mail_to("dave@example.com"));
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, "E-mail address verified.");
    server.login_token("dave@example.com", "Another-Harbor-58");
}
