//! The use cases, grouped by what they act on.

mod accounts;
mod auth;
mod devices;
mod secrets;
#[cfg(test)]
mod test_support;

pub use accounts::{
    ChangePasswordError, CreateUserError, CreatedUser, OldPasswordProblem, RegisterError,
    UpdateProfileError,
};
pub use auth::LoginError;
pub use devices::{AddDeviceError, DeviceSpec, DeviceView, RebootError};

use crate::ports::Ports;
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
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            online_window: Duration::seconds(90),
            verification_key_lifetime: Duration::hours(72),
            reset_key_lifetime: Duration::hours(24),
            command_lifetime: Duration::minutes(10),
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
