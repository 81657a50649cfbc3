//! The use cases, grouped by what they act on.

mod accounts;
mod agent;
mod auth;
mod devices;
mod housekeeping;
mod mail_delivery;
mod password_reset;
mod secrets;
#[cfg(test)]
mod test_support;
mod verification;

pub use accounts::{
    ChangePasswordError, CreateUserError, CreatedUser, OldPasswordProblem, RegisterError,
};
pub use agent::{HeartbeatReply, InstallError, InstallRequest, Installed};
pub use auth::LoginError;
pub use devices::{
    AddDeviceError, COMMAND_HISTORY, CommandView, DeviceSpec, DeviceView, RebootError,
    UpdateDeviceError,
};
pub use mail_delivery::Delivery;
pub use password_reset::ConfirmResetError;
pub use verification::VerifyEmailError;

use crate::ports::{LockoutPolicy, Ports};
use chrono::Duration;

/// Tunables of the use cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// A device is online while its last heartbeat is younger than this.
    pub online_window: Duration,
    /// How long an e-mail verification key stays valid.
    pub verification_key_lifetime: Duration,
    /// How long a password reset key stays valid.
    pub reset_key_lifetime: Duration,
    /// How long an undelivered device command stays pending.
    pub command_lifetime: Duration,
    /// How long a command is remembered after it was issued.
    pub command_retention: Duration,
    /// How failed logins lock an account; `None` turns locking off.
    pub login_lockout: Option<LockoutPolicy>,
    /// How the outbox worker retries.
    pub mail: MailRetry,
}

/// How the outbox worker retries mail that could not be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailRetry {
    /// The wait after the first failure; it doubles with each failure…
    pub first_delay: Duration,
    /// …up to this.
    pub max_delay: Duration,
    /// A mail still undelivered this long after it was queued is dropped
    /// (its links have expired by then).
    pub give_up_after: Duration,
    /// A mail being sent is hidden from other workers this long; if the
    /// worker dies meanwhile, the mail is tried again afterwards.
    pub lease: Duration,
    /// The longest the worker sleeps without looking at the outbox (mail
    /// queued by another process is found within this).
    pub idle_check: Duration,
}

impl Default for MailRetry {
    fn default() -> Self {
        Self {
            first_delay: Duration::seconds(1),
            max_delay: Duration::minutes(10),
            give_up_after: Duration::hours(72),
            lease: Duration::minutes(2),
            idle_check: Duration::seconds(30),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            online_window: Duration::seconds(90),
            verification_key_lifetime: Duration::hours(72),
            reset_key_lifetime: Duration::hours(24),
            command_lifetime: Duration::minutes(10),
            command_retention: Duration::days(30),
            login_lockout: Some(LockoutPolicy {
                max_failures: 5,
                period: Duration::minutes(15),
            }),
            mail: MailRetry::default(),
        }
    }
}

/// The application: every use case, over one set of ports.
#[derive(Clone)]
pub struct DevMgr {
    ports: Ports,
    settings: Settings,
}

impl DevMgr {
    /// Builds the application from its ports.
    pub fn new(ports: Ports, settings: Settings) -> Self {
        Self { ports, settings }
    }
}
