//! The JSON bodies of the agent protocol (docs/agent-protocol.md).

use domain::{AckDetail, Action, Amount, CommandStatus};
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
    /// The command's id, used to acknowledge it. Kept as the server sent it
    /// (not read as a domain `CommandId`): the agent acknowledges and records
    /// any id of up to 128 bytes (docs/agent-protocol.md), and leaves the
    /// rest alone one command at a time.
    pub id: String,
    /// What to do: one of the server's actions, or one this agent does not know.
    pub action: RequestedAction,
    /// When the user asked for it (UTC, `YYYY-MM-DDTHH:MM:SS`).
    #[serde(default)]
    pub issued_time: String,
}

/// The action a command asks for: one of the server's [`Action`]s (the
/// same codes on the wire), or another, kept as sent so that it can be
/// refused by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestedAction {
    /// An action the server knows.
    Known(Action),
    /// Any other text.
    Unknown(String),
}

impl RequestedAction {
    /// The action with this code, known or not.
    pub fn from_code(code: &str) -> Self {
        Action::from_code(code).map_or_else(|| Self::Unknown(code.to_owned()), Self::Known)
    }

    /// The code as sent.
    pub fn code(&self) -> &str {
        match self {
            Self::Known(action) => action.code(),
            Self::Unknown(code) => code,
        }
    }
}

impl fmt::Display for RequestedAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl<'de> Deserialize<'de> for RequestedAction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|code| Self::from_code(&code))
    }
}

#[cfg(test)]
impl Command {
    /// A command with this id and action, issued at a fixed time (for tests).
    pub(crate) fn for_tests(id: &str, action: &str) -> Self {
        Self {
            id: id.to_owned(),
            action: RequestedAction::from_code(action),
            issued_time: "2026-11-21T10:00:00".to_owned(),
        }
    }
}

/// Body of `POST /agent/commands/{id}/ack/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ack {
    /// How the command stands: `received` (recorded, and about to be
    /// carried out: the server stops handing it out), `done` or `failed`.
    #[serde(serialize_with = "as_status_code")]
    pub status: CommandStatus,
    /// A short explanation; left out when empty.
    #[serde(serialize_with = "as_text", skip_serializing_if = "is_blank_detail")]
    pub detail: AckDetail,
}

impl Ack {
    /// An acknowledgement, its detail cleaned and cut to what the server
    /// accepts.
    pub fn new(status: CommandStatus, detail: &str) -> Self {
        Self {
            status,
            detail: AckDetail::cut_to_fit(detail),
        }
    }

    /// `{"status": "received"}`: sent before a command is carried out.
    pub fn received() -> Self {
        Self::new(CommandStatus::Received, "")
    }

    /// Whether this is the last word on its command (`done` or `failed`).
    pub fn is_final(&self) -> bool {
        self.status != CommandStatus::Received
    }
}

/// Serializes one of the domain's checked texts as a JSON string.
pub(crate) fn as_text<T: AsRef<str>, S: Serializer>(
    text: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text.as_ref())
}

/// Serializes a command status as its code, as the server reads it.
fn as_status_code<S: Serializer>(status: &CommandStatus, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(status.code())
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
mod tests;
