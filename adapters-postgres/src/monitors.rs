//! Monitors and alerts on PostgreSQL (docs/architecture.md, "Alerts and
//! webhooks"): the `monitors`, `alerts`, `alert_mail_windows` and
//! `alert_digest_lines` tables. An owner's reads and changes (`owned`) are
//! single statements; the engine reads every monitor in one read-only
//! snapshot (`watch`), records each verdict in one transaction that locks
//! the monitor's row (`verdict`), and mails through the account's window
//! (`mail`).

use crate::store::{BULK_WORK_TIMEOUT, PgStore};
use application::StoreError;
use application::mail::Email;
use application::ports::{
    AlertFilter, AlertPage, AlertRecord, AppliedVerdict, DueDigest, MonitorPage, MonitorRecord,
    MonitorRepository, MonitorVerdict, MonitorWatch, NewMonitor, Window,
};
use async_trait::async_trait;
use chrono::Duration;
use domain::{AccountId, AlertId, AuditNote, MonitorId, Timestamp};

mod mail;
mod owned;
mod records;
mod verdict;
mod watch;

#[async_trait]
impl MonitorRepository for PgStore {
    async fn create_monitor(
        &self,
        monitor: &NewMonitor,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        self.transaction("create a monitor", |tx| {
            let (monitor, audit) = (monitor.clone(), audit.clone());
            Box::pin(async move {
                owned::create(tx, &monitor).await?;
                crate::audit::append_one(tx, monitor.owner, &audit).await?;
                Ok(())
            })
        })
        .await
    }

    async fn list_monitors(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<MonitorPage, StoreError> {
        self.run("list monitors", |c| {
            Box::pin(async move { owned::list(c, owner, window).await })
        })
        .await
    }

    async fn find_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
    ) -> Result<Option<MonitorRecord>, StoreError> {
        self.run("read a monitor", |c| {
            let id = id.clone();
            Box::pin(async move { owned::find(c, owner, &id).await })
        })
        .await
    }

    async fn delete_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        self.transaction("delete a monitor", |tx| {
            let (id, audit) = (id.clone(), audit.clone());
            Box::pin(async move {
                let deleted = owned::delete(tx, owner, &id).await?;
                if deleted {
                    crate::audit::append_one(tx, owner, &audit).await?;
                }
                Ok(deleted)
            })
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
        self.transaction("snooze a monitor", |tx| {
            let (id, audit) = (id.clone(), audit.clone());
            Box::pin(async move {
                let snoozed = owned::snooze(tx, owner, &id, until).await?;
                if snoozed.is_some() {
                    crate::audit::append_one(tx, owner, &audit).await?;
                }
                Ok(snoozed)
            })
        })
        .await
    }

    async fn list_alerts(
        &self,
        owner: AccountId,
        filter: &AlertFilter,
        window: Window,
    ) -> Result<AlertPage, StoreError> {
        self.run("list alerts", |c| {
            let filter = filter.clone();
            Box::pin(async move { owned::list_alerts(c, owner, &filter, window).await })
        })
        .await
    }

    async fn find_alert(
        &self,
        owner: AccountId,
        id: &AlertId,
    ) -> Result<Option<AlertRecord>, StoreError> {
        self.run("read an alert", |c| {
            let id = id.clone();
            Box::pin(async move { owned::find_alert(c, owner, &id).await })
        })
        .await
    }

    async fn watch_monitors(
        &self,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<Vec<MonitorWatch>, StoreError> {
        self.transaction_within("watch the monitors", BULK_WORK_TIMEOUT, |tx| {
            Box::pin(async move {
                // One snapshot for every statement; a read-only one is never
                // aborted for concurrent work.
                tx.batch_execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .await?;
                watch::watch(tx, now, online_after).await
            })
        })
        .await
    }

    async fn apply_verdict(
        &self,
        verdict: &MonitorVerdict,
        now: Timestamp,
        mail_window: Duration,
    ) -> Result<AppliedVerdict, StoreError> {
        let (applied, mailed) = self
            .transaction_within("record a monitor's verdict", BULK_WORK_TIMEOUT, |tx| {
                let verdict = verdict.clone();
                Box::pin(async move { verdict::apply(tx, &verdict, now, mail_window).await })
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
        self.run("list due alert digests", |c| {
            Box::pin(async move { mail::due_digests(c, now, mail_window).await })
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
        let sent = self
            .transaction("send an alert digest", |tx| {
                let mail = mail.clone();
                Box::pin(
                    async move { mail::send_digest(tx, owner, window_opened, &mail, now).await },
                )
            })
            .await?;
        if sent {
            self.wake_mail_worker();
        }
        Ok(sent)
    }
}
