//! Fleet jobs: an owner's reboots in waves (create, read, cancel, resume),
//! and the engine that starts and settles the waves ([`JobRunner`]).

mod runner;

pub use runner::JobRunner;

use super::Requester;
use super::secrets::Secrets;
use crate::ports::{
    Clock, FleetSignals, JobChange, JobPage, JobRecord, JobRepository, NewJob, StoreError,
    TargetPage, Window,
};
use chrono::Duration;
use domain::{
    Account, Action, AuditAction, AuditTarget, JobId, JobSettings, JobStatus, Selector, Timestamp,
};
use std::sync::Arc;
use thiserror::Error;

/// A job as its owner asks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRequest {
    /// What each target is given.
    pub action: Action,
    /// Which devices (resolved when the job starts).
    pub selector: Selector,
    /// The selector as sent (its known keys, as JSON text), shown back as is.
    pub selector_json: String,
    /// When to start; `None` or a time not in the future: now.
    pub start_time: Option<Timestamp>,
    /// Waves, interval and halt ratio.
    pub settings: JobSettings,
}

/// Why a job could not be cancelled or resumed.
#[derive(Debug, Error)]
pub enum JobActionError {
    /// The account has no such job.
    #[error("Not found.")]
    NotFound,
    /// Cancelling a completed or cancelled job.
    #[error("This job has already finished.")]
    AlreadyFinished,
    /// Resuming a job that is not halted.
    #[error("Only a halted job can be resumed.")]
    NotHalted,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An account's fleet jobs.
#[derive(Clone)]
pub struct Jobs {
    pub(super) jobs: Arc<dyn JobRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) signals: Arc<dyn FleetSignals>,
    pub(super) runner: JobRunner,
    pub(super) online_window: Duration,
    pub(super) command_lifetime: Duration,
}

impl Jobs {
    /// Creates a job. One that starts now starts in this call: its targets
    /// are resolved and its first wave is under way (or, without targets,
    /// it is completed) when it returns.
    pub async fn create(
        &self,
        by: Requester<'_>,
        request: JobRequest,
    ) -> Result<JobRecord, StoreError> {
        let owner = by.account;
        let now = self.clock.now();
        let later = request.start_time.filter(|start| *start > now);
        let job = NewJob {
            id: JobId::from_random_bytes(self.secrets.random_bytes()),
            owner: owner.id,
            action: request.action,
            selector: request.selector,
            selector_json: request.selector_json,
            settings: request.settings,
            start_time: later.unwrap_or(now),
            status: if later.is_some() {
                JobStatus::Scheduled
            } else {
                JobStatus::Running
            },
            created_time: now,
        };
        let audit = by.note(now, AuditAction::JobCreate, AuditTarget::job(&job.id));
        self.jobs
            .create_job(&job, now - self.online_window, &audit)
            .await?;
        tracing::info!(job = %job.id, status = job.status.code(), "job created");
        if job.status == JobStatus::Running {
            self.runner.advance(&job.id).await?;
        }
        self.signals.announce(owner.id).await;
        self.stored(owner, &job.id).await
    }

    /// A page of the account's jobs, newest first.
    pub async fn list(&self, owner: &Account, window: Window) -> Result<JobPage, StoreError> {
        self.jobs
            .list_jobs(owner.id, window, self.lapse_before())
            .await
    }

    /// One job of the account.
    pub async fn get(&self, owner: &Account, id: &JobId) -> Result<Option<JobRecord>, StoreError> {
        self.jobs.find_job(owner.id, id, self.lapse_before()).await
    }

    /// A page of a job's targets, by wave then list order; `None` when the
    /// account has no such job.
    pub async fn targets(
        &self,
        owner: &Account,
        id: &JobId,
        window: Window,
    ) -> Result<Option<TargetPage>, StoreError> {
        self.jobs
            .job_targets(owner.id, id, window, self.lapse_before())
            .await
    }

    /// Cancels a job that has not finished: its waiting targets are
    /// skipped; commands already given are not withdrawn.
    pub async fn cancel(&self, by: Requester<'_>, id: &JobId) -> Result<JobRecord, JobActionError> {
        let owner = by.account;
        let now = self.clock.now();
        let audit = by.note(now, AuditAction::JobCancel, AuditTarget::job(id));
        match self.jobs.cancel_job(owner.id, id, now, &audit).await? {
            JobChange::Missing => Err(JobActionError::NotFound),
            JobChange::Refused => Err(JobActionError::AlreadyFinished),
            JobChange::Changed => {
                tracing::info!(job = %id, "job cancelled");
                self.signals.announce(owner.id).await;
                Ok(self.stored(owner, id).await?)
            }
        }
    }

    /// Resumes a halted job: it runs again, its next wave started in this call.
    pub async fn resume(&self, by: Requester<'_>, id: &JobId) -> Result<JobRecord, JobActionError> {
        let owner = by.account;
        let now = self.clock.now();
        let audit = by.note(now, AuditAction::JobResume, AuditTarget::job(id));
        match self.jobs.resume_job(owner.id, id, now, &audit).await? {
            JobChange::Missing => Err(JobActionError::NotFound),
            JobChange::Refused => Err(JobActionError::NotHalted),
            JobChange::Changed => {
                tracing::info!(job = %id, "job resumed");
                self.runner.advance(id).await?;
                self.signals.announce(owner.id).await;
                Ok(self.stored(owner, id).await?)
            }
        }
    }

    /// The job just written, read back with its counts.
    async fn stored(&self, owner: &Account, id: &JobId) -> Result<JobRecord, StoreError> {
        self.get(owner, id)
            .await?
            .ok_or_else(|| StoreError::message("a job vanished as it was written"))
    }

    fn lapse_before(&self) -> Timestamp {
        self.clock.now() - self.command_lifetime
    }
}

#[cfg(test)]
mod tests;
