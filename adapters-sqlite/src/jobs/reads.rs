//! Reading jobs and targets: an owner's jobs with their counts, a job's
//! targets, and the jobs the engine looks at with their current wave's
//! counts. Each in a fixed number of statements, whatever the number of
//! jobs and targets.

use super::rows::{self, JOB_COLUMNS, JobRow, TARGET_DETAIL, TARGETS_WITH_COMMANDS, target_status};
use crate::devices::json_array;
use crate::rows::to_secs;
use application::ports::{ActiveJob, JobPage, JobRecord, TargetPage, Window};
use domain::{AccountId, JobId, TargetCounts, Timestamp};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;

/// The positions of the current wave of a job `jobs` among its targets `t`
/// (a wave's targets are a run of positions; without a wave size, all).
pub(super) const IN_CURRENT_WAVE: &str = "t.job_id = jobs.id \
     AND t.position >= COALESCE((jobs.current_wave - 1) * jobs.wave_size, 0) \
     AND t.position < COALESCE(jobs.current_wave * jobs.wave_size, jobs.target_count)";

/// The jobs the engine may have a step to take on at `?1`: scheduled ones
/// whose start time has come, and running ones.
pub(super) const DUE: &str = "jobs.status IN ('scheduled', 'running') \
     AND (jobs.status = 'running' OR jobs.start_time <= ?1)";

/// The jobs meeting `condition`, in creation order.
pub(super) fn active_statement(condition: &str) -> String {
    format!("SELECT {JOB_COLUMNS} FROM jobs WHERE {condition} ORDER BY jobs.seq")
}

/// The counts by status, read with the lapse `?2`, of the jobs of the JSON
/// array of ids `?1`: `job_id, status, count` rows.
pub(super) fn counts_statement() -> String {
    format!(
        "SELECT t.job_id, {status} AS s, COUNT(*) FROM {TARGETS_WITH_COMMANDS} \
         WHERE t.job_id IN (SELECT value FROM json_each(?1)) GROUP BY t.job_id, s",
        status = target_status("?2"),
    )
}

/// [`counts_statement`] over the targets of each job's current wave.
pub(super) fn wave_counts_statement() -> String {
    format!(
        "SELECT jobs.id, {status} AS s, COUNT(*) FROM jobs \
         CROSS JOIN job_targets AS t ON {IN_CURRENT_WAVE} \
         LEFT JOIN device_commands AS c ON c.id = t.command_id \
         WHERE jobs.id IN (SELECT value FROM json_each(?1)) GROUP BY jobs.id, s",
        status = target_status("?2"),
    )
}

/// A page (`?2` jobs after `?3`) of the jobs of account `?1`, newest first.
pub(super) fn list_statement() -> String {
    format!(
        "SELECT {JOB_COLUMNS} FROM jobs WHERE jobs.account_id = ?1 \
         ORDER BY jobs.seq DESC LIMIT ?2 OFFSET ?3"
    )
}

/// A page (`?3` targets after `?4`) of the targets of job `?1` in list
/// order, read with the lapse `?2`.
pub(super) fn targets_statement() -> String {
    format!(
        "SELECT t.serial, t.name, t.wave, t.command_id, {status}, {TARGET_DETAIL} \
         FROM {TARGETS_WITH_COMMANDS} WHERE t.job_id = ?1 \
         ORDER BY t.position LIMIT ?3 OFFSET ?4",
        status = target_status("?2"),
    )
}

/// The counts of each job of a JSON array of ids, by status, in one
/// grouped statement; a job without targets is left out.
fn counts_of(
    conn: &Connection,
    ids: &[&str],
    lapse_before: Timestamp,
) -> rusqlite::Result<HashMap<String, TargetCounts>> {
    let mut counts: HashMap<String, TargetCounts> = HashMap::new();
    if ids.is_empty() {
        return Ok(counts);
    }
    let mut statement = conn.prepare_cached(&counts_statement())?;
    let mut found = statement.query(params![
        json_array(ids.iter().copied()),
        to_secs(lapse_before)
    ])?;
    while let Some(row) = found.next()? {
        let n: i64 = row.get(2)?;
        counts
            .entry(row.get(0)?)
            .or_default()
            .add(rows::status(row, 1)?, n.unsigned_abs());
    }
    Ok(counts)
}

/// One job of `owner`, with its counts.
pub(super) fn find(
    conn: &Connection,
    owner: AccountId,
    id: &JobId,
    lapse_before: Timestamp,
) -> rusqlite::Result<Option<JobRecord>> {
    let Some(job) = conn
        .prepare_cached(&format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE jobs.id = ?1 AND jobs.account_id = ?2"
        ))?
        .query_row(params![id.as_str(), owner.0], rows::job)
        .optional()?
    else {
        return Ok(None);
    };
    let mut counts = counts_of(conn, &[id.as_str()], lapse_before)?;
    let counts = counts.remove(id.as_str()).unwrap_or_default();
    Ok(Some(job.record(counts)))
}

/// A page of `owner`'s jobs, newest first, with their counts: three
/// statements (the page, the count of all, the page's counts).
pub(super) fn list(
    conn: &Connection,
    owner: AccountId,
    window: Window,
    lapse_before: Timestamp,
) -> rusqlite::Result<JobPage> {
    let count: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM jobs WHERE account_id = ?1")?
        .query_row([owner.0], |row| row.get(0))?;
    let page = conn
        .prepare_cached(&list_statement())?
        .query_map(
            params![
                owner.0,
                i64::from(window.limit),
                i64::try_from(window.offset).unwrap_or(i64::MAX)
            ],
            rows::job,
        )?
        .collect::<rusqlite::Result<Vec<JobRow>>>()?;
    let ids: Vec<&str> = page.iter().map(|job| job.id.as_str()).collect();
    let mut counts = counts_of(conn, &ids, lapse_before)?;
    let jobs = page
        .into_iter()
        .map(|job| {
            let counts = counts.remove(job.id.as_str()).unwrap_or_default();
            job.record(counts)
        })
        .collect();
    Ok(JobPage {
        count: count.unsigned_abs(),
        jobs,
    })
}

/// A page of the targets of a job of `owner`, in list order (which is by
/// wave, then list order); `None` when `owner` has no such job.
pub(super) fn targets(
    conn: &Connection,
    owner: AccountId,
    id: &JobId,
    window: Window,
    lapse_before: Timestamp,
) -> rusqlite::Result<Option<TargetPage>> {
    let Some(count) = conn
        .prepare_cached("SELECT target_count FROM jobs WHERE id = ?1 AND account_id = ?2")?
        .query_row(params![id.as_str(), owner.0], |row| row.get::<_, i64>(0))
        .optional()?
    else {
        return Ok(None);
    };
    let targets = conn
        .prepare_cached(&targets_statement())?
        .query_map(
            params![
                id.as_str(),
                to_secs(lapse_before),
                i64::from(window.limit),
                i64::try_from(window.offset).unwrap_or(i64::MAX)
            ],
            rows::target,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(TargetPage {
        count: count.unsigned_abs(),
        targets,
    }))
}

/// The jobs the engine looks at — `condition` over `jobs`, with `values`
/// — with their current wave's counts: two statements, the jobs and one
/// grouped count of the targets of their current waves.
fn active_where(
    conn: &Connection,
    condition: &str,
    values: &[&dyn rusqlite::ToSql],
    lapse_before: Timestamp,
) -> rusqlite::Result<Vec<ActiveJob>> {
    let jobs = conn
        .prepare_cached(&active_statement(condition))?
        .query_map(values, rows::job)?
        .collect::<rusqlite::Result<Vec<JobRow>>>()?;
    let started: Vec<&str> = jobs
        .iter()
        .filter(|job| job.current_wave > 0)
        .map(|job| job.id.as_str())
        .collect();
    let mut counts: HashMap<String, TargetCounts> = HashMap::new();
    if !started.is_empty() {
        let mut statement = conn.prepare_cached(&wave_counts_statement())?;
        let mut found = statement.query(params![
            json_array(started.iter().copied()),
            to_secs(lapse_before)
        ])?;
        while let Some(row) = found.next()? {
            let n: i64 = row.get(2)?;
            counts
                .entry(row.get(0)?)
                .or_default()
                .add(rows::status(row, 1)?, n.unsigned_abs());
        }
    }
    Ok(jobs
        .into_iter()
        .map(|job| {
            let wave_counts = counts.remove(job.id.as_str()).unwrap_or_default();
            job.active(wave_counts)
        })
        .collect())
}

/// Every scheduled job whose start time has come, and every running one.
pub(super) fn active(
    conn: &Connection,
    now: Timestamp,
    lapse_before: Timestamp,
) -> rusqlite::Result<Vec<ActiveJob>> {
    active_where(conn, DUE, &[&to_secs(now)], lapse_before)
}

/// One job, if scheduled or running.
pub(super) fn active_one(
    conn: &Connection,
    id: &JobId,
    lapse_before: Timestamp,
) -> rusqlite::Result<Option<ActiveJob>> {
    let mut found = active_where(
        conn,
        "jobs.id = ?1 AND jobs.status IN ('scheduled', 'running')",
        &[&id.as_str()],
        lapse_before,
    )?;
    Ok(found.pop())
}
