//! The ports of mail: the outbox, delivery, and the links mail carries.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use crate::mail::Email;
use domain::Timestamp;
use thiserror::Error;

/// A mail waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedEmail {
    /// The mail (its `id` names it in the outbox).
    pub email: Email,
    /// Failed delivery attempts so far.
    pub attempts: u32,
    /// When the change that caused it was committed.
    pub queued_time: Timestamp,
}

/// Mail recorded with the change that causes it, waiting for delivery.
/// Mail is added by the repositories that make those changes
/// ([`AccountRepository::create`], [`EmailKeyRepository::store`]).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait Outbox: Send + Sync {
    /// Takes the mail due longest, if any is due at `now`, and hides it from
    /// other workers until `lease_until` (after which a crash is retried).
    async fn claim_due(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<QueuedEmail>, StoreError>;
    /// Forgets a mail: delivered, or never deliverable. Its links are secrets.
    async fn remove(&self, id: &str) -> Result<(), StoreError>;
    /// Schedules another attempt at `next_attempt`, recording the failure.
    async fn retry_at(
        &self,
        id: &str,
        attempts: u32,
        next_attempt: Timestamp,
        error: &str,
    ) -> Result<(), StoreError>;
    /// When the next queued mail falls due, if any is queued.
    async fn next_due(&self) -> Result<Option<Timestamp>, StoreError>;
    /// Returns once this process may have queued mail, or after `timeout`.
    async fn wait_for_mail(&self, timeout: std::time::Duration);
}

/// Why a mail was not delivered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MailError {
    /// Worth another try later: the server is unreachable, busy, or
    /// answered with a temporary (4xx) refusal.
    #[error("temporary failure: {0}")]
    Transient(String),
    /// Trying again cannot help: a malformed address, or a permanent (5xx)
    /// refusal.
    #[error("permanent failure: {0}")]
    Permanent(String),
}

/// Delivers e-mail (called by the outbox worker only).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Delivers one message. `email.id` makes its `Message-ID`, so a retried
    /// mail keeps the same one.
    async fn send(&self, email: &Email) -> Result<(), MailError>;
}

/// Where the links in mail lead: the adapter that serves them knows their
/// URLs; the use cases only hand it the key.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait MailLinks: Send + Sync {
    /// The link that verifies an e-mail address with `key`.
    fn verify_email(&self, key: &str) -> String;
    /// The link that opens the form for a new password with `key`.
    fn reset_password(&self, key: &str) -> String;
}
