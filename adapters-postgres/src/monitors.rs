//! Monitors and alerts (being written).

use crate::store::PgStore;
use application::StoreError;
use application::mail::Email;
use application::ports::{
    AlertFilter, AlertPage, AlertRecord, AppliedVerdict, DueDigest, MonitorPage, MonitorRecord,
    MonitorRepository, MonitorVerdict, MonitorWatch, NewMonitor, Window,
};
use async_trait::async_trait;
use chrono::Duration;
use domain::{AccountId, AlertId, MonitorId, Timestamp};

fn pending() -> StoreError {
    StoreError::message("monitors are not stored yet")
}

#[async_trait]
impl MonitorRepository for PgStore {
    async fn create_monitor(&self, _monitor: &NewMonitor) -> Result<(), StoreError> {
        Err(pending())
    }
    async fn list_monitors(
        &self,
        _owner: AccountId,
        _window: Window,
    ) -> Result<MonitorPage, StoreError> {
        Err(pending())
    }
    async fn find_monitor(
        &self,
        _owner: AccountId,
        _id: &MonitorId,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        Err(pending())
    }
    async fn delete_monitor(&self, _owner: AccountId, _id: &MonitorId) -> Result<bool, StoreError> {
        Err(pending())
    }
    async fn snooze_monitor(
        &self,
        _owner: AccountId,
        _id: &MonitorId,
        _until: Option<Timestamp>,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        Err(pending())
    }
    async fn list_alerts(
        &self,
        _owner: AccountId,
        _filter: &AlertFilter,
        _window: Window,
    ) -> Result<AlertPage, StoreError> {
        Err(pending())
    }
    async fn find_alert(
        &self,
        _owner: AccountId,
        _id: &AlertId,
    ) -> Result<Option<AlertRecord>, StoreError> {
        Err(pending())
    }
    async fn watch_monitors(
        &self,
        _now: Timestamp,
        _online_after: Timestamp,
    ) -> Result<Vec<MonitorWatch>, StoreError> {
        Ok(Vec::new())
    }
    async fn apply_verdict(
        &self,
        _verdict: &MonitorVerdict,
        _now: Timestamp,
        _mail_window: Duration,
    ) -> Result<AppliedVerdict, StoreError> {
        Err(pending())
    }
    async fn due_digests(
        &self,
        _now: Timestamp,
        _mail_window: Duration,
    ) -> Result<Vec<DueDigest>, StoreError> {
        Ok(Vec::new())
    }
    async fn send_digest(
        &self,
        _owner: AccountId,
        _window_opened: Timestamp,
        _mail: &Email,
    ) -> Result<bool, StoreError> {
        Err(pending())
    }
}
