//! What a change asks the log to record, before the store seals it into the
//! chain.

use super::{Actor, AuditAction};
use crate::{CommandId, EmailAddress, JobId, MonitorId, Serial, Timestamp, WebhookId};
use serde_json::{Value, json};
use std::net::IpAddr;

/// Who made a change, when, and from which address (none for the command
/// line and the server itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// When the change was made.
    pub time: Timestamp,
    /// Who made it.
    pub actor: Actor,
    /// The client's address, for a change asked for over HTTP.
    pub ip: Option<IpAddr>,
}

impl Origin {
    /// A change asked for over HTTP by `actor` from `ip`.
    pub fn new(time: Timestamp, actor: Actor, ip: Option<IpAddr>) -> Self {
        Self { time, actor, ip }
    }

    /// A change made by an operator at the command line.
    pub fn cli(time: Timestamp) -> Self {
        Self::new(time, Actor::cli(), None)
    }

    /// A change the server makes by itself.
    pub fn system(time: Timestamp) -> Self {
        Self::new(time, Actor::system(), None)
    }
}

/// What a change touched: `account:<e-mail>`, `device:<serial>`,
/// `job:<id>`, `monitor:<id>` or `webhook:<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AuditTarget(String);

impl AuditTarget {
    /// An account.
    pub fn account(email: &EmailAddress) -> Self {
        Self(format!("account:{}", email.as_str()))
    }

    /// A device.
    pub fn device(serial: &Serial) -> Self {
        Self(format!("device:{}", serial.as_str()))
    }

    /// A fleet job.
    pub fn job(id: &JobId) -> Self {
        Self(format!("job:{}", id.as_str()))
    }

    /// A monitor.
    pub fn monitor(id: &MonitorId) -> Self {
        Self(format!("monitor:{}", id.as_str()))
    }

    /// A webhook.
    pub fn webhook(id: &WebhookId) -> Self {
        Self(format!("webhook:{}", id.as_str()))
    }

    /// The target as entries write it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The particulars of a change, as the entry's `detail` object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditDetail {
    /// Nothing more to say: `{}`.
    Nothing,
    /// The fields whose value changed: `{"changed": [...]}`, sorted.
    Changed(Vec<&'static str>),
    /// The command that stands for a reboot: `{"command": "<id>"}`.
    Command(CommandId),
    /// The end of a monitor's snooze, null when it ended:
    /// `{"until": "<time>"}`.
    Until(Option<Timestamp>),
}

impl AuditDetail {
    /// The fields named, sorted and each once.
    pub fn changed(mut fields: Vec<&'static str>) -> Self {
        fields.sort_unstable();
        fields.dedup();
        Self::Changed(fields)
    }

    /// The detail as its JSON object.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Nothing => json!({}),
            Self::Changed(fields) => json!({ "changed": fields }),
            Self::Command(id) => json!({ "command": id.as_str() }),
            Self::Until(until) => json!({ "until": until.map(crate::time::format_api) }),
        }
    }
}

/// One change to record: who, from where, when (the [`Origin`]), what and to
/// what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditNote {
    /// Who, when and from where.
    pub origin: Origin,
    /// What.
    pub action: AuditAction,
    /// To what.
    pub target: AuditTarget,
    /// The particulars.
    pub detail: AuditDetail,
}

impl AuditNote {
    /// A note with nothing more to say than who did what to what.
    pub fn new(origin: Origin, action: AuditAction, target: AuditTarget) -> Self {
        Self::with_detail(origin, action, target, AuditDetail::Nothing)
    }

    /// A note with its particulars.
    pub fn with_detail(
        origin: Origin,
        action: AuditAction,
        target: AuditTarget,
        detail: AuditDetail,
    ) -> Self {
        Self {
            origin,
            action,
            target,
            detail,
        }
    }
}
