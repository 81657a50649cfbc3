//! The open long polls of each device (docs/agent-protocol.md): at most
//! [`MAX_LONG_POLLS_PER_DEVICE`] at once, counted over every instance on one
//! database; a further poll ends the oldest at once (it answers with no
//! commands), so one device token cannot hold an unbounded number of
//! connections open. A lone instance keeps them in memory.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::{PollWait, Serial};
use std::time::Duration;

/// Long polls one device may hold open at once.
pub const MAX_LONG_POLLS_PER_DEVICE: usize = 2;

/// The longest a long poll stays registered: its longest wait and a good
/// margin for the reads around it. A registration older than this belongs
/// to an instance that stopped without closing it, and no longer counts.
pub const LONG_POLL_LIFETIME: Duration =
    Duration::from_secs(PollWait::MAX_SECS.unsigned_abs() + 30);

/// Where long polls register while they are open.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait LongPollRegistry: Send + Sync {
    /// Registers a poll of the device; the oldest of its open polls beyond
    /// [`MAX_LONG_POLLS_PER_DEVICE`], wherever they are, are told to end.
    /// Once this instance is closing, the new poll is told to end at once.
    async fn open(&self, serial: &Serial) -> Result<Box<dyn OpenPoll>, StoreError>;

    /// Tells every poll open on this instance, and every poll opened on it
    /// from now on, to end: the server is shutting down.
    fn close_all(&self);

    /// Long polls open on this instance now, over all devices.
    fn count(&self) -> usize;

    /// Forgets registrations older than [`LONG_POLL_LIFETIME`], left by
    /// instances that stopped without closing them (call now and then).
    async fn forget_stale(&self) -> Result<(), StoreError>;
}

/// One open long poll; it leaves the registry when dropped.
#[async_trait]
pub trait OpenPoll: Send {
    /// Resolves when the poll must end at once: a newer poll of the same
    /// device pushed it out, or the server is shutting down.
    async fn pushed_out(&mut self);
}
