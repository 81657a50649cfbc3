//! The ports: every way a use case reaches storage, mail, time, randomness
//! and password hashing, one file per role. Adapters implement them; tests
//! mock them. [`Store`] is every repository port at once, what one storage
//! adapter implements.

mod accounts;
mod audit;
mod clock;
mod console;
mod devices;
mod jobs;
mod limits;
mod long_polls;
mod mail;
mod monitors;
mod probe;
mod security;
mod store;
mod transfer;
mod webhooks;

pub use accounts::*;
pub use audit::*;
pub use clock::*;
pub use console::*;
pub use devices::*;
pub use jobs::*;
pub use limits::*;
pub use long_polls::*;
pub use mail::*;
pub use monitors::*;
pub use probe::*;
pub use security::*;
pub use store::*;
pub use transfer::*;
pub use webhooks::*;

use std::sync::Arc;
use thiserror::Error;

/// An infrastructure failure (database, disk, network). Clients see a generic
/// 500, a 503 when the resource is only busy or out of reach for now; the
/// cause chain goes to the log.
#[derive(Debug, Error)]
#[error("{context}")]
pub struct StoreError {
    context: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    kind: FailureKind,
}

/// Whether a failure is worth a retry by the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailureKind {
    /// Something broke.
    Failed,
    /// Too much work is waiting.
    Busy,
    /// The database cannot be reached (down, restarting, cut off).
    Unavailable,
}

impl StoreError {
    /// Wraps an adapter's error with a short description of what failed.
    pub fn new(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            context: context.into(),
            source: Some(source.into()),
            kind: FailureKind::Failed,
        }
    }

    /// A failure with no underlying error value.
    pub fn message(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            kind: FailureKind::Failed,
        }
    }

    /// The resource is saturated (too much work is waiting for it): nothing
    /// failed, and the same request may succeed shortly. Clients see 503.
    pub fn busy(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            kind: FailureKind::Busy,
        }
    }

    /// The database could not be reached, or the connection to it was lost
    /// (it is down, restarting, or cut off): the same request may succeed
    /// once it is back. Clients see 503.
    pub fn unavailable(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            kind: FailureKind::Unavailable,
        }
    }

    /// Like [`new`](Self::new), for a cause that means the database is out
    /// of reach (see [`unavailable`](Self::unavailable)).
    pub fn unreachable(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            kind: FailureKind::Unavailable,
            ..Self::new(context, source)
        }
    }

    /// Whether this is [`busy`](Self::busy).
    pub fn is_busy(&self) -> bool {
        self.kind == FailureKind::Busy
    }

    /// Whether this is [`unavailable`](Self::unavailable) or
    /// [`unreachable`](Self::unreachable).
    pub fn is_unavailable(&self) -> bool {
        self.kind == FailureKind::Unavailable
    }
}

/// Every port, as the use cases hold them; [`Ports::over_store`] fills the
/// repositories from one [`Store`].
#[derive(Clone)]
pub struct Ports {
    /// Accounts.
    pub accounts: Arc<dyn AccountRepository>,
    /// The audit log's reading, export, verification and retention.
    pub audit: Arc<dyn AuditLog>,
    /// API tokens.
    pub tokens: Arc<dyn TokenRepository>,
    /// E-mailed keys.
    pub keys: Arc<dyn EmailKeyRepository>,
    /// Devices.
    pub devices: Arc<dyn DeviceRepository>,
    /// Device commands.
    pub commands: Arc<dyn CommandRepository>,
    /// Fleet jobs.
    pub jobs: Arc<dyn JobRepository>,
    /// Monitors and alerts.
    pub monitors: Arc<dyn MonitorRepository>,
    /// Webhooks and deliveries.
    pub webhooks: Arc<dyn WebhookRepository>,
    /// Mail waiting for delivery.
    pub outbox: Arc<dyn Outbox>,
    /// Failed logins.
    pub login_attempts: Arc<dyn LoginAttemptRepository>,
    /// Console sessions.
    pub console_sessions: Arc<dyn ConsoleSessionRepository>,
    /// Changes of a fleet, for open consoles.
    pub fleet_signals: Arc<dyn FleetSignals>,
    /// The store's health and counts.
    pub probe: Arc<dyn StoreProbe>,
    /// Mail delivery.
    pub mailer: Arc<dyn Mailer>,
    /// The links in mail.
    pub links: Arc<dyn MailLinks>,
    /// Webhook address checks and posts.
    pub transport: Arc<dyn WebhookTransport>,
    /// The JSON events carry.
    pub event_data: Arc<dyn EventData>,
    /// Password hashing.
    pub hasher: Arc<dyn PasswordHasher>,
    /// Time.
    pub clock: Arc<dyn Clock>,
    /// Randomness.
    pub random: Arc<dyn RandomSource>,
}
