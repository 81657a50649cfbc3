//! The profile (docs/api.md, Profile): GET, PUT and PATCH /profile/.

use crate::support::*;
use reqwest::Method;
use serde_json::json;

fn install_command(base: &str, install_token: &str) -> String {
    format!("devmgr-agent install --server {base} --token {install_token}")
}

e2e!(the_profile_has_exactly_the_six_fields);
fn the_profile_has_exactly_the_six_fields() {
    let server = Server::start();
    let alice = server.account_with(
        "alice@example.com",
        &["--verified", "--name", "Alice Smith"],
    );
    let body = profile(&server, &alice.token);
    assert_eq!(
        keys(&body),
        [
            "email",
            "email_verified",
            "has_usable_password",
            "install_command",
            "install_token",
            "name"
        ],
        "{body:#}"
    );
    assert!(is_install_token(&alice.install_token), "{alice:?}");
    assert_eq!(
        body,
        json!({
            "email": "alice@example.com",
            "email_verified": true,
            "has_usable_password": true,
            "install_command": install_command(server.base(), &alice.install_token),
            "install_token": alice.install_token,
            "name": "Alice Smith",
        })
    );
}

e2e!(install_tokens_differ_between_accounts);
fn install_tokens_differ_between_accounts() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    assert_ne!(alice.install_token, bob.install_token);
    let bob_profile = profile(&server, &bob.token);
    assert_eq!(bob_profile["install_token"], bob.install_token.as_str());
    assert_eq!(bob_profile["email"], "bob@example.com");
    assert_eq!(bob_profile["name"], "");
}

e2e!(the_install_command_uses_the_public_url_when_configured);
fn the_install_command_uses_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let alice = server.account("alice@example.com");
    let body = profile(&server, &alice.token);
    assert_eq!(
        body["install_command"],
        install_command("https://devmgr.example.net", &alice.install_token)
    );
}

e2e!(without_a_public_url_the_install_command_follows_the_host_header);
fn without_a_public_url_the_install_command_follows_the_host_header() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let reply = server
        .get("/profile/")
        .token(&alice.token)
        .header("Host", "devmgr.test:8123")
        .send();
    reply.expect_status(200);
    assert_eq!(
        reply.json()["install_command"],
        install_command("http://devmgr.test:8123", &alice.install_token),
        "{reply}"
    );
}

e2e!(put_and_patch_change_the_name);
fn put_and_patch_change_the_name() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for (method, name) in [
        (Method::PUT, "Alice Smith"),
        (Method::PATCH, "Alice Jones"),
        (Method::PUT, ""),
    ] {
        let reply = server
            .call(method, "/profile/")
            .token(&alice.token)
            .json(&json!({"name": name}))
            .send();
        reply.expect_status(200);
        assert_eq!(reply.json()["name"], name, "{reply}");
        assert_eq!(reply.json(), profile(&server, &alice.token), "{reply}");
    }
}

e2e!(fields_other_than_the_name_are_ignored);
fn fields_other_than_the_name_are_ignored() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let before = profile(&server, &alice.token);
    let reply = server
        .put("/profile/")
        .token(&alice.token)
        .json(&json!({
            "name": "Mallory",
            "email": "mallory@example.com",
            "email_verified": false,
            "has_usable_password": false,
            "install_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "install_command": "rm -rf /",
            "is_staff": true,
        }))
        .send();
    let mut expected = before;
    expected["name"] = json!("Mallory");
    reply.expect(200, expected.clone());
    assert_eq!(profile(&server, &alice.token), expected);
    // A PATCH without a name changes nothing.
    server
        .patch("/profile/")
        .token(&alice.token)
        .json(&json!({"email": "x@example.com"}))
        .send()
        .expect(200, expected.clone());
    server
        .patch("/profile/")
        .token(&alice.token)
        .json(&json!({}))
        .send()
        .expect(200, expected);
    server.login_token("alice@example.com", PASSWORD);
}

e2e!(a_bad_name_is_400_and_changes_nothing);
fn a_bad_name_is_400_and_changes_nothing() {
    let server = Server::start();
    let alice = server.account_with("alice@example.com", &["--verified", "--name", "Alice"]);
    let long = "n".repeat(151);
    let cases = [
        (json!(null), "This field may not be null."),
        (
            json!(long),
            "Ensure this field has no more than 150 characters.",
        ),
        (
            json!("é".repeat(151)),
            "Ensure this field has no more than 150 characters.",
        ),
        (json!(["Alice"]), "Not a valid string."),
        (json!({"first": "Alice"}), "Not a valid string."),
    ];
    for method in [Method::PUT, Method::PATCH] {
        for (name, message) in &cases {
            server
                .call(method.clone(), "/profile/")
                .token(&alice.token)
                .json(&json!({ "name": name }))
                .send()
                .expect_field_errors("name", &[*message]);
        }
    }
    assert_eq!(profile(&server, &alice.token)["name"], "Alice");
}

e2e!(the_name_length_counts_characters_not_bytes);
fn the_name_length_counts_characters_not_bytes() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for name in ["n".repeat(150), "é".repeat(150), "🙂".repeat(150)] {
        let reply = server
            .put("/profile/")
            .token(&alice.token)
            .json(&json!({"name": name}))
            .send();
        reply.expect_status(200);
        assert_eq!(reply.json()["name"], name.as_str(), "{reply}");
        assert_eq!(profile(&server, &alice.token)["name"], name.as_str());
    }
}

e2e!(the_profile_needs_a_token);
fn the_profile_needs_a_token() {
    let server = Server::start();
    server.get("/profile/").send().expect_401(NOT_PROVIDED);
    server
        .put("/profile/")
        .json(&json!({"name": "x"}))
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .patch("/profile/")
        .json(&json!({"name": "x"}))
        .send()
        .expect_401(NOT_PROVIDED);
}

e2e!(the_name_is_stored_as_sent);
fn the_name_is_stored_as_sent() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for name in [
        " Alice  Smith ",
        "Ålice <b>&amp;</b> \"Smith\"",
        "line\nbreak",
    ] {
        let reply = server
            .patch("/profile/")
            .token(&alice.token)
            .json(&json!({"name": name}))
            .send();
        reply.expect_status(200);
        assert_eq!(reply.json()["name"], name, "{reply}");
        assert_eq!(profile(&server, &alice.token)["name"], name);
    }
}
