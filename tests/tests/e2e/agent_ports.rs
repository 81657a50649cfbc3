//! The ports a heartbeat reports (docs/agent-protocol.md).

use crate::agent_support::*;
use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// A heartbeat reporting these ports; asserts the 200.
fn report_ports(server: &Server, agent: &Agent, ports: Value) {
    heartbeat(server, &agent.token, &json!({ "ports": ports }));
}

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
