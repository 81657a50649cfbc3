//! The agent API's heartbeats and the facts they report (docs/agent-protocol.md).

use crate::agent_support::*;
use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

/// Every fact a heartbeat can report, none of them a default.
fn all_facts() -> Value {
    json!({
        "agent_version": "1.4.2",
        "uname": "Linux kitchen 6.6.20+rpt-rpi-v8 aarch64",
        "operating_system": "Raspberry Pi OS 12",
        "machine_type": "rpi_4b",
        "disk_capacity": 31_914_983_424_u64,
        "disk_used": 5_368_709_120_u64,
        "ram_capacity": 4096,
        "processor_speed": 1800,
    })
}

/// The device's reported facts (and `online`) as the owner sees them.
fn facts_of(device: &Value) -> Value {
    let mut facts = serde_json::Map::new();
    for key in [
        "agent_version",
        "uname",
        "operating_system",
        "machine_type",
        "machine_type_display",
        "disk_capacity",
        "disk_used",
        "ram_capacity",
        "processor_speed",
        "online",
    ] {
        facts.insert(key.to_owned(), device[key].clone());
    }
    Value::Object(facts)
}

/// The facts of [`all_facts`] as the owner sees them after that heartbeat.
fn all_facts_seen() -> Value {
    let mut seen = all_facts();
    let object = seen.as_object_mut().expect("an object");
    object.insert(
        "machine_type_display".into(),
        "Raspberry Pi 4 Model B".into(),
    );
    object.insert("online".into(), true.into());
    seen
}

e2e!(a_heartbeat_answers_with_no_commands_and_the_interval);
fn a_heartbeat_answers_with_no_commands_and_the_interval() {
    let (server, _alice, agent) = setup();
    heartbeat_call(&server, &agent.token, &json!({}))
        .expect(200, json!({"commands": [], "heartbeat_interval": 30}));
}

e2e!(the_heartbeat_interval_is_a_third_of_the_online_window_at_least_1);
fn the_heartbeat_interval_is_a_third_of_the_online_window_at_least_1() {
    for (window, interval) in [(9, 3), (10, 3), (2, 1), (1, 1)] {
        let server = Server::builder().online_window(window).start();
        let alice = server.account("alice@example.com");
        let agent = install(&server, &alice, "Kitchen Pi");
        assert_eq!(
            heartbeat(&server, &agent.token, &json!({}))["heartbeat_interval"],
            interval,
            "--online-window {window}"
        );
    }
}

e2e!(a_heartbeat_reports_the_facts_to_the_owner);
fn a_heartbeat_reports_the_facts_to_the_owner() {
    let (server, alice, agent) = setup();
    heartbeat(&server, &agent.token, &all_facts());
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(facts_of(&device), all_facts_seen());
    assert_eq!(device["name"], "Kitchen Pi", "a heartbeat never renames");
    assert_eq!(device["description"], "");
}

e2e!(omitted_facts_keep_their_values);
fn omitted_facts_keep_their_values() {
    let (server, alice, agent) = setup();
    heartbeat(&server, &agent.token, &all_facts());
    heartbeat(&server, &agent.token, &json!({"agent_version": "1.5.0"}));
    let mut expected = all_facts_seen();
    expected["agent_version"] = json!("1.5.0");
    assert_eq!(
        facts_of(&device_detail(&server, &alice.token, &agent.serial)),
        expected
    );
    // An empty body is a heartbeat that changes no facts.
    server
        .post("/agent/heartbeat/")
        .device(&agent.token)
        .send()
        .expect(200, json!({"commands": [], "heartbeat_interval": 30}));
    assert_eq!(
        facts_of(&device_detail(&server, &alice.token, &agent.serial)),
        expected
    );
}

e2e!(null_disk_values_mean_unknown_and_strings_may_be_blanked);
fn null_disk_values_mean_unknown_and_strings_may_be_blanked() {
    let (server, alice, agent) = setup();
    heartbeat(&server, &agent.token, &all_facts());
    heartbeat(
        &server,
        &agent.token,
        &json!({"disk_capacity": null, "disk_used": null, "agent_version": "", "uname": ""}),
    );
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(device["disk_capacity"], Value::Null);
    assert_eq!(device["disk_used"], Value::Null);
    assert_eq!(device["agent_version"], "");
    assert_eq!(device["uname"], "");
    assert_eq!(device["ram_capacity"], 4096);
}

e2e!(integers_sent_as_text_are_refused_as_the_schema_says);
fn integers_sent_as_text_are_refused_as_the_schema_says() {
    let (server, alice, agent) = setup();
    let reply = heartbeat_call(
        &server,
        &agent.token,
        &json!({
            "disk_capacity": "31914983424",
            "ram_capacity": 4096.0,
            "ports": [{"port": "8080", "protocol": "tcp", "name": "http"}],
        }),
    );
    reply.expect_status(400);
    assert_eq!(
        reply.json(),
        json!({
            "disk_capacity": ["A valid integer is required."],
            "ports": [{"port": ["A valid integer is required."]}],
        }),
        "{reply}"
    );
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(device["disk_capacity"], Value::Null);
    assert_eq!(device["ram_capacity"], 0);
}

e2e!(a_heartbeat_with_bad_integers_is_refused_and_changes_nothing);
fn a_heartbeat_with_bad_integers_is_refused_and_changes_nothing() {
    let (server, alice, agent) = setup();
    heartbeat(&server, &agent.token, &all_facts());
    let before = device_detail(&server, &alice.token, &agent.serial);
    refused_heartbeat(
        &server,
        &agent,
        json!({
            "agent_version": "2.0.0",
            "disk_capacity": -1,
            "disk_used": "lots",
            "ram_capacity": -5,
            "processor_speed": "fast",
        }),
        json!({
            "disk_capacity": ["Ensure this value is greater than or equal to 0."],
            "disk_used": ["A valid integer is required."],
            "ram_capacity": ["Ensure this value is greater than or equal to 0."],
            "processor_speed": ["A valid integer is required."],
        }),
    );
    assert_eq!(device_detail(&server, &alice.token, &agent.serial), before);
}

e2e!(a_heartbeat_with_bad_text_is_refused);
fn a_heartbeat_with_bad_text_is_refused() {
    let (server, alice, agent) = setup();
    let cases = [
        (
            json!({"agent_version": chars('v', 101)}),
            json!({"agent_version": [too_long(100)]}),
        ),
        (
            json!({"operating_system": chars('o', 201)}),
            json!({"operating_system": [too_long(200)]}),
        ),
        (
            json!({"uname": chars('u', 1001)}),
            json!({"uname": [too_long(1000)]}),
        ),
        (
            json!({"agent_version": ["1.0"]}),
            json!({"agent_version": [NOT_A_STRING]}),
        ),
        (
            json!({"machine_type": "toaster"}),
            json!({"machine_type": [not_a_choice("toaster")]}),
        ),
    ];
    for (body, errors) in cases {
        refused_heartbeat(&server, &agent, body, errors);
    }
    // The longest allowed values pass, counted in characters.
    heartbeat(
        &server,
        &agent.token,
        &json!({
            "agent_version": chars('ö', 100),
            "operating_system": chars('ö', 200),
            "uname": chars('ö', 1000),
        }),
    );
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(device["agent_version"], chars('ö', 100));
    assert_eq!(device["operating_system"], chars('ö', 200));
    assert_eq!(device["uname"], chars('ö', 1000));
}

e2e!(heartbeat_and_install_bodies_follow_the_json_conventions);
fn heartbeat_and_install_bodies_follow_the_json_conventions() {
    let server = Server::builder().throttle_off().start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    assert_json_body_rules(|| server.post("/agent/heartbeat/").device(&agent.token));
    assert_json_body_rules(|| server.post("/install/"));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false,
        "no refused heartbeat counted"
    );
    assert_eq!(
        listed_serials(&server, &alice.token),
        [agent.serial.as_str()]
    );
}

e2e!(a_heartbeat_makes_the_device_online_until_the_window_passes);
fn a_heartbeat_makes_the_device_online_until_the_window_passes() {
    let server = Server::builder().online_window(2).start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    heartbeat(&server, &agent.token, &json!({}));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        true
    );
    server.advance(Duration::from_millis(3500));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false
    );
}
