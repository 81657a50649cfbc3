//! `POST /devices/tags/` and `GET /tags/` (docs/api.md, "Fleet"): tags taken
//! off then put on every selected device, all or nothing; the account's tags
//! with their counts; other accounts never touched nor counted.

use crate::fleet_select_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// Twenty distinct tags: `t00` … `t19`.
fn twenty_tags() -> Vec<String> {
    (0..20).map(|n| format!("t{n:02}")).collect()
}

e2e!(tags_are_taken_off_then_put_on_every_selected_device);
fn tags_are_taken_off_then_put_on_every_selected_device() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let one = add_device(&server, &alice, "One", &["--online"]);
    let two = add_device(&server, &alice, "Two", &[]);
    let bobs = add_device(&server, &bob, "Bob's", &["--online"]);
    tag_devices(&server, &bob.token, &[&bobs], &["old"]);
    assert_eq!(tags_of(&server, &alice.token, &one), json!([]));

    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"all": true}, "add": ["Old", "lab", "LAB"], "colour": "red"}),
    )
    .expect(200, json!({"matched": 2}));
    assert_eq!(tags_of(&server, &alice.token, &one), json!(["lab", "old"]));
    assert_eq!(tags_of(&server, &alice.token, &two), json!(["lab", "old"]));

    // Remove first, then add: a tag in both lists stays.
    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"online": true}, "remove": ["old", "lab", "absent"], "add": ["lab", "Zeta"]}),
    )
    .expect(200, json!({"matched": 1}));
    assert_eq!(tags_of(&server, &alice.token, &one), json!(["lab", "zeta"]));
    assert_eq!(tags_of(&server, &alice.token, &two), json!(["lab", "old"]));

    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"tags": ["old"]}, "remove": ["old"], "add": []}),
    )
    .expect(200, json!({"matched": 1}));
    assert_eq!(tags_of(&server, &alice.token, &two), json!(["lab"]));

    // Nothing selected: nothing changed, and no error.
    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"serials": [bobs]}, "add": ["stolen"]}),
    )
    .expect(200, json!({"matched": 0}));
    // Bob's device kept its tag through all of alice's changes, even `all`.
    assert_eq!(tags_of(&server, &bob.token, &bobs), json!(["old"]));
    assert_eq!(
        tag_counts(&server, &bob.token),
        json!([{"name": "old", "device_count": 1}])
    );
}

e2e!(a_change_that_would_leave_a_device_over_20_tags_changes_no_device);
fn a_change_that_would_leave_a_device_over_20_tags_changes_no_device() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let full = add_device(&server, &alice, "Full", &[]);
    let empty = add_device(&server, &alice, "Empty", &[]);
    let nineteen: Vec<String> = twenty_tags()[..19].to_vec();
    let nineteen_refs: Vec<&str> = nineteen.iter().map(String::as_str).collect();
    tag_devices(&server, &alice.token, &[&full], &nineteen_refs);
    let before_full = tags_of(&server, &alice.token, &full);
    let before_counts = tag_counts(&server, &alice.token);

    for body in [
        json!({"selector": {"all": true}, "add": ["new-1", "new-2"]}),
        json!({"selector": {"all": true}, "add": ["new-1", "new-2", "t00", "new-3"], "remove": ["t01"]}),
    ] {
        bulk_tags_call(&server, &alice.token, body.clone()).expect(400, json!({"add": [OVER_20]}));
        // Neither the full device nor the one that had room changed.
        assert_eq!(tags_of(&server, &alice.token, &full), before_full, "{body}");
        assert_eq!(tags_of(&server, &alice.token, &empty), json!([]), "{body}");
        assert_eq!(tag_counts(&server, &alice.token), before_counts, "{body}");
    }
    // Exactly 20 is allowed; removing makes room.
    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"all": true}, "add": ["t19"]}),
    )
    .expect(200, json!({"matched": 2}));
    let twenty: Vec<Value> = twenty_tags().into_iter().map(Value::from).collect();
    assert_eq!(tags_of(&server, &alice.token, &full), Value::from(twenty));
    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"all": true}, "remove": ["t00", "t01"], "add": ["new-1", "new-2"]}),
    )
    .expect(200, json!({"matched": 2}));
    assert_eq!(
        tags_of(&server, &alice.token, &empty),
        json!(["new-1", "new-2", "t19"])
    );
}

e2e!(a_bulk_tagging_answers_every_failing_field_at_once);
fn a_bulk_tagging_answers_every_failing_field_at_once() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = add_device(&server, &alice, "Pi", &[]);
    let refused = |body: Value, errors: Value| {
        bulk_tags_call(&server, &alice.token, body).expect(400, errors);
    };
    let give = json!({"non_field_errors": [GIVE_TAGS]});
    refused(json!({"selector": {"all": true}}), give.clone());
    refused(json!({"selector": {"all": true}, "add": []}), give.clone());
    refused(
        json!({"selector": {"all": true}, "add": [], "remove": []}),
        give,
    );
    refused(
        json!({"add": ["lab"]}),
        json!({"selector": ["This field is required."]}),
    );
    refused(
        json!({"selector": {}, "add": "lab", "remove": null}),
        json!({
            "selector": {"non_field_errors": [NEEDS_ALL]},
            "add": ["Expected a list of items but got type \"str\"."],
            "remove": ["This field may not be null."],
        }),
    );
    refused(
        json!({"selector": {"tags": []}, "add": ["ok", "not ok", 5]}),
        json!({
            "selector": {"tags": ["This list may not be empty."]},
            "add": ["Not a valid string.", INVALID_TAG],
        }),
    );
    let twenty_one: Vec<String> = (0..21).map(|n| format!("x{n}")).collect();
    refused(
        json!({"selector": {"all": true}, "add": twenty_one}),
        json!({"add": ["Ensure this field has no more than 20 elements."]}),
    );
    refused(
        json!({"selector": "all", "remove": [{"tag": "x"}]}),
        json!({
            "selector": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
            "remove": ["Not a valid string."],
        }),
    );
    // A 400 changed nothing.
    assert_eq!(tags_of(&server, &alice.token, &serial), json!([]));
    assert_eq!(tag_counts(&server, &alice.token), json!([]));
}

e2e!(the_tags_list_counts_each_tag_on_the_accounts_devices);
fn the_tags_list_counts_each_tag_on_the_accounts_devices() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    assert_eq!(tag_counts(&server, &alice.token), json!([]));
    let one = add_device(&server, &alice, "One", &[]);
    let two = add_device(&server, &alice, "Two", &[]);
    let bobs = add_device(&server, &bob, "Bob's", &[]);
    tag_devices(
        &server,
        &alice.token,
        &[&one, &two],
        &["lab", "site:berlin"],
    );
    tag_devices(&server, &alice.token, &[&two], &["9.x", "a_b"]);
    tag_devices(&server, &bob.token, &[&bobs], &["lab", "bob-only"]);
    assert_eq!(
        tag_counts(&server, &alice.token),
        json!([
            {"name": "9.x", "device_count": 1},
            {"name": "a_b", "device_count": 1},
            {"name": "lab", "device_count": 2},
            {"name": "site:berlin", "device_count": 2},
        ])
    );
    // A tag no device carries any more is gone from the list.
    bulk_tags_call(
        &server,
        &alice.token,
        json!({"selector": {"all": true}, "remove": ["9.x", "lab"]}),
    )
    .expect(200, json!({"matched": 2}));
    assert_eq!(
        tag_counts(&server, &alice.token),
        json!([
            {"name": "a_b", "device_count": 1},
            {"name": "site:berlin", "device_count": 2},
        ])
    );
    server
        .delete(&format!("/devices/{two}/"))
        .token(&alice.token)
        .send()
        .expect_empty(204);
    assert_eq!(
        tag_counts(&server, &alice.token),
        json!([{"name": "site:berlin", "device_count": 1}])
    );
    server
        .head(TAGS)
        .token(&alice.token)
        .send()
        .expect_empty(200);
}

e2e!(the_tag_routes_follow_the_conventions_of_every_route);
fn the_tag_routes_follow_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for (path, allow, wrong) in [
        (
            TAGS,
            "GET, HEAD, OPTIONS",
            ["POST", "PUT", "PATCH", "DELETE"],
        ),
        (
            BULK_TAGS,
            "POST, OPTIONS",
            ["GET", "PUT", "PATCH", "DELETE"],
        ),
    ] {
        for method in wrong {
            server
                .call(method.parse().unwrap(), path)
                .token(&alice.token)
                .send()
                .expect_detail(405, &format!("Method \"{method}\" not allowed."))
                .expect_allow(allow);
            server
                .call(method.parse().unwrap(), path)
                .send()
                .expect_401(NOT_PROVIDED);
        }
        let options = server.options(path).send();
        options.expect_status(200).expect_allow(allow);
        let bare = path.trim_end_matches('/');
        let moved = server.post(bare).send();
        moved.expect_status(301);
        assert_eq!(moved.header("location"), Some(path), "{moved}");
        server
            .call(
                if path == TAGS { "GET" } else { "POST" }.parse().unwrap(),
                path,
            )
            .authorization("Device 0123456789abcdef0123456789abcdef01234567")
            .send()
            .expect_401(NOT_PROVIDED);
    }
    server.get(TAGS).send().expect_401(NOT_PROVIDED);
    assert_eq!(server.options(TAGS).send().json()["actions"], json!({}));
    let actions = server.options(BULK_TAGS).send().json()["actions"].clone();
    let fields = &actions["POST"];
    assert_eq!(keys(fields), ["add", "remove", "selector"], "{actions}");
    assert_eq!(fields["selector"]["type"], "nested object");
    assert_eq!(fields["selector"]["required"], true);
    for list in ["add", "remove"] {
        assert_eq!(fields[list]["type"], "list", "{list}");
        assert_eq!(fields[list]["required"], false, "{list}");
        assert_eq!(fields[list]["read_only"], false, "{list}");
    }
    server
        .post(BULK_TAGS)
        .token(&alice.token)
        .body("text/plain", "add=x")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");
    // A form repeats a list's name, and spells the selector's keys `selector.<key>`.
    let serial = add_device(&server, &alice, "Pi", &[]);
    server
        .post(BULK_TAGS)
        .token(&alice.token)
        .body(
            "application/x-www-form-urlencoded",
            "selector.all=true&add=lab&add=Site:Berlin",
        )
        .send()
        .expect(200, json!({"matched": 1}));
    assert_eq!(
        tags_of(&server, &alice.token, &serial),
        json!(["lab", "site:berlin"])
    );
}
