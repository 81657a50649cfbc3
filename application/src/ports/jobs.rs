//! The port of fleet jobs: jobs, their targets, and the atomic steps the job
//! engine takes. Every step is one transaction, conditional on the state it
//! starts from, so that of several instances (or a restarted one) racing
//! for the same step, exactly one takes it.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::{EventRecord, StoreError, Window};
use domain::{
    AccountId, AckDetail, Action, AuditNote, CommandId, DeviceName, JobId, JobSettings, JobStatus,
    Selector, Serial, TargetCounts, TargetStatus, Timestamp,
};

/// A job to store, as its owner asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// Its identity.
    pub id: JobId,
    /// Its account.
    pub owner: AccountId,
    /// What each target is given.
    pub action: Action,
    /// Which devices it is about (resolved when it starts).
    pub selector: Selector,
    /// The selector as the client sent it (its known keys, as JSON text),
    /// kept and shown back as it is.
    pub selector_json: String,
    /// Its waves, interval and halt ratio.
    pub settings: JobSettings,
    /// When it starts: at creation ([`JobStatus::Running`]), or later
    /// ([`JobStatus::Scheduled`]).
    pub start_time: Timestamp,
    /// `Running` to start now, `Scheduled` to start at `start_time`.
    pub status: JobStatus,
    /// When it was created.
    pub created_time: Timestamp,
}

/// A job as stored, with how its targets stand.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRecord {
    /// Its identity.
    pub id: JobId,
    /// What each target is given.
    pub action: Action,
    /// The selector as the client sent it (JSON text).
    pub selector_json: String,
    /// Its waves, interval and halt ratio.
    pub settings: JobSettings,
    /// Where it stands.
    pub status: JobStatus,
    /// When it started or starts.
    pub start_time: Timestamp,
    /// When it was created.
    pub created_time: Timestamp,
    /// When it became completed or cancelled.
    pub finished_time: Option<Timestamp>,
    /// How many targets stand in each status.
    pub counts: TargetCounts,
}

/// One target of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetRecord {
    /// The device's serial.
    pub serial: Serial,
    /// The device's name when the job started.
    pub name: DeviceName,
    /// Its wave (from 1).
    pub wave: u32,
    /// The command it was given or joined (`None` while waiting, or skipped
    /// before its wave).
    pub command_id: Option<CommandId>,
    /// Where it stands.
    pub status: TargetStatus,
    /// Its command's detail (empty without one).
    pub detail: AckDetail,
}

/// A page of an account's jobs, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPage {
    /// How many jobs the account has.
    pub count: u64,
    /// Those of the page.
    pub jobs: Vec<JobRecord>,
}

/// A page of a job's targets, by wave then list order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetPage {
    /// How many targets the job has.
    pub count: u64,
    /// Those of the page.
    pub targets: Vec<TargetRecord>,
}

/// What the job engine needs to know of a job that may have a step to take:
/// a scheduled one whose start time has come, or a running one.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveJob {
    /// Its identity.
    pub id: JobId,
    /// Its account.
    pub owner: AccountId,
    /// `Scheduled` or `Running`.
    pub status: JobStatus,
    /// Its waves, interval and halt ratio.
    pub settings: JobSettings,
    /// When it starts (or started).
    pub start_time: Timestamp,
    /// How many targets it has (0 while scheduled).
    pub targets: u64,
    /// The last wave started (0: none yet).
    pub current_wave: u32,
    /// When the next wave starts, once the current one has ended (or, for a
    /// job just started or resumed, now); `None` while a wave is under way.
    pub next_wave_time: Option<Timestamp>,
    /// How the targets of the current wave stand (all zero before the first).
    pub wave_counts: TargetCounts,
}

/// How a wave that has ended is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    /// The job is completed (it was the last wave, or there were no targets).
    Complete,
    /// The job is halted.
    Halt,
    /// The next wave starts at this time.
    NextWaveAt(Timestamp),
}

/// What a settlement that ends a job's run announces, in the settlement's
/// own transaction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SettlementNotices {
    /// The webhook event (`job.completed`, `job.halted`).
    pub event: Option<EventRecord>,
    /// The audit entry (`job.complete`, `job.halt`).
    pub audit: Option<AuditNote>,
}

/// What an owner's request to change a job came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobChange {
    /// The job changed.
    Changed,
    /// The job's status forbids the change; nothing changed.
    Refused,
    /// The account has no such job.
    Missing,
}

/// Fleet jobs. `lapse_before` is the §7 lapse: a command never
/// acknowledged and issued at or before it is `lapsed`. Target statuses are
/// read through their commands (see [`TargetStatus`]); a target whose
/// command is gone (its device was deleted) is `skipped`.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait JobRepository: Send + Sync {
    /// Stores a new job. A `Running` one starts in the same transaction:
    /// its selector is resolved (online as of `online_after`) into targets
    /// in list order (creation time, then serial), target i in wave
    /// `WavePlan::wave_of(i)`, with `next_wave_time` = its start time. A
    /// `Scheduled` one has no targets yet.
    /// Appends `audit` in the same transaction.
    async fn create_job(
        &self,
        job: &NewJob,
        online_after: Timestamp,
        audit: &AuditNote,
    ) -> Result<(), StoreError>;
    /// Atomically, if the job is still `Scheduled`: resolves its selector as
    /// [`create_job`](Self::create_job) does and makes it `Running`, its
    /// first wave due at `now`. Returns whether it did.
    async fn begin_job(
        &self,
        id: &JobId,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Every job with a step that may be due: `Scheduled` with a start time
    /// at or before `now`, and every `Running` one. In a bounded number of
    /// queries, whatever the number of targets.
    async fn active_jobs(
        &self,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<Vec<ActiveJob>, StoreError>;
    /// [`active_jobs`](Self::active_jobs) for one job: `None` unless it is
    /// `Scheduled` or `Running`.
    async fn active_job(
        &self,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<ActiveJob>, StoreError>;
    /// Atomically, if the job is `Running`, its current wave is `wave - 1`
    /// and its next wave is due (`next_wave_time` at or before `now`):
    /// makes `wave` the current one (no next wave time), and gives each of
    /// its targets a reboot issued at `now`. A target whose device has an
    /// unfinished reboot (pending, delivered or received, issued after
    /// `lapse_before`) joins it; one whose device is gone is `skipped`;
    /// the others get a new command, the k-th target of the wave (from 0,
    /// in list order) the id `command_ids[k]`. In a few statements whatever
    /// the wave's size; wakes the devices' long polls. Returns whether it
    /// started the wave.
    async fn start_wave(
        &self,
        id: &JobId,
        wave: u32,
        command_ids: &[CommandId],
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Atomically, if the job is `Running` with `wave` as its current wave
    /// and, unless the settlement completes it, that wave still under way
    /// (no next wave time: so racers that decided differently settle a wave
    /// once; a completion may follow a next wave time, for a job without
    /// targets or past its last wave): keeps the final status of the wave's targets (so that a purge of old
    /// commands or a deleted device no longer changes them), and completes
    /// the job (finished at `now`), halts it, or sets when its next wave
    /// starts. When it does, the same transaction makes the `notices`:
    /// queues the event, when given (a completion or a halt), for each of
    /// the job owner's webhooks subscribed to it (a pending delivery each,
    /// due at once), and appends the audit note, when given (`job.complete`,
    /// `job.halt`). Returns whether it did.
    async fn settle_wave(
        &self,
        id: &JobId,
        wave: u32,
        settlement: Settlement,
        now: Timestamp,
        lapse_before: Timestamp,
        notices: &SettlementNotices,
    ) -> Result<bool, StoreError>;
    /// Atomically cancels a job of `owner` that is not finished: it becomes
    /// `Cancelled`, finished at `now`, and its `waiting` targets `skipped`;
    /// appends `audit` when it did.
    async fn cancel_job(
        &self,
        owner: AccountId,
        id: &JobId,
        now: Timestamp,
        audit: &AuditNote,
    ) -> Result<JobChange, StoreError>;
    /// Atomically resumes a `Halted` job of `owner`: it becomes `Running`
    /// with its next wave due at `now`; appends `audit` when it did.
    async fn resume_job(
        &self,
        owner: AccountId,
        id: &JobId,
        now: Timestamp,
        audit: &AuditNote,
    ) -> Result<JobChange, StoreError>;
    /// One job of `owner`, with its counts.
    async fn find_job(
        &self,
        owner: AccountId,
        id: &JobId,
        lapse_before: Timestamp,
    ) -> Result<Option<JobRecord>, StoreError>;
    /// A page of `owner`'s jobs, newest first (in creation order, also within
    /// one second), with their counts, in a bounded number of queries.
    async fn list_jobs(
        &self,
        owner: AccountId,
        window: Window,
        lapse_before: Timestamp,
    ) -> Result<JobPage, StoreError>;
    /// A page of the targets of a job of `owner`, by wave then list order;
    /// `None` when `owner` has no such job.
    async fn job_targets(
        &self,
        owner: AccountId,
        id: &JobId,
        window: Window,
        lapse_before: Timestamp,
    ) -> Result<Option<TargetPage>, StoreError>;
}
