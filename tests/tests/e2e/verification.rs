//! E-mail verification (docs/api.md, Accounts) — the e-mailed link (GET /verify-email/{key}/,
//! as JSON or as an HTML page), POST /verify-email/ and POST /verify-email/resend/.

use crate::support::*;
use serde_json::{Value, json};

const VERIFIED: &str = "E-mail address verified.";
const INVALID_KEY: &str = "Invalid or expired key.";
const INVALID_EMAIL: &str = "Enter a valid email address.";
/// Well-formed but never issued: 43 URL-safe characters.
const UNKNOWN_KEY: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// Registers `email` and returns its token and the key of its verification mail.
fn register_with_key(server: &Server, email: &str) -> (String, String) {
    let earlier = server.mails();
    let token = server.register(email);
    let mail = server.wait_for_new_mail(&earlier);
    assert!(
        mail.contains(email),
        "the mail should go to {email}:\n{mail}"
    );
    (token, verification_key(&mail))
}

fn email_verified(server: &Server, token: &str) -> Value {
    let reply = server.get("/profile/").token(token).send();
    reply.expect_status(200);
    reply.json()["email_verified"].clone()
}

fn post_key(server: &Server, body: Value) -> Reply {
    server.post("/verify-email/").json(&body).send()
}

fn resend(server: &Server, email: &str) -> Reply {
    server
        .post("/verify-email/resend/")
        .json(&json!({ "email": email }))
        .send()
}

e2e!(the_mailed_link_verifies_the_address_and_works_again);
fn the_mailed_link_verifies_the_address_and_works_again() {
    let server = Server::start();
    let (token, key) = register_with_key(&server, "dave@example.com");
    assert_eq!(email_verified(&server, &token), false);
    let link = format!("/verify-email/{key}/");
    server.get(&link).send().expect_detail(200, VERIFIED);
    assert_eq!(email_verified(&server, &token), true);
    // A used key that is still valid answers the same, by GET and by POST.
    server.get(&link).send().expect_detail(200, VERIFIED);
    post_key(&server, json!({ "key": key })).expect_detail(200, VERIFIED);
    assert_eq!(email_verified(&server, &token), true);
}

e2e!(the_log_never_shows_the_key_of_a_link);
fn the_log_never_shows_the_key_of_a_link() {
    let server = Server::builder().process().start();
    let (_, key) = register_with_key(&server, "dora@example.com");
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, VERIFIED);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !server.stderr().contains("/verify-email/{key}/") {
        assert!(
            std::time::Instant::now() < deadline,
            "the request is logged by its route:\n{}",
            server.stderr()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!server.stderr().contains(&key), "{}", server.stderr());
}

e2e!(posting_the_key_verifies_the_address);
fn posting_the_key_verifies_the_address() {
    let server = Server::start();
    let (token, key) = register_with_key(&server, "dave@example.com");
    post_key(&server, json!({ "key": key })).expect_detail(200, VERIFIED);
    assert_eq!(email_verified(&server, &token), true);
    post_key(&server, json!({ "key": key })).expect_detail(200, VERIFIED);
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, VERIFIED);
}

e2e!(a_key_verifies_only_its_own_account);
fn a_key_verifies_only_its_own_account() {
    let server = Server::start();
    let (dave, dave_key) = register_with_key(&server, "dave@example.com");
    let (erin, _erin_key) = register_with_key(&server, "erin@example.com");
    server
        .get(&format!("/verify-email/{dave_key}/"))
        .send()
        .expect_detail(200, VERIFIED);
    assert_eq!(email_verified(&server, &dave), true);
    assert_eq!(email_verified(&server, &erin), false);
}

e2e!(an_unknown_key_is_refused);
fn an_unknown_key_is_refused() {
    let server = Server::start();
    let (token, key) = register_with_key(&server, "dave@example.com");
    let mut altered = key.clone();
    let last = altered.pop().expect("a key is not empty");
    altered.push(if last == 'A' { 'B' } else { 'A' });
    for bad in [UNKNOWN_KEY, altered.as_str(), "short", &key.to_uppercase()] {
        if bad == key {
            continue;
        }
        server
            .get(&format!("/verify-email/{bad}/"))
            .send()
            .expect_field_errors("key", &[INVALID_KEY]);
        post_key(&server, json!({ "key": bad })).expect_field_errors("key", &[INVALID_KEY]);
    }
    // Nothing above verified the account.
    assert_eq!(email_verified(&server, &token), false);
}

e2e!(posting_needs_a_key);
fn posting_needs_a_key() {
    let server = Server::start();
    post_key(&server, json!({})).expect_field_errors("key", &[REQUIRED]);
    server
        .post("/verify-email/")
        .send()
        .expect_field_errors("key", &[REQUIRED]);
    post_key(&server, json!({"key": null}))
        .expect_field_errors("key", &["This field may not be null."]);
    post_key(&server, json!({"key": ""}))
        .expect_field_errors("key", &["This field may not be blank."]);
    post_key(&server, json!({"key": ["abc"]})).expect_field_errors("key", &["Not a valid string."]);
}

e2e!(a_reset_key_is_no_verification_key);
fn a_reset_key_is_no_verification_key() {
    let server = Server::start();
    let carol = server.account_with("carol@example.com", &[]);
    server
        .post("/reset-password/")
        .json(&json!({"email": carol.email}))
        .send()
        .expect_empty(204);
    let key = reset_key(&server.assert_only_mail_to("carol@example.com"));
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_field_errors("key", &[INVALID_KEY]);
    post_key(&server, json!({ "key": key })).expect_field_errors("key", &[INVALID_KEY]);
    assert_eq!(email_verified(&server, &carol.token), false);
}

e2e!(a_browser_opening_the_link_gets_a_locked_down_html_page);
fn a_browser_opening_the_link_gets_a_locked_down_html_page() {
    let server = Server::start();
    let (token, key) = register_with_key(&server, "dave@example.com");
    for (path, status) in [
        (format!("/verify-email/{UNKNOWN_KEY}/"), 400),
        (format!("/verify-email/{key}/"), 200),
    ] {
        let reply = server
            .get(&path)
            .header(
                "Accept",
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            )
            .send();
        reply.expect_status(status);
        let content_type = reply.header("content-type").unwrap_or_default();
        assert!(content_type.starts_with("text/html"), "{reply}");
        assert!(
            reply.body.to_lowercase().contains("<html"),
            "an HTML document\n{reply}"
        );
        let policy = reply
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("a Content-Security-Policy\n{reply}"));
        assert!(policy.contains("default-src 'none'"), "{reply}");
        assert_eq!(
            reply.header("referrer-policy"),
            Some("no-referrer"),
            "{reply}"
        );
    }
    assert_eq!(email_verified(&server, &token), true);
}

e2e!(the_link_answers_json_unless_html_is_asked_for);
fn the_link_answers_json_unless_html_is_asked_for() {
    let server = Server::start();
    let (_token, key) = register_with_key(&server, "dave@example.com");
    let reply = server
        .get(&format!("/verify-email/{key}/"))
        .header("Accept", "application/json")
        .send();
    reply.expect_detail(200, VERIFIED);
}

e2e!(resending_mails_a_fresh_link_and_the_old_one_keeps_working);
fn resending_mails_a_fresh_link_and_the_old_one_keeps_working() {
    let server = Server::start();
    let (token, first) = register_with_key(&server, "dave@example.com");
    let earlier = server.mails();
    resend(&server, "dave@example.com").expect_empty(204);
    let mail = server.wait_for_new_mail(&earlier);
    assert!(mail.contains("dave@example.com"), "{mail}");
    let second = verification_key(&mail);
    assert_ne!(first, second, "a resend makes a new key");
    server
        .get(&format!("/verify-email/{first}/"))
        .send()
        .expect_detail(200, VERIFIED);
    assert_eq!(email_verified(&server, &token), true);
    server
        .get(&format!("/verify-email/{second}/"))
        .send()
        .expect_detail(200, VERIFIED);
}

e2e!(resending_ignores_the_letter_case_of_the_address);
fn resending_ignores_the_letter_case_of_the_address() {
    let server = Server::start();
    server.account_with("carol@example.com", &[]);
    resend(&server, "CAROL@Example.COM").expect_empty(204);
    let mail = server.assert_only_mail_to("carol@example.com");
    let key = verification_key(&mail);
    server
        .get(&format!("/verify-email/{key}/"))
        .send()
        .expect_detail(200, VERIFIED);
    server.login_token("carol@example.com", PASSWORD);
}

e2e!(resending_to_a_verified_or_unknown_address_is_204_without_mail);
fn resending_to_a_verified_or_unknown_address_is_204_without_mail() {
    let server = Server::start();
    server.account("alice@example.com");
    resend(&server, "alice@example.com").expect_empty(204);
    resend(&server, "nobody@example.com").expect_empty(204);
    // An unverified account afterwards: its mail must be the only one.
    server.account_with("carol@example.com", &[]);
    resend(&server, "carol@example.com").expect_empty(204);
    server.assert_only_mail_to("carol@example.com");
}

e2e!(resending_to_an_address_verified_by_its_link_sends_nothing);
fn resending_to_an_address_verified_by_its_link_sends_nothing() {
    let server = Server::start();
    let (_token, key) = register_with_key(&server, "dave@example.com");
    post_key(&server, json!({ "key": key })).expect_detail(200, VERIFIED);
    resend(&server, "dave@example.com").expect_empty(204);
    server.assert_mail_count_stays(1);
}

e2e!(resending_needs_a_well_formed_address);
fn resending_needs_a_well_formed_address() {
    let server = Server::start();
    server
        .post("/verify-email/resend/")
        .json(&json!({}))
        .send()
        .expect_field_errors("email", &[REQUIRED]);
    for email in ["dave", "dave@", "dave@example", "@example.com"] {
        resend(&server, email).expect_field_errors("email", &[INVALID_EMAIL]);
    }
    server.assert_mail_count_stays(0);
}

e2e!(resend_is_never_taken_for_a_key);
fn resend_is_never_taken_for_a_key() {
    let server = Server::start();
    server.register("dave@example.com");
    let reply = server.get("/verify-email/resend/").send();
    reply
        .expect_detail(405, "Method \"GET\" not allowed.")
        .expect_allow("POST, OPTIONS");
    server
        .options("/verify-email/resend/")
        .send()
        .expect_status(200)
        .expect_allow("POST, OPTIONS");
}

e2e!(the_verification_routes_have_their_allow_headers_and_options);
fn the_verification_routes_have_their_allow_headers_and_options() {
    let server = Server::start();
    let email = json!({"type": "email", "required": true, "read_only": false, "label": "Email"});
    for (path, allow) in [
        ("/verify-email/", "POST, OPTIONS"),
        ("/verify-email/resend/", "POST, OPTIONS"),
        (
            &format!("/verify-email/{UNKNOWN_KEY}/")[..],
            "GET, HEAD, OPTIONS",
        ),
    ] {
        let reply = server.options(path).send();
        reply.expect_status(200).expect_allow(allow);
        let actions = &reply.json()["actions"];
        match allow {
            "POST, OPTIONS" => assert_eq!(keys(actions), ["POST"], "{reply}"),
            _ => assert_eq!(actions, &json!({}), "{reply}"),
        }
    }
    let reply = server.options("/verify-email/resend/").send();
    let mut meta = reply.json()["actions"]["POST"]["email"].clone();
    // OPTIONS metadata: `max_length` too, where the field is bounded.
    if let Some(max) = meta
        .as_object_mut()
        .and_then(|meta| meta.remove("max_length"))
    {
        assert!(max.is_u64(), "max_length should be an integer\n{reply}");
    }
    assert_eq!(meta, email, "{reply}");
    let reply = server.options("/verify-email/").send();
    let key = &reply.json()["actions"]["POST"]["key"];
    assert_eq!(key["type"], "string", "{reply}");
    assert_eq!(key["required"], true, "{reply}");
    assert_eq!(key["read_only"], false, "{reply}");
    assert!(key["label"].is_string(), "{reply}");
    // The wrong method on each.
    server
        .put("/verify-email/")
        .send()
        .expect_detail(405, "Method \"PUT\" not allowed.")
        .expect_allow("POST, OPTIONS");
    server
        .post(&format!("/verify-email/{UNKNOWN_KEY}/"))
        .send()
        .expect_detail(405, "Method \"POST\" not allowed.")
        .expect_allow("GET, HEAD, OPTIONS");
}

e2e!(verification_paths_without_the_trailing_slash_redirect);
fn verification_paths_without_the_trailing_slash_redirect() {
    let server = Server::start();
    for (bare, target) in [
        ("/verify-email/abc", "/verify-email/abc/"),
        ("/verify-email", "/verify-email/"),
        ("/verify-email/resend", "/verify-email/resend/"),
    ] {
        for call in [server.get(bare), server.post(bare)] {
            let reply = call.send();
            reply.expect_status(301);
            assert_eq!(reply.header("location"), Some(target), "{reply}");
        }
    }
    server
        .get("/verify-email/abc/def/")
        .send()
        .expect_detail(404, NOT_FOUND);
}

e2e!(an_invalid_token_is_refused_on_the_verification_routes);
fn an_invalid_token_is_refused_on_the_verification_routes() {
    let server = Server::start();
    let (token, key) = register_with_key(&server, "dave@example.com");
    let bad = "0123456789abcdef0123456789abcdef01234567";
    server
        .post("/verify-email/")
        .token(bad)
        .json(&json!({ "key": key }))
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .post("/verify-email/resend/")
        .token(bad)
        .json(&json!({"email": "dave@example.com"}))
        .send()
        .expect_401(INVALID_TOKEN);
    assert_eq!(email_verified(&server, &token), false);
    server.assert_mail_count_stays(1);
}
