//! Jobs and targets as rows: the columns read, how a target's status is
//! computed in SQL (its kept status, else its command's), and rows turned
//! into records.

use crate::rows::read;
use application::StoreError;
use application::ports::{ActiveJob, JobRecord, TargetRecord};
use domain::{
    AccountId, AckDetail, Action, CommandId, DeviceName, HaltFailureRatio, JobId, JobSettings,
    JobStatus, Serial, TargetCounts, TargetStatus, WaveInterval, WaveSize,
};
use std::collections::HashMap;
use tokio_postgres::Row;

/// The job columns, in the order [`job`] and [`active`] read them.
pub(super) const JOB_COLUMNS: &str = "jobs.id, jobs.account_id, jobs.action, \
     jobs.selector_json, jobs.status, jobs.start_time, jobs.wave_size, \
     jobs.wave_interval_seconds, jobs.halt_failure_ratio, jobs.created_time, \
     jobs.finished_time, jobs.target_count, jobs.current_wave, jobs.next_wave_time";

/// How many columns [`JOB_COLUMNS`] selects: what a statement adds follows.
pub(super) const JOB_COLUMN_COUNT: usize = 14;

/// The status of target `t` (a `job_targets` row) whose command, if still
/// stored, is `c` (a `device_commands` row, left-joined on `t.command_id`),
/// a command never acknowledged and issued at or before `lapse` having
/// lapsed: the kept status; else `waiting` without a command, `skipped`
/// when the command is gone (its device was deleted), or the command's
/// state (its acknowledgement, then whether it lapsed, then whether it was
/// handed out).
pub(super) fn target_status(lapse: &str) -> String {
    format!(
        "CASE WHEN t.status IS NOT NULL THEN t.status \
         WHEN t.command_id IS NULL THEN 'waiting' \
         WHEN c.id IS NULL THEN 'skipped' \
         WHEN c.status IS NOT NULL THEN c.status \
         WHEN c.issued_time <= {lapse} THEN 'lapsed' \
         WHEN c.delivered_time IS NOT NULL THEN 'delivered' \
         ELSE 'pending' END"
    )
}

/// The detail of target `t`, as [`target_status`]: the kept one, else its
/// command's acknowledgement detail (empty without one).
pub(super) const TARGET_DETAIL: &str =
    "CASE WHEN t.status IS NOT NULL THEN t.detail ELSE COALESCE(c.detail, '') END";

fn invalid(what: String) -> StoreError {
    StoreError::message(format!("a stored job is invalid: {what}"))
}

fn count(value: i64) -> u64 {
    value.unsigned_abs()
}

fn wave(value: i32) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| invalid(format!("wave {value}")))
}

/// The status with this code.
pub(super) fn target_status_code(code: &str) -> Result<TargetStatus, StoreError> {
    TargetStatus::from_code(code).ok_or_else(|| invalid(format!("target status {code:?}")))
}

fn job_status(row: &Row) -> Result<JobStatus, StoreError> {
    let code: String = row.try_get(4).map_err(read)?;
    JobStatus::from_code(&code).ok_or_else(|| invalid(format!("job status {code:?}")))
}

/// A wave size as stored (`None`: one wave).
pub(super) fn wave_size(size: Option<i32>) -> Result<Option<WaveSize>, StoreError> {
    size.map(|size| {
        u64::try_from(size)
            .ok()
            .and_then(|size| WaveSize::new(size).ok())
            .ok_or_else(|| invalid(format!("wave size {size}")))
    })
    .transpose()
}

fn settings(row: &Row) -> Result<JobSettings, StoreError> {
    let size: Option<i32> = row.try_get(6).map_err(read)?;
    let interval: i32 = row.try_get(7).map_err(read)?;
    let ratio: String = row.try_get(8).map_err(read)?;
    Ok(JobSettings {
        wave_size: wave_size(size)?,
        wave_interval: u64::try_from(interval)
            .ok()
            .and_then(|seconds| WaveInterval::new(seconds).ok())
            .ok_or_else(|| invalid(format!("wave interval {interval}")))?,
        halt_failure_ratio: ratio
            .parse::<f64>()
            .ok()
            .and_then(|ratio| HaltFailureRatio::new(ratio).ok())
            .ok_or_else(|| invalid(format!("halt failure ratio {ratio:?}")))?,
    })
}

/// The id of a job row.
pub(super) fn job_id(row: &Row) -> Result<JobId, StoreError> {
    Ok(JobId::from_stored(row.try_get(0).map_err(read)?))
}

/// Reads a job selected with [`JOB_COLUMNS`], with its counts.
pub(super) fn job(row: &Row, counts: TargetCounts) -> Result<JobRecord, StoreError> {
    let action: String = row.try_get(2).map_err(read)?;
    Ok(JobRecord {
        id: job_id(row)?,
        action: Action::from_code(&action).ok_or_else(|| invalid(format!("action {action:?}")))?,
        selector_json: row.try_get(3).map_err(read)?,
        settings: settings(row)?,
        status: job_status(row)?,
        start_time: row.try_get(5).map_err(read)?,
        created_time: row.try_get(9).map_err(read)?,
        finished_time: row.try_get(10).map_err(read)?,
        counts,
    })
}

/// Reads a job selected with [`JOB_COLUMNS`] for the engine, with the
/// counts of its current wave.
pub(super) fn active(row: &Row, wave_counts: TargetCounts) -> Result<ActiveJob, StoreError> {
    let targets: i32 = row.try_get(11).map_err(read)?;
    Ok(ActiveJob {
        id: job_id(row)?,
        owner: AccountId(row.try_get(1).map_err(read)?),
        status: job_status(row)?,
        settings: settings(row)?,
        start_time: row.try_get(5).map_err(read)?,
        targets: count(i64::from(targets)),
        current_wave: wave(row.try_get(12).map_err(read)?)?,
        next_wave_time: row.try_get(13).map_err(read)?,
        wave_counts,
    })
}

/// The current wave of a job selected with [`JOB_COLUMNS`].
pub(super) fn current_wave(row: &Row) -> Result<i32, StoreError> {
    row.try_get(12).map_err(read)
}

/// The columns [`target`] reads, from `t` and `c` as [`target_status`]
/// names them, the lapse being `lapse`.
pub(super) fn target_columns(lapse: &str) -> String {
    format!(
        "t.serial, t.name, t.wave, t.command_id, {} AS target_status, \
         {TARGET_DETAIL} AS target_detail",
        target_status(lapse)
    )
}

/// Reads a target selected with [`target_columns`], from column `at` on.
pub(super) fn target(row: &Row, at: usize) -> Result<TargetRecord, StoreError> {
    let status: String = row.try_get(at + 4).map_err(read)?;
    Ok(TargetRecord {
        serial: Serial::from_stored(row.try_get(at).map_err(read)?),
        name: DeviceName::from_stored(row.try_get(at + 1).map_err(read)?),
        wave: wave(row.try_get(at + 2).map_err(read)?)?,
        command_id: row
            .try_get::<_, Option<String>>(at + 3)
            .map_err(read)?
            .map(CommandId::from_stored),
        status: target_status_code(&status)?,
        detail: AckDetail::from_stored(row.try_get(at + 5).map_err(read)?),
    })
}

/// Counts by job read from rows of `job_id, status, count`.
pub(super) fn counts_by_job(rows: &[Row]) -> Result<HashMap<String, TargetCounts>, StoreError> {
    let mut by_job: HashMap<String, TargetCounts> = HashMap::new();
    for row in rows {
        let id: String = row.try_get(0).map_err(read)?;
        let status: String = row.try_get(1).map_err(read)?;
        let n: i64 = row.try_get(2).map_err(read)?;
        by_job
            .entry(id)
            .or_default()
            .add(target_status_code(&status)?, count(n));
    }
    Ok(by_job)
}
