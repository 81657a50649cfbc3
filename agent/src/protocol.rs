//! The JSON bodies of the agent protocol (docs/agent-protocol.md).

use domain::{AckDetail, Amount};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

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
    /// Seconds within which the next heartbeat is due: any JSON number the
    /// server sends, clamped to [`MIN_HEARTBEAT_INTERVAL`]–[`MAX_HEARTBEAT_INTERVAL`].
    #[serde(deserialize_with = "clamped_heartbeat_interval")]
    pub heartbeat_interval: u64,
}

/// The shortest heartbeat interval the agent accepts, in seconds.
pub const MIN_HEARTBEAT_INTERVAL: u64 = 1;
/// The longest heartbeat interval the agent accepts, in seconds (an hour).
pub const MAX_HEARTBEAT_INTERVAL: u64 = 3600;

/// `seconds` (any number, even far beyond 64 bits) as a heartbeat interval:
/// whole seconds, at least [`MIN_HEARTBEAT_INTERVAL`] and at most
/// [`MAX_HEARTBEAT_INTERVAL`].
pub fn clamp_heartbeat_interval(seconds: f64) -> u64 {
    if seconds.is_nan() {
        return MIN_HEARTBEAT_INTERVAL;
    }
    // Once clamped, a small whole number: the cast is exact.
    seconds
        .floor()
        .clamp(MIN_HEARTBEAT_INTERVAL as f64, MAX_HEARTBEAT_INTERVAL as f64) as u64
}

/// Whole `seconds` clamped to the heartbeat interval's bounds.
fn clamp_whole_seconds(seconds: i128) -> u64 {
    let clamped = seconds.clamp(
        i128::from(MIN_HEARTBEAT_INTERVAL),
        i128::from(MAX_HEARTBEAT_INTERVAL),
    );
    u64::try_from(clamped).expect("the bounds fit in a u64")
}

/// Reads `heartbeat_interval` as any JSON number (integer or not, of any
/// size serde_json can represent) and clamps it; anything but a number makes
/// the answer malformed, a failed request.
fn clamped_heartbeat_interval<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    struct Seconds;

    impl serde::de::Visitor<'_> for Seconds {
        type Value = u64;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("a number of seconds")
        }

        fn visit_u64<E>(self, seconds: u64) -> Result<u64, E> {
            Ok(clamp_whole_seconds(seconds.into()))
        }

        fn visit_i64<E>(self, seconds: i64) -> Result<u64, E> {
            Ok(clamp_whole_seconds(seconds.into()))
        }

        fn visit_u128<E>(self, seconds: u128) -> Result<u64, E> {
            Ok(clamp_whole_seconds(
                i128::try_from(seconds).unwrap_or(i128::MAX),
            ))
        }

        fn visit_i128<E>(self, seconds: i128) -> Result<u64, E> {
            Ok(clamp_whole_seconds(seconds))
        }

        fn visit_f64<E>(self, seconds: f64) -> Result<u64, E> {
            Ok(clamp_heartbeat_interval(seconds))
        }
    }

    deserializer.deserialize_any(Seconds)
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

#[cfg(test)]
impl Command {
    /// A command with this id and action, issued at a fixed time (for tests).
    pub(crate) fn for_tests(id: &str, action: &str) -> Self {
        Self {
            id: id.to_owned(),
            action: action.to_owned(),
            issued_time: "2026-11-21T10:00:00".to_owned(),
        }
    }
}

/// What an acknowledgement says of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AckStatus {
    /// Recorded, and about to be carried out: the server stops handing it out.
    Received,
    /// Carried out.
    Done,
    /// Not carried out.
    Failed,
}

/// Body of `POST /agent/commands/{id}/ack/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ack {
    /// How the command stands.
    pub status: AckStatus,
    /// A short explanation; left out when empty.
    #[serde(serialize_with = "as_text", skip_serializing_if = "is_blank_detail")]
    pub detail: AckDetail,
}

impl Ack {
    /// An acknowledgement, its detail cleaned and cut to what the server
    /// accepts.
    pub fn new(status: AckStatus, detail: &str) -> Self {
        Self {
            status,
            detail: AckDetail::cut_to_fit(detail),
        }
    }

    /// `{"status": "received"}`: sent before a command is carried out.
    pub fn received() -> Self {
        Self::new(AckStatus::Received, "")
    }

    /// Whether this is the last word on its command (`done` or `failed`).
    pub fn is_final(&self) -> bool {
        self.status != AckStatus::Received
    }
}

/// Serializes one of the domain's checked texts as a JSON string.
pub(crate) fn as_text<T: AsRef<str>, S: Serializer>(
    text: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text.as_ref())
}

/// Serializes an amount (bytes, MiB, MHz) as a JSON number.
pub(crate) fn as_amount<S: Serializer>(amount: &Amount, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_i64(amount.get())
}

/// Serializes an amount that may be unknown: a JSON number, or `null`.
pub(crate) fn as_optional_amount<S: Serializer>(
    amount: &Option<Amount>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match amount {
        Some(amount) => serializer.serialize_some(&amount.get()),
        None => serializer.serialize_none(),
    }
}

fn is_blank_detail(detail: &AckDetail) -> bool {
    detail.as_str().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_sent_drops_what_the_server_refuses() {
        let ack = Ack::new(AckStatus::Failed, "sshd\u{202E}evil\u{2066}\0");
        assert_eq!(ack.detail, "sshdevil");
        assert_eq!(
            Ack::new(AckStatus::Done, "\u{200F}rtl").detail,
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
                action: "reboot".to_owned(),
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
            serde_json::to_value(Ack::new(AckStatus::Done, "reboot started")).unwrap(),
            json!({"status": "done", "detail": "reboot started"})
        );
        assert_eq!(
            serde_json::to_value(Ack::new(AckStatus::Failed, "no")).unwrap()["status"],
            "failed"
        );
        assert_eq!(
            serde_json::to_value(Ack::received()).unwrap(),
            json!({"status": "received"})
        );
        assert!(!Ack::received().is_final());
        assert!(Ack::new(AckStatus::Failed, "no").is_final());
    }

    #[test]
    fn ack_details_are_cut_to_1000_characters() {
        let long = "é".repeat(1500);
        let ack = Ack::new(AckStatus::Failed, &long);
        assert_eq!(ack.detail.as_str().chars().count(), 1000);
        assert!(long.starts_with(ack.detail.as_str()));
        assert_eq!(Ack::new(AckStatus::Done, "short").detail, "short");
    }
}
