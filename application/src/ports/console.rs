//! The ports of the web console: its sign-in sessions, and the signals that
//! tell an open console an account's fleet changed.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};

/// Console sessions, stored only as hashes of the secret in the browser's cookie.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait ConsoleSessionRepository: Send + Sync {
    /// Stores a new session of the account, last used `now`.
    async fn open_session(
        &self,
        account: AccountId,
        session: &SecretHash,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The account of a session last used after `idle_after`. When its last
    /// use is before `touch_before`, it is marked used at `now` (so a busy
    /// session costs no write per request).
    async fn session_account(
        &self,
        session: &SecretHash,
        idle_after: Timestamp,
        touch_before: Timestamp,
        now: Timestamp,
    ) -> Result<Option<Account>, StoreError>;
    /// Ends one session.
    async fn close_session(&self, session: &SecretHash) -> Result<(), StoreError>;
    /// Ends every session of the account.
    async fn close_sessions(&self, account: AccountId) -> Result<(), StoreError>;
    /// Forgets sessions last used before `idle_before`.
    async fn purge_sessions(&self, idle_before: Timestamp) -> Result<(), StoreError>;
}

/// Waits for a change of one account's fleet (see [`FleetSignals::watch`]).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait FleetListener: Send {
    /// Returns once the fleet may have changed since the listener was made
    /// or last returned, or after `timeout`.
    async fn wait(&mut self, timeout: std::time::Duration);
}

/// Tells whoever watches an account's fleet (an open console, on this
/// instance or another one on the same database) that it changed: a device
/// came online, was added, edited or deleted, or a command changed status.
/// Going offline is not announced: it happens by time alone, and a watcher
/// knows when.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait FleetSignals: Send + Sync {
    /// Announces a change of the account's fleet. A failure is logged, not
    /// returned: watchers also look again on their own now and then.
    async fn announce(&self, owner: AccountId);
    /// Starts watching the account's fleet from now on. Watch before reading
    /// the fleet, so no change slips between.
    fn watch(&self, owner: AccountId) -> Box<dyn FleetListener>;
}
