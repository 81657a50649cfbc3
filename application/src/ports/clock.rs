//! The port of time.

use domain::Timestamp;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

/// The current time.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait Clock: Send + Sync {
    /// Now, in UTC.
    fn now(&self) -> Timestamp;
}
