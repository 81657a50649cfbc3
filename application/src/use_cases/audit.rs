//! Reading, exporting, verifying and trimming the audit log. The entries
//! themselves are written by the changes they record, in the changes' own
//! transactions.

use crate::ports::{AuditFilter, AuditLog, AuditPage, Clock, StoreError, Window};
use chrono::Duration;
use domain::audit::{ChainCheck, ChainVerdict};
use domain::{Account, AuditEntry, AuditTarget, Serial};
use std::sync::Arc;

/// How many entries verification and export read at a time.
pub const AUDIT_BATCH: usize = 1000;

/// How many entries a device's page shows.
pub const DEVICE_ACTIVITY: u32 = 10;

/// The audit log as people read and check it.
#[derive(Clone)]
pub struct Audit {
    pub(super) log: Arc<dyn AuditLog>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) retention: Duration,
}

impl Audit {
    /// A page of the account's entries (its own, its devices', jobs',
    /// monitors' and webhooks', deleted ones' too), newest first.
    pub async fn page(
        &self,
        owner: &Account,
        filter: &AuditFilter,
        window: Window,
    ) -> Result<AuditPage, StoreError> {
        self.log.audit_page(owner.id, filter, window).await
    }

    /// The newest entries about one device of the account (or one it had).
    pub async fn of_device(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let filter = AuditFilter {
            action: None,
            target: Some(AuditTarget::device(serial).as_str().to_owned()),
        };
        let window = Window {
            limit: DEVICE_ACTIVITY,
            offset: 0,
        };
        Ok(self.page(owner, &filter, window).await?.entries)
    }

    /// Checks every entry's place, link and hash, from the checkpoint on,
    /// and that the newest entries are all there.
    pub async fn verify(&self) -> Result<ChainVerdict, StoreError> {
        let ends = self.log.chain_ends().await?;
        let mut check = ChainCheck::new(ends.checkpoint);
        self.each_after(0, |entry| check.visit(entry)).await?;
        Ok(check.finish(ends.head.as_ref()))
    }

    /// Hands every entry with an id above `since` to `visit`, in id order,
    /// reading the log a batch at a time.
    pub async fn export(
        &self,
        since: u64,
        visit: impl FnMut(&AuditEntry),
    ) -> Result<(), StoreError> {
        self.each_after(since, visit).await
    }

    async fn each_after(
        &self,
        mut after: u64,
        mut visit: impl FnMut(&AuditEntry),
    ) -> Result<(), StoreError> {
        loop {
            let batch = self.log.audit_after(after, AUDIT_BATCH).await?;
            batch.iter().for_each(&mut visit);
            match batch.last() {
                Some(last) if batch.len() == AUDIT_BATCH => after = last.id,
                _ => return Ok(()),
            }
        }
    }

    /// Deletes the entries older than the retention, keeping the newest of
    /// them as the checkpoint. Returns how many it deleted.
    pub async fn apply_retention(&self) -> Result<u64, StoreError> {
        let deleted = self
            .log
            .purge_audit(self.clock.now() - self.retention)
            .await?;
        if deleted > 0 {
            tracing::info!(deleted, "audit entries past their retention deleted");
        }
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests;
