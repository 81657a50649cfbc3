//! The job port on SQLite (docs/architecture.md, "Fleet jobs"): a `jobs`
//! row per job and a `job_targets` row per target, whose status is read
//! through its command until it is kept. Every write is one
//! `BEGIN IMMEDIATE` transaction that checks the state it starts from.

mod changes;
mod keep;
mod reads;
mod rows;
mod targets;
mod waves;

pub(crate) use keep::{before_commands_purged, before_device_deleted};

use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{
    ActiveJob, JobChange, JobPage, JobRecord, JobRepository, NewJob, Settlement, SettlementNotices,
    TargetPage, Window,
};
use async_trait::async_trait;
use domain::{AccountId, AuditNote, CommandId, JobId, Timestamp};

/// A failure described in words (a stored value that cannot be read, a
/// wave given too few command ids), carried in a `rusqlite` error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct WithMessage(String);

/// What an owner's change came to: `None` without such a job, else whether
/// its status allowed the change.
fn change(outcome: Option<bool>) -> JobChange {
    match outcome {
        None => JobChange::Missing,
        Some(false) => JobChange::Refused,
        Some(true) => JobChange::Changed,
    }
}

#[async_trait]
impl JobRepository for SqliteStore {
    async fn create_job(
        &self,
        job: &NewJob,
        online_after: Timestamp,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        let (job, audit) = (job.clone(), audit.clone());
        self.write("create a job", move |conn| {
            targets::create(conn, &job, online_after, &audit)
        })
        .await
    }

    async fn begin_job(
        &self,
        id: &JobId,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<bool, StoreError> {
        let id = id.clone();
        self.write("start a scheduled job", move |conn| {
            targets::begin(conn, id.as_str(), now, online_after)
        })
        .await
    }

    async fn active_jobs(
        &self,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<Vec<ActiveJob>, StoreError> {
        self.run("read active jobs", move |conn| {
            reads::active(&*conn.transaction()?, now, lapse_before)
        })
        .await
    }

    async fn active_job(
        &self,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<ActiveJob>, StoreError> {
        let id = id.clone();
        self.run("read an active job", move |conn| {
            reads::active_one(&*conn.transaction()?, &id, lapse_before)
        })
        .await
    }

    async fn start_wave(
        &self,
        id: &JobId,
        wave: u32,
        command_ids: &[CommandId],
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        let (id, command_ids) = (id.clone(), command_ids.to_vec());
        let given = self
            .write("start a wave", move |conn| {
                waves::start(conn, id.as_str(), wave, &command_ids, now, lapse_before)
            })
            .await?;
        let Some(serials) = given else {
            return Ok(false);
        };
        for serial in &serials {
            self.wakeups.wake(serial);
        }
        Ok(true)
    }

    async fn settle_wave(
        &self,
        id: &JobId,
        wave: u32,
        settlement: Settlement,
        now: Timestamp,
        lapse_before: Timestamp,
        notices: &SettlementNotices,
    ) -> Result<bool, StoreError> {
        let (id, SettlementNotices { event, audit }) = (id.clone(), notices.clone());
        self.write("settle a wave", move |conn| {
            waves::settle(
                conn,
                id.as_str(),
                wave,
                settlement,
                now,
                lapse_before,
                (event.as_ref(), audit.as_ref()),
            )
        })
        .await
    }

    async fn cancel_job(
        &self,
        owner: AccountId,
        id: &JobId,
        now: Timestamp,
        audit: &AuditNote,
    ) -> Result<JobChange, StoreError> {
        let (id, audit) = (id.clone(), audit.clone());
        self.write("cancel a job", move |conn| {
            changes::cancel(conn, owner.0, id.as_str(), now, &audit)
        })
        .await
        .map(change)
    }

    async fn resume_job(
        &self,
        owner: AccountId,
        id: &JobId,
        now: Timestamp,
        audit: &AuditNote,
    ) -> Result<JobChange, StoreError> {
        let (id, audit) = (id.clone(), audit.clone());
        self.write("resume a job", move |conn| {
            changes::resume(conn, owner.0, id.as_str(), now, &audit)
        })
        .await
        .map(change)
    }

    async fn find_job(
        &self,
        owner: AccountId,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<JobRecord>, StoreError> {
        let id = id.clone();
        self.run("read a job", move |conn| {
            reads::find(&*conn.transaction()?, owner, &id, lapse_before)
        })
        .await
    }

    async fn list_jobs(
        &self,
        owner: AccountId,
        window: Window,
        lapse_before: Timestamp,
    ) -> Result<JobPage, StoreError> {
        self.run("list jobs", move |conn| {
            reads::list(&*conn.transaction()?, owner, window, lapse_before)
        })
        .await
    }

    async fn job_targets(
        &self,
        owner: AccountId,
        id: &JobId,
        window: Window,
        lapse_before: Timestamp,
    ) -> Result<Option<TargetPage>, StoreError> {
        let id = id.clone();
        self.run("list a job's targets", move |conn| {
            reads::targets(&*conn.transaction()?, owner, &id, window, lapse_before)
        })
        .await
    }
}

#[cfg(test)]
mod plans;
