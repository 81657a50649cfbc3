//! The owner's side of a device (docs/api.md, Devices): PUT and PATCH
//! /devices/{serial}/ (name and description), DELETE /devices/{serial}/,
//! GET /devices/{serial}/ports/, and the 404s, Allow headers, OPTIONS metadata
//! and credentials of those routes.

use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// A server with alice owning one device named "Kitchen Pi", described "By the fridge".
fn setup() -> (Server, Account, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = server.device(
        &alice.email,
        "Kitchen Pi",
        &["--description", "By the fridge", "--machine-type", "rpi_4b"],
    );
    let serial = string(&device, "serial");
    (server, alice, serial)
}

/// `device` with these fields replaced.
fn with(device: &Value, changes: Value) -> Value {
    let mut device = device.clone();
    let object = device.as_object_mut().expect("a device is an object");
    for (key, value) in changes.as_object().expect("changes are an object") {
        object.insert(key.clone(), value.clone());
    }
    device
}

/// PATCH or PUT of the device with this body, by alice.
fn edit(server: &Server, method: Method, token: &str, serial: &str, body: &Value) -> Reply {
    server
        .call(method, &device_path(serial))
        .token(token)
        .json(body)
        .send()
}

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

e2e!(patch_renames_the_device_and_answers_with_it);
fn patch_renames_the_device_and_answers_with_it() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let reply = edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"name": "Pantry Pi"}),
    );
    let expected = with(&before, json!({"name": "Pantry Pi"}));
    reply.expect(200, expected.clone());
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
}

e2e!(patch_sets_the_description_and_keeps_the_name);
fn patch_sets_the_description_and_keeps_the_name() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let expected = with(&before, json!({"description": "Now in the pantry"}));
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"description": "Now in the pantry"}),
    )
    .expect(200, expected.clone());
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
}

e2e!(patch_with_no_fields_changes_nothing);
fn patch_with_no_fields_changes_nothing() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    edit(&server, Method::PATCH, &alice.token, &serial, &json!({})).expect(200, before.clone());
    // An empty body counts as {}.
    server
        .patch(&device_path(&serial))
        .token(&alice.token)
        .send()
        .expect(200, before.clone());
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(put_sets_both_fields_of_that_device_only);
fn put_sets_both_fields_of_that_device_only() {
    let (server, alice, serial) = setup();
    let other = server.device_serial(&alice.email);
    let other_before = device_detail(&server, &alice.token, &other);
    let before = device_detail(&server, &alice.token, &serial);
    let body = json!({"name": "Cellar Pi", "description": "Watches the boiler"});
    let expected = with(&before, body.clone());
    edit(&server, Method::PUT, &alice.token, &serial, &body).expect(200, expected.clone());
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
    assert_eq!(device_detail(&server, &alice.token, &other), other_before);
}

e2e!(put_keeps_the_description_when_it_is_omitted);
fn put_keeps_the_description_when_it_is_omitted() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let expected = with(&before, json!({"name": "Cellar Pi"}));
    edit(
        &server,
        Method::PUT,
        &alice.token,
        &serial,
        &json!({"name": "Cellar Pi"}),
    )
    .expect(200, expected.clone());
    assert_eq!(expected["description"], "By the fridge");
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
}

e2e!(put_requires_a_name);
fn put_requires_a_name() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    for body in [json!({}), json!({"description": "Only this"})] {
        edit(&server, Method::PUT, &alice.token, &serial, &body)
            .expect_field_errors("name", &[REQUIRED]);
    }
    server
        .put(&device_path(&serial))
        .token(&alice.token)
        .send()
        .expect_field_errors("name", &[REQUIRED]);
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(a_blank_name_is_refused);
fn a_blank_name_is_refused() {
    let (server, alice, serial) = setup();
    for method in [Method::PUT, Method::PATCH] {
        for name in ["", "   ", "\t\n"] {
            edit(
                &server,
                method.clone(),
                &alice.token,
                &serial,
                &json!({ "name": name }),
            )
            .expect_field_errors("name", &[BLANK]);
        }
    }
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["name"],
        "Kitchen Pi"
    );
}

e2e!(a_name_may_have_100_characters_but_not_101);
fn a_name_may_have_100_characters_but_not_101() {
    let (server, alice, serial) = setup();
    // Two bytes per character: the limit counts characters.
    let longest = chars('é', 100);
    for method in [Method::PUT, Method::PATCH] {
        edit(
            &server,
            method.clone(),
            &alice.token,
            &serial,
            &json!({ "name": chars('é', 101) }),
        )
        .expect_field_errors("name", &[&too_long(100)]);
        let reply = edit(
            &server,
            method,
            &alice.token,
            &serial,
            &json!({ "name": longest }),
        );
        reply.expect_status(200);
        assert_eq!(reply.json()["name"], longest.as_str(), "{reply}");
    }
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["name"],
        longest.as_str()
    );
}

e2e!(a_null_name_or_description_is_refused);
fn a_null_name_or_description_is_refused() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    for method in [Method::PUT, Method::PATCH] {
        edit(
            &server,
            method.clone(),
            &alice.token,
            &serial,
            &json!({"name": null}),
        )
        .expect_field_errors("name", &[NULL]);
        edit(
            &server,
            method,
            &alice.token,
            &serial,
            &json!({"name": "Fine", "description": null}),
        )
        .expect_field_errors("description", &[NULL]);
    }
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(a_list_or_an_object_is_not_a_valid_string);
fn a_list_or_an_object_is_not_a_valid_string() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    for value in [json!(["Kitchen"]), json!({"text": "Kitchen"})] {
        edit(
            &server,
            Method::PATCH,
            &alice.token,
            &serial,
            &json!({ "name": value }),
        )
        .expect_field_errors("name", &[NOT_A_STRING]);
        edit(
            &server,
            Method::PATCH,
            &alice.token,
            &serial,
            &json!({ "description": value }),
        )
        .expect_field_errors("description", &[NOT_A_STRING]);
    }
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(numbers_are_not_text);
fn numbers_are_not_text() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let reply = edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"name": 42, "description": 7}),
    );
    reply.expect_status(400);
    assert_eq!(
        reply.json(),
        json!({"name": ["Not a valid string."], "description": ["Not a valid string."]}),
        "{reply}"
    );
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(names_and_descriptions_are_stored_as_sent);
fn names_and_descriptions_are_stored_as_sent() {
    let (server, alice, serial) = setup();
    let body = json!({"name": "  Pantry\tPi  ", "description": " Zweite Ebene, links \n"});
    let reply = edit(&server, Method::PATCH, &alice.token, &serial, &body);
    reply.expect_status(200);
    assert_eq!(reply.json()["name"], body["name"], "{reply}");
    assert_eq!(reply.json()["description"], body["description"], "{reply}");
    let device = device_detail(&server, &alice.token, &serial);
    assert_eq!(device["name"], body["name"]);
    assert_eq!(device["description"], body["description"]);
}

e2e!(edit_bodies_follow_the_json_conventions);
fn edit_bodies_follow_the_json_conventions() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    for method in [Method::PUT, Method::PATCH] {
        assert_json_body_rules(|| {
            server
                .call(method.clone(), &device_path(&serial))
                .token(&alice.token)
        });
    }
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(a_description_may_be_empty_or_have_up_to_1000_characters);
fn a_description_may_be_empty_or_have_up_to_1000_characters() {
    let (server, alice, serial) = setup();
    let longest = chars('ü', 1000);
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({ "description": chars('ü', 1001) }),
    )
    .expect_field_errors("description", &[&too_long(1000)]);
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["description"],
        "By the fridge"
    );
    let reply = edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({ "description": longest }),
    );
    reply.expect_status(200);
    assert_eq!(reply.json()["description"], longest.as_str(), "{reply}");
    // Blank is fine too.
    let reply = edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"description": ""}),
    );
    reply.expect_status(200);
    assert_eq!(reply.json()["description"], "", "{reply}");
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["description"],
        ""
    );
}

e2e!(errors_of_both_fields_come_together_and_nothing_is_saved);
fn errors_of_both_fields_come_together_and_nothing_is_saved() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    edit(
        &server,
        Method::PUT,
        &alice.token,
        &serial,
        &json!({"name": "", "description": chars('x', 1001)}),
    )
    .expect(
        400,
        json!({"name": [BLANK], "description": [too_long(1000)]}),
    );
    // One good field does not get saved beside a bad one.
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"name": "Half right", "description": null}),
    )
    .expect_field_errors("description", &[NULL]);
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(read_only_and_unknown_fields_are_ignored);
fn read_only_and_unknown_fields_are_ignored() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let body = json!({
        "name": "Renamed",
        "serial": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        "url": "http://evil.example/",
        "online": true,
        "agent_version": "9.9.9",
        "operating_system": "Plan 9",
        "uname": "Plan 9 from Bell Labs",
        "machine_type": "x86_64",
        "machine_type_display": "A toaster",
        "disk_capacity": 1,
        "disk_used": 1,
        "ram_capacity": 1,
        "processor_speed": 1,
        "wormhole_slug": "hijacked",
        "created_time": "2000-01-01T00:00:00",
        "colour": "red",
    });
    let expected = with(&before, json!({"name": "Renamed"}));
    for method in [Method::PATCH, Method::PUT] {
        edit(&server, method, &alice.token, &serial, &body).expect(200, expected.clone());
    }
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
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

e2e!(null_characters_are_refused_and_nothing_changes);
fn null_characters_are_refused_and_nothing_changes() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"name": "Kitchen\u{0}Pi", "description": "\u{0}"}),
    )
    .expect(
        400,
        json!({
            "name": ["Null characters are not allowed."],
            "description": ["Null characters are not allowed."],
        }),
    );
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
    server
        .put("/profile/")
        .token(&alice.token)
        .json(&json!({"name": "Al\u{0}ice"}))
        .send()
        .expect_field_errors("name", &["Null characters are not allowed."]);
}
