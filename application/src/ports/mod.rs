//! The ports: every way a use case reaches storage, mail, time, randomness
//! and password hashing, one file per role. Adapters implement them; tests
//! mock them. [`Store`] is every repository port at once, what one storage
//! adapter implements.

mod accounts;
mod clock;
mod console;
mod devices;
mod mail;
mod security;
mod store;

pub use accounts::*;
pub use clock::*;
pub use console::*;
pub use devices::*;
pub use mail::*;
pub use security::*;
pub use store::*;

use std::sync::Arc;
use thiserror::Error;

/// An infrastructure failure (database, disk, network). Clients see a generic
/// 500; the cause chain goes to the log.
#[derive(Debug, Error)]
#[error("{context}")]
pub struct StoreError {
    context: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    busy: bool,
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
            busy: false,
        }
    }

    /// A failure with no underlying error value.
    pub fn message(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            busy: false,
        }
    }

    /// The resource is saturated (too much work is waiting for it): nothing
    /// failed, and the same request may succeed shortly. Clients see 503.
    pub fn busy(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            busy: true,
        }
    }

    /// Whether this is [`busy`](Self::busy).
    pub fn is_busy(&self) -> bool {
        self.busy
    }
}

/// Every port, as the use cases hold them; [`Ports::over_store`] fills the
/// repositories from one [`Store`].
#[derive(Clone)]
pub struct Ports {
    /// Accounts.
    pub accounts: Arc<dyn AccountRepository>,
    /// API tokens.
    pub tokens: Arc<dyn TokenRepository>,
    /// E-mailed keys.
    pub keys: Arc<dyn EmailKeyRepository>,
    /// Devices.
    pub devices: Arc<dyn DeviceRepository>,
    /// Device commands.
    pub commands: Arc<dyn CommandRepository>,
    /// Mail waiting for delivery.
    pub outbox: Arc<dyn Outbox>,
    /// Failed logins.
    pub login_attempts: Arc<dyn LoginAttemptRepository>,
    /// Console sessions.
    pub console_sessions: Arc<dyn ConsoleSessionRepository>,
    /// Changes of a fleet, for open consoles.
    pub fleet_signals: Arc<dyn FleetSignals>,
    /// Mail delivery.
    pub mailer: Arc<dyn Mailer>,
    /// The links in mail.
    pub links: Arc<dyn MailLinks>,
    /// Password hashing.
    pub hasher: Arc<dyn PasswordHasher>,
    /// Time.
    pub clock: Arc<dyn Clock>,
    /// Randomness.
    pub random: Arc<dyn RandomSource>,
}
