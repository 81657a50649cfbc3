//! Commands for a device's agent, and what the agent reports back.

use crate::bounded_text::AckDetail;
use crate::canonical_uuid;
use crate::time::Timestamp;
use chrono::Duration;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A command's identity: a UUID in its canonical form (lowercase,
/// hyphenated), the `{id}` of the command's acknowledgement path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(String);

/// The text was not a UUID in its canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a command id (a lowercase hyphenated UUID)")]
pub struct InvalidCommandId;

impl CommandId {
    /// Takes a UUID written in its canonical form only: lowercase and
    /// hyphenated, with no braces or prefix.
    pub fn parse(raw: &str) -> Result<Self, InvalidCommandId> {
        canonical_uuid::parse(raw).map(Self).ok_or(InvalidCommandId)
    }

    /// Makes an id from 16 random bytes (a version-4 UUID).
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(canonical_uuid::from_random_bytes(bytes))
    }

    /// Takes an id read back from storage as it is: only minted ids are stored.
    pub fn from_stored(id: String) -> Self {
        Self(id)
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for CommandId {
    type Err = InvalidCommandId;

    fn from_str(raw: &str) -> Result<Self, InvalidCommandId> {
        Self::parse(raw)
    }
}

impl AsRef<str> for CommandId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// What a command asks the device to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Restart the machine.
    Reboot,
}

impl Action {
    /// Every code.
    pub const CODES: [&'static str; 1] = [Self::Reboot.code()];

    /// The code sent and stored.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Reboot => "reboot",
        }
    }

    /// The action with this code.
    pub fn from_code(code: &str) -> Option<Self> {
        (code == "reboot").then_some(Self::Reboot)
    }
}

/// A command handed out to a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its identity.
    pub id: CommandId,
    /// What to do.
    pub action: Action,
    /// When the user asked for it.
    pub issued_time: Timestamp,
}

/// What the agent reports of a command: that it got it, or how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandStatus {
    /// Got it, and is carrying it out (it will not be handed out again).
    Received,
    /// Carried out.
    Done,
    /// Could not be carried out.
    Failed,
}

impl CommandStatus {
    /// Every status.
    pub const ALL: [CommandStatus; 3] = [
        CommandStatus::Received,
        CommandStatus::Done,
        CommandStatus::Failed,
    ];

    /// Every code, in [`CommandStatus::ALL`] order.
    pub const CODES: [&'static str; 3] = [
        Self::Received.code(),
        Self::Done.code(),
        Self::Failed.code(),
    ];

    /// The code sent and stored: `received`, `done` or `failed`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Received => "received",
            Self::Done => "done",
            Self::Failed => "failed",
        }
    }

    /// The status with this exact code.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }
}

/// A command not acknowledged this long after it was handed out is handed
/// out again (its connection may have died on the way).
pub const REDELIVERY_AFTER: Duration = Duration::seconds(15);

/// Where a command stands, as the device's command history shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandState {
    /// Not handed out yet.
    Pending,
    /// Handed out, no acknowledgement yet.
    Delivered,
    /// The agent acknowledged receipt and is carrying it out.
    Received,
    /// Carried out.
    Done,
    /// Could not be carried out.
    Failed,
    /// Never acknowledged, and now too old to be carried out.
    Lapsed,
}

impl CommandState {
    /// The state of a command with this acknowledgement, old enough to have
    /// lapsed or not, handed out or not: the acknowledgement first, then
    /// whether it lapsed, then whether it was handed out.
    pub const fn of(status: Option<CommandStatus>, lapsed: bool, delivered: bool) -> Self {
        match status {
            Some(CommandStatus::Received) => Self::Received,
            Some(CommandStatus::Done) => Self::Done,
            Some(CommandStatus::Failed) => Self::Failed,
            None if lapsed => Self::Lapsed,
            None if delivered => Self::Delivered,
            None => Self::Pending,
        }
    }

    /// The word the API shows.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Received => "received",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Lapsed => "lapsed",
        }
    }

    /// Every code.
    pub const CODES: [&'static str; 6] = [
        Self::Pending.code(),
        Self::Delivered.code(),
        Self::Received.code(),
        Self::Done.code(),
        Self::Failed.code(),
        Self::Lapsed.code(),
    ];
}

/// A command as it was requested, handed out and acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRecord {
    /// The command.
    pub command: Command,
    /// When it was last handed out, if it was.
    pub delivered_time: Option<Timestamp>,
    /// When it was last acknowledged, if it was.
    pub acked_time: Option<Timestamp>,
    /// What the agent last reported, if anything.
    pub status: Option<CommandStatus>,
    /// The detail of the last acknowledgement (empty without one).
    pub detail: AckDetail,
}

impl CommandRecord {
    /// Where the command stands at `now`: one never acknowledged lapses
    /// `lifetime` after it was requested.
    pub fn state(&self, now: Timestamp, lifetime: Duration) -> CommandState {
        CommandState::of(
            self.status,
            now - self.command.issued_time >= lifetime,
            self.delivered_time.is_some(),
        )
    }
}

/// The agent's report on one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutcome {
    /// Done or failed.
    pub status: CommandStatus,
    /// Free text.
    pub detail: AckDetail,
}

/// How often an agent must send heartbeats to stay online: a third of the
/// online window, in whole seconds, at least 1.
pub fn heartbeat_interval(online_window: Duration) -> i64 {
    (online_window.num_seconds() / 3).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeats_come_three_times_per_window() {
        assert_eq!(heartbeat_interval(Duration::seconds(90)), 30);
        assert_eq!(heartbeat_interval(Duration::seconds(10)), 3);
        assert_eq!(heartbeat_interval(Duration::seconds(2)), 1);
        assert_eq!(heartbeat_interval(Duration::milliseconds(500)), 1);
    }

    fn record(delivered: bool, status: Option<CommandStatus>) -> CommandRecord {
        let issued = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        CommandRecord {
            command: Command {
                id: CommandId::from_random_bytes([3; 16]),
                action: Action::Reboot,
                issued_time: issued,
            },
            delivered_time: delivered.then_some(issued),
            acked_time: status.map(|_| issued),
            status,
            detail: AckDetail::default(),
        }
    }

    #[test]
    fn a_command_state_follows_its_hand_out_its_acks_and_its_age() {
        let lifetime = Duration::minutes(10);
        let issued = record(false, None).command.issued_time;
        let young = issued + Duration::minutes(9);
        let old = issued + Duration::minutes(10);
        assert_eq!(
            record(false, None).state(young, lifetime),
            CommandState::Pending
        );
        assert_eq!(
            record(true, None).state(young, lifetime),
            CommandState::Delivered
        );
        assert_eq!(
            record(false, None).state(old, lifetime),
            CommandState::Lapsed
        );
        assert_eq!(
            record(true, None).state(old, lifetime),
            CommandState::Lapsed
        );
        let received = record(true, Some(CommandStatus::Received));
        assert_eq!(received.state(old, lifetime), CommandState::Received);
        let done = record(true, Some(CommandStatus::Done));
        assert_eq!(done.state(old, lifetime), CommandState::Done);
        let failed = record(true, Some(CommandStatus::Failed));
        assert_eq!(failed.state(young, lifetime), CommandState::Failed);
    }

    #[test]
    fn codes_round_trip() {
        assert_eq!(Action::from_code("reboot"), Some(Action::Reboot));
        assert_eq!(Action::from_code("halt"), None);
        for status in CommandStatus::ALL {
            assert_eq!(CommandStatus::from_code(status.code()), Some(status));
        }
        assert_eq!(CommandStatus::from_code("Done"), None);
    }

    #[test]
    fn command_ids_round_trip_through_their_text() {
        let id = CommandId::from_random_bytes([0xa5; 16]);
        assert_eq!(id.as_str().len(), 36);
        assert_eq!(CommandId::parse(id.as_str()), Ok(id.clone()));
        assert_eq!(id.to_string().parse::<CommandId>(), Ok(id.clone()));
        let text = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assert_eq!(CommandId::parse(text).unwrap().as_str(), text);
    }

    #[test]
    fn command_ids_refuse_every_non_canonical_spelling() {
        for raw in [
            "0F8FAD5B-D9CB-469F-A165-70867728950E",
            "0f8fad5bd9cb469fa16570867728950e",
            "{0f8fad5b-d9cb-469f-a165-70867728950e}",
            "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
            " 0f8fad5b-d9cb-469f-a165-70867728950e",
            "0f8fad5b-d9cb-469f-a165-70867728950",
            "c1",
            "",
        ] {
            assert_eq!(CommandId::parse(raw), Err(InvalidCommandId), "{raw:?}");
        }
    }
}
