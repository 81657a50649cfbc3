//! `POST /monitors/` and a snooze refuse bad bodies (docs/api.md, "Monitors
//! and alerts"): each field's DRF message, every failing field at once,
//! `after_seconds` from the server's own online window, forms read as JSON
//! is, and nothing created on a 400.

use crate::alerts_support::*;
use crate::device_support::assert_json_body_rules;
use crate::support::*;
use serde_json::{Value, json};

const WRONG_TIME: &str =
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.";

/// `POST /monitors/ body` by `token`, asserting the 400 `errors`.
#[track_caller]
fn refused(server: &Server, token: &str, body: Value, errors: Value) {
    server
        .post(MONITORS)
        .token(token)
        .json(&body)
        .send()
        .expect(400, errors);
}

e2e!(every_failing_field_is_reported_at_once_and_nothing_is_created);
fn every_failing_field_is_reported_at_once_and_nothing_is_created() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let token = &alice.token;
    refused(
        &server,
        token,
        json!({}),
        json!({
            "name": ["This field is required."],
            "kind": ["This field is required."],
            "selector": ["This field is required."],
            "after_seconds": ["This field is required."],
        }),
    );
    refused(
        &server,
        token,
        json!({"name": "   ", "kind": "disk_full",
            "selector": {"tags": [], "machine_type": "toaster"},
            "after_seconds": 89, "ratio": 2}),
        json!({
            "name": ["This field may not be blank."],
            "kind": ["\"disk_full\" is not a valid choice."],
            "selector": {
                "tags": ["This list may not be empty."],
                "machine_type": ["\"toaster\" is not a valid choice."],
            },
            "after_seconds": ["Ensure this value is greater than or equal to 90."],
            "ratio": ["Ensure this value is less than or equal to 1."],
        }),
    );
    refused(
        &server,
        token,
        json!({"name": "n".repeat(101), "kind": null, "selector": "all",
            "after_seconds": 604_801}),
        json!({
            "name": ["Ensure this field has no more than 100 characters."],
            "kind": ["This field may not be null."],
            "selector": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
            "after_seconds": ["Ensure this value is less than or equal to 604800."],
        }),
    );
    refused(
        &server,
        token,
        json!({"name": 7, "kind": "device_offline", "selector": {"online": "maybe"},
            "after_seconds": "ninety"}),
        json!({
            "name": ["Not a valid string."],
            "selector": {"online": ["Must be a valid boolean."]},
            "after_seconds": ["A valid integer is required."],
        }),
    );
    // A fleet monitor needs its ratio, a number from 0 to 1.
    let fleet = |ratio: Option<Value>| {
        let mut body = json!({"name": "F", "kind": "fleet_offline_ratio",
            "selector": {"all": true}, "after_seconds": 90});
        if let Some(ratio) = ratio {
            body["ratio"] = ratio;
        }
        body
    };
    for (ratio, message) in [
        (None, "This field is required."),
        (Some(json!(null)), "This field may not be null."),
        (Some(json!("0.5")), "A valid number is required."),
        (
            Some(json!(-0.1)),
            "Ensure this value is greater than or equal to 0.",
        ),
    ] {
        refused(&server, token, fleet(ratio), json!({"ratio": [message]}));
    }
    assert_json_body_rules(|| server.post(MONITORS).token(token));
    assert_eq!(page(&server, token, MONITORS)["count"], 0);
    // The bounds themselves are taken.
    new_monitor(&server, token, &fleet(Some(json!(0))));
    new_monitor(&server, token, &fleet(Some(json!(1))));
    let mut longest = device_monitor_body(&"n".repeat(100));
    longest["after_seconds"] = json!(604_800);
    new_monitor(&server, token, &longest);
}

e2e!(after_seconds_starts_at_the_servers_online_window);
fn after_seconds_starts_at_the_servers_online_window() {
    let server = Server::builder().online_window(30).start();
    let alice = server.account("alice@example.com");
    let body = |seconds: i64| {
        json!({"name": "M", "kind": "device_offline", "selector": {"all": true},
            "after_seconds": seconds})
    };
    refused(
        &server,
        &alice.token,
        body(29),
        json!({"after_seconds": ["Ensure this value is greater than or equal to 30."]}),
    );
    refused(
        &server,
        &alice.token,
        body(-1),
        json!({"after_seconds": ["Ensure this value is greater than or equal to 30."]}),
    );
    assert_eq!(
        new_monitor(&server, &alice.token, &body(30))["after_seconds"],
        30
    );
}

e2e!(forms_are_read_as_json_is);
fn forms_are_read_as_json_is() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let reply = server
        .post(MONITORS)
        .token(&alice.token)
        .body(
            "application/x-www-form-urlencoded",
            "name=Berlin&kind=fleet_offline_ratio&selector.online=false&selector.search=pi\
             &after_seconds=120&ratio=0.5",
        )
        .send();
    reply.expect_status(201);
    let monitor = reply.json();
    assert_eq!(
        monitor["selector"],
        json!({"online": false, "search": "pi"})
    );
    assert_eq!(
        (&monitor["after_seconds"], &monitor["ratio"]),
        (&json!(120), &json!(0.5))
    );
    let boundary = "b0undary";
    let part = |name: &str, value: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        )
    };
    let multipart = [
        part("name", "Kitchen"),
        part("kind", "device_offline"),
        part("selector.all", "true"),
        part("after_seconds", "90"),
        format!("--{boundary}--\r\n"),
    ]
    .concat();
    let reply = server
        .post(MONITORS)
        .token(&alice.token)
        .body(
            &format!("multipart/form-data; boundary={boundary}"),
            multipart,
        )
        .send();
    reply.expect_status(201);
    assert_eq!(reply.json()["selector"], json!({"all": true}));
    server
        .post(MONITORS)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", "name=&after_seconds=x")
        .send()
        .expect(
            400,
            json!({
                "name": ["This field may not be blank."],
                "kind": ["This field is required."],
                "selector": ["This field is required."],
                "after_seconds": ["A valid integer is required."],
            }),
        );
}

e2e!(a_snooze_needs_a_time_or_null);
fn a_snooze_needs_a_time_or_null() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let monitor = new_monitor(&server, &alice.token, &device_monitor_body("M"));
    let snooze = format!("/monitors/{}/snooze/", string(&monitor, "id"));
    let call = || server.post(&snooze).token(&alice.token);
    call()
        .json(&json!({}))
        .send()
        .expect(400, json!({"until": ["This field is required."]}));
    call()
        .send()
        .expect(400, json!({"until": ["This field is required."]}));
    for until in [
        json!("2999-01-01 00:00:00"),
        json!("2999-01-01T00:00:00Z"),
        json!("tomorrow"),
        json!(1_700_000_000),
    ] {
        call()
            .json(&json!({ "until": until }))
            .send()
            .expect(400, json!({"until": [WRONG_TIME]}));
    }
    assert_json_body_rules(call);
    let unchanged = server.get(&format!("/monitors/{}/", string(&monitor, "id")));
    unchanged.token(&alice.token).send().expect(200, monitor);
}
