//! Unit tests of [`super`].

use super::*;
use serde_json::json;

#[test]
fn text_sent_drops_what_the_server_refuses() {
    let ack = Ack::new(CommandStatus::Failed, "sshd\u{202E}evil\u{2066}\0");
    assert_eq!(ack.detail, "sshdevil");
    assert_eq!(
        Ack::new(CommandStatus::Done, "\u{200F}rtl").detail,
        "\u{200F}rtl"
    );
}

#[test]
fn an_install_request_leaves_out_a_missing_serial() {
    let request = InstallRequest {
        install_token: "k3x9".to_owned(),
        name: "kitchen-pi".to_owned(),
        machine_type: "rpi_4b".to_owned(),
        serial: None,
    };
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        json!({"install_token": "k3x9", "name": "kitchen-pi", "machine_type": "rpi_4b"})
    );
    let request = InstallRequest {
        serial: Some("0f8fad5b-d9cb-469f-a165-70867728950e".to_owned()),
        ..request
    };
    assert_eq!(
        serde_json::to_value(&request).unwrap()["serial"],
        "0f8fad5b-d9cb-469f-a165-70867728950e"
    );
}

#[test]
fn a_heartbeat_answer_parses() {
    let answer: HeartbeatAnswer = serde_json::from_value(json!({
        "commands": [{"id": "c1", "action": "reboot", "issued_time": "2026-11-21T10:00:00"}],
        "heartbeat_interval": 30,
    }))
    .unwrap();
    assert_eq!(answer.heartbeat_interval, 30);
    assert_eq!(
        answer.commands,
        vec![Command {
            id: "c1".to_owned(),
            action: RequestedAction::Known(Action::Reboot),
            issued_time: "2026-11-21T10:00:00".to_owned(),
        }]
    );
}

fn interval_of(body: &str) -> Result<u64, serde_json::Error> {
    serde_json::from_str::<HeartbeatAnswer>(body).map(|answer| answer.heartbeat_interval)
}

#[test]
fn the_heartbeat_interval_is_clamped_to_one_second_to_an_hour() {
    for (number, expected) in [
        ("30", 30),
        ("1", 1),
        ("3600", 3600),
        ("3601", 3600),
        ("0", 1),
        ("-5", 1),
        ("-9223372036854775808", 1),
        ("0.5", 1),
        ("29.9", 29),
        ("3599.99", 3599),
        ("1e3", 1000),
        ("18446744073709551615", 3600),
        ("18446744073709551616", 3600),
        ("1e30", 3600),
        ("-1e30", 1),
        ("1.7976931348623157e308", 3600),
        ("123456789012345678901234567890", 3600),
        ("-123456789012345678901234567890", 1),
    ] {
        let body = format!(r#"{{"commands": [], "heartbeat_interval": {number}}}"#);
        assert_eq!(interval_of(&body).unwrap(), expected, "{number}");
    }
}

#[test]
fn a_heartbeat_interval_that_is_not_a_number_makes_the_answer_malformed() {
    for value in [r#""30""#, "null", "[30]", "{}", "true"] {
        let body = format!(r#"{{"commands": [], "heartbeat_interval": {value}}}"#);
        assert!(interval_of(&body).is_err(), "{value} accepted");
    }
    assert!(interval_of(r#"{"commands": []}"#).is_err());
    // serde_json cannot represent numbers beyond ±1.8e308 at all: such an
    // answer is malformed too (a failed request), never a panic.
    let beyond_f64 = "9".repeat(400);
    for number in ["1e400", "-1e400", &beyond_f64] {
        let body = format!(r#"{{"commands": [], "heartbeat_interval": {number}}}"#);
        assert!(interval_of(&body).is_err(), "{number} accepted");
    }
}

#[test]
fn the_clamp_handles_every_float() {
    assert_eq!(clamp_heartbeat_interval(f64::INFINITY), 3600);
    assert_eq!(clamp_heartbeat_interval(f64::NEG_INFINITY), 1);
    assert_eq!(clamp_heartbeat_interval(f64::NAN), 1);
    assert_eq!(clamp_heartbeat_interval(f64::MAX), 3600);
    assert_eq!(clamp_heartbeat_interval(-0.0), 1);
    assert_eq!(clamp_heartbeat_interval(60.0), 60);
}

#[test]
fn acks_serialize_as_the_server_expects() {
    assert_eq!(
        serde_json::to_value(Ack::new(CommandStatus::Done, "reboot started")).unwrap(),
        json!({"status": "done", "detail": "reboot started"})
    );
    assert_eq!(
        serde_json::to_value(Ack::new(CommandStatus::Failed, "no")).unwrap()["status"],
        "failed"
    );
    assert_eq!(
        serde_json::to_value(Ack::received()).unwrap(),
        json!({"status": "received"})
    );
    assert!(!Ack::received().is_final());
    assert!(Ack::new(CommandStatus::Failed, "no").is_final());
}

#[test]
fn ack_details_are_cut_to_1000_characters() {
    let long = "é".repeat(1500);
    let ack = Ack::new(CommandStatus::Failed, &long);
    assert_eq!(ack.detail.as_str().chars().count(), 1000);
    assert!(long.starts_with(ack.detail.as_str()));
    assert_eq!(Ack::new(CommandStatus::Done, "short").detail, "short");
}

#[test]
fn actions_read_as_the_servers_or_as_sent() {
    let answer: CommandList = serde_json::from_value(json!({"commands": [
        {"id": "a", "action": "reboot"},
        {"id": "b", "action": "Reboot"},
    ]}))
    .unwrap();
    assert_eq!(
        answer.commands[0].action,
        RequestedAction::Known(Action::Reboot)
    );
    assert_eq!(
        answer.commands[1].action,
        RequestedAction::Unknown("Reboot".to_owned())
    );
    assert_eq!(answer.commands[1].action.to_string(), "Reboot");
    assert!(
        serde_json::from_value::<CommandList>(json!({"commands": [{"id": "a", "action": 1}]}))
            .is_err()
    );
}

#[test]
fn every_status_is_sent_as_its_code() {
    for status in CommandStatus::ALL {
        assert_eq!(
            serde_json::to_value(Ack::new(status, "x")).unwrap()["status"],
            status.code()
        );
    }
}
