//! The job engine: takes each job's next step when it is due. Every step is
//! one conditional transaction in the store, so a restart picks up where
//! the job stands and, of several instances, exactly one takes a step.

use super::super::secrets::Secrets;
use crate::ports::{
    ActiveJob, Clock, EventData, EventRecord, FleetSignals, JobRepository, Settlement,
    SettlementNotices, StoreError,
};
use chrono::Duration;
use domain::{
    AuditAction, AuditNote, AuditTarget, CommandId, JobId, JobStatus, Origin, Timestamp, WavePlan,
    WaveVerdict, WebhookEvent,
};
use std::sync::Arc;

/// The most steps one job takes in one go (start, first wave, and a wave
/// without interval settled and followed at once).
const MAX_STEPS: usize = 8;

/// The job engine: [`tick`](Self::tick) takes every due step of every job.
#[derive(Clone)]
pub struct JobRunner {
    pub(in crate::use_cases) jobs: Arc<dyn JobRepository>,
    pub(in crate::use_cases) clock: Arc<dyn Clock>,
    pub(in crate::use_cases) secrets: Secrets,
    pub(in crate::use_cases) signals: Arc<dyn FleetSignals>,
    pub(in crate::use_cases) event_data: Arc<dyn EventData>,
    pub(in crate::use_cases) online_window: Duration,
    pub(in crate::use_cases) command_lifetime: Duration,
}

impl JobRunner {
    /// Takes every step that is due now: starts scheduled jobs whose time
    /// has come, settles waves that have ended, starts waves whose interval
    /// has passed. A job whose step fails is logged and tried again on the
    /// next tick; the others go on. Returns how many steps were taken.
    pub async fn tick(&self) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let active = self
            .jobs
            .active_jobs(now, now - self.command_lifetime)
            .await?;
        let mut taken = 0;
        for job in active {
            let id = job.id.clone();
            match self.step(job, now).await {
                Ok(false) => {}
                Ok(true) => taken += 1 + self.advance(&id).await?,
                Err(error) => tracing::error!(job = %id, error = ?error, "job step failed"),
            }
        }
        Ok(taken)
    }

    /// Takes the steps of one job that are due now, one after the other.
    /// Returns how many it took.
    pub async fn advance(&self, id: &JobId) -> Result<usize, StoreError> {
        let mut taken = 0;
        while taken < MAX_STEPS {
            let now = self.clock.now();
            let lapse_before = now - self.command_lifetime;
            let Some(job) = self.jobs.active_job(id, lapse_before).await? else {
                break;
            };
            if !self.step(job, now).await? {
                break;
            }
            taken += 1;
        }
        Ok(taken)
    }

    /// Takes the job's next step if it is due; whether it did.
    async fn step(&self, job: ActiveJob, now: Timestamp) -> Result<bool, StoreError> {
        let lapse_before = now - self.command_lifetime;
        let taken = match job.status {
            JobStatus::Scheduled if job.start_time <= now => {
                let begun = self
                    .jobs
                    .begin_job(&job.id, now, now - self.online_window)
                    .await?;
                if begun {
                    tracing::info!(job = %job.id, "scheduled job started");
                }
                begun
            }
            JobStatus::Running => self.step_running(&job, now, lapse_before).await?,
            _ => false,
        };
        if taken {
            self.signals.announce(job.owner).await;
        }
        Ok(taken)
    }

    async fn step_running(
        &self,
        job: &ActiveJob,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        let plan = WavePlan {
            targets: job.targets,
            wave_size: job.settings.wave_size,
        };
        let wave = job.current_wave;
        let settlement = match job.next_wave_time {
            Some(due) if due > now => return Ok(false),
            Some(_) if plan.is_last(wave) => Settlement::Complete,
            Some(_) => {
                return self
                    .start_wave(job, &plan, wave + 1, now, lapse_before)
                    .await;
            }
            None => match WaveVerdict::decide(
                wave,
                &plan,
                &job.wave_counts,
                job.settings.halt_failure_ratio,
            ) {
                None => return Ok(false),
                Some(WaveVerdict::Complete) => Settlement::Complete,
                Some(WaveVerdict::Halt) => Settlement::Halt,
                Some(WaveVerdict::NextWave) => {
                    Settlement::NextWaveAt(now + job.settings.wave_interval.duration())
                }
            },
        };
        let event = self.job_event(job, settlement, now, lapse_before).await?;
        let notices = SettlementNotices {
            event,
            audit: settlement_note(&job.id, settlement, now),
        };
        let settled = self
            .jobs
            .settle_wave(&job.id, wave, settlement, now, lapse_before, &notices)
            .await?;
        if settled {
            tracing::info!(job = %job.id, wave, ?settlement, failure_ratio = job.wave_counts.failure_ratio(), "wave settled");
        }
        Ok(settled)
    }

    /// The webhook event of a settlement that completes or halts the job:
    /// the job as its GET will show it once settled.
    async fn job_event(
        &self,
        job: &ActiveJob,
        settlement: Settlement,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<Option<EventRecord>, StoreError> {
        let (event, status) = match settlement {
            Settlement::Complete => (WebhookEvent::JobCompleted, JobStatus::Completed),
            Settlement::Halt => (WebhookEvent::JobHalted, JobStatus::Halted),
            Settlement::NextWaveAt(_) => return Ok(None),
        };
        let Some(mut record) = self.jobs.find_job(job.owner, &job.id, lapse_before).await? else {
            return Ok(None);
        };
        record.status = status;
        if status == JobStatus::Completed {
            record.finished_time = Some(now);
        }
        Ok(Some(EventRecord {
            event,
            time: now,
            data: self.event_data.job(&record),
        }))
    }

    async fn start_wave(
        &self,
        job: &ActiveJob,
        plan: &WavePlan,
        wave: u32,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        let size = wave_length(plan, wave);
        let command_ids: Vec<CommandId> = (0..size)
            .map(|_| CommandId::from_random_bytes(self.secrets.random_bytes()))
            .collect();
        let started = self
            .jobs
            .start_wave(&job.id, wave, &command_ids, now, lapse_before)
            .await?;
        if started {
            tracing::info!(job = %job.id, wave, targets = size, "wave started");
        }
        Ok(started)
    }
}

/// How many targets wave `wave` (from 1) of `plan` holds.
fn wave_length(plan: &WavePlan, wave: u32) -> u64 {
    match plan.wave_size {
        None => plan.targets,
        Some(size) => {
            let size = u64::from(size.get());
            let before = u64::from(wave.saturating_sub(1)) * size;
            plan.targets.saturating_sub(before).min(size)
        }
    }
}

/// The audit entry of a settlement that ends the job's run: the server
/// completes or halts it.
fn settlement_note(job: &JobId, settlement: Settlement, now: Timestamp) -> Option<AuditNote> {
    let action = match settlement {
        Settlement::Complete => AuditAction::JobComplete,
        Settlement::Halt => AuditAction::JobHalt,
        Settlement::NextWaveAt(_) => return None,
    };
    Some(AuditNote::new(
        Origin::system(now),
        action,
        AuditTarget::job(job),
    ))
}

#[cfg(test)]
#[path = "runner_tests.rs"]
mod tests;
