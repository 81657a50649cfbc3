//! The monitor port on SQLite (docs/architecture.md, "Alerts and
//! webhooks"): monitors, their alerts (at most one open per monitor and
//! device, kept by a unique index), and the alert mail windows. The
//! engine's view is read in one snapshot; each verdict is recorded in one
//! `BEGIN IMMEDIATE` transaction with its notices.

mod mail;
mod owned;
mod rows;
mod verdict;
mod watch;

use crate::store::SqliteStore;
use application::StoreError;
use application::mail::Email;
use application::ports::{
    AlertFilter, AlertPage, AlertRecord, AppliedVerdict, DueDigest, MonitorPage, MonitorRecord,
    MonitorRepository, MonitorVerdict, MonitorWatch, NewMonitor, Window,
};
use async_trait::async_trait;
use chrono::Duration;
use domain::{AccountId, AlertId, AuditNote, MonitorId, Timestamp};

#[async_trait]
impl MonitorRepository for SqliteStore {
    async fn create_monitor(
        &self,
        monitor: &NewMonitor,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        let (monitor, audit) = (monitor.clone(), audit.clone());
        self.write("create a monitor", move |conn| {
            owned::create(conn, &monitor, &audit)
        })
        .await
    }

    async fn list_monitors(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<MonitorPage, StoreError> {
        self.run("list monitors", move |conn| {
            owned::list(&*conn.transaction()?, owner, window)
        })
        .await
    }

    async fn find_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        let id = id.clone();
        self.run("read a monitor", move |conn| {
            owned::find(conn, owner, id.as_str())
        })
        .await
    }

    async fn delete_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        let (id, audit) = (id.clone(), audit.clone());
        self.write("delete a monitor", move |conn| {
            owned::delete(conn, owner, id.as_str(), &audit)
        })
        .await
    }

    async fn snooze_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
        until: Option<Timestamp>,
        audit: &AuditNote,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        let (id, audit) = (id.clone(), audit.clone());
        self.write("snooze a monitor", move |conn| {
            owned::snooze(conn, owner, id.as_str(), until, &audit)
        })
        .await
    }

    async fn list_alerts(
        &self,
        owner: AccountId,
        filter: &AlertFilter,
        window: Window,
    ) -> Result<AlertPage, StoreError> {
        let filter = filter.clone();
        self.run("list alerts", move |conn| {
            owned::list_alerts(&*conn.transaction()?, owner, &filter, window)
        })
        .await
    }

    async fn find_alert(
        &self,
        owner: AccountId,
        id: &AlertId,
    ) -> Result<Option<AlertRecord>, StoreError> {
        let id = id.clone();
        self.run("read an alert", move |conn| {
            owned::find_alert(conn, owner, id.as_str())
        })
        .await
    }

    async fn watch_monitors(
        &self,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<Vec<MonitorWatch>, StoreError> {
        self.run("watch monitors", move |conn| {
            watch::watch(conn, now, online_after)
        })
        .await
    }

    async fn apply_verdict(
        &self,
        verdict: &MonitorVerdict,
        now: Timestamp,
        mail_window: Duration,
    ) -> Result<AppliedVerdict, StoreError> {
        let verdict = verdict.clone();
        let (applied, mailed) = self
            .write("record a monitor's verdict", move |conn| {
                verdict::apply(conn, &verdict, now, mail_window)
            })
            .await?;
        if mailed {
            self.wake_mail_worker();
        }
        Ok(applied)
    }

    async fn due_digests(
        &self,
        now: Timestamp,
        mail_window: Duration,
    ) -> Result<Vec<DueDigest>, StoreError> {
        self.run("read due alert digests", move |conn| {
            mail::due(conn, now, mail_window)
        })
        .await
    }

    async fn send_digest(
        &self,
        owner: AccountId,
        window_opened: Timestamp,
        mail: &Email,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mail = mail.clone();
        let sent = self
            .write("send an alert digest", move |conn| {
                mail::send(conn, owner, window_opened, &mail, now)
            })
            .await?;
        if sent {
            self.wake_mail_worker();
        }
        Ok(sent)
    }
}

#[cfg(test)]
mod plans;
