//! The per-account lockout of POST /auth/ after failed logins, and `--throttle off` (docs/api.md).

use crate::support::*;
use crate::throttling::{UNKNOWN_KEY, WRONG_PASSWORD};
use serde_json::json;
use std::time::Duration;

/// A server whose per-address limit is out of the way, so that only the
/// per-account lockout can refuse a login; requests name their client address.
fn lockout_server(extra: &[&str]) -> Server {
    Server::builder()
        .args(&["--trust-proxy", "--throttle-rate", "1000/minute"])
        .args(extra)
        .start()
}

/// `POST /auth/` from client address `203.0.113.<n>`.
fn login_from(server: &Server, n: u8, email: &str, password: &str) -> Reply {
    server
        .post("/auth/")
        .header("X-Forwarded-For", &format!("203.0.113.{n}"))
        .json(&json!({"email": email, "password": password}))
        .send()
}

#[track_caller]
fn assert_bad_credentials(reply: &Reply) {
    reply.expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
}

e2e!(failed_logins_lock_the_address_even_for_the_right_password);
fn failed_logins_lock_the_address_even_for_the_right_password() {
    let server = lockout_server(&["--login-max-failures", "3"]);
    let alice = server.account("alice@example.com");
    server.account("bob@example.com");
    for n in 1..=3 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    for n in 4..=6 {
        let reply = login_from(&server, n, &alice.email, PASSWORD);
        let seconds = reply.expect_throttled();
        assert!(
            (800..=900).contains(&seconds),
            "locked for about the default 900 s\n{reply}"
        );
    }
    login_from(&server, 7, "ALICE@Example.COM", PASSWORD).expect_throttled();
    // Other accounts are unaffected, and so are the locked account's tokens.
    new_token(&login_from(&server, 8, "bob@example.com", PASSWORD));
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(the_default_lockout_is_five_failures_for_900_seconds);
fn the_default_lockout_is_five_failures_for_900_seconds() {
    let server = lockout_server(&[]);
    let alice = server.account("alice@example.com");
    for n in 1..=5 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    let reply = login_from(&server, 6, &alice.email, PASSWORD);
    let seconds = reply.expect_throttled();
    assert!(
        (800..=900).contains(&seconds),
        "locked for about 900 s\n{reply}"
    );
}

e2e!(the_lockout_length_is_configurable);
fn the_lockout_length_is_configurable() {
    let server = lockout_server(&["--login-max-failures", "2", "--login-lockout", "120"]);
    let alice = server.account("alice@example.com");
    for n in 1..=2 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    let reply = login_from(&server, 3, &alice.email, PASSWORD);
    let seconds = reply.expect_throttled();
    assert!(
        (100..=120).contains(&seconds),
        "locked for about 120 s\n{reply}"
    );
}

e2e!(failures_count_whatever_the_letter_case_of_the_address);
fn failures_count_whatever_the_letter_case_of_the_address() {
    let server = lockout_server(&["--login-max-failures", "3"]);
    server.account("alice@example.com");
    for (n, email) in [
        (1, "Alice@example.com"),
        (2, "ALICE@EXAMPLE.COM"),
        (3, "alice@example.com"),
    ] {
        assert_bad_credentials(&login_from(&server, n, email, WRONG_PASSWORD));
    }
    login_from(&server, 4, "alice@example.com", PASSWORD).expect_throttled();
    login_from(&server, 5, "aLiCe@ExAmPlE.cOm", PASSWORD).expect_throttled();
}

e2e!(unknown_addresses_lock_the_same_way);
fn unknown_addresses_lock_the_same_way() {
    let server = lockout_server(&["--login-max-failures", "3"]);
    server.account("alice@example.com");
    for email in ["alice@example.com", "nobody@example.com"] {
        for n in 1..=3 {
            assert_bad_credentials(&login_from(&server, n, email, WRONG_PASSWORD));
        }
        let seconds = login_from(&server, 4, email, PASSWORD).expect_throttled();
        assert!((800..=900).contains(&seconds), "{email}: {seconds}");
        login_from(&server, 5, email, WRONG_PASSWORD).expect_throttled();
    }
}

e2e!(a_successful_login_resets_the_failure_count);
fn a_successful_login_resets_the_failure_count() {
    let server = lockout_server(&["--login-max-failures", "3"]);
    let alice = server.account("alice@example.com");
    let mut n = 0;
    let mut attempt = |password: &str| {
        n += 1;
        login_from(&server, n, &alice.email, password)
    };
    for _ in 0..3 {
        assert_bad_credentials(&attempt(WRONG_PASSWORD));
        assert_bad_credentials(&attempt(WRONG_PASSWORD));
        new_token(&attempt(PASSWORD));
    }
    // The limit itself still holds.
    for _ in 0..3 {
        assert_bad_credentials(&attempt(WRONG_PASSWORD));
    }
    attempt(PASSWORD).expect_throttled();
}

e2e!(a_lockout_ends_after_its_time);
fn a_lockout_ends_after_its_time() {
    // Long enough that a busy machine's slow hashing cannot end it early:
    // the test moves the clock past it.
    let server = lockout_server(&["--login-max-failures", "2", "--login-lockout", "120"]);
    let alice = server.account("alice@example.com");
    for n in 1..=2 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    let seconds = login_from(&server, 3, &alice.email, PASSWORD).expect_throttled();
    assert!(
        (60..=120).contains(&seconds),
        "a 120 s lockout says so: {seconds}"
    );
    server.advance(Duration::from_millis(seconds * 1000 + 500));
    new_token(&login_from(&server, 4, &alice.email, PASSWORD));
}

e2e!(throttle_off_disables_every_limit);
fn throttle_off_disables_every_limit() {
    let server = Server::builder()
        .args(&["--login-max-failures", "2"])
        .throttle_off()
        .start();
    let alice = server.account("alice@example.com");
    for _ in 0..30 {
        assert_bad_credentials(&server.login(&alice.email, WRONG_PASSWORD));
    }
    server.login_token(&alice.email, PASSWORD);
    for i in 0..30 {
        server.register(&format!("user{i}@example.com"));
    }
    for _ in 0..5 {
        server
            .get(&format!("/verify-email/{UNKNOWN_KEY}/"))
            .send()
            .expect_status(400);
    }
}

e2e!(a_completed_reset_lifts_the_lock);
/// Whoever proved the mailbox may log in at once (docs/security.md).
fn a_completed_reset_lifts_the_lock() {
    let server = lockout_server(&["--login-max-failures", "2"]);
    let alice = server.account("alice@example.com");
    for n in 1..=2 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    login_from(&server, 3, &alice.email, PASSWORD).expect_throttled();
    let key = crate::password_reset::reset_mail_key(&server, &alice.email);
    crate::password_reset::confirm_with(&server, &key, "Velvet-Harbor-97").expect_empty(204);
    new_token(&login_from(&server, 4, &alice.email, "Velvet-Harbor-97"));
    // The count starts again: two more failures lock it anew.
    for n in 5..=6 {
        assert_bad_credentials(&login_from(&server, n, &alice.email, WRONG_PASSWORD));
    }
    login_from(&server, 7, &alice.email, "Velvet-Harbor-97").expect_throttled();
}
