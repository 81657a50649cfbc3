//! Each audited change writes one entry, and nothing else does (docs/api.md,
//! "Audit log"; docs/audit.md): the account's own changes here — created at
//! the command line, registered, logged in (or refused), logged out,
//! passwords changed and reset, the profile and the install token — with who
//! made them and from where (`X-Forwarded-For` only behind a trusted proxy).
//! Devices: `audit_actions_devices.rs`; jobs, monitors and webhooks:
//! `audit_actions_fleet.rs`. Each check reads the whole log (`devmgr audit
//! export`), so "one entry" means one in the server's log, any account's.

use crate::audit_log_support::*;
use crate::password_reset::{confirm_with, reset_mail_key};
use crate::support::*;
use serde_json::{Value, json};

const ALICE: &str = "alice@example.com";
const ALICE_TARGET: &str = "account:alice@example.com";
/// A new password no rule refuses for these accounts.
const NEW_PASSWORD: &str = "Velvet-Harbor-97";

/// What an entry of `action` about Alice's account records, by `actor`
/// from `ip`, with nothing in `detail`.
fn about_alice(actor: Value, action: &str, ip: Option<&str>) -> Value {
    json!({"actor": actor, "action": action, "target": ALICE_TARGET, "ip": ip, "detail": {}})
}

e2e!(the_accounts_own_changes_are_recorded_once_each);
fn the_accounts_own_changes_are_recorded_once_each() {
    let server = Server::start();
    let before = mark(&server);
    let created = server.cli(&[
        "user",
        "create",
        "--email",
        ALICE,
        "--password",
        PASSWORD,
        "--verified",
    ]);
    let token = string(&created, "token");
    recorded(
        &server,
        &token,
        before,
        about_alice(bare("cli"), "account.create", None),
    );

    let before = mark(&server);
    let grace = server.register("grace@example.com");
    recorded(
        &server,
        &grace,
        before,
        json!({"actor": user("grace@example.com"), "action": "account.register",
            "target": "account:grace@example.com", "ip": LOCAL, "detail": {}}),
    );
    let before = mark(&server);
    server
        .post("/register/")
        .json(&json!({"email": "Grace@example.com"}))
        .send()
        .expect_field_errors("email", &["An account with this e-mail already exists."]);
    nothing_written(&server, before, "a registration refused");

    // Logging in, refused with a wrong password (an anonymous entry in the
    // account's log), refused for an address with no account (none).
    let before = mark(&server);
    let spare = server.login_token(ALICE, PASSWORD);
    recorded(
        &server,
        &token,
        before,
        about_alice(user(ALICE), "auth.login", Some(LOCAL)),
    );
    let before = mark(&server);
    server.login(ALICE, "Wrong-Lantern-42").expect_status(400);
    recorded(
        &server,
        &token,
        before,
        about_alice(bare("anonymous"), "auth.login_failed", Some(LOCAL)),
    );
    let before = mark(&server);
    server
        .login("nobody@example.com", PASSWORD)
        .expect_status(400);
    nothing_written(&server, before, "a login for an unknown address");

    let before = mark(&server);
    server
        .delete("/auth/")
        .token(&spare)
        .send()
        .expect_empty(204);
    recorded(
        &server,
        &token,
        before,
        about_alice(user(ALICE), "auth.logout", Some(LOCAL)),
    );
    let before = mark(&server);
    server
        .delete("/auth/")
        .token(&spare)
        .send()
        .expect_status(401);
    nothing_written(&server, before, "a logout with an ended token");

    // The password: a wrong old one changes nothing.
    let before = mark(&server);
    server
        .post("/change-password/")
        .token(&token)
        .json(&json!({"old_password": "Wrong-Lantern-42", "new_password": NEW_PASSWORD}))
        .send()
        .expect_status(400);
    nothing_written(&server, before, "a password change refused");
    let before = mark(&server);
    server
        .post("/change-password/")
        .token(&token)
        .json(&json!({"old_password": PASSWORD, "new_password": NEW_PASSWORD}))
        .send()
        .expect_empty(204);
    recorded(
        &server,
        &token,
        before,
        about_alice(user(ALICE), "password.change", Some(LOCAL)),
    );

    // The profile: a new name, then the same name again (no entry), then
    // one too long (400, no entry); the install token replaced.
    let profile = |method: &str, body: Value| {
        server
            .call(method.parse().unwrap(), "/profile/")
            .token(&token)
            .json(&body)
            .send()
    };
    let before = mark(&server);
    profile("PATCH", json!({"name": "Alice Liddell"})).expect_status(200);
    recorded(
        &server,
        &token,
        before,
        json!({"actor": user(ALICE), "action": "profile.update", "target": ALICE_TARGET,
            "ip": LOCAL, "detail": {"changed": ["name"]}}),
    );
    let before = mark(&server);
    profile("PATCH", json!({"name": "Alice Liddell"})).expect_status(200);
    profile(
        "PUT",
        json!({"name": "Alice Liddell", "email": "x@example.com"}),
    )
    .expect_status(200);
    profile("PATCH", json!({})).expect_status(200);
    profile("PATCH", json!({"name": "x".repeat(151)})).expect_status(400);
    nothing_written(&server, before, "profile writes that change nothing");
    let before = mark(&server);
    server
        .post("/profile/install-token/")
        .token(&token)
        .send()
        .expect_status(200);
    recorded(
        &server,
        &token,
        before,
        about_alice(user(ALICE), "install_token.rotate", Some(LOCAL)),
    );

    // Logging out everywhere ends the token the log is read with: the
    // entry is read from the export, then with a new token.
    let before = mark(&server);
    server
        .post("/auth/logout-all/")
        .token(&token)
        .send()
        .expect_empty(204);
    let written = written_since(&server, before);
    assert_eq!(written.len(), 1, "{written:#?}");
    assert_records(
        &written[0],
        about_alice(user(ALICE), "auth.logout_all", Some(LOCAL)),
    );
    let fresh = server.login_token(ALICE, NEW_PASSWORD);
    let newest = results(&audit_query(&server, &fresh, "limit=2"));
    assert_eq!(newest[1], written[0]);
}

e2e!(a_password_reset_is_recorded_as_anonymous);
fn a_password_reset_is_recorded_as_anonymous() {
    let server = Server::start();
    let alice = server.account(ALICE);
    let before = mark(&server);
    let key = reset_mail_key(&server, ALICE);
    nothing_written(&server, before, "asking for a reset link");
    confirm_with(
        &server,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        NEW_PASSWORD,
    )
    .expect_status(400);
    confirm_with(&server, &key, "123").expect_status(400);
    nothing_written(&server, before, "resets refused");
    confirm_with(&server, &key, NEW_PASSWORD).expect_empty(204);
    let written = written_since(&server, before);
    assert_eq!(written.len(), 1, "{written:#?}");
    assert_records(
        &written[0],
        about_alice(bare("anonymous"), "password.reset", Some(LOCAL)),
    );
    // The reset ended Alice's tokens; a new one reads the entry.
    server
        .get(AUDIT)
        .token(&alice.token)
        .send()
        .expect_status(401);
    let fresh = server.login_token(ALICE, NEW_PASSWORD);
    let newest = results(&audit_query(&server, &fresh, "limit=2"));
    assert_eq!(newest[1], written[0]);
}

e2e!(a_forwarded_address_counts_only_behind_a_trusted_proxy);
fn a_forwarded_address_counts_only_behind_a_trusted_proxy() {
    const FORWARDED: &str = "198.51.100.7, 203.0.113.5";
    for (options, ip) in [(&[][..], LOCAL), (&["--trust-proxy"][..], "203.0.113.5")] {
        let server = Server::builder().args(options).start();
        let alice = server.account(ALICE);
        let before = mark(&server);
        server
            .post("/auth/")
            .header("X-Forwarded-For", FORWARDED)
            .json(&json!({"email": ALICE, "password": PASSWORD}))
            .send()
            .expect_status(201);
        recorded(
            &server,
            &alice.token,
            before,
            about_alice(user(ALICE), "auth.login", Some(ip)),
        );
        let before = mark(&server);
        server
            .patch("/profile/")
            .token(&alice.token)
            .header("X-Forwarded-For", FORWARDED)
            .json(&json!({"name": "Alice"}))
            .send()
            .expect_status(200);
        recorded(
            &server,
            &alice.token,
            before,
            json!({"actor": user(ALICE), "action": "profile.update", "target": ALICE_TARGET,
                "ip": ip, "detail": {"changed": ["name"]}}),
        );
    }
}
