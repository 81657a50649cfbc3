//! `POST /jobs/`'s body (docs/api.md, "Jobs"): each field's rules and
//! messages, every failing field at once, form bodies, and a refused body
//! that creates nothing.

use crate::device_support::assert_json_body_rules;
use crate::fleet_select_support::not_a_choice;
use crate::jobs_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// A valid body with `changes` made (`null` in `changes` removes a key).
fn body_with(changes: Value) -> Value {
    let mut body = json!({"action": "reboot", "selector": {"all": true}});
    for (key, value) in changes.as_object().expect("an object") {
        match value {
            Value::Null => {
                body.as_object_mut().unwrap().remove(key);
            }
            value => body[key] = value.clone(),
        }
    }
    body
}

/// How many jobs the account has.
#[track_caller]
fn job_count(server: &Server, token: &str) -> u64 {
    let reply = server.get(JOBS).token(token).send();
    reply.expect_status(200);
    reply.json()["count"].as_u64().expect("a count")
}

e2e!(each_field_refuses_what_it_cannot_read_with_drfs_messages);
fn each_field_refuses_what_it_cannot_read_with_drfs_messages() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let greater = |n: i64| format!("Ensure this value is greater than or equal to {n}.");
    let less = |n: i64| format!("Ensure this value is less than or equal to {n}.");
    let cases: Vec<(Value, &str, Value)> = vec![
        (json!({"action": null}), "action", json!([REQUIRED])),
        (
            json!({"action": "shutdown"}),
            "action",
            json!([not_a_choice("shutdown")]),
        ),
        (
            json!({"action": "Reboot"}),
            "action",
            json!([not_a_choice("Reboot")]),
        ),
        (json!({"action": 1}), "action", json!([not_a_choice("1")])),
        (json!({"selector": null}), "selector", json!([REQUIRED])),
        (
            json!({"selector": "all"}),
            "selector",
            json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}),
        ),
        (
            json!({"selector": {}}),
            "selector",
            json!({"non_field_errors": ["A selector without criteria needs \"all\": true."]}),
        ),
        (
            json!({"selector": {"tags": [], "online": "maybe"}}),
            "selector",
            json!({"tags": ["This list may not be empty."], "online": ["Must be a valid boolean."]}),
        ),
        (
            json!({"start_time": "2026-11-24 09:30:00"}),
            "start_time",
            json!([WRONG_TIME]),
        ),
        (
            json!({"start_time": "2026-11-24T09:30:00Z"}),
            "start_time",
            json!([WRONG_TIME]),
        ),
        (
            json!({"start_time": "2026-02-30T09:30:00"}),
            "start_time",
            json!([WRONG_TIME]),
        ),
        (json!({"start_time": ""}), "start_time", json!([WRONG_TIME])),
        (
            json!({"start_time": 1_700_000_000}),
            "start_time",
            json!([WRONG_TIME]),
        ),
        (json!({"wave_size": 0}), "wave_size", json!([greater(1)])),
        (
            json!({"wave_size": 100_001}),
            "wave_size",
            json!([less(100_000)]),
        ),
        (
            json!({"wave_size": "2"}),
            "wave_size",
            json!(["A valid integer is required."]),
        ),
        (
            json!({"wave_size": 1.5}),
            "wave_size",
            json!(["A valid integer is required."]),
        ),
        (
            json!({"wave_size": true}),
            "wave_size",
            json!(["A valid integer is required."]),
        ),
        (
            json!({"wave_interval_seconds": -1}),
            "wave_interval_seconds",
            json!([greater(0)]),
        ),
        (
            json!({"wave_interval_seconds": 86_401}),
            "wave_interval_seconds",
            json!([less(86_400)]),
        ),
        (
            json!({"wave_interval_seconds": "10"}),
            "wave_interval_seconds",
            json!(["A valid integer is required."]),
        ),
        (
            json!({"halt_failure_ratio": 1.5}),
            "halt_failure_ratio",
            json!([less(1)]),
        ),
        (
            json!({"halt_failure_ratio": -0.1}),
            "halt_failure_ratio",
            json!([greater(0)]),
        ),
        (
            json!({"halt_failure_ratio": "half"}),
            "halt_failure_ratio",
            json!(["A valid number is required."]),
        ),
        (
            json!({"halt_failure_ratio": false}),
            "halt_failure_ratio",
            json!(["A valid number is required."]),
        ),
    ];
    for (changes, field, messages) in cases {
        let body = body_with(changes.clone());
        create_call(&server, &alice.token, &body).expect(400, json!({ field: messages }));
    }
    // null is "not given" where the field takes it, and refused elsewhere.
    let body = json!({"action": "reboot", "selector": {"all": true},
                      "wave_interval_seconds": null, "halt_failure_ratio": null});
    create_call(&server, &alice.token, &body).expect(
        400,
        json!({
            "wave_interval_seconds": ["This field may not be null."],
            "halt_failure_ratio": ["This field may not be null."],
        }),
    );
    assert_eq!(job_count(&server, &alice.token), 0, "a 400 creates nothing");
    let job = create(
        &server,
        &alice.token,
        &body_with(json!({"start_time": Value::Null, "wave_size": Value::Null})),
    );
    assert_eq!(job["wave_size"], Value::Null);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true},
                "start_time": null, "wave_size": null, "colour": "red"}),
    );
    assert_eq!(job["wave_size"], Value::Null);
    assert_eq!(job["start_time"], job["created_time"]);
}

e2e!(every_failing_field_is_reported_at_once_and_nothing_is_created);
fn every_failing_field_is_reported_at_once_and_nothing_is_created() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let body = json!({
        "action": "wipe",
        "selector": {"all": true, "tags": ["lab"]},
        "start_time": "tomorrow",
        "wave_size": 0,
        "wave_interval_seconds": 99_999,
        "halt_failure_ratio": 2,
    });
    create_call(&server, &alice.token, &body).expect(
        400,
        json!({
            "action": [not_a_choice("wipe")],
            "selector": {"non_field_errors": ["\"all\": true cannot be combined with other criteria."]},
            "start_time": [WRONG_TIME],
            "wave_size": ["Ensure this value is greater than or equal to 1."],
            "wave_interval_seconds": ["Ensure this value is less than or equal to 86400."],
            "halt_failure_ratio": ["Ensure this value is less than or equal to 1."],
        }),
    );
    create_call(&server, &alice.token, &json!({}))
        .expect(400, json!({"action": [REQUIRED], "selector": [REQUIRED]}));
    assert_eq!(job_count(&server, &alice.token), 0);
    assert_json_body_rules(|| server.post(JOBS).token(&alice.token));
    assert_eq!(job_count(&server, &alice.token), 0);
}

e2e!(forms_spell_the_selector_selector_key_and_numbers_as_text);
fn forms_spell_the_selector_selector_key_and_numbers_as_text() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let form = "action=reboot&selector.all=true&wave_size=2&wave_interval_seconds=30\
                &halt_failure_ratio=0.25&start_time=&selector.colour=red";
    let reply = server
        .post(JOBS)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", form)
        .send();
    reply.expect_status(201);
    let job = reply.json();
    assert_job_shape(&server, &job);
    assert_eq!(job["selector"], json!({"all": true}));
    assert_eq!(job["wave_size"], 2);
    assert_eq!(job["wave_interval_seconds"], 30);
    assert_eq!(job["halt_failure_ratio"], 0.25);
    assert_eq!(job["start_time"], job["created_time"]);

    let boundary = "jobsboundary";
    let part = |name: &str, value: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        )
    };
    let multipart = [
        part("action", "reboot"),
        part("selector.tags", "Lab"),
        part("selector.online", "false"),
        part("halt_failure_ratio", "1"),
        format!("--{boundary}--\r\n"),
    ]
    .concat();
    let reply = server
        .post(JOBS)
        .token(&alice.token)
        .body(
            &format!("multipart/form-data; boundary={boundary}"),
            multipart,
        )
        .send();
    reply.expect_status(201);
    let job = reply.json();
    assert_eq!(job["selector"], json!({"tags": ["lab"], "online": false}));
    assert_eq!(job["halt_failure_ratio"], 1.0);
    assert_eq!(job["status"], "completed", "no device carries lab");

    let refused = "action=reboot&selector.all=true&wave_size=two&halt_failure_ratio=half\
                   &start_time=2026-11-24T09:30";
    server
        .post(JOBS)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", refused)
        .send()
        .expect(
            400,
            json!({
                "wave_size": ["A valid integer is required."],
                "halt_failure_ratio": ["A valid number is required."],
                "start_time": [WRONG_TIME],
            }),
        );
    assert_eq!(job_count(&server, &alice.token), 2);
}
