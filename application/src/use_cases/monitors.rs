//! Monitors and alerts: an owner's monitors (create, read, delete,
//! snooze) and their alerts, and the engine that evaluates the monitors
//! ([`MonitorEngine`]).

mod engine;
mod verdicts;

pub use engine::MonitorEngine;

use super::Requester;
use super::secrets::Secrets;
use crate::ports::{
    AlertFilter, AlertPage, AlertRecord, Clock, MonitorPage, MonitorRecord, MonitorRepository,
    NewMonitor, StoreError, Window,
};
use domain::{
    Account, AfterSeconds, AlertId, AuditAction, AuditDetail, AuditTarget, MonitorId, MonitorKind,
    MonitorName, Selector, Timestamp,
};
use std::sync::Arc;

/// A monitor as its owner asks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorRequest {
    /// Its name.
    pub name: MonitorName,
    /// What it watches for.
    pub kind: MonitorKind,
    /// Which devices (resolved at each evaluation).
    pub selector: Selector,
    /// The selector as sent (its known keys, as JSON text), shown back as is.
    pub selector_json: String,
    /// How long a condition lasts before an alert opens (at least the
    /// online window: see [`Monitors::least_after_seconds`]).
    pub after: AfterSeconds,
}

/// An account's monitors and alerts.
#[derive(Clone)]
pub struct Monitors {
    pub(super) monitors: Arc<dyn MonitorRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) online_window_seconds: u32,
}

impl Monitors {
    /// The shortest `after_seconds` a monitor may have: the online window.
    pub fn least_after_seconds(&self) -> u32 {
        self.online_window_seconds
    }

    /// Creates a monitor; the engine evaluates it from its next tick.
    pub async fn create(
        &self,
        by: Requester<'_>,
        request: MonitorRequest,
    ) -> Result<MonitorRecord, StoreError> {
        let owner = by.account;
        let now = self.clock.now();
        let monitor = NewMonitor {
            id: MonitorId::from_random_bytes(self.secrets.random_bytes()),
            owner: owner.id,
            name: request.name,
            kind: request.kind,
            selector: request.selector,
            selector_json: request.selector_json,
            after: request.after,
            created_time: now,
        };
        let audit = by.note(
            now,
            AuditAction::MonitorCreate,
            AuditTarget::monitor(&monitor.id),
        );
        self.monitors.create_monitor(&monitor, &audit).await?;
        tracing::info!(monitor = %monitor.id, kind = monitor.kind.code().code(), "monitor created");
        self.get(owner, &monitor.id)
            .await?
            .ok_or_else(|| StoreError::message("a monitor vanished as it was written"))
    }

    /// A page of the account's monitors, newest first.
    pub async fn list(&self, owner: &Account, window: Window) -> Result<MonitorPage, StoreError> {
        self.monitors.list_monitors(owner.id, window).await
    }

    /// One monitor of the account.
    pub async fn get(
        &self,
        owner: &Account,
        id: &MonitorId,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        self.monitors.find_monitor(owner.id, id).await
    }

    /// Deletes a monitor and its alerts; whether the account had it.
    pub async fn delete(&self, by: Requester<'_>, id: &MonitorId) -> Result<bool, StoreError> {
        let audit = by.note(
            self.clock.now(),
            AuditAction::MonitorDelete,
            AuditTarget::monitor(id),
        );
        let deleted = self
            .monitors
            .delete_monitor(by.account.id, id, &audit)
            .await?;
        if deleted {
            tracing::info!(monitor = %id, "monitor deleted");
        }
        Ok(deleted)
    }

    /// Snoozes a monitor until `until`; `None` or a time not in the future
    /// ends the snooze. The monitor after the change, `None` when the
    /// account has no such monitor.
    pub async fn snooze(
        &self,
        by: Requester<'_>,
        id: &MonitorId,
        until: Option<Timestamp>,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        let now = self.clock.now();
        let until = until.filter(|until| *until > now);
        let audit = by.note_with(
            now,
            AuditAction::MonitorSnooze,
            AuditTarget::monitor(id),
            AuditDetail::Until(until),
        );
        self.monitors
            .snooze_monitor(by.account.id, id, until, &audit)
            .await
    }

    /// A page of the account's alerts, newest first.
    pub async fn alerts(
        &self,
        owner: &Account,
        filter: &AlertFilter,
        window: Window,
    ) -> Result<AlertPage, StoreError> {
        self.monitors.list_alerts(owner.id, filter, window).await
    }

    /// One alert of the account.
    pub async fn alert(
        &self,
        owner: &Account,
        id: &AlertId,
    ) -> Result<Option<AlertRecord>, StoreError> {
        self.monitors.find_alert(owner.id, id).await
    }
}

#[cfg(test)]
mod tests;
