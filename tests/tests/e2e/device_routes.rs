//! The owner's device routes besides edits: DELETE, GET …/ports/, 404s, Allow, OPTIONS, credentials.

use crate::device_edit_support::*;
use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// Every method of the owner's routes on one device, with whatever body it needs.
fn device_calls(server: &Server, serial: &str) -> Vec<Call> {
    let path = device_path(serial);
    vec![
        server.get(&path),
        server.put(&path).json(&json!({"name": "Renamed"})),
        server.patch(&path).json(&json!({"name": "Renamed"})),
        server.delete(&path),
        server.get(&ports_path(serial)),
        server.post(&reboot_path(serial)),
    ]
}

e2e!(delete_removes_the_device);
fn delete_removes_the_device() {
    let (server, alice, serial) = setup();
    let kept = server.device_serial(&alice.email);
    server
        .delete(&device_path(&serial))
        .token(&alice.token)
        .send()
        .expect_empty(204);
    server
        .get(&device_path(&serial))
        .token(&alice.token)
        .send()
        .expect_detail(404, NOT_FOUND);
    assert_eq!(listed_serials(&server, &alice.token), [kept]);
    // Once gone, it is gone for every route.
    for call in device_calls(&server, &serial) {
        call.token(&alice.token)
            .send()
            .expect_detail(404, NOT_FOUND);
    }
}

e2e!(deleting_a_device_ends_its_agent_token);
fn deleting_a_device_ends_its_agent_token() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Doomed Pi");
    heartbeat(&server, &agent.token, &json!({}));
    server
        .delete(&device_path(&agent.serial))
        .token(&alice.token)
        .send()
        .expect_empty(204);
    heartbeat_call(&server, &agent.token, &json!({})).expect_device_401(INVALID_TOKEN);
    poll_call(&server, &agent.token, "0").expect_device_401(INVALID_TOKEN);
}

e2e!(ports_are_empty_before_any_report);
fn ports_are_empty_before_any_report() {
    let (server, alice, serial) = setup();
    assert_eq!(device_ports(&server, &alice.token, &serial), json!([]));
    server
        .head(&ports_path(&serial))
        .token(&alice.token)
        .send()
        .expect_empty(200);
}

e2e!(another_accounts_device_is_404_on_every_route);
fn another_accounts_device_is_404_on_every_route() {
    let (server, alice, _serial) = setup();
    let bob = server.account("bob@example.com");
    let bobs = string(
        &server.device(&bob.email, "Bob's Pi", &["--description", "Mine"]),
        "serial",
    );
    let before = device_detail(&server, &bob.token, &bobs);
    for call in device_calls(&server, &bobs) {
        call.token(&alice.token)
            .send()
            .expect_detail(404, NOT_FOUND);
    }
    // Nothing alice tried touched bob's device, and no reboot was queued for it.
    assert_eq!(device_detail(&server, &bob.token, &bobs), before);
    let agent = install_with(&server, &bob, "Bob's Pi", json!({"serial": bobs}));
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
}

e2e!(a_missing_device_is_404_on_every_route);
fn a_missing_device_is_404_on_every_route() {
    let (server, alice, _serial) = setup();
    for call in device_calls(&server, MISSING_SERIAL) {
        call.token(&alice.token)
            .send()
            .expect_detail(404, NOT_FOUND);
    }
}

e2e!(a_serial_not_in_canonical_form_is_404_on_every_route);
fn a_serial_not_in_canonical_form_is_404_on_every_route() {
    let (server, alice, serial) = setup();
    let upper = serial.to_ascii_uppercase();
    let no_dashes = serial.replace('-', "");
    for path_serial in [upper.as_str(), no_dashes.as_str(), "not-a-serial"] {
        for call in device_calls(&server, path_serial) {
            call.token(&alice.token)
                .send()
                .expect_detail(404, NOT_FOUND);
        }
    }
    // The device under its real serial was not touched.
    let device = device_detail(&server, &alice.token, &serial);
    assert_eq!(device["name"], "Kitchen Pi");
}

e2e!(the_detail_and_ports_routes_answer_options_with_their_methods);
fn the_detail_and_ports_routes_answer_options_with_their_methods() {
    let (server, alice, serial) = setup();
    for (path, allow) in [
        (
            device_path(&serial),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
        ),
        (ports_path(&serial), "GET, HEAD, OPTIONS"),
    ] {
        let reply = server.options(&path).send();
        reply.expect_status(200).expect_allow(allow);
        assert_eq!(
            keys(&reply.json()),
            ["actions", "description", "name", "parses", "renders"],
            "{reply}"
        );
        server
            .options(&path)
            .token(&alice.token)
            .send()
            .expect_status(200)
            .expect_allow(allow);
    }
    let reply = server.options(&ports_path(&serial)).send();
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
}

e2e!(options_describes_the_editable_fields_of_put_and_patch);
fn options_describes_the_editable_fields_of_put_and_patch() {
    let (server, _alice, serial) = setup();
    let reply = server.options(&device_path(&serial)).send();
    reply.expect_status(200);
    let actions = &reply.json()["actions"];
    assert_eq!(keys(actions), ["PATCH", "PUT"], "{reply}");
    let read_only_types = [
        ("agent_version", "string"),
        ("created_time", "datetime"),
        ("disk_capacity", "integer"),
        ("disk_used", "integer"),
        ("last_seen_time", "datetime"),
        ("machine_type", "string"),
        ("machine_type_display", "string"),
        ("online", "boolean"),
        ("operating_system", "string"),
        ("ports_url", "url"),
        ("processor_speed", "integer"),
        ("ram_capacity", "integer"),
        ("reboot_url", "url"),
        ("serial", "string"),
        ("uname", "string"),
        ("url", "url"),
        ("wormhole_slug", "string"),
    ];
    for method in ["PUT", "PATCH"] {
        let fields = &actions[method];
        assert_eq!(keys(fields), DEVICE_FIELDS, "{method}\n{reply}");
        assert_eq!(
            fields["name"],
            json!({"type": "string", "required": true, "read_only": false, "label": "Name", "max_length": 100}),
            "{method}\n{reply}"
        );
        assert_eq!(
            fields["description"],
            json!({"type": "string", "required": false, "read_only": false, "label": "Description", "max_length": 1000}),
            "{method}\n{reply}"
        );
        for (field, kind) in read_only_types {
            let meta = &fields[field];
            assert_eq!(meta["type"], kind, "{method} {field}\n{reply}");
            assert_eq!(meta["read_only"], true, "{method} {field}\n{reply}");
            assert_eq!(meta["required"], false, "{method} {field}\n{reply}");
            assert!(meta["label"].is_string(), "{method} {field}\n{reply}");
        }
    }
}

e2e!(a_wrong_method_is_405_with_allow);
fn a_wrong_method_is_405_with_allow() {
    let (server, alice, serial) = setup();
    let detail = device_path(&serial);
    let ports = ports_path(&serial);
    for (method, path, allow) in [
        (
            Method::POST,
            detail.as_str(),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
        ),
        (Method::POST, ports.as_str(), "GET, HEAD, OPTIONS"),
        (Method::PUT, ports.as_str(), "GET, HEAD, OPTIONS"),
        (Method::DELETE, ports.as_str(), "GET, HEAD, OPTIONS"),
    ] {
        server
            .call(method.clone(), path)
            .token(&alice.token)
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow(allow);
        // Without credentials: 401 before the method is looked at.
        server.call(method, path).send().expect_401(NOT_PROVIDED);
    }
    // Still there.
    device_detail(&server, &alice.token, &serial);
}

e2e!(the_owners_routes_need_a_user_token);
fn the_owners_routes_need_a_user_token() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let before = device_detail(&server, &alice.token, &agent.serial);
    for call in device_calls(&server, &agent.serial) {
        call.send().expect_401(NOT_PROVIDED);
    }
    // A device token is no user credential.
    for call in device_calls(&server, &agent.serial) {
        call.device(&agent.token).send().expect_401(NOT_PROVIDED);
    }
    server
        .get("/devices/")
        .device(&agent.token)
        .send()
        .expect_401(NOT_PROVIDED);
    for call in device_calls(&server, &agent.serial) {
        call.token(UNKNOWN_DEVICE_TOKEN)
            .send()
            .expect_401(INVALID_TOKEN);
    }
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial),
        before,
        "nothing was changed or deleted"
    );
}

e2e!(the_new_routes_redirect_without_a_trailing_slash);
fn the_new_routes_redirect_without_a_trailing_slash() {
    let (server, alice, serial) = setup();
    for (bare, location) in [
        (format!("/devices/{serial}"), device_path(&serial)),
        (format!("/devices/{serial}/ports"), ports_path(&serial)),
    ] {
        for method in [Method::GET, Method::PUT, Method::PATCH, Method::DELETE] {
            let reply = server.call(method, &bare).token(&alice.token).send();
            reply.expect_status(301);
            assert_eq!(reply.header("location"), Some(location.as_str()), "{reply}");
        }
    }
    // The redirected DELETE deleted nothing.
    device_detail(&server, &alice.token, &serial);
}
