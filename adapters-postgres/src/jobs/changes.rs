//! Writing jobs at their owner's request: a new job (resolved into targets
//! at once when it starts now), a cancellation, a resumption.

use crate::devices::filter::Filter;
use crate::prepared;
use crate::rows;
use application::ports::{JobChange, NewJob};
use deadpool_postgres::Transaction;
use domain::{AccountId, JobId, JobStatus, Selector, Timestamp, WaveSize};

/// Resolves `selector` (online as of `online_after`) into the targets of
/// job `id` of `owner`, in list order (creation time, then serial), target
/// i (from 0) in wave i / `wave_size` + 1 (all in wave 1 without a size),
/// and records their number on the job: one statement, whatever the fleet.
pub(super) async fn resolve(
    tx: &Transaction<'_>,
    owner: AccountId,
    id: &JobId,
    selector: &Selector,
    wave_size: Option<WaveSize>,
    online_after: Timestamp,
) -> Result<(), tokio_postgres::Error> {
    let mut filter = Filter::new(owner, selector, online_after);
    let job = filter.bind(id.as_str().to_owned());
    let size = filter.bind(wave_size.map(|size| i64::from(size.get())));
    let sql = format!(
        "WITH listed AS (SELECT devices.serial, devices.name, \
             row_number() OVER (ORDER BY devices.created_time, devices.serial) - 1 AS position \
             FROM devices WHERE {conditions}), \
         inserted AS (INSERT INTO job_targets (job_id, position, serial, name, wave) \
             SELECT {job}, position, serial, name, COALESCE(position / {size}::bigint, 0) + 1 \
             FROM listed RETURNING 1) \
         UPDATE jobs SET target_count = (SELECT COUNT(*) FROM inserted) WHERE id = {job}",
        conditions = filter.conditions()
    );
    prepared::execute(tx, &sql, &filter.params()).await?;
    Ok(())
}

/// Stores `job`; a running one is resolved into its targets at once, its
/// first wave due at its start time.
pub(super) async fn create(
    tx: &Transaction<'_>,
    job: &NewJob,
    online_after: Timestamp,
) -> Result<(), tokio_postgres::Error> {
    let running = job.status == JobStatus::Running;
    let settings = job.settings;
    let wave_size = settings.wave_size.map(|size| i64::from(size.get()));
    let interval = i64::from(settings.wave_interval.seconds());
    let ratio = settings.halt_failure_ratio.get().to_string();
    let start = rows::at(job.start_time);
    prepared::execute(
        tx,
        "INSERT INTO jobs (id, account_id, action, selector, selector_json, status, \
         start_time, wave_size, wave_interval_seconds, halt_failure_ratio, created_time, \
         next_wave_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint, $9::bigint, $10, $11, $12)",
        &[
            &job.id.as_str(),
            &job.owner.0,
            &job.action.code(),
            &job.selector.to_stored(),
            &job.selector_json,
            &job.status.code(),
            &start,
            &wave_size,
            &interval,
            &ratio,
            &rows::at(job.created_time),
            &running.then_some(start),
        ],
    )
    .await?;
    if running {
        resolve(
            tx,
            job.owner,
            &job.id,
            &job.selector,
            settings.wave_size,
            online_after,
        )
        .await?;
    }
    Ok(())
}

/// Whether `owner` has job `id`: what a refused change came to.
async fn refused_or_missing(
    tx: &Transaction<'_>,
    owner: AccountId,
    id: &JobId,
) -> Result<JobChange, tokio_postgres::Error> {
    let found = prepared::query_opt(
        tx,
        "SELECT 1 FROM jobs WHERE id = $1 AND account_id = $2",
        &[&id.as_str(), &owner.0],
    )
    .await?;
    Ok(if found.is_some() {
        JobChange::Refused
    } else {
        JobChange::Missing
    })
}

/// Cancels job `id` of `owner` unless it is finished: it is finished at
/// `now`, and its waiting targets are skipped.
pub(super) async fn cancel(
    tx: &Transaction<'_>,
    owner: AccountId,
    id: &JobId,
    now: Timestamp,
) -> Result<JobChange, tokio_postgres::Error> {
    let cancelled = prepared::execute(
        tx,
        "UPDATE jobs SET status = 'cancelled', finished_time = $3 \
         WHERE id = $1 AND account_id = $2 AND status NOT IN ('completed', 'cancelled')",
        &[&id.as_str(), &owner.0, &rows::at(now)],
    )
    .await?;
    if cancelled == 0 {
        return refused_or_missing(tx, owner, id).await;
    }
    prepared::execute(
        tx,
        "UPDATE job_targets SET status = 'skipped' \
         WHERE job_id = $1 AND command_id IS NULL AND status IS NULL",
        &[&id.as_str()],
    )
    .await?;
    Ok(JobChange::Changed)
}

/// Resumes job `id` of `owner` if it is halted: it runs again, its next
/// wave due at `now`.
pub(super) async fn resume(
    tx: &Transaction<'_>,
    owner: AccountId,
    id: &JobId,
    now: Timestamp,
) -> Result<JobChange, tokio_postgres::Error> {
    let resumed = prepared::execute(
        tx,
        "UPDATE jobs SET status = 'running', next_wave_time = $3 \
         WHERE id = $1 AND account_id = $2 AND status = 'halted'",
        &[&id.as_str(), &owner.0, &rows::at(now)],
    )
    .await?;
    if resumed == 0 {
        return refused_or_missing(tx, owner, id).await;
    }
    Ok(JobChange::Changed)
}
