//! Reading jobs: the engine's active jobs with their current wave's counts,
//! an owner's job or page of jobs with their counts, a page of a job's
//! targets. Each in a bounded number of statements, whatever the number of
//! jobs or targets.

use super::records::{self, JOB_COLUMN_COUNT, JOB_COLUMNS, target_columns, target_status};
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::{ActiveJob, JobPage, JobRecord, TargetPage, Window};
use deadpool_postgres::GenericClient;
use domain::{AccountId, JobId, JobStatus, TargetCounts, Timestamp};
use tokio_postgres::Row;

type Outcome<T> = Result<T, Failure<StoreError>>;

/// Every job with a step that may be due at `now`, in creation order.
pub(super) async fn active_jobs(
    c: &impl GenericClient,
    now: Timestamp,
    lapse_before: Timestamp,
) -> Outcome<Vec<ActiveJob>> {
    let sql = format!(
        "SELECT {JOB_COLUMNS} FROM jobs WHERE status = 'running' \
         OR (status = 'scheduled' AND start_time <= $1) ORDER BY seq"
    );
    let found = prepared::query(c, &sql, &[&rows::at(now)]).await?;
    with_wave_counts(c, &found, lapse_before).await
}

/// The job if it is scheduled or running.
pub(super) async fn active_job(
    c: &impl GenericClient,
    id: &JobId,
    lapse_before: Timestamp,
) -> Outcome<Option<ActiveJob>> {
    let sql = format!(
        "SELECT {JOB_COLUMNS} FROM jobs WHERE id = $1 AND status IN ('scheduled', 'running')"
    );
    let found = prepared::query(c, &sql, &[&id.as_str()]).await?;
    Ok(with_wave_counts(c, &found, lapse_before).await?.pop())
}

/// The jobs of `found` (selected with [`JOB_COLUMNS`]) for the engine, each
/// running one with the counts of the wave it was at when read: one grouped
/// statement for them all.
async fn with_wave_counts(
    c: &impl GenericClient,
    found: &[Row],
    lapse_before: Timestamp,
) -> Outcome<Vec<ActiveJob>> {
    let running = JobStatus::Running.code();
    let (mut ids, mut waves) = (Vec::new(), Vec::new());
    for row in found {
        let status: String = row.try_get(4).map_err(read)?;
        let wave = records::current_wave(row)?;
        if status == running && wave > 0 {
            ids.push(records::job_id(row)?.as_str().to_owned());
            waves.push(wave);
        }
    }
    let mut counts = if ids.is_empty() {
        Default::default()
    } else {
        let sql = format!(
            "SELECT t.job_id, {}, COUNT(*) \
             FROM UNNEST($1::text[], $2::integer[]) AS w (job_id, wave) \
             JOIN job_targets t ON t.job_id = w.job_id AND t.wave = w.wave \
             LEFT JOIN device_commands c ON c.id = t.command_id GROUP BY 1, 2",
            target_status("$3")
        );
        let grouped = prepared::query(c, &sql, &[&ids, &waves, &rows::at(lapse_before)]).await?;
        records::counts_by_job(&grouped)?
    };
    let mut jobs = Vec::with_capacity(found.len());
    for row in found {
        let id: String = row.try_get(0).map_err(read)?;
        let wave_counts = counts.remove(&id).unwrap_or_default();
        jobs.push(records::active(row, wave_counts)?);
    }
    Ok(jobs)
}

/// The counts of every target of each job of `found` (selected with
/// [`JOB_COLUMNS`]), in one grouped statement; the jobs with them.
async fn with_counts(
    c: &impl GenericClient,
    found: &[Row],
    lapse_before: Timestamp,
) -> Outcome<Vec<JobRecord>> {
    let ids: Vec<String> = found
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    let mut counts = if ids.is_empty() {
        Default::default()
    } else {
        let sql = format!(
            "SELECT t.job_id, {}, COUNT(*) FROM job_targets t \
             LEFT JOIN device_commands c ON c.id = t.command_id \
             WHERE t.job_id = ANY($1::text[]) GROUP BY 1, 2",
            target_status("$2")
        );
        let grouped = prepared::query(c, &sql, &[&ids, &rows::at(lapse_before)]).await?;
        records::counts_by_job(&grouped)?
    };
    found
        .iter()
        .zip(&ids)
        .map(|(row, id)| {
            let job_counts: TargetCounts = counts.remove(id).unwrap_or_default();
            records::job(row, job_counts)
        })
        .collect::<Result<_, _>>()
        .map_err(Failure::Store)
}

/// One job of `owner`, with its counts.
pub(super) async fn find_job(
    c: &impl GenericClient,
    owner: AccountId,
    id: &JobId,
    lapse_before: Timestamp,
) -> Outcome<Option<JobRecord>> {
    let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = $1 AND account_id = $2");
    let found = prepared::query(c, &sql, &[&id.as_str(), &owner.0]).await?;
    Ok(with_counts(c, &found, lapse_before).await?.pop())
}

/// A page of `owner`'s jobs, newest first, with the number of all of them
/// (read with the page; again on its own only when the page is past the end).
pub(super) async fn list_jobs(
    c: &impl GenericClient,
    owner: AccountId,
    window: Window,
    lapse_before: Timestamp,
) -> Outcome<JobPage> {
    let sql = format!(
        "SELECT {JOB_COLUMNS}, COUNT(*) OVER () FROM jobs WHERE account_id = $1 \
         ORDER BY seq DESC LIMIT $2 OFFSET $3"
    );
    let limit = i64::from(window.limit);
    let offset = i64::try_from(window.offset).unwrap_or(i64::MAX);
    let found = prepared::query(c, &sql, &[&owner.0, &limit, &offset]).await?;
    let count: i64 = match found.first() {
        Some(row) => row.try_get(JOB_COLUMN_COUNT).map_err(read)?,
        None if window.offset == 0 => 0,
        None => prepared::query_one(
            c,
            "SELECT COUNT(*) FROM jobs WHERE account_id = $1",
            &[&owner.0],
        )
        .await?
        .try_get(0)?,
    };
    Ok(JobPage {
        count: count.unsigned_abs(),
        jobs: with_counts(c, &found, lapse_before).await?,
    })
}

/// A page of the targets of a job of `owner`, in list order (which is also
/// wave order), with their number; `None` without such a job. One
/// statement: the job's row, joined with its page of targets (none when the
/// page is past the end: then one row without a target).
pub(super) async fn job_targets(
    c: &impl GenericClient,
    owner: AccountId,
    id: &JobId,
    window: Window,
    lapse_before: Timestamp,
) -> Outcome<Option<TargetPage>> {
    let sql = format!(
        "SELECT j.target_count, page.* FROM jobs j LEFT JOIN LATERAL \
         (SELECT t.position, {} FROM job_targets t \
          LEFT JOIN device_commands c ON c.id = t.command_id \
          WHERE t.job_id = j.id ORDER BY t.position LIMIT $3 OFFSET $4) AS page ON TRUE \
         WHERE j.id = $1 AND j.account_id = $2 ORDER BY page.position",
        target_columns("$5")
    );
    let limit = i64::from(window.limit);
    let offset = i64::try_from(window.offset).unwrap_or(i64::MAX);
    let found = prepared::query(
        c,
        &sql,
        &[
            &id.as_str(),
            &owner.0,
            &limit,
            &offset,
            &rows::at(lapse_before),
        ],
    )
    .await?;
    let Some(first) = found.first() else {
        return Ok(None);
    };
    let count: i32 = first.try_get(0).map_err(read)?;
    let mut targets = Vec::with_capacity(found.len());
    for row in &found {
        if row.try_get::<_, Option<i32>>(1).map_err(read)?.is_some() {
            targets.push(records::target(row, 2)?);
        }
    }
    Ok(Some(TargetPage {
        count: i64::from(count).unsigned_abs(),
        targets,
    }))
}
