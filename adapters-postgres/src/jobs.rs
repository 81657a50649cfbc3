//! Fleet jobs on PostgreSQL (docs/architecture.md, "Fleet jobs"): the
//! `jobs` and `job_targets` tables. A target's status is read through its
//! command unless it was kept (`records`); the owner's reads and changes
//! (`reads`, `changes`) and the engine's steps (`steps`) are each one unit
//! of work, the steps one transaction conditional on the job row.

use crate::store::{BULK_WORK_TIMEOUT, PgStore};
use application::StoreError;
use application::ports::{
    ActiveJob, JobChange, JobPage, JobRecord, JobRepository, NewJob, Settlement, SettlementNotices,
    TargetPage, Window,
};
use async_trait::async_trait;
use domain::{AccountId, AuditNote, CommandId, JobId, Serial, Timestamp};

mod changes;
mod reads;
mod records;
mod steps;

#[async_trait]
impl JobRepository for PgStore {
    async fn create_job(
        &self,
        job: &NewJob,
        online_after: Timestamp,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        self.transaction_within("create a job", BULK_WORK_TIMEOUT, |tx| {
            let (job, audit) = (job.clone(), audit.clone());
            Box::pin(async move {
                changes::create(tx, &job, online_after).await?;
                crate::audit::append_one(tx, job.owner, &audit).await?;
                Ok(())
            })
        })
        .await
    }

    async fn begin_job(
        &self,
        id: &JobId,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<bool, StoreError> {
        self.transaction_within("start a scheduled job", BULK_WORK_TIMEOUT, |tx| {
            let id = id.clone();
            Box::pin(async move { steps::begin(tx, &id, now, online_after).await })
        })
        .await
    }

    async fn active_jobs(
        &self,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<Vec<ActiveJob>, StoreError> {
        self.run_within("list active jobs", BULK_WORK_TIMEOUT, |c| {
            Box::pin(async move { reads::active_jobs(c, now, lapse_before).await })
        })
        .await
    }

    async fn active_job(
        &self,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<ActiveJob>, StoreError> {
        self.run_within("read an active job", BULK_WORK_TIMEOUT, |c| {
            let id = id.clone();
            Box::pin(async move { reads::active_job(c, &id, lapse_before).await })
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
        let started = self
            .transaction_within("start a wave", BULK_WORK_TIMEOUT, |tx| {
                let (id, command_ids) = (id.clone(), command_ids.to_vec());
                Box::pin(async move {
                    steps::start_wave(tx, &id, wave, &command_ids, now, lapse_before).await
                })
            })
            .await?;
        let Some(serials) = started else {
            return Ok(false);
        };
        // This instance's polls wake at once; the others' hear the
        // notifications sent with the commands.
        for serial in serials {
            self.wakeups.wake(&Serial::from_stored(serial));
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
        self.transaction_within("settle a wave", BULK_WORK_TIMEOUT, |tx| {
            let (id, notices) = (id.clone(), notices.clone());
            Box::pin(async move {
                steps::settle_wave(tx, &id, wave, settlement, now, lapse_before, &notices).await
            })
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
        self.transaction_within("cancel a job", BULK_WORK_TIMEOUT, |tx| {
            let (id, audit) = (id.clone(), audit.clone());
            Box::pin(async move {
                let change = changes::cancel(tx, owner, &id, now).await?;
                if change == JobChange::Changed {
                    crate::audit::append_one(tx, owner, &audit).await?;
                }
                Ok(change)
            })
        })
        .await
    }

    async fn resume_job(
        &self,
        owner: AccountId,
        id: &JobId,
        now: Timestamp,
        audit: &AuditNote,
    ) -> Result<JobChange, StoreError> {
        self.transaction_within("resume a job", BULK_WORK_TIMEOUT, |tx| {
            let (id, audit) = (id.clone(), audit.clone());
            Box::pin(async move {
                let change = changes::resume(tx, owner, &id, now).await?;
                if change == JobChange::Changed {
                    crate::audit::append_one(tx, owner, &audit).await?;
                }
                Ok(change)
            })
        })
        .await
    }

    async fn find_job(
        &self,
        owner: AccountId,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<JobRecord>, StoreError> {
        self.run_within("read a job", BULK_WORK_TIMEOUT, |c| {
            let id = id.clone();
            Box::pin(async move { reads::find_job(c, owner, &id, lapse_before).await })
        })
        .await
    }

    async fn list_jobs(
        &self,
        owner: AccountId,
        window: Window,
        lapse_before: Timestamp,
    ) -> Result<JobPage, StoreError> {
        self.run_within("list jobs", BULK_WORK_TIMEOUT, |c| {
            Box::pin(async move { reads::list_jobs(c, owner, window, lapse_before).await })
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
        self.run_within("list a job's targets", BULK_WORK_TIMEOUT, |c| {
            let id = id.clone();
            Box::pin(async move { reads::job_targets(c, owner, &id, window, lapse_before).await })
        })
        .await
    }
}
