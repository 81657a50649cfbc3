//! Console sessions over plain HTTP (docs/console.md, docs/api.md, docs/security.md): 14 days
//! idle, "Log out" and "Log out everywhere", the lockout and the per-address
//! throttle the sign-in shares with `POST /auth/`, the API ignoring the
//! console's cookie, registration, and the mailed links opened by a browser.

use crate::support::*;
use serde_json::json;
use std::time::Duration;

const DAY: Duration = Duration::from_secs(24 * 3600);
const THROTTLED: &str = "Request was throttled. Expected available in ";

/// Whether the jar's session opens the fleet (200) rather than redirecting to sign in.
fn signed_in(browser: &mut Console<'_>) -> bool {
    let reply = browser.get("/console/");
    match reply.status {
        200 => true,
        302 | 303 if location_path(&reply) == "/console/login/" => false,
        _ => panic!("/console/ should answer 200 or redirect to sign in\n{reply}"),
    }
}

/// Posts the form of `button` on `page` and expects a redirect to `to`.
#[track_caller]
fn submit_to(
    browser: &mut Console<'_>,
    page: &str,
    button: &str,
    filled: &[(&str, &str)],
    to: &str,
) {
    let reply = browser.submit(page, button, filled);
    assert!(
        matches!(reply.status, 302 | 303),
        "{button} should redirect\n{reply}"
    );
    assert_eq!(location_path(&reply), to, "{reply}");
}

e2e!(a_session_ends_after_14_days_idle_and_lives_while_used);
fn a_session_ends_after_14_days_idle_and_lives_while_used() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut used = Console::new(&server);
    used.sign_in(&alice.email, PASSWORD);
    let mut idle = Console::new(&server);
    idle.sign_in(&alice.email, PASSWORD);
    for _ in 0..2 {
        server.advance(13 * DAY);
        assert!(
            signed_in(&mut used),
            "a session used every 13 days lives on"
        );
    }
    assert!(!signed_in(&mut idle), "a session idle for 26 days ended");
    server.advance(14 * DAY + Duration::from_secs(60));
    assert!(!signed_in(&mut used), "a session idle for 14 days ended");
}

e2e!(log_out_ends_the_session_on_the_server);
fn log_out_ends_the_session_on_the_server() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let copy = browser.cookies.clone();
    submit_to(&mut browser, "/console/", "Log out", &[], "/console/login/");
    assert!(!signed_in(&mut browser));
    // The old cookie, replayed, is refused: the session ended on the server.
    let mut replay = Console::new(&server);
    replay.cookies = copy;
    assert!(
        !signed_in(&mut replay),
        "a cookie of an ended session still works"
    );
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(log_out_everywhere_ends_every_api_token_and_console_session);
fn log_out_everywhere_ends_every_api_token_and_console_session() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let other_token = server.login_token(&alice.email, PASSWORD);
    let mut here = Console::new(&server);
    here.sign_in(&alice.email, PASSWORD);
    let mut there = Console::new(&server);
    there.sign_in(&alice.email, PASSWORD);
    let mut bobs = Console::new(&server);
    bobs.sign_in(&bob.email, PASSWORD);
    let reply = here.submit("/console/account/", "Log out everywhere", &[]);
    assert!(matches!(reply.status, 302 | 303), "{reply}");
    for token in [&alice.token, &other_token] {
        server
            .get("/profile/")
            .token(token)
            .send()
            .expect_401(INVALID_TOKEN);
    }
    assert!(!signed_in(&mut here), "the session that asked ended");
    assert!(!signed_in(&mut there), "the account's other session ended");
    assert!(signed_in(&mut bobs), "another account's session lives on");
    server
        .get("/profile/")
        .token(&bob.token)
        .send()
        .expect_status(200);
}

e2e!(the_api_never_reads_the_console_cookie);
fn the_api_never_reads_the_console_cookie() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let cookie = browser.cookie_header();
    server
        .get("/devices/")
        .header("Cookie", &cookie)
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .get("/profile/")
        .header("Cookie", &cookie)
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .post(&format!("/devices/{serial}/reboot/"))
        .header("Cookie", &cookie)
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .post("/auth/logout-all/")
        .header("Cookie", &cookie)
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .get(&format!("/devices/{serial}/commands/"))
        .token(&alice.token)
        .send()
        .expect(200, json!([]));
    assert!(signed_in(&mut browser));
}

e2e!(api_login_failures_lock_the_console_sign_in_and_back);
fn api_login_failures_lock_the_console_sign_in_and_back() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for _ in 0..5 {
        server
            .login(&alice.email, "not-her-password")
            .expect_status(400);
    }
    let mut browser = Console::new(&server);
    let reply = browser.sign_in_attempt(&alice.email, PASSWORD);
    let text = text_of(&reply.body);
    assert!(
        text.contains(THROTTLED) && text.contains(" seconds."),
        "the lock shows\n{reply}"
    );
    assert!(
        !signed_in(&mut browser),
        "a locked account is not signed in"
    );

    let bob = server.account("bob@example.com");
    for _ in 0..5 {
        let reply = browser.sign_in_attempt(&bob.email, "not-his-password");
        assert!(text_of(&reply.body).contains(BAD_CREDENTIALS), "{reply}");
    }
    server.login(&bob.email, PASSWORD).expect_throttled();
}

e2e!(console_sign_ins_count_toward_the_per_address_throttle: sqlite);
fn console_sign_ins_count_toward_the_per_address_throttle() {
    // 5 an hour: no token comes back while the test runs, however slow.
    let server = Server::builder()
        .args(&["--throttle-rate", "5/hour"])
        .start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    // Unknown addresses, so no lockout.
    for n in 0..5 {
        let reply = browser.sign_in_attempt(&format!("nobody{n}@example.com"), PASSWORD);
        assert!(
            text_of(&reply.body).contains(BAD_CREDENTIALS),
            "attempt {n}\n{reply}"
        );
    }
    server.login(&alice.email, PASSWORD).expect_throttled();
    let reply = browser.sign_in_attempt(&alice.email, PASSWORD);
    assert!(text_of(&reply.body).contains(THROTTLED), "{reply}");
}

e2e!(registering_in_the_console_signs_in_and_asks_to_verify);
fn registering_in_the_console_signs_in_and_asks_to_verify() {
    let server = Server::start();
    let mut browser = Console::new(&server);
    submit_to(
        &mut browser,
        "/console/register/",
        "Create account",
        &[("E-mail", "dana@example.com")],
        "/console/",
    );
    let fleet = browser.get("/console/");
    assert!(
        text_of(&fleet.body).contains("Verify your e-mail address"),
        "{fleet}"
    );
    let mail = server.assert_only_mail_to("dana@example.com");
    let reply = browser.submit("/console/", "Send the link again", &[]);
    assert!(reply.status < 400, "{reply}");
    server.wait_for_mails(2);
    // The first link still verifies; the account page then has no Current password.
    let key = verification_key(&mail);
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, "E-mail address verified.");
    let account = browser.get("/console/account/");
    let form = form_with_button(&account.body, "/console/account/", "Change password")
        .unwrap_or_else(|| panic!("no Change password form\n{account}"));
    let labels: Vec<&str> = form.fields.iter().map(|(_, _, _, l)| l.as_str()).collect();
    assert!(
        labels.contains(&"New password") && !labels.contains(&"Current password"),
        "{labels:?}"
    );
    let reply = browser.submit(
        "/console/account/",
        "Change password",
        &[("New password", PASSWORD)],
    );
    assert!(reply.status < 400, "{reply}");
    server.login_token("dana@example.com", PASSWORD);
}

e2e!(mailed_links_open_console_pages_in_a_browser_and_json_elsewhere);
fn mailed_links_open_console_pages_in_a_browser_and_json_elsewhere() {
    let server = Server::start();
    server.register("erin@example.com");
    let key = verification_key(&server.assert_only_mail_to("erin@example.com"));
    let mut browser = Console::new(&server);
    let page = browser.get(&format!("/verify-email/{key}/"));
    page.expect_status(200);
    assert!(
        page.header("content-type")
            .unwrap_or_default()
            .starts_with("text/html"),
        "{page}"
    );
    assert!(
        text_of(&page.body).contains("E-mail address verified."),
        "{page}"
    );
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, "E-mail address verified.");
    let bad = browser.get("/verify-email/not-a-key-not-a-key-not-a-key-0000/");
    assert!(
        bad.header("content-type")
            .unwrap_or_default()
            .starts_with("text/html"),
        "{bad}"
    );
    assert!(
        text_of(&bad.body).contains("Invalid or expired key."),
        "{bad}"
    );

    let frank = server.account("frank@example.com");
    let earlier = server.mails();
    server
        .post("/reset-password/")
        .json(&json!({"email": frank.email}))
        .send()
        .expect_empty(204);
    let link = link_in(
        &server.wait_for_new_mail(&earlier),
        "/reset-password/confirm/?key=",
    );
    let path = &link[link.find("/reset-password/").expect("a path")..];
    let page = browser.get(path);
    page.expect_status(200);
    assert!(
        page.header("content-type")
            .unwrap_or_default()
            .starts_with("text/html"),
        "{page}"
    );
    let new_password = "Brisk-Meadow-Harbour-77";
    submit_to(
        &mut browser,
        path,
        "Set password",
        &[("New password", new_password)],
        "/console/login/",
    );
    assert!(
        !signed_in(&mut browser),
        "setting a password does not sign in"
    );
    server.login_token(&frank.email, new_password);
    server
        .get("/profile/")
        .token(&frank.token)
        .send()
        .expect_401(INVALID_TOKEN);
}

e2e!(a_password_reset_ends_every_console_session_of_the_account);
fn a_password_reset_ends_every_console_session_of_the_account() {
    // §6.2: whoever proves the mailbox must be able to end every session of
    // whoever held the account; the console's sessions are sessions too.
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut intruder = Console::new(&server);
    intruder.sign_in(&alice.email, PASSWORD);
    server
        .post("/reset-password/")
        .json(&json!({"email": alice.email}))
        .send()
        .expect_empty(204);
    let key = reset_key(&server.assert_only_mail_to(&alice.email));
    server
        .post("/reset-password/confirm/")
        .json(&json!({"key": key, "new_password": "Brisk-Meadow-Harbour-77"}))
        .send()
        .expect_empty(204);
    assert!(
        !signed_in(&mut intruder),
        "a console session outlived the account's recovery"
    );
}
