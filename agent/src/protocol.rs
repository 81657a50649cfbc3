//! The JSON bodies of the agent protocol (docs/agent-protocol.md).

use serde::{Deserialize, Serialize};

/// Body of `POST /install/`.
#[derive(Debug, Clone, Serialize)]
pub struct InstallRequest {
    /// The account's install token.
    pub install_token: String,
    /// The device's name.
    pub name: String,
    /// A machine-type code.
    pub machine_type: String,
    /// The serial to (re-)enrol; the server makes one when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
}

/// Answer 201 of `POST /install/`.
#[derive(Clone, Deserialize)]
pub struct InstallAnswer {
    /// The device's serial.
    pub serial: String,
    /// The device's secret credential.
    pub device_token: String,
    /// The device's URL in the user API.
    pub url: String,
}

/// Answer 200 of `POST /agent/heartbeat/`.
#[derive(Debug, Clone, Deserialize)]
pub struct HeartbeatAnswer {
    /// Commands handed out to the device.
    #[serde(default)]
    pub commands: Vec<Command>,
    /// Seconds within which the next heartbeat is due.
    pub heartbeat_interval: u64,
}

/// Answer 200 of `GET /agent/commands/`.
#[derive(Debug, Clone, Deserialize)]
pub struct CommandList {
    /// Commands handed out to the device.
    pub commands: Vec<Command>,
}

/// A command for the device.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Command {
    /// The command's id, used to acknowledge it.
    pub id: String,
    /// What to do: `reboot` is the only action known today.
    pub action: String,
    /// When the user asked for it (UTC, `YYYY-MM-DDTHH:MM:SS`).
    #[serde(default)]
    pub issued_time: String,
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AckStatus {
    /// Carried out.
    Done,
    /// Not carried out.
    Failed,
}

/// Body of `POST /agent/commands/{id}/ack/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ack {
    /// How the command ended.
    pub status: AckStatus,
    /// A short explanation, at most [`Ack::MAX_DETAIL_CHARS`] characters.
    pub detail: String,
}

impl Ack {
    /// The longest `detail` the server accepts, in characters.
    pub const MAX_DETAIL_CHARS: usize = 1000;

    /// An acknowledgement, its detail cut to what the server accepts.
    pub fn new(status: AckStatus, detail: &str) -> Self {
        Self {
            status,
            detail: truncate_chars(detail, Self::MAX_DETAIL_CHARS),
        }
    }
}

/// The first `max` characters (Unicode scalar values) of `text`.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                action: "reboot".to_owned(),
                issued_time: "2026-11-21T10:00:00".to_owned(),
            }]
        );
    }

    #[test]
    fn acks_serialize_as_the_server_expects() {
        assert_eq!(
            serde_json::to_value(Ack::new(AckStatus::Done, "reboot started")).unwrap(),
            json!({"status": "done", "detail": "reboot started"})
        );
        assert_eq!(
            serde_json::to_value(Ack::new(AckStatus::Failed, "no")).unwrap()["status"],
            "failed"
        );
    }

    #[test]
    fn ack_details_are_cut_to_1000_characters() {
        let long = "é".repeat(1500);
        let ack = Ack::new(AckStatus::Failed, &long);
        assert_eq!(ack.detail.chars().count(), 1000);
        assert!(long.starts_with(&ack.detail));
        assert_eq!(Ack::new(AckStatus::Done, "short").detail, "short");
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_chars("abcd", 3), "abc");
    }
}
