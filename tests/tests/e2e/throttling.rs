//! Throttling (docs/api.md): the per-address budget of the unauthenticated write routes,
//! `X-Forwarded-For` behind a trusted proxy, and the options that configure them.

use crate::support::*;
use serde_json::json;
use std::time::Duration;

pub const WRONG_PASSWORD: &str = "Wrong-Lantern-42";
const NEW_PASSWORD: &str = "Velvet-Harbor-97";
/// Well-formed but never issued: 43 URL-safe characters.
pub const UNKNOWN_KEY: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// One request to each throttled POST route, each answering as it would unthrottled.
fn throttled_posts(server: &Server) -> Vec<(&'static str, Call)> {
    vec![
        (
            "/auth/",
            server
                .post("/auth/")
                .json(&json!({"email": "nobody@example.com", "password": WRONG_PASSWORD})),
        ),
        (
            "/register/",
            server
                .post("/register/")
                .json(&json!({"email": "not-an-email"})),
        ),
        (
            "/reset-password/",
            server
                .post("/reset-password/")
                .json(&json!({"email": "nobody@example.com"})),
        ),
        (
            "/reset-password/confirm/",
            server
                .post("/reset-password/confirm/")
                .json(&json!({"key": UNKNOWN_KEY, "new_password": NEW_PASSWORD})),
        ),
        (
            "/verify-email/",
            server
                .post("/verify-email/")
                .json(&json!({"key": UNKNOWN_KEY})),
        ),
        (
            "/verify-email/resend/",
            server
                .post("/verify-email/resend/")
                .json(&json!({"email": "nobody@example.com"})),
        ),
    ]
}

/// A harmless throttled request: a resend to an unknown address (204 unthrottled).
fn resend(server: &Server) -> Call {
    server
        .post("/verify-email/resend/")
        .json(&json!({"email": "nobody@example.com"}))
}

e2e!(the_write_routes_share_one_budget_per_address);
fn the_write_routes_share_one_budget_per_address() {
    let server = Server::builder()
        .args(&["--throttle-rate", "6/minute"])
        .start();
    // Six requests, one per POST route, each answered normally.
    for ((path, call), status) in throttled_posts(&server)
        .into_iter()
        .zip([400, 400, 204, 400, 400, 204])
    {
        let reply = call.send();
        assert_eq!(reply.status, status, "{path} within the budget\n{reply}");
    }
    // The budget is spent: the seventh request, on another route, is refused…
    let reply = server.get(&format!("/verify-email/{UNKNOWN_KEY}/")).send();
    let seconds = reply.expect_throttled();
    assert!(
        seconds <= 10,
        "6/minute refills one request every 10 s\n{reply}"
    );
    // …and so is every route.
    for (_path, call) in throttled_posts(&server) {
        let seconds = call.send().expect_throttled();
        assert!(seconds <= 10);
    }
}

e2e!(opening_verification_links_spends_the_same_budget);
fn opening_verification_links_spends_the_same_budget() {
    let server = Server::builder()
        .args(&["--throttle-rate", "3/minute"])
        .start();
    server.account("alice@example.com");
    for _ in 0..3 {
        server
            .get(&format!("/verify-email/{UNKNOWN_KEY}/"))
            .send()
            .expect_field_errors("key", &["Invalid or expired key."]);
    }
    server
        .login("alice@example.com", PASSWORD)
        .expect_throttled();
    server
        .get(&format!("/verify-email/{UNKNOWN_KEY}/"))
        .send()
        .expect_throttled();
}

e2e!(reads_and_authenticated_routes_are_never_throttled);
fn reads_and_authenticated_routes_are_never_throttled() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1/minute"])
        .start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    resend(&server).send().expect_empty(204);
    resend(&server).send().expect_throttled();
    for _ in 0..3 {
        server
            .get("/profile/")
            .token(&alice.token)
            .send()
            .expect_status(200);
        server
            .get("/devices/")
            .token(&alice.token)
            .send()
            .expect_status(200);
        server
            .get(&format!("/devices/{serial}/"))
            .token(&alice.token)
            .send()
            .expect_status(200);
        server
            .patch("/profile/")
            .token(&alice.token)
            .json(&json!({"name": "Alice"}))
            .send()
            .expect_status(200);
        for path in [
            "/auth/",
            "/register/",
            "/reset-password/",
            "/reset-password/confirm/",
            "/verify-email/",
            "/verify-email/resend/",
        ] {
            server.options(path).send().expect_status(200);
        }
        let reply = server
            .get(&format!("/reset-password/confirm/?key={UNKNOWN_KEY}"))
            .header("Accept", "text/html")
            .send();
        reply.expect_status(200);
        assert!(reply.body.contains("<form"), "{reply}");
    }
    // Still throttled where it should be.
    resend(&server).send().expect_throttled();
}

e2e!(throttling_is_on_by_default_at_20_requests_a_minute);
fn throttling_is_on_by_default_at_20_requests_a_minute() {
    let server = Server::start();
    let start = std::time::Instant::now();
    for i in 0..20 {
        let reply = resend(&server).send();
        assert_eq!(reply.status, 204, "request {} of 20\n{reply}", i + 1);
    }
    // One more request was earned every 3 s spent so far (none on a quick run).
    let earned = start.elapsed().as_secs() / 3;
    for _ in 0..earned {
        if resend(&server).send().status == 429 {
            break;
        }
    }
    let reply = resend(&server).send();
    let seconds = reply.expect_throttled();
    assert!(
        seconds <= 3,
        "20/minute refills one request every 3 s\n{reply}"
    );
}

e2e!(a_throttled_request_does_nothing);
fn a_throttled_request_does_nothing() {
    let server = Server::builder()
        .args(&["--throttle-rate", "2/minute", "--trust-proxy"])
        .start();
    let carol = server.account_with("carol@example.com", &[]);
    // Two keys, fetched from a client address of their own.
    let from = |call: Call, address: &str| call.header("X-Forwarded-For", address);
    from(server.post("/reset-password/"), "198.51.100.1")
        .json(&json!({"email": carol.email}))
        .send()
        .expect_empty(204);
    let reset_mail = server.assert_only_mail_to("carol@example.com");
    let reset = reset_key(&reset_mail);
    from(server.post("/verify-email/resend/"), "198.51.100.1")
        .json(&json!({"email": carol.email}))
        .send()
        .expect_empty(204);
    let verification = verification_key(&server.wait_for_new_mail(&[reset_mail]));

    // Another address spends its budget, then everything it sends is refused.
    let client = "198.51.100.2";
    for _ in 0..2 {
        from(resend(&server), client).send().expect_empty(204);
    }
    from(server.post("/register/"), client)
        .json(&json!({"email": "dave@example.com"}))
        .send()
        .expect_throttled();
    from(server.post("/reset-password/"), client)
        .json(&json!({"email": carol.email}))
        .send()
        .expect_throttled();
    from(server.post("/reset-password/confirm/"), client)
        .json(&json!({"key": reset, "new_password": NEW_PASSWORD}))
        .send()
        .expect_throttled();
    from(server.post("/verify-email/"), client)
        .json(&json!({"key": verification}))
        .send()
        .expect_throttled();
    from(
        server.get(&format!("/verify-email/{verification}/")),
        client,
    )
    .send()
    .expect_throttled();

    // None of it had an effect: no account, no mail, no password, no verification.
    server.assert_mail_count_stays(2);
    server.cli(&["user", "create", "--email", "dave@example.com"]);
    let profile = server.get("/profile/").token(&carol.token).send().json();
    assert_eq!(profile["email_verified"], false, "{profile}");
    // Both keys are unused: a fresh address can still use them.
    let fresh = "198.51.100.3";
    from(server.post("/reset-password/confirm/"), fresh)
        .json(&json!({"key": reset, "new_password": NEW_PASSWORD}))
        .send()
        .expect_empty(204);
    from(server.post("/auth/"), fresh)
        .json(&json!({"email": carol.email, "password": NEW_PASSWORD}))
        .send()
        .expect_status(201);
}

e2e!(the_budget_is_available_again_after_retry_after);
fn the_budget_is_available_again_after_retry_after() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1/second"])
        .start();
    resend(&server).send().expect_empty(204);
    let seconds = resend(&server).send().expect_throttled();
    assert_eq!(seconds, 1, "1/second refills within a second");
    std::thread::sleep(Duration::from_millis(1100));
    resend(&server).send().expect_empty(204);
    resend(&server).send().expect_throttled();
}

e2e!(the_rate_may_be_given_per_hour);
fn the_rate_may_be_given_per_hour() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1/hour"])
        .start();
    resend(&server).send().expect_empty(204);
    let reply = resend(&server).send();
    let seconds = reply.expect_throttled();
    assert!(
        (3500..=3600).contains(&seconds),
        "1/hour: the next request in about an hour\n{reply}"
    );
}

e2e!(x_forwarded_for_is_ignored_unless_the_proxy_is_trusted);
fn x_forwarded_for_is_ignored_unless_the_proxy_is_trusted() {
    let server = Server::builder()
        .args(&["--throttle-rate", "2/minute"])
        .start();
    for address in ["203.0.113.1", "203.0.113.2"] {
        resend(&server)
            .header("X-Forwarded-For", address)
            .send()
            .expect_empty(204);
    }
    // Every request comes from 127.0.0.1, whatever the header says.
    resend(&server)
        .header("X-Forwarded-For", "203.0.113.3")
        .send()
        .expect_throttled();
    resend(&server).send().expect_throttled();
}

e2e!(behind_a_trusted_proxy_the_last_forwarded_address_is_the_client);
fn behind_a_trusted_proxy_the_last_forwarded_address_is_the_client() {
    let server = Server::builder()
        .args(&["--throttle-rate", "2/minute", "--trust-proxy"])
        .start();
    let from = |address: &str| resend(&server).header("X-Forwarded-For", address).send();
    from("203.0.113.1").expect_empty(204);
    from("192.0.2.7, 203.0.113.1").expect_empty(204);
    from("203.0.113.1").expect_throttled();
    // Only the last entry counts: the first one is whatever the client claimed.
    from("203.0.113.2, 203.0.113.1").expect_throttled();
    from("203.0.113.1, 203.0.113.2").expect_empty(204);
    from("203.0.113.2").expect_empty(204);
    from("203.0.113.2").expect_throttled();
    // Another client still has its whole budget.
    from("2001:db8::1").expect_empty(204);
    from("2001:db8::1").expect_empty(204);
    from("2001:db8::1").expect_throttled();
}

e2e!(serve_refuses_invalid_throttle_options);
fn serve_refuses_invalid_throttle_options() {
    let db = Db::new();
    let mail_dir = db.dir().join("mail");
    let mail_dir = mail_dir.to_str().expect("a UTF-8 path");
    for options in [
        &["--throttle-rate", "0/minute"][..],
        &["--throttle-rate", "abc"],
        &["--throttle-rate", "20/fortnight"],
        &["--throttle-rate", "-1/minute"],
        &["--throttle-rate", "/minute"],
        &["--throttle", "maybe"],
        &["--login-max-failures", "0"],
        &["--login-max-failures", "many"],
        &["--login-lockout", "0"],
    ] {
        let mut args = vec!["serve", "--bind", "127.0.0.1:0", "--mail-dir", mail_dir];
        args.extend_from_slice(options);
        let output = db.run_for(&args, Duration::from_secs(15));
        assert_refused(&output, &args.join(" "));
    }
}
