//! A device's tags and last heartbeat (docs/api.md, "Devices"): shown in
//! every answer, replaced by PUT and PATCH (JSON and forms), refused with
//! every failing rule at once, described by OPTIONS, set by `device add --tag`.

use crate::device_edit_support::*;
use crate::device_support::*;
use crate::fleet_listing_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

e2e!(a_device_shows_its_tags_and_when_it_was_last_seen);
fn a_device_shows_its_tags_and_when_it_was_last_seen() {
    let (server, alice, serial) = setup();
    let device = device_detail(&server, &alice.token, &serial);
    assert_eq!(device["tags"], json!([]));
    assert_eq!(device["last_seen_time"], Value::Null);
    assert_eq!(keys(&device).len(), 20, "{device}");
    let agent = install(&server, &alice, "agent");
    heartbeat(&server, &agent.token, &json!({}));
    let seen = device_detail(&server, &alice.token, &agent.serial);
    assert!(
        is_timestamp(seen["last_seen_time"].as_str().expect("a time")),
        "{seen}"
    );
    // The list shows the same objects.
    let listed = server.get("/devices/").token(&alice.token).send().json();
    assert!(
        listed.as_array().expect("an array").contains(&seen),
        "{listed}"
    );
}

e2e!(patch_and_put_replace_the_tags_lowercased_distinct_ascending);
fn patch_and_put_replace_the_tags_lowercased_distinct_ascending() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let tags = json!(["Site:Berlin", "lab", "LAB", "0.rack_1-a"]);
    let expected = with(
        &before,
        json!({"tags": ["0.rack_1-a", "lab", "site:berlin"]}),
    );
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({ "tags": tags }),
    )
    .expect(200, expected.clone());
    assert_eq!(device_detail(&server, &alice.token, &serial), expected);
    // Omitted: kept, by PATCH and by PUT alike.
    let renamed = with(&expected, json!({"name": "Pantry Pi"}));
    edit(
        &server,
        Method::PUT,
        &alice.token,
        &serial,
        &json!({"name": "Pantry Pi"}),
    )
    .expect(200, renamed.clone());
    let put = json!({"name": "Pantry Pi", "tags": ["ci"]});
    edit(&server, Method::PUT, &alice.token, &serial, &put)
        .expect(200, with(&renamed, json!({"tags": ["ci"]})));
    // An empty list takes every tag away; 20 distinct tags are allowed.
    patch_tags(&server, &alice.token, &serial, json!([]))
        .expect(200, with(&renamed, json!({"tags": []})));
    let twenty: Vec<String> = (0..20).map(|i| format!("t{i:02}")).collect();
    let mut sent = twenty.clone();
    sent.extend(twenty.iter().map(|t| t.to_uppercase()));
    patch_tags(&server, &alice.token, &serial, json!(sent))
        .expect(200, with(&renamed, json!({ "tags": twenty })));
    let longest = "a".repeat(40);
    patch_tags(&server, &alice.token, &serial, json!([longest]))
        .expect(200, with(&renamed, json!({ "tags": [longest] })));
}

e2e!(bad_tags_are_refused_with_each_rule_once_and_change_nothing);
fn bad_tags_are_refused_with_each_rule_once_and_change_nothing() {
    let (server, alice, serial) = setup();
    tag(&server, &alice.token, &serial, &["keep"]);
    let before = device_detail(&server, &alice.token, &serial);
    let refused = |tags: Value, messages: Value| {
        let body = json!({"name": "Changed", "tags": tags});
        edit(&server, Method::PATCH, &alice.token, &serial, &body)
            .expect(400, json!({ "tags": messages }));
        edit(&server, Method::PUT, &alice.token, &serial, &body)
            .expect(400, json!({ "tags": messages }));
    };
    for (value, kind) in [
        (json!("lab"), "str"),
        (json!(7), "int"),
        (json!(1.5), "float"),
        (json!(true), "bool"),
        (json!({"lab": true}), "dict"),
    ] {
        let message = format!("Expected a list of items but got type \"{kind}\".");
        refused(value, json!([message]));
    }
    refused(Value::Null, json!(["This field may not be null."]));
    refused(json!(["ok", 5, null]), json!(["Not a valid string."]));
    for bad in ["", "-lab", ".x", "a b", "caf\u{e9}", "x/y", &"a".repeat(41)] {
        refused(json!(["ok", bad]), json!([NOT_A_TAG]));
    }
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    refused(
        json!(many),
        json!(["Ensure this field has no more than 20 elements."]),
    );
    let mut everything: Vec<Value> = many.iter().map(|t| json!(t)).collect();
    everything.extend([json!(3), json!("-x")]);
    refused(
        json!(everything),
        json!([
            "Not a valid string.",
            NOT_A_TAG,
            "Ensure this field has no more than 20 elements."
        ]),
    );
    // Other fields' errors come too, and nothing changed.
    edit(
        &server,
        Method::PATCH,
        &alice.token,
        &serial,
        &json!({"name": "", "tags": "x"}),
    )
    .expect(
        400,
        json!({
            "name": ["This field may not be blank."],
            "tags": ["Expected a list of items but got type \"str\"."],
        }),
    );
    assert_eq!(device_detail(&server, &alice.token, &serial), before);
}

e2e!(forms_send_tags_as_the_key_repeated);
fn forms_send_tags_as_the_key_repeated() {
    let (server, alice, serial) = setup();
    let before = device_detail(&server, &alice.token, &serial);
    let form = |method: Method, body: &str| {
        server
            .call(method, &device_path(&serial))
            .token(&alice.token)
            .body("application/x-www-form-urlencoded", body.to_owned())
            .send()
    };
    let expected = with(&before, json!({"tags": ["ci", "site:berlin"]}));
    form(Method::PATCH, "tags=Site%3ABerlin&tags=ci&tags=CI").expect(200, expected.clone());
    let renamed = with(&expected, json!({"name": "Shed", "tags": ["lab"]}));
    form(Method::PUT, "name=Shed&tags=lab").expect(200, renamed.clone());
    form(Method::PATCH, "tags=ok&tags=-bad").expect(400, json!({"tags": [NOT_A_TAG]}));
    // A form without the key keeps the tags.
    form(Method::PATCH, "description=x").expect(200, with(&renamed, json!({"description": "x"})));
    let boundary = "devmgr-tags-boundary";
    let part = |name: &str, value: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        )
    };
    let body = format!(
        "{}{}--{boundary}--\r\n",
        part("tags", "B"),
        part("tags", "a")
    );
    server
        .patch(&device_path(&serial))
        .token(&alice.token)
        .body(&format!("multipart/form-data; boundary={boundary}"), body)
        .send()
        .expect(
            200,
            with(&renamed, json!({"description": "x", "tags": ["a", "b"]})),
        );
}

e2e!(options_describe_tags_as_a_writable_list_and_last_seen_as_read_only);
fn options_describe_tags_as_a_writable_list_and_last_seen_as_read_only() {
    let (server, alice, serial) = setup();
    let reply = server
        .options(&device_path(&serial))
        .token(&alice.token)
        .send();
    reply.expect_status(200);
    let actions = reply.json()["actions"].clone();
    for method in ["PUT", "PATCH"] {
        assert_eq!(
            actions[method]["tags"],
            json!({
                "type": "list",
                "required": false,
                "read_only": false,
                "label": "Tags",
                "max_length": 20,
                "child": {"type": "string", "required": true, "read_only": false, "max_length": 40},
            }),
            "{method}"
        );
        assert_eq!(
            actions[method]["last_seen_time"],
            json!({"type": "datetime", "required": false, "read_only": true, "label": "Last seen time"}),
            "{method}"
        );
    }
}

e2e!(device_add_takes_tags_and_refuses_a_bad_one_without_making_a_device);
fn device_add_takes_tags_and_refuses_a_bad_one_without_making_a_device() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let args = [
        "--tag",
        "Lab",
        "--tag",
        "site:berlin",
        "--tag",
        "lab",
        "--online",
    ];
    let device = server.db.device(&alice.email, "Tagged", &args);
    assert_eq!(device["tags"], json!(["lab", "site:berlin"]));
    assert!(
        is_timestamp(device["last_seen_time"].as_str().expect("a time")),
        "{device}"
    );
    let plain = server.device(&alice.email, "Plain", &[]);
    assert_eq!(plain["tags"], json!([]));
    assert_eq!(plain["last_seen_time"], Value::Null);
    server
        .db
        .refuse_device(&alice.email, "Refused", &["--tag", "ok", "--tag", "no tag"]);
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    let mut too_many = Vec::new();
    for tag in &many {
        too_many.extend(["--tag", tag.as_str()]);
    }
    server.db.refuse_device(&alice.email, "Crowded", &too_many);
    let listed = server.get("/devices/").token(&alice.token).send().json();
    assert_eq!(listed.as_array().expect("an array").len(), 2, "{listed}");
}
