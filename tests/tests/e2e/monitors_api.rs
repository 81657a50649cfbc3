//! Monitors through the API (docs/api.md, "Monitors and alerts"): created
//! with 201 and `Location`, shown as sent, listed newest first a page at a
//! time, read, snoozed and deleted; 404 for any id not the account's; the
//! conventions of every route and OPTIONS' fields.

use crate::alerts_support::*;
use crate::device_support::install;
use crate::support::*;
use serde_json::{Value, json};

e2e!(monitors_are_created_as_sent_and_read_back);
fn monitors_are_created_as_sent_and_read_back() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = new_monitor(
        &server,
        &alice.token,
        &json!({"name": "Lab offline", "kind": "device_offline",
            "selector": {"tags": ["Lab"], "online": "yes", "colour": "red"},
            "after_seconds": 600, "ratio": 0.5, "extra": 1}),
    );
    assert_eq!(device["name"], "Lab offline");
    assert_eq!(device["kind"], "device_offline");
    assert_eq!(device["selector"], json!({"tags": ["lab"], "online": true}));
    assert_eq!(device["after_seconds"], 600);
    assert_eq!(device["ratio"], Value::Null);
    assert_eq!(device["snoozed_until"], Value::Null);
    let fleet = new_monitor(
        &server,
        &alice.token,
        &json!({"name": "Fleet", "kind": "fleet_offline_ratio", "selector": {"all": true},
            "after_seconds": DEFAULT_WINDOW, "ratio": 0.25}),
    );
    assert_eq!(fleet["kind"], "fleet_offline_ratio");
    assert_eq!(fleet["ratio"], 0.25);
    assert_eq!(fleet["selector"], json!({"all": true}));
    for monitor in [&device, &fleet] {
        let read = server.get(&path_of(monitor)).token(&alice.token).send();
        read.expect(200, monitor.clone());
    }
}

e2e!(monitors_come_newest_first_a_page_at_a_time);
fn monitors_come_newest_first_a_page_at_a_time() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    assert_eq!(
        page(&server, &alice.token, MONITORS),
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );
    // Made within one second: newest first all the same.
    let made: Vec<String> = (0..3)
        .map(|i| {
            let body = device_monitor_body(&format!("Monitor {i}"));
            string(&new_monitor(&server, &alice.token, &body), "id")
        })
        .collect();
    let newest_first: Vec<String> = made.into_iter().rev().collect();
    assert_paged(&server, &alice.token, MONITORS, &newest_first);
    for monitor in page(&server, &alice.token, MONITORS)["results"]
        .as_array()
        .unwrap()
    {
        assert_monitor_shape(&server, monitor);
    }
}

e2e!(a_snooze_sets_and_ends_the_monitors_snoozed_until);
fn a_snooze_sets_and_ends_the_monitors_snoozed_until() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let monitor = new_monitor(&server, &alice.token, &device_monitor_body("M"));
    let snooze = format!("{}snooze/", path_of(&monitor));
    let call = |body: Value| {
        let reply = server.post(&snooze).token(&alice.token).json(&body).send();
        reply.expect_status(200);
        let shown = reply.json();
        assert_monitor_shape(&server, &shown);
        shown
    };
    let snoozed = call(json!({"until": "2999-01-01T00:00:00"}));
    assert_eq!(snoozed["snoozed_until"], "2999-01-01T00:00:00");
    let read = server.get(&path_of(&monitor)).token(&alice.token).send();
    read.expect(200, snoozed.clone());
    assert_eq!(call(json!({"until": null}))["snoozed_until"], Value::Null);
    call(json!({"until": "2999-01-01T00:00:00"}));
    // A time not in the future ends it too.
    assert_eq!(
        call(json!({"until": "2000-01-01T00:00:00"}))["snoozed_until"],
        Value::Null
    );
    // As a form: an empty value is null.
    let form = server
        .post(&snooze)
        .token(&alice.token)
        .body(
            "application/x-www-form-urlencoded",
            "until=2999-06-01T12:00:00",
        )
        .send();
    form.expect_status(200);
    assert_eq!(form.json()["snoozed_until"], "2999-06-01T12:00:00");
    let form = server
        .post(&snooze)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", "until=")
        .send();
    assert_eq!(form.json()["snoozed_until"], Value::Null);
}

e2e!(a_deleted_monitor_is_gone);
fn a_deleted_monitor_is_gone() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let kept = new_monitor(&server, &alice.token, &device_monitor_body("Kept"));
    let gone = new_monitor(&server, &alice.token, &device_monitor_body("Gone"));
    server
        .delete(&path_of(&gone))
        .token(&alice.token)
        .send()
        .expect_empty(204);
    assert_not_found(
        &server,
        &alice.token,
        &[
            ("GET", path_of(&gone)),
            ("DELETE", path_of(&gone)),
            ("POST", format!("{}snooze/", path_of(&gone))),
        ],
    );
    assert_eq!(
        ids(&page(&server, &alice.token, MONITORS)),
        [string(&kept, "id")]
    );
}

e2e!(ids_not_the_accounts_are_404_and_nothing_changes);
fn ids_not_the_accounts_are_404_and_nothing_changes() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let alices = new_monitor(&server, &alice.token, &device_monitor_body("Alice's"));
    let id = string(&alices, "id");
    let mut calls = Vec::new();
    for path in missing_ids(MONITORS, &id) {
        calls.push(("GET", path.clone()));
        calls.push(("DELETE", path.clone()));
        calls.push(("POST", format!("{path}snooze/")));
    }
    assert_not_found(&server, &alice.token, &calls);
    // Another account's monitor is as unknown, to every route.
    assert_not_found(
        &server,
        &bob.token,
        &[
            ("GET", path_of(&alices)),
            ("DELETE", path_of(&alices)),
            ("POST", format!("{}snooze/", path_of(&alices))),
        ],
    );
    let snooze = server
        .post(&format!("{}snooze/", path_of(&alices)))
        .token(&bob.token)
        .json(&json!({"until": "2999-01-01T00:00:00"}))
        .send();
    snooze.expect(404, json!({"detail": "Not found."}));
    assert_eq!(page(&server, &bob.token, MONITORS)["count"], 0);
    let unchanged = server.get(&path_of(&alices)).token(&alice.token).send();
    unchanged.expect(200, alices);
}

e2e!(the_monitors_routes_follow_the_conventions_of_every_route);
fn the_monitors_routes_follow_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen");
    let monitor = new_monitor(&server, &alice.token, &device_monitor_body("M"));
    let path = path_of(&monitor);
    let routes = [
        (MONITORS.to_owned(), "GET, POST, HEAD, OPTIONS"),
        (path.clone(), "GET, DELETE, HEAD, OPTIONS"),
        (format!("{path}snooze/"), "POST, OPTIONS"),
    ];
    assert_route_conventions(&server, &alice.token, &agent.token, &routes);
    let head = server.head(MONITORS).token(&alice.token).send();
    head.expect_status(200);
    assert!(head.body.is_empty());
}

e2e!(options_describes_the_body_of_a_monitor_and_of_a_snooze);
fn options_describes_the_body_of_a_monitor_and_of_a_snooze() {
    let server = Server::start();
    let reply = server.options(MONITORS).send();
    reply.expect_status(200);
    let body = reply.json();
    assert_eq!(body["name"], "Monitor List");
    let fields = &body["actions"]["POST"];
    assert_eq!(
        keys(fields),
        ["after_seconds", "kind", "name", "ratio", "selector"],
        "{reply}"
    );
    assert_eq!(
        fields["name"],
        json!({"type": "string", "required": true, "read_only": false, "label": "Name",
            "max_length": 100})
    );
    assert_eq!(
        fields["kind"],
        json!({"type": "choice", "required": true, "read_only": false, "label": "Kind",
        "choices": [
            {"value": "device_offline", "display_name": "device_offline"},
            {"value": "fleet_offline_ratio", "display_name": "fleet_offline_ratio"},
        ]})
    );
    assert_eq!(fields["selector"]["type"], "nested object");
    assert_eq!(fields["selector"]["required"], true);
    assert_eq!(fields["after_seconds"]["type"], "integer");
    assert_eq!(fields["after_seconds"]["required"], true);
    assert_eq!(fields["after_seconds"]["max_value"], 604_800);
    assert_eq!(
        fields["ratio"],
        json!({"type": "float", "required": false, "read_only": false, "label": "Ratio",
            "min_value": 0, "max_value": 1})
    );
    let snooze = server.options("/monitors/x/snooze/").send().json();
    assert_eq!(snooze["name"], "Monitor Snooze");
    assert_eq!(
        snooze["actions"],
        json!({"POST": {"until": {"type": "datetime", "required": true, "read_only": false,
            "label": "Until"}}})
    );
    assert_eq!(
        server.options("/monitors/x/").send().json()["actions"],
        json!({})
    );
}

/// The path of a monitor as the API showed it.
fn path_of(monitor: &Value) -> String {
    format!("/monitors/{}/", string(monitor, "id"))
}
