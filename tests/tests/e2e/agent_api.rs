//! The agent API (docs/agent-protocol.md): enrolment through
//! POST /install/, heartbeats and the facts and ports they report, the command
//! long poll, acknowledgements, and the `Device` credential.

use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};
use std::thread;
use std::time::Duration;

/// A server with alice and one device installed with her install token.
fn setup() -> (Server, Account, Agent) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    (server, alice, agent)
}

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

/// A heartbeat reporting these ports; asserts the 200.
fn report_ports(server: &Server, agent: &Agent, ports: Value) {
    heartbeat(server, &agent.token, &json!({ "ports": ports }));
}

/// A heartbeat that must be refused with exactly this 400 body.
#[track_caller]
fn refused_heartbeat(server: &Server, agent: &Agent, body: Value, errors: Value) {
    heartbeat_call(server, &agent.token, &body).expect(400, errors);
}

// ---------------------------------------------------------------- install

e2e!(install_enrols_an_offline_device_in_the_install_tokens_account);
fn install_enrols_an_offline_device_in_the_install_tokens_account() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    assert_eq!(
        listed_serials(&server, &alice.token),
        [agent.serial.as_str()]
    );
    assert_eq!(listed_serials(&server, &bob.token), Vec::<String>::new());
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(device["name"], "Kitchen Pi");
    assert_eq!(device["description"], "");
    assert_eq!(device["machine_type"], "unknown");
    assert_eq!(device["machine_type_display"], "Unknown");
    assert_eq!(device["agent_version"], "");
    assert_eq!(
        device["online"], false,
        "installing does not make it online"
    );
    assert_eq!(
        device["url"],
        format!("{}/devices/{}/", server.expected_base(), agent.serial)
    );
}

e2e!(install_keeps_a_given_serial_in_lowercase_and_the_machine_type);
fn install_keeps_a_given_serial_in_lowercase_and_the_machine_type() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let agent = install_with(
        &server,
        &alice,
        "Kitchen Pi",
        json!({"serial": serial.to_ascii_uppercase(), "machine_type": "rpi_4b"}),
    );
    assert_eq!(agent.serial, serial);
    let device = device_detail(&server, &alice.token, serial);
    assert_eq!(device["machine_type"], "rpi_4b");
    assert_eq!(device["machine_type_display"], "Raspberry Pi 4 Model B");
}

e2e!(each_install_without_a_serial_makes_a_new_device_with_its_own_token);
fn each_install_without_a_serial_makes_a_new_device_with_its_own_token() {
    let (server, alice, first) = setup();
    let second = install(&server, &alice, "Kitchen Pi");
    assert_ne!(first.serial, second.serial);
    assert_ne!(first.token, second.token);
    assert_eq!(listed_serials(&server, &alice.token).len(), 2);
    // Both tokens work.
    heartbeat(&server, &first.token, &json!({}));
    heartbeat(&server, &second.token, &json!({}));
}

e2e!(install_uses_the_public_url_when_configured);
fn install_uses_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let alice = server.account("alice@example.com");
    // `installed` checks the url against the public URL.
    let agent = install(&server, &alice, "Kitchen Pi");
    assert!(is_lowercase_uuid(&agent.serial));
}

e2e!(an_unknown_install_token_is_refused);
fn an_unknown_install_token_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    install_call(
        &server,
        &json!({"install_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "Intruder"}),
    )
    .expect_field_errors("install_token", &["Invalid install token."]);
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
}

e2e!(install_requires_the_install_token_and_a_name);
fn install_requires_the_install_token_and_a_name() {
    let (server, alice, _agent) = setup();
    install_call(&server, &json!({})).expect(
        400,
        json!({"install_token": [REQUIRED], "name": [REQUIRED]}),
    );
    install_call(&server, &json!({"install_token": alice.install_token}))
        .expect_field_errors("name", &[REQUIRED]);
    server.post("/install/").send().expect(
        400,
        json!({"install_token": [REQUIRED], "name": [REQUIRED]}),
    );
    assert_eq!(listed_serials(&server, &alice.token).len(), 1);
}

e2e!(install_checks_the_name);
fn install_checks_the_name() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let cases = [
        (json!(""), BLANK.to_owned()),
        (json!("   "), BLANK.to_owned()),
        (json!(null), NULL.to_owned()),
        (json!(["Kitchen Pi"]), NOT_A_STRING.to_owned()),
        (json!(chars('é', 101)), too_long(100)),
    ];
    for (name, message) in cases {
        install_call(
            &server,
            &json!({"install_token": alice.install_token, "name": name}),
        )
        .expect_field_errors("name", &[&message]);
    }
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
    // 100 characters are fine, and a name is stored as sent.
    for name in [chars('é', 100), " Küchen-Pi ".to_owned()] {
        let agent = install(&server, &alice, &name);
        assert_eq!(
            device_detail(&server, &alice.token, &agent.serial)["name"],
            name.as_str()
        );
    }
}

e2e!(install_checks_the_serial_and_the_machine_type);
fn install_checks_the_serial_and_the_machine_type() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Pi", "serial": "not-a-uuid"}),
    )
    .expect_field_errors("serial", &["Must be a valid UUID."]);
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Pi", "machine_type": "toaster"}),
    )
    .expect_field_errors("machine_type", &[&not_a_choice("toaster")]);
    // Every field error of one request comes together.
    install_call(
        &server,
        &json!({
            "install_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "name": "",
            "serial": "not-a-uuid",
            "machine_type": "toaster",
        }),
    )
    .expect(
        400,
        json!({
            "install_token": ["Invalid install token."],
            "name": [BLANK],
            "serial": ["Must be a valid UUID."],
            "machine_type": [not_a_choice("toaster")],
        }),
    );
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
}

e2e!(installing_again_rekeys_the_device_and_keeps_everything_else);
fn installing_again_rekeys_the_device_and_keeps_everything_else() {
    // A one-second online window: the device is offline again soon after
    // its heartbeat, and only an offline device is re-keyed.
    let server = Server::builder().online_window(1).start();
    let alice = server.account("alice@example.com");
    let first = install(&server, &alice, "Kitchen Pi");
    heartbeat(
        &server,
        &first.token,
        &json!({"agent_version": "1.0.0", "ports": [{"port": 22, "protocol": "tcp", "name": "ssh"}]}),
    );
    server
        .patch(&device_path(&first.serial))
        .token(&alice.token)
        .json(&json!({"description": "By the fridge"}))
        .send()
        .expect_status(200);
    reboot(&server, &alice.token, &first.serial);
    let before = device_detail(&server, &alice.token, &first.serial);
    server.advance(std::time::Duration::from_millis(1100));

    let second = install_with(
        &server,
        &alice,
        "Pantry Pi",
        json!({"serial": first.serial}),
    );
    assert_eq!(second.serial, first.serial);
    assert_ne!(second.token, first.token);

    heartbeat_call(&server, &first.token, &json!({})).expect_device_401(INVALID_TOKEN);
    poll_call(&server, &first.token, "0").expect_device_401(INVALID_TOKEN);
    // The pending reboot survives and goes to the new token.
    one_reboot(&heartbeat_commands(&server, &second.token));

    let after = device_detail(&server, &alice.token, &first.serial);
    assert_eq!(after["name"], "Pantry Pi");
    for key in [
        "description",
        "agent_version",
        "machine_type",
        "created_time",
        "wormhole_slug",
    ] {
        assert_eq!(after[key], before[key], "{key} is kept");
    }
    assert_eq!(
        device_ports(&server, &alice.token, &first.serial),
        json!([{"port": 22, "protocol": "tcp", "name": "ssh"}])
    );
    assert_eq!(listed_serials(&server, &alice.token), [first.serial]);
}

e2e!(installing_a_device_added_on_the_command_line_rekeys_it);
fn installing_a_device_added_on_the_command_line_rekeys_it() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    server.device(
        &alice.email,
        "Made by hand",
        &["--serial", serial, "--description", "From the CLI"],
    );
    let agent = install_with(&server, &alice, "Garage Pi", json!({"serial": serial}));
    assert_eq!(agent.serial, serial);
    assert_eq!(listed_serials(&server, &alice.token), [serial]);
    let device = device_detail(&server, &alice.token, serial);
    assert_eq!(device["name"], "Garage Pi");
    assert_eq!(device["description"], "From the CLI");
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(reinstalling_sets_the_machine_type_only_when_sent);
fn reinstalling_sets_the_machine_type_only_when_sent() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install_with(&server, &alice, "Pi", json!({"machine_type": "rpi_4b"}));
    install_with(&server, &alice, "Pi", json!({"serial": agent.serial}));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["machine_type"],
        "rpi_4b"
    );
    install_with(
        &server,
        &alice,
        "Pi",
        json!({"serial": agent.serial, "machine_type": "x86_64"}),
    );
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["machine_type"],
        "x86_64"
    );
}

e2e!(a_serial_of_another_account_is_refused);
fn a_serial_of_another_account_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let bobs = install(&server, &bob, "Bob's Pi");
    let before = device_detail(&server, &bob.token, &bobs.serial);
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Mine now", "serial": bobs.serial}),
    )
    .expect_field_errors("serial", &["This serial belongs to another account."]);
    // Not in a different letter case either.
    install_call(
        &server,
        &json!({
            "install_token": alice.install_token,
            "name": "Mine now",
            "serial": bobs.serial.to_ascii_uppercase(),
        }),
    )
    .expect_field_errors("serial", &["This serial belongs to another account."]);
    assert_eq!(device_detail(&server, &bob.token, &bobs.serial), before);
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
    heartbeat(&server, &bobs.token, &json!({}));
}

e2e!(install_is_throttled_per_address);
fn install_is_throttled_per_address() {
    let server = Server::builder()
        .args(&["--throttle-rate", "2/minute"])
        .start();
    let alice = server.account("alice@example.com");
    install(&server, &alice, "One");
    install(&server, &alice, "Two");
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Three"}),
    )
    .expect_throttled();
    assert_eq!(listed_serials(&server, &alice.token).len(), 2);
    // One budget for every unauthenticated write of the address.
    server
        .post("/verify-email/resend/")
        .json(&json!({"email": "nobody@example.com"}))
        .send()
        .expect_throttled();
}

e2e!(agent_routes_are_not_throttled);
fn agent_routes_are_not_throttled() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1/minute"])
        .start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    for _ in 0..4 {
        heartbeat(&server, &agent.token, &json!({}));
        poll(&server, &agent.token, 0);
    }
}

// ---------------------------------------------------------------- heartbeat

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

// ---------------------------------------------------------------- ports

e2e!(ports_are_listed_by_port_then_protocol);
fn ports_are_listed_by_port_then_protocol() {
    let (server, alice, agent) = setup();
    report_ports(
        &server,
        &agent,
        json!([
            {"port": 8080, "protocol": "tcp", "name": "http-alt"},
            {"port": 53, "protocol": "udp", "name": "dns"},
            {"port": 22, "protocol": "tcp", "name": "ssh"},
            {"port": 53, "protocol": "tcp", "name": "dns"},
            {"port": 65535, "protocol": "udp"},
            {"port": 1, "protocol": "tcp", "name": ""},
        ]),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([
            {"port": 1, "protocol": "tcp", "name": ""},
            {"port": 22, "protocol": "tcp", "name": "ssh"},
            {"port": 53, "protocol": "tcp", "name": "dns"},
            {"port": 53, "protocol": "udp", "name": "dns"},
            {"port": 8080, "protocol": "tcp", "name": "http-alt"},
            {"port": 65535, "protocol": "udp", "name": ""},
        ])
    );
}

e2e!(ports_are_replaced_when_sent_and_kept_when_omitted);
fn ports_are_replaced_when_sent_and_kept_when_omitted() {
    let (server, alice, agent) = setup();
    report_ports(
        &server,
        &agent,
        json!([{"port": 22, "protocol": "tcp", "name": "ssh"}]),
    );
    heartbeat(&server, &agent.token, &json!({"agent_version": "1.0.0"}));
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([{"port": 22, "protocol": "tcp", "name": "ssh"}])
    );
    report_ports(
        &server,
        &agent,
        json!([{"port": 80, "protocol": "tcp", "name": "http"}]),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([{"port": 80, "protocol": "tcp", "name": "http"}])
    );
    report_ports(&server, &agent, json!([]));
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([])
    );
}

e2e!(a_port_reported_twice_is_kept_once_with_the_first_name);
fn a_port_reported_twice_is_kept_once_with_the_first_name() {
    let (server, alice, agent) = setup();
    report_ports(
        &server,
        &agent,
        json!([
            {"port": 22, "protocol": "tcp", "name": "ssh"},
            {"port": 22, "protocol": "udp", "name": "other"},
            {"port": 22, "protocol": "tcp", "name": "dropbear"},
        ]),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([
            {"port": 22, "protocol": "tcp", "name": "ssh"},
            {"port": 22, "protocol": "udp", "name": "other"},
        ])
    );
}

e2e!(port_numbers_must_be_from_1_to_65535);
fn port_numbers_must_be_from_1_to_65535() {
    let (server, alice, agent) = setup();
    let good = json!({"port": 22, "protocol": "tcp"});
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": [good, {"port": 65536, "protocol": "tcp"}, {"port": 0, "protocol": "udp"}]}),
        json!({"ports": [
            {},
            {"port": ["Ensure this value is less than or equal to 65535."]},
            {"port": ["Ensure this value is greater than or equal to 1."]},
        ]}),
    );
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": [{"port": "ssh", "protocol": "tcp"}]}),
        json!({"ports": [{"port": ["A valid integer is required."]}]}),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([])
    );
}

e2e!(a_port_needs_a_port_number_and_tcp_or_udp);
fn a_port_needs_a_port_number_and_tcp_or_udp() {
    let (server, alice, agent) = setup();
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": [{"port": 132, "protocol": "sctp"}, {"name": "nothing"}]}),
        json!({"ports": [
            {"protocol": [not_a_choice("sctp")]},
            {"port": [REQUIRED], "protocol": [REQUIRED]},
        ]}),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([])
    );
}

e2e!(a_port_name_may_have_64_characters_but_not_65);
fn a_port_name_may_have_64_characters_but_not_65() {
    let (server, alice, agent) = setup();
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": [{"port": 22, "protocol": "tcp", "name": chars('ß', 65)}]}),
        json!({"ports": [{"name": [too_long(64)]}]}),
    );
    report_ports(
        &server,
        &agent,
        json!([{"port": 22, "protocol": "tcp", "name": chars('ß', 64)}]),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([{"port": 22, "protocol": "tcp", "name": chars('ß', 64)}])
    );
}

e2e!(ports_must_be_a_list_of_objects);
fn ports_must_be_a_list_of_objects() {
    let (server, alice, agent) = setup();
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": {"port": 22, "protocol": "tcp"}}),
        json!({"ports": ["Expected a list of items but got type \"dict\"."]}),
    );
    refused_heartbeat(
        &server,
        &agent,
        json!({"ports": [{"port": 22, "protocol": "tcp"}, "ssh"]}),
        json!({"ports": [
            {},
            {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
        ]}),
    );
    assert_eq!(
        device_ports(&server, &alice.token, &agent.serial),
        json!([])
    );
}

// ---------------------------------------------------------------- online

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

// ---------------------------------------------------------------- commands

e2e!(a_reboot_is_handed_out_once_by_the_next_heartbeat);
fn a_reboot_is_handed_out_once_by_the_next_heartbeat() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let answer = heartbeat(&server, &agent.token, &json!({}));
    assert_eq!(answer["heartbeat_interval"], 30);
    one_reboot(answer["commands"].as_array().expect("a list"));
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
}

e2e!(a_pending_reboot_is_handed_out_once_by_a_long_poll);
fn a_pending_reboot_is_handed_out_once_by_a_long_poll() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    // Pending already: answered at once, whatever the wait (60, the longest).
    one_reboot(&poll(&server, &agent.token, 60));
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
}

e2e!(queuing_a_reboot_wakes_a_waiting_long_poll);
fn queuing_a_reboot_wakes_a_waiting_long_poll() {
    let (server, alice, agent) = setup();
    let commands = thread::scope(|scope| {
        let waiting = scope.spawn(|| poll(&server, &agent.token, 20));
        thread::sleep(Duration::from_millis(500));
        reboot(&server, &alice.token, &agent.serial);
        waiting.join().expect("the long poll thread")
    });
    // Had the poll timed out instead, it would have answered [].
    one_reboot(&commands);
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
}

e2e!(another_devices_command_does_not_answer_a_long_poll);
fn another_devices_command_does_not_answer_a_long_poll() {
    let (server, alice, kitchen) = setup();
    let garage = install(&server, &alice, "Garage Pi");
    let commands = thread::scope(|scope| {
        let waiting = scope.spawn(|| poll(&server, &kitchen.token, 2));
        thread::sleep(Duration::from_millis(500));
        reboot(&server, &alice.token, &garage.serial);
        waiting.join().expect("the long poll thread")
    });
    assert_eq!(commands, Vec::<Value>::new());
    one_reboot(&heartbeat_commands(&server, &garage.token));
}

e2e!(a_long_poll_with_nothing_pending_answers_an_empty_list_and_is_no_heartbeat);
fn a_long_poll_with_nothing_pending_answers_an_empty_list_and_is_no_heartbeat() {
    let (server, alice, agent) = setup();
    assert_eq!(poll(&server, &agent.token, 1), Vec::<Value>::new());
    // `wait` defaults to 0.
    server
        .get("/agent/commands/")
        .device(&agent.token)
        .send()
        .expect(200, json!({"commands": []}));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false,
        "a long poll does not count as a heartbeat"
    );
}

e2e!(wait_must_be_a_whole_number_from_0_to_60);
fn wait_must_be_a_whole_number_from_0_to_60() {
    let (server, alice, agent) = setup();
    for (wait, message) in [
        ("61", "Ensure this value is less than or equal to 60."),
        ("3600", "Ensure this value is less than or equal to 60."),
        ("-1", "Ensure this value is greater than or equal to 0."),
        ("soon", "A valid integer is required."),
        ("1.5", "A valid integer is required."),
    ] {
        poll_call(&server, &agent.token, wait).expect_field_errors("wait", &[message]);
    }
    // A refused poll hands nothing out.
    reboot(&server, &alice.token, &agent.serial);
    poll_call(&server, &agent.token, "61")
        .expect_field_errors("wait", &["Ensure this value is less than or equal to 60."]);
    one_reboot(&poll(&server, &agent.token, 0));
}

e2e!(head_on_commands_hands_nothing_out);
fn head_on_commands_hands_nothing_out() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    server
        .head("/agent/commands/")
        .device(&agent.token)
        .send()
        .expect_empty(200);
    server
        .head("/agent/commands/?wait=20")
        .device(&agent.token)
        .send()
        .expect_empty(200);
    one_reboot(&heartbeat_commands(&server, &agent.token));
}

e2e!(a_reboot_asked_for_twice_while_pending_is_queued_once);
fn a_reboot_asked_for_twice_while_pending_is_queued_once() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    reboot(&server, &alice.token, &agent.serial);
    one_reboot(&heartbeat_commands(&server, &agent.token));
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
}

e2e!(a_reboot_after_the_last_ended_is_a_new_command);
fn a_reboot_after_the_last_ended_is_a_new_command() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let first = one_reboot(&heartbeat_commands(&server, &agent.token));
    // Delivered, then received: still not ended, so not queued again.
    reboot(&server, &alice.token, &agent.serial);
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    ack_call(
        &server,
        &agent.token,
        &first,
        &json!({"status": "received"}),
    )
    .expect_empty(204);
    reboot(&server, &alice.token, &agent.serial);
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    ack_call(&server, &agent.token, &first, &json!({"status": "done"})).expect_empty(204);
    reboot(&server, &alice.token, &agent.serial);
    let second = one_reboot(&poll(&server, &agent.token, 0));
    assert_ne!(first, second);
}

e2e!(commands_go_only_to_their_own_device);
fn commands_go_only_to_their_own_device() {
    let (server, alice, kitchen) = setup();
    let garage = install(&server, &alice, "Garage Pi");
    reboot(&server, &alice.token, &kitchen.serial);
    assert_eq!(
        heartbeat_commands(&server, &garage.token),
        Vec::<Value>::new()
    );
    assert_eq!(poll(&server, &garage.token, 0), Vec::<Value>::new());
    one_reboot(&heartbeat_commands(&server, &kitchen.token));
}

// ---------------------------------------------------------------- ack

e2e!(a_command_is_acknowledged_with_204_and_again_with_204);
fn a_command_is_acknowledged_with_204_and_again_with_204() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&heartbeat_commands(&server, &agent.token));
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "done", "detail": "reboot started"}),
    )
    .expect_empty(204);
    ack_call(&server, &agent.token, &id, &json!({"status": "failed"})).expect_empty(204);

    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&poll(&server, &agent.token, 0));
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "failed", "detail": ""}),
    )
    .expect_empty(204);
}

e2e!(acknowledging_an_unknown_or_foreign_command_is_404);
fn acknowledging_an_unknown_or_foreign_command_is_404() {
    let (server, alice, agent) = setup();
    let other = install(&server, &alice, "Garage Pi");
    reboot(&server, &alice.token, &other.serial);
    let others = one_reboot(&heartbeat_commands(&server, &other.token));
    for id in [others.as_str(), MISSING_SERIAL, "not-a-uuid"] {
        ack_call(&server, &agent.token, id, &json!({"status": "done"}))
            .expect_detail(404, NOT_FOUND);
    }
    // The owner can still acknowledge it.
    ack_call(&server, &other.token, &others, &json!({"status": "done"})).expect_empty(204);
}

e2e!(an_acknowledgement_needs_a_valid_status_and_a_short_detail);
fn an_acknowledgement_needs_a_valid_status_and_a_short_detail() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&heartbeat_commands(&server, &agent.token));
    for (body, errors) in [
        (json!({}), json!({"status": [REQUIRED]})),
        (json!({"detail": "done"}), json!({"status": [REQUIRED]})),
        (
            json!({"status": "maybe"}),
            json!({"status": [not_a_choice("maybe")]}),
        ),
        (json!({"status": null}), json!({"status": [NULL]})),
        (
            json!({"status": "done", "detail": chars('d', 1001)}),
            json!({"detail": [too_long(1000)]}),
        ),
    ] {
        ack_call(&server, &agent.token, &id, &body).expect(400, errors);
    }
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "done", "detail": chars('d', 1000)}),
    )
    .expect_empty(204);
}

// ---------------------------------------------------------------- credentials

/// One call to each route that needs a device token, credentials still to add.
fn agent_calls(server: &Server) -> Vec<Call> {
    vec![
        server.post("/agent/heartbeat/").json(&json!({})),
        server.get("/agent/commands/"),
        server.get("/agent/commands/?wait=0"),
        server
            .post(&ack_path(MISSING_SERIAL))
            .json(&json!({"status": "done"})),
    ]
}

e2e!(agent_routes_need_credentials);
fn agent_routes_need_credentials() {
    let (server, alice, agent) = setup();
    for call in agent_calls(&server) {
        call.send().expect_device_401(NOT_PROVIDED);
    }
    for header in [
        format!("Basic {}", "YWxpY2U6cGFzcw=="),
        format!("Bearer {}", agent.token),
    ] {
        for call in agent_calls(&server) {
            call.authorization(&header)
                .send()
                .expect_device_401(NOT_PROVIDED);
        }
    }
    // A user's token is no device credential.
    for call in agent_calls(&server) {
        call.token(&alice.token)
            .send()
            .expect_device_401(NOT_PROVIDED);
    }
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false,
        "no refused heartbeat counted"
    );
}

e2e!(agent_routes_refuse_malformed_and_unknown_device_tokens);
fn agent_routes_refuse_malformed_and_unknown_device_tokens() {
    let (server, _alice, agent) = setup();
    let variants = [
        (
            "Device".to_owned(),
            "Invalid token header. No credentials provided.",
        ),
        (
            format!("Device {} extra", agent.token),
            "Invalid token header. Token string should not contain spaces.",
        ),
        (format!("Device {UNKNOWN_DEVICE_TOKEN}"), INVALID_TOKEN),
        ("Device nonsense".to_owned(), INVALID_TOKEN),
    ];
    for (header, detail) in &variants {
        for call in agent_calls(&server) {
            call.authorization(header).send().expect_device_401(detail);
        }
    }
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(the_device_keyword_is_case_insensitive);
fn the_device_keyword_is_case_insensitive() {
    let (server, _alice, agent) = setup();
    for keyword in ["Device", "device", "DEVICE", "dEvIcE"] {
        server
            .post("/agent/heartbeat/")
            .authorization(&format!("{keyword} {}", agent.token))
            .json(&json!({}))
            .send()
            .expect(200, json!({"commands": [], "heartbeat_interval": 30}));
    }
}

e2e!(a_device_token_is_no_credential_on_user_routes);
fn a_device_token_is_no_credential_on_user_routes() {
    let (server, alice, agent) = setup();
    for (method, path) in [
        (Method::GET, "/devices/".to_owned()),
        (Method::GET, device_path(&agent.serial)),
        (Method::GET, ports_path(&agent.serial)),
        (Method::POST, reboot_path(&agent.serial)),
        (Method::GET, "/profile/".to_owned()),
    ] {
        server
            .call(method, &path)
            .device(&agent.token)
            .send()
            .expect_401(NOT_PROVIDED);
    }
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
    device_detail(&server, &alice.token, &agent.serial);
}

e2e!(options_on_agent_routes_needs_no_credentials);
fn options_on_agent_routes_needs_no_credentials() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    for (path, allow) in [
        ("/agent/heartbeat/", "POST, OPTIONS"),
        ("/agent/commands/", "GET, HEAD, OPTIONS"),
        (ack.as_str(), "POST, OPTIONS"),
        ("/install/", "POST, OPTIONS"),
    ] {
        let reply = server.options(path).send();
        reply.expect_status(200).expect_allow(allow);
        assert_eq!(
            keys(&reply.json()),
            ["actions", "description", "name", "parses", "renders"],
            "{reply}"
        );
        server
            .options(path)
            .device(&agent.token)
            .send()
            .expect_status(200)
            .expect_allow(allow);
    }
    for path in ["/agent/heartbeat/", "/agent/commands/", ack.as_str()] {
        server
            .options(path)
            .device(UNKNOWN_DEVICE_TOKEN)
            .send()
            .expect_device_401(INVALID_TOKEN);
    }
}

e2e!(options_lists_the_body_fields_of_the_agent_routes);
fn options_lists_the_body_fields_of_the_agent_routes() {
    let (server, _alice, _agent) = setup();
    let actions = |path: &str| {
        let reply = server.options(path).send();
        reply.expect_status(200);
        reply.json()["actions"].clone()
    };
    let install = actions("/install/");
    assert_eq!(keys(&install), ["POST"]);
    assert_eq!(
        keys(&install["POST"]),
        ["install_token", "machine_type", "name", "serial"]
    );
    for (field, required) in [
        ("install_token", true),
        ("name", true),
        ("serial", false),
        ("machine_type", false),
    ] {
        assert_eq!(install["POST"][field]["required"], required, "{field}");
        assert_eq!(install["POST"][field]["read_only"], false, "{field}");
    }
    assert_eq!(install["POST"]["name"]["max_length"], 100);

    let heartbeat = actions("/agent/heartbeat/");
    assert_eq!(keys(&heartbeat), ["POST"]);
    assert_eq!(
        keys(&heartbeat["POST"]),
        [
            "agent_version",
            "disk_capacity",
            "disk_used",
            "machine_type",
            "operating_system",
            "ports",
            "processor_speed",
            "ram_capacity",
            "uname",
        ]
    );
    let ack = actions(&ack_path(MISSING_SERIAL));
    assert_eq!(keys(&ack), ["POST"]);
    assert_eq!(keys(&ack["POST"]), ["detail", "status"]);
    assert_eq!(ack["POST"]["status"]["required"], true);
    assert_eq!(actions("/agent/commands/"), json!({}));
}

e2e!(a_wrong_method_on_an_agent_route_is_401_without_and_405_with_credentials);
fn a_wrong_method_on_an_agent_route_is_401_without_and_405_with_credentials() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    for (method, path, allow) in [
        (Method::GET, "/agent/heartbeat/", "POST, OPTIONS"),
        (Method::PUT, "/agent/heartbeat/", "POST, OPTIONS"),
        (Method::POST, "/agent/commands/", "GET, HEAD, OPTIONS"),
        (Method::DELETE, "/agent/commands/", "GET, HEAD, OPTIONS"),
        (Method::GET, ack.as_str(), "POST, OPTIONS"),
    ] {
        server
            .call(method.clone(), path)
            .send()
            .expect_device_401(NOT_PROVIDED);
        server
            .call(method.clone(), path)
            .device(&agent.token)
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow(allow);
    }
    // /install/ is public: no credentials needed to learn the method is wrong.
    for method in [Method::GET, Method::PUT] {
        server
            .call(method.clone(), "/install/")
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow("POST, OPTIONS");
    }
}

e2e!(agent_paths_without_a_trailing_slash_redirect);
fn agent_paths_without_a_trailing_slash_redirect() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    let bare_ack = ack.trim_end_matches('/').to_owned();
    for (bare, location) in [
        ("/agent/heartbeat", "/agent/heartbeat/"),
        ("/agent/commands", "/agent/commands/"),
        ("/agent/commands?wait=5", "/agent/commands/?wait=5"),
        (bare_ack.as_str(), ack.as_str()),
        ("/install", "/install/"),
    ] {
        for method in [Method::GET, Method::POST] {
            for authorized in [false, true] {
                let mut call = server.call(method.clone(), bare);
                if authorized {
                    call = call.device(&agent.token);
                }
                let reply = call.send();
                reply.expect_status(301);
                assert_eq!(reply.header("location"), Some(location), "{reply}");
            }
        }
    }
}
