//! Security rules of accounts (docs/security.md): links in mail never come
//! from the request, account recovery cuts everyone else off, log out
//! everywhere, install-token rotation, unverified accounts.

use crate::device_support::{Agent, DeviceAuth, heartbeat, install, install_call};
use crate::password_reset::{confirm_with, reset_mail_key};
use crate::support::*;
use serde_json::json;

const NEW_PASSWORD: &str = "recovered-horse-battery-7";

fn reset_key_for(server: &Server, email: &str) -> String {
    reset_mail_key(server, email)
}

fn confirm_reset(server: &Server, key: &str) -> Reply {
    confirm_with(server, key, NEW_PASSWORD)
}

e2e!(a_reset_link_points_to_the_server_whatever_the_host_header_says);
fn a_reset_link_points_to_the_server_whatever_the_host_header_says() {
    let server = Server::start();
    server.account("victim@example.com");
    let earlier = server.mails();
    server
        .post("/reset-password/")
        .header("Host", "attacker.example")
        .json(&json!({ "email": "victim@example.com" }))
        .send()
        .expect_empty(204);
    let mail = server.wait_for_new_mail(&earlier);
    let link = link_in(&mail, "/reset-password/confirm/?key=");
    assert!(
        link.starts_with(&format!("{}/reset-password/confirm/?key=", server.base())),
        "{link}"
    );
    assert!(!mail.contains("attacker.example"), "{mail}");
}

e2e!(a_verification_link_points_to_the_public_url_whatever_the_host_header_says);
fn a_verification_link_points_to_the_public_url_whatever_the_host_header_says() {
    let server = Server::builder()
        .public_url("https://devmgr.example.com")
        .start();
    let earlier = server.mails();
    server
        .post("/register/")
        .header("Host", "attacker.example")
        .json(&json!({ "email": "new@example.com" }))
        .send()
        .expect_status(201);
    let mail = server.wait_for_new_mail(&earlier);
    let link = link_in(&mail, "/verify-email/");
    assert!(
        link.starts_with("https://devmgr.example.com/verify-email/"),
        "{link}"
    );
    assert!(!mail.contains("attacker.example"), "{mail}");
}

e2e!(a_reset_ends_every_token_and_replaces_the_install_token);
/// The pre-registration takeover: an attacker registers the victim's address
/// and keeps its token; the victim recovers the account by reset.
fn a_reset_ends_every_token_and_replaces_the_install_token() {
    let server = Server::start();
    let attacker_token = server.register("victim@example.com");
    server.wait_for_mails(1);
    let attacker_install_token = string(&profile(&server, &attacker_token), "install_token");
    let key = reset_key_for(&server, "victim@example.com");
    confirm_reset(&server, &key).expect_empty(204);

    server
        .get("/profile/")
        .token(&attacker_token)
        .send()
        .expect_401(INVALID_TOKEN);
    let owner = server.login_token("victim@example.com", NEW_PASSWORD);
    let after = profile(&server, &owner);
    assert_eq!(after["email_verified"], true);
    let install_token = string(&after, "install_token");
    assert!(is_install_token(&install_token), "{after}");
    assert_ne!(install_token, attacker_install_token);
    install_call(
        &server,
        &json!({"install_token": attacker_install_token, "name": "stolen"}),
    )
    .expect_field_errors("install_token", &["Invalid install token."]);
}

e2e!(a_reset_keeps_enrolled_devices_working);
fn a_reset_keeps_enrolled_devices_working() {
    let server = Server::start();
    let account = server.account("owner@example.com");
    let agent = install(&server, &account, "pi");
    let key = reset_key_for(&server, "owner@example.com");
    confirm_reset(&server, &key).expect_empty(204);
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(logging_out_everywhere_ends_every_token_of_the_account_only);
fn logging_out_everywhere_ends_every_token_of_the_account_only() {
    let server = Server::start();
    let ann = server.account("ann@example.com");
    let second = server.login_token("ann@example.com", &ann.password);
    let bob = server.account("bob@example.com");
    server
        .post("/auth/logout-all/")
        .token(&second)
        .send()
        .expect_empty(204);
    for token in [&ann.token, &second] {
        server
            .get("/devices/")
            .token(token)
            .send()
            .expect_401(INVALID_TOKEN);
    }
    server
        .get("/devices/")
        .token(&bob.token)
        .send()
        .expect_status(200);
    // A new login works as before.
    let fresh = server.login_token("ann@example.com", &ann.password);
    server
        .get("/devices/")
        .token(&fresh)
        .send()
        .expect_status(200);
}

e2e!(the_new_routes_follow_the_conventions);
fn the_new_routes_follow_the_conventions() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    for path in ["/auth/logout-all/", "/profile/install-token/"] {
        server.post(path).send().expect_401(NOT_PROVIDED);
        server.get(path).send().expect_401(NOT_PROVIDED);
        server
            .get(path)
            .token(&account.token)
            .send()
            .expect_detail(405, "Method \"GET\" not allowed.")
            .expect_allow("POST, OPTIONS");
        let options = server.options(path).send();
        options.expect_status(200).expect_allow("POST, OPTIONS");
        assert_eq!(options.json()["actions"], json!({}), "{options}");
        let unslashed = server.post(path.trim_end_matches('/')).send();
        unslashed.expect_status(301);
        assert_eq!(unslashed.header("location"), Some(path));
    }
}

e2e!(a_new_install_token_ends_the_old_one_and_spares_enrolled_devices);
fn a_new_install_token_ends_the_old_one_and_spares_enrolled_devices() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    let agent = install(&server, &account, "pi");
    let reply = server
        .post("/profile/install-token/")
        .token(&account.token)
        .send();
    reply.expect_status(200);
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{reply}");
    let body = reply.json();
    assert_eq!(
        keys(&body),
        [
            "email",
            "email_verified",
            "has_usable_password",
            "install_command",
            "install_token",
            "name"
        ]
    );
    let fresh = string(&body, "install_token");
    assert!(is_install_token(&fresh));
    assert_ne!(fresh, account.install_token);
    assert!(
        string(&body, "install_command").ends_with(&format!("--token {fresh}")),
        "{body}"
    );
    assert_eq!(
        string(&profile(&server, &account.token), "install_token"),
        fresh
    );
    install_call(
        &server,
        &json!({"install_token": account.install_token, "name": "late"}),
    )
    .expect_field_errors("install_token", &["Invalid install token."]);
    install_call(&server, &json!({"install_token": fresh, "name": "new"})).expect_status(201);
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(an_unverified_account_cannot_enrol_devices);
fn an_unverified_account_cannot_enrol_devices() {
    let server = Server::start();
    let token = server.register("new@example.com");
    let install_token = string(&profile(&server, &token), "install_token");
    install_call(
        &server,
        &json!({"install_token": install_token, "name": "pi"}),
    )
    .expect_field_errors(
        "install_token",
        &["Verify the account's e-mail address before adding devices."],
    );
    server
        .get("/devices/")
        .token(&token)
        .send()
        .expect(200, json!([]));
}

e2e!(a_password_change_ends_outstanding_reset_links);
fn a_password_change_ends_outstanding_reset_links() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    let key = reset_key_for(&server, "ann@example.com");
    server
        .post("/change-password/")
        .token(&account.token)
        .json(&json!({"old_password": account.password, "new_password": "changed-horse-battery-9"}))
        .send()
        .expect_empty(204);
    confirm_reset(&server, &key).expect_field_errors("key", &["Invalid or expired key."]);
    server.login_token("ann@example.com", "changed-horse-battery-9");
}

e2e!(a_sixth_reset_link_ends_the_oldest);
fn a_sixth_reset_link_ends_the_oldest() {
    let server = Server::start();
    server.account("ann@example.com");
    let keys: Vec<String> = (0..6)
        .map(|_| reset_key_for(&server, "ann@example.com"))
        .collect();
    confirm_reset(&server, &keys[0]).expect_field_errors("key", &["Invalid or expired key."]);
    confirm_reset(&server, &keys[5]).expect_empty(204);
}

e2e!(an_online_device_is_not_rekeyed);
fn an_online_device_is_not_rekeyed() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    let agent: Agent = install(&server, &account, "pi");
    heartbeat(&server, &agent.token, &json!({}));
    install_call(
        &server,
        &json!({"install_token": account.install_token, "name": "thief", "serial": agent.serial}),
    )
    .expect_field_errors(
        "serial",
        &["This device is online. Delete it, or wait until it is offline, to install it again."],
    );
    // The running agent keeps its token.
    server
        .get("/agent/commands/")
        .device(&agent.token)
        .send()
        .expect_status(200);
}
