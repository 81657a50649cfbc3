//! PUT and PATCH /devices/{serial}/ (docs/api.md, Devices): what an edit changes and keeps.

use crate::device_edit_support::*;
use crate::device_support::*;
use reqwest::Method;
use serde_json::json;

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
