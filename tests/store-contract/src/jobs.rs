//! Fixtures of fleet jobs: ids, jobs to create, a fleet to run them over,
//! the engine's steps at fixed times, and reading targets and counts.

use crate::{Store, command_id, create_devices, fleet_device, fleet_serial, lapse, t0};
use application::ports::{ActiveJob, NewJob, TargetRecord, Window};
use domain::{
    AccountId, Action, JobId, JobSettings, JobStatus, Selector, Serial, TargetCounts, TargetStatus,
    Timestamp, WaveInterval, WaveSize,
};

/// The job id whose bytes spell `label` (at most 16 bytes), as
/// [`command_id`] does for commands.
pub fn job_id(label: &str) -> JobId {
    JobId::parse(command_id(label).as_str()).expect("a canonical UUID")
}

/// Settings in waves of `wave_size` (`None`: one wave), no interval, the
/// default halt ratio.
pub fn in_waves(wave_size: Option<u64>) -> JobSettings {
    JobSettings {
        wave_size: wave_size.map(|size| WaveSize::new(size).expect("a wave size")),
        wave_interval: WaveInterval::default(),
        halt_failure_ratio: domain::HaltFailureRatio::DEFAULT,
    }
}

/// A reboot job `label` of `owner` over `selector` (its JSON
/// `{"label": …}`), created at `created`: running from then, or scheduled
/// for `start` when given.
pub fn new_job(
    owner: AccountId,
    label: &str,
    selector: Selector,
    settings: JobSettings,
    created: Timestamp,
    start: Option<Timestamp>,
) -> NewJob {
    NewJob {
        id: job_id(label),
        owner,
        action: Action::Reboot,
        selector,
        selector_json: format!("{{\"label\": \"{label}\"}}"),
        settings,
        start_time: start.unwrap_or(created),
        status: if start.is_some() {
            JobStatus::Scheduled
        } else {
            JobStatus::Running
        },
        created_time: created,
    }
}

/// Creates the running job `label` of `owner` over every device, in waves
/// of `wave_size`, at [`t0`]; returns its id.
pub async fn running_job(
    store: &impl Store,
    owner: AccountId,
    label: &str,
    wave_size: Option<u64>,
) -> JobId {
    let job = new_job(owner, label, Selector::All, in_waves(wave_size), t0(), None);
    store
        .create_job(&job, t0(), &crate::noted(domain::AuditAction::JobCreate))
        .await
        .unwrap();
    job.id
}

/// Creates `n` devices of `owner`, numbered from `first` (serials
/// [`fleet_serial`]), named `pi-{n}`, created a second apart from [`t0`];
/// returns their serials in list order.
pub async fn fleet_of(store: &impl Store, owner: AccountId, first: u16, n: u16) -> Vec<Serial> {
    let devices: Vec<_> = (first..first + n)
        .map(|k| {
            let name = format!("pi-{k}");
            fleet_device(owner, k, &name, "", &[], Some(t0()), i64::from(k))
        })
        .collect();
    create_devices(store, &devices).await;
    (first..first + n).map(fleet_serial).collect()
}

/// The command id `{label}-{k}` for the k-th target of a wave.
pub fn wave_ids(label: &str, n: usize) -> Vec<domain::CommandId> {
    (0..n)
        .map(|k| command_id(&format!("{label}-{k}")))
        .collect()
}

/// Starts wave `wave` of job `id` at `at` (lapsing [`lapse`] before), the
/// k-th target's new command [`command_id`]`("{label}-{k}")`, for a wave of
/// at most `n`; whether it started.
pub async fn start_wave(
    store: &impl Store,
    id: &JobId,
    wave: u32,
    label: &str,
    n: usize,
    at: Timestamp,
) -> bool {
    store
        .start_wave(id, wave, &wave_ids(label, n), at, at - lapse())
        .await
        .unwrap()
}

/// The job as the engine sees it at `at` (lapsing [`lapse`] before).
pub async fn engine_view(store: &impl Store, id: &JobId, at: Timestamp) -> Option<ActiveJob> {
    store.active_job(id, at - lapse()).await.unwrap()
}

/// Every target of job `id` of `owner`, read at `at`.
pub async fn all_targets(
    store: &impl Store,
    owner: AccountId,
    id: &JobId,
    at: Timestamp,
) -> Vec<TargetRecord> {
    let page = store
        .job_targets(
            owner,
            id,
            Window {
                limit: 1000,
                offset: 0,
            },
            at - lapse(),
        )
        .await
        .unwrap()
        .expect("the owner's job");
    assert_eq!(page.count, page.targets.len() as u64, "the count of all");
    page.targets
}

/// The status codes of job `id`'s targets at `at`, in order.
pub async fn statuses(
    store: &impl Store,
    owner: AccountId,
    id: &JobId,
    at: Timestamp,
) -> Vec<&'static str> {
    all_targets(store, owner, id, at)
        .await
        .iter()
        .map(|target| target.status.code())
        .collect()
}

/// The counts of these statuses, every other 0.
pub fn counts(pairs: &[(TargetStatus, u64)]) -> TargetCounts {
    pairs
        .iter()
        .fold(TargetCounts::default(), |counts, &(status, n)| {
            counts.with(status, n)
        })
}

/// The counts of job `id` of `owner` at `at`, as `find_job` reads them.
pub async fn job_counts(
    store: &impl Store,
    owner: AccountId,
    id: &JobId,
    at: Timestamp,
) -> TargetCounts {
    store
        .find_job(owner, id, at - lapse())
        .await
        .unwrap()
        .expect("the owner's job")
        .counts
}
