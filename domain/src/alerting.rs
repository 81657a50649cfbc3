//! Monitors and their alerts: which devices a monitor watches, when it
//! opens an alert and when the alert resolves, and the words an alert is
//! given. The monitor engine in `application` applies these rules to what
//! a store observes; the stores keep the state.

mod evaluation;
mod mail_window;
mod monitor;
mod reason;

pub use evaluation::{CalmVerdict, FleetVerdict, fleet_verdict, is_down, settle_device_alert};
pub use mail_window::{MAIL_WINDOW_FULL_MAILS, MailAdmission, MailWindow};
pub use monitor::{AfterSeconds, MAX_AFTER_SECONDS, MonitorKind, MonitorKindCode, OfflineRatio};
pub use reason::{device_down_reason, fleet_reason, percent};

use crate::canonical_uuid;

canonical_uuid::uuid_identity!(
    /// A monitor's identity: a UUID in its canonical form.
    MonitorId,
    /// The text was not a monitor id.
    InvalidMonitorId,
    "monitor"
);

canonical_uuid::uuid_identity!(
    /// An alert's identity: a UUID in its canonical form.
    AlertId,
    /// The text was not an alert id.
    InvalidAlertId,
    "alert"
);

/// Whether an alert still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlertState {
    /// The condition holds (or has not yet been calm long enough).
    Open,
    /// The condition ended.
    Resolved,
}

impl AlertState {
    /// The word the API shows and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Resolved => "resolved",
        }
    }

    /// The state named `code`, if any.
    pub fn parse(code: &str) -> Option<Self> {
        match code {
            "open" => Some(Self::Open),
            "resolved" => Some(Self::Resolved),
            _ => None,
        }
    }
}
