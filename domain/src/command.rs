//! Commands for a device's agent, and what the agent reports back.

use crate::time::Timestamp;
use chrono::Duration;

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
    /// A lowercase UUID.
    pub id: String,
    /// What to do.
    pub action: Action,
    /// When the user asked for it.
    pub issued_time: Timestamp,
}

/// How a command ended, as the agent reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandStatus {
    /// Carried out.
    Done,
    /// Could not be carried out.
    Failed,
}

impl CommandStatus {
    /// Every status.
    pub const ALL: [CommandStatus; 2] = [CommandStatus::Done, CommandStatus::Failed];

    /// Every code, in [`CommandStatus::ALL`] order.
    pub const CODES: [&'static str; 2] = [Self::Done.code(), Self::Failed.code()];

    /// The code sent and stored: `done` or `failed`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
        }
    }

    /// The status with this exact code.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }
}

/// Most characters of an acknowledgement's detail.
pub const MAX_ACK_DETAIL_CHARS: usize = 1000;

/// The agent's report on one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutcome {
    /// Done or failed.
    pub status: CommandStatus,
    /// Free text, at most [`MAX_ACK_DETAIL_CHARS`] characters.
    pub detail: String,
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

    #[test]
    fn codes_round_trip() {
        assert_eq!(Action::from_code("reboot"), Some(Action::Reboot));
        assert_eq!(Action::from_code("halt"), None);
        for status in CommandStatus::ALL {
            assert_eq!(CommandStatus::from_code(status.code()), Some(status));
        }
        assert_eq!(CommandStatus::from_code("Done"), None);
    }
}
