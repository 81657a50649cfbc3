//! A reboot answer names its command (docs/api.md, Reboot): the 202's body
//! and `Location`, following it until the command ends, a reboot that joins
//! one under way, and `GET /devices/{serial}/commands/{id}/`'s 404s, methods
//! and trailing slash.

use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// The keys of a command object, sorted.
const COMMAND_KEYS: [&str; 7] = [
    "acked_time",
    "action",
    "delivered_time",
    "detail",
    "id",
    "issued_time",
    "status",
];

fn command_path(serial: &str, id: &str) -> String {
    format!("/devices/{serial}/commands/{id}/")
}

/// `POST /devices/{serial}/reboot/` by `token`: asserts the 202 with exactly
/// `detail` and `command`, and a `Location` that is the command's absolute
/// URL. Returns the command.
#[track_caller]
fn rebooted(server: &Server, token: &str, serial: &str) -> Value {
    let reply = server.post(&reboot_path(serial)).token(token).send();
    reply.expect_status(202);
    let body = reply.json();
    assert_eq!(keys(&body), ["command", "detail"], "{reply}");
    assert_eq!(body["detail"], REBOOT_DISPATCHED, "{reply}");
    let command = body["command"].clone();
    assert_eq!(keys(&command), COMMAND_KEYS, "{reply}");
    let id = string(&command, "id");
    assert_eq!(
        reply.header("location"),
        Some(format!("{}{}", server.expected_base(), command_path(serial, &id)).as_str()),
        "{reply}"
    );
    command
}

/// `GET /devices/{serial}/commands/{id}/` by `token`: asserts a 200 with a
/// command object and returns it.
#[track_caller]
fn followed(server: &Server, token: &str, serial: &str, id: &str) -> Value {
    let reply = server.get(&command_path(serial, id)).token(token).send();
    reply.expect_status(200);
    let command = reply.json();
    assert_eq!(keys(&command), COMMAND_KEYS, "{reply}");
    command
}

fn ack(server: &Server, agent: &Agent, id: &str, body: Value) {
    ack_call(server, &agent.token, id, &body).expect_empty(204);
}

e2e!(a_reboot_answers_its_pending_command_and_the_url_to_follow_it);
fn a_reboot_answers_its_pending_command_and_the_url_to_follow_it() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");

    let command = rebooted(&server, &alice.token, &agent.serial);
    assert_eq!(command["status"], "pending", "{command}");
    assert_eq!(command["action"], "reboot", "{command}");
    assert!(is_timestamp(&string(&command, "issued_time")), "{command}");
    assert_eq!(command["delivered_time"], Value::Null, "{command}");
    assert_eq!(command["acked_time"], Value::Null, "{command}");
    assert_eq!(command["detail"], "", "{command}");
    // It is the command the agent gets, and the one the history lists.
    let id = string(&command, "id");
    assert_eq!(reboot_command_id(&poll(&server, &agent.token, 0)[0]), id);
    let history = server
        .get(&format!("/devices/{}/commands/", agent.serial))
        .token(&alice.token)
        .send()
        .json();
    let shown = followed(&server, &alice.token, &agent.serial, &id);
    assert_eq!(history, json!([shown.clone()]));
    assert_eq!(shown["status"], "delivered", "{shown}");
    assert_eq!(shown["issued_time"], command["issued_time"], "{shown}");
    server
        .head(&command_path(&agent.serial, &id))
        .token(&alice.token)
        .send()
        .expect_empty(200);
}

e2e!(following_the_location_shows_the_command_until_the_agent_is_done);
fn following_the_location_shows_the_command_until_the_agent_is_done() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let command = rebooted(&server, &alice.token, &agent.serial);
    let id = string(&command, "id");
    assert_eq!(
        followed(&server, &alice.token, &agent.serial, &id),
        command,
        "the URL shows the very object the reboot answered"
    );

    assert_eq!(one_reboot(&heartbeat_commands(&server, &agent.token)), id);
    ack(&server, &agent, &id, json!({"status": "received"}));
    let received = followed(&server, &alice.token, &agent.serial, &id);
    assert_eq!(received["status"], "received", "{received}");
    assert!(is_timestamp(&string(&received, "acked_time")), "{received}");

    ack(
        &server,
        &agent,
        &id,
        json!({"status": "done", "detail": "rebooting now"}),
    );
    let done = followed(&server, &alice.token, &agent.serial, &id);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["detail"], "rebooting now", "{done}");
    assert!(is_timestamp(&string(&done, "delivered_time")), "{done}");
    assert_eq!(done["issued_time"], command["issued_time"], "{done}");
}

e2e!(a_reboot_while_one_is_under_way_names_that_one);
fn a_reboot_while_one_is_under_way_names_that_one() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let first = rebooted(&server, &alice.token, &agent.serial);
    let id = string(&first, "id");
    // Pending: the same command, as it stands.
    assert_eq!(rebooted(&server, &alice.token, &agent.serial), first);

    poll(&server, &agent.token, 0);
    let delivered = rebooted(&server, &alice.token, &agent.serial);
    assert_eq!(delivered["id"], id.as_str(), "{delivered}");
    assert_eq!(delivered["status"], "delivered", "{delivered}");

    ack(&server, &agent, &id, json!({"status": "received"}));
    let received = rebooted(&server, &alice.token, &agent.serial);
    assert_eq!(received["id"], id.as_str(), "{received}");
    assert_eq!(received["status"], "received", "{received}");

    // Once it has ended, a reboot is a new command.
    ack(
        &server,
        &agent,
        &id,
        json!({"status": "failed", "detail": "busy"}),
    );
    let next = rebooted(&server, &alice.token, &agent.serial);
    assert_ne!(next["id"], id.as_str(), "{next}");
    assert_eq!(next["status"], "pending", "{next}");
    let failed = followed(&server, &alice.token, &agent.serial, &id);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["detail"], "busy", "{failed}");
}

e2e!(another_accounts_device_and_another_devices_command_are_not_found);
fn another_accounts_device_and_another_devices_command_are_not_found() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let kitchen = install(&server, &alice, "Kitchen Pi");
    let garage = install(&server, &alice, "Garage Pi");
    let kitchens = string(&rebooted(&server, &alice.token, &kitchen.serial), "id");
    let garages = string(&rebooted(&server, &alice.token, &garage.serial), "id");
    followed(&server, &alice.token, &kitchen.serial, &kitchens);

    let not_found = [
        // Another device's command, under this device.
        (&alice, command_path(&kitchen.serial, &garages)),
        // Another account's device.
        (&bob, command_path(&kitchen.serial, &kitchens)),
        // An id no command has.
        (&alice, command_path(&kitchen.serial, MISSING_SERIAL)),
        // Ids and serials not in canonical form, as an unknown one.
        (
            &alice,
            command_path(&kitchen.serial, &kitchens.to_ascii_uppercase()),
        ),
        (
            &alice,
            command_path(&kitchen.serial, &kitchens.replace('-', "")),
        ),
        (&alice, command_path(&kitchen.serial, "not-a-command")),
        (
            &alice,
            command_path(&kitchen.serial.to_ascii_uppercase(), &kitchens),
        ),
        (&alice, command_path(MISSING_SERIAL, &kitchens)),
    ];
    for (account, path) in not_found {
        server
            .get(&path)
            .token(&account.token)
            .send()
            .expect_detail(404, NOT_FOUND);
    }
    // Credentials come first, and a device token is none.
    let path = command_path(&kitchen.serial, &kitchens);
    server.get(&path).send().expect_401(NOT_PROVIDED);
    server
        .get(&path)
        .device(&kitchen.token)
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .get(&command_path(MISSING_SERIAL, "x"))
        .send()
        .expect_401(NOT_PROVIDED);
}

e2e!(the_command_route_has_its_methods_options_and_slash);
fn the_command_route_has_its_methods_options_and_slash() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let id = string(&rebooted(&server, &alice.token, &agent.serial), "id");
    let path = command_path(&agent.serial, &id);
    let allow = "GET, HEAD, OPTIONS";

    let reply = server.options(&path).send();
    reply.expect_status(200).expect_allow(allow);
    let meta = reply.json();
    assert_eq!(
        keys(&meta),
        ["actions", "description", "name", "parses", "renders"],
        "{reply}"
    );
    assert_eq!(meta["name"], "Device Command", "{reply}");
    assert_eq!(meta["actions"], json!({}), "{reply}");
    for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
        server
            .call(method.clone(), &path)
            .token(&alice.token)
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow(allow);
        server.call(method, &path).send().expect_401(NOT_PROVIDED);
    }
    // Without its slash: 301 to it, whatever the method, before credentials.
    let bare = path.trim_end_matches('/');
    for method in [Method::GET, Method::POST] {
        let reply = server.call(method, &format!("{bare}?x=1")).send();
        reply.expect_status(301);
        assert_eq!(
            reply.header("location"),
            Some(format!("{path}?x=1").as_str())
        );
    }
    // Still one pending command.
    assert_eq!(
        followed(&server, &alice.token, &agent.serial, &id)["status"],
        "pending"
    );
}

e2e!(the_location_is_under_the_public_url_when_configured);
fn the_location_is_under_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let reply = server
        .post(&reboot_path(&serial))
        .token(&alice.token)
        .header("Host", "elsewhere.test")
        .send();
    reply.expect_status(202);
    let id = string(&reply.json()["command"], "id");
    assert_eq!(
        reply.header("location"),
        Some(format!("https://devmgr.example.net/devices/{serial}/commands/{id}/").as_str()),
        "{reply}"
    );
}
