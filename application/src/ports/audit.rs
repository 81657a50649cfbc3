//! The port of the audit log: reading the chain the stores write.
//!
//! Entries are written by the repository methods that make the audited
//! changes, each in the change's own transaction (they take the change's
//! [`AuditNote`] or [`Origin`](domain::Origin)); every store appends them
//! the same way: under one lock on the chain's head, it seals the note
//! after the newest entry (`id` + 1, linked to its hash) and moves the head.
//! This port holds what stands alone: a refused login's entry, and reading,
//! exporting, verifying and trimming the log.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::{StoreError, Window};
use domain::{AccountId, AuditEntry, AuditNote, ChainLink, Timestamp};

/// What `GET /audit/` keeps: entries whose action, and whose target, equal
/// the values given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuditFilter {
    /// The action's name (`device.reboot`).
    pub action: Option<String>,
    /// The target (`device:<serial>`).
    pub target: Option<String>,
}

/// A page of an account's entries, newest first, with the count of all that
/// match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditPage {
    /// Every matching entry.
    pub count: u64,
    /// The page, newest first.
    pub entries: Vec<AuditEntry>,
}

/// Where the stored chain starts and ends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChainEnds {
    /// The newest entry retention deleted: verification starts after it.
    pub checkpoint: Option<ChainLink>,
    /// The newest entry ever written.
    pub head: Option<ChainLink>,
}

#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
/// The audit log as a store keeps it: one chain of entries, each appended
/// in the transaction of its change.
pub trait AuditLog: Send + Sync {
    /// Appends `note` to the chain in a transaction of its own, shown in
    /// `owner`'s log: for an audited event that changes nothing else (a
    /// refused login).
    async fn record(&self, owner: AccountId, note: &AuditNote) -> Result<(), StoreError>;
    /// A page of the entries shown in `owner`'s log (whatever their target
    /// became since: deleted devices' too), newest first, filtered.
    async fn audit_page(
        &self,
        owner: AccountId,
        filter: &AuditFilter,
        window: Window,
    ) -> Result<AuditPage, StoreError>;
    /// Up to `limit` entries of the whole log with ids above `after`, in
    /// ascending id order: verification and export read the log this way.
    async fn audit_after(&self, after: u64, limit: usize) -> Result<Vec<AuditEntry>, StoreError>;
    /// The checkpoint and the head of the chain.
    async fn chain_ends(&self) -> Result<ChainEnds, StoreError>;
    /// Deletes the entries written before `before`, as one prefix of the
    /// chain (every id up to the newest such entry), and keeps the newest
    /// deleted entry's id and hash as the checkpoint, in one transaction.
    /// Returns how many it deleted.
    async fn purge_audit(&self, before: Timestamp) -> Result<u64, StoreError>;
}
