//! The checks of PUT and PATCH /devices/{serial}/ bodies (docs/api.md, Devices).

use crate::device_edit_support::*;
use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::json;

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
