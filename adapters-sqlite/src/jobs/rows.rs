//! Jobs and targets as rows: the columns read, how a target's status is
//! read through its command, and turning rows into the port's values.

use crate::rows::from_secs;
use application::ports::{ActiveJob, JobRecord, TargetRecord};
use domain::{
    AccountId, AckDetail, Action, CommandId, DeviceName, HaltFailureRatio, JobId, JobSettings,
    JobStatus, Serial, TargetCounts, TargetStatus, WaveInterval, WaveSize,
};
use rusqlite::Row;
use rusqlite::types::Type;

/// The columns of a job that [`job`] reads, from `jobs` (not aliased).
pub(super) const JOB_COLUMNS: &str = "jobs.id, jobs.account_id, jobs.action, jobs.selector_json, \
     jobs.status, jobs.start_time, jobs.wave_size, jobs.wave_interval_seconds, \
     jobs.halt_failure_ratio, jobs.created_time, jobs.finished_time, jobs.target_count, \
     jobs.current_wave, jobs.next_wave_time";

/// A job row as read with [`JOB_COLUMNS`], before its counts are known.
pub(super) struct JobRow {
    pub(super) id: JobId,
    pub(super) owner: AccountId,
    pub(super) action: Action,
    pub(super) selector_json: String,
    pub(super) status: JobStatus,
    pub(super) start_time: domain::Timestamp,
    pub(super) settings: JobSettings,
    pub(super) created_time: domain::Timestamp,
    pub(super) finished_time: Option<domain::Timestamp>,
    pub(super) targets: u64,
    pub(super) current_wave: u32,
    pub(super) next_wave_time: Option<domain::Timestamp>,
}

impl JobRow {
    /// The job as its owner sees it, with these counts.
    pub(super) fn record(self, counts: TargetCounts) -> JobRecord {
        JobRecord {
            id: self.id,
            action: self.action,
            selector_json: self.selector_json,
            settings: self.settings,
            status: self.status,
            start_time: self.start_time,
            created_time: self.created_time,
            finished_time: self.finished_time,
            counts,
        }
    }

    /// The job as the engine sees it, with its current wave's counts.
    pub(super) fn active(self, wave_counts: TargetCounts) -> ActiveJob {
        ActiveJob {
            id: self.id,
            owner: self.owner,
            status: self.status,
            settings: self.settings,
            start_time: self.start_time,
            targets: self.targets,
            current_wave: self.current_wave,
            next_wave_time: self.next_wave_time,
            wave_counts,
        }
    }
}

/// Reads a job selected with [`JOB_COLUMNS`].
pub(super) fn job(row: &Row<'_>) -> rusqlite::Result<JobRow> {
    let action: String = row.get(2)?;
    let status: String = row.get(4)?;
    let ratio: String = row.get(8)?;
    let wave_size = match row.get::<_, Option<i64>>(6)? {
        None => None,
        Some(size) => Some(WaveSize::new(size.unsigned_abs()).map_err(|e| invalid(6, e))?),
    };
    let interval: i64 = row.get(7)?;
    let halt_failure_ratio = ratio
        .parse::<f64>()
        .map_err(|e| invalid(8, e))
        .and_then(|ratio| HaltFailureRatio::new(ratio).map_err(|e| invalid(8, e)))?;
    Ok(JobRow {
        id: JobId::from_stored(row.get(0)?),
        owner: AccountId(row.get(1)?),
        action: Action::from_code(&action).ok_or_else(|| invalid(2, UnknownCode(action)))?,
        selector_json: row.get(3)?,
        status: JobStatus::from_code(&status).ok_or_else(|| invalid(4, UnknownCode(status)))?,
        start_time: from_secs(row.get(5)?),
        settings: JobSettings {
            wave_size,
            wave_interval: WaveInterval::new(interval.unsigned_abs()).map_err(|e| invalid(7, e))?,
            halt_failure_ratio,
        },
        created_time: from_secs(row.get(9)?),
        finished_time: row.get::<_, Option<i64>>(10)?.map(from_secs),
        targets: row.get::<_, i64>(11)?.unsigned_abs(),
        current_wave: u32::try_from(row.get::<_, i64>(12)?).map_err(|e| invalid(12, e))?,
        next_wave_time: row.get::<_, Option<i64>>(13)?.map(from_secs),
    })
}

/// The status of a target `t` (a `job_targets` row) whose command `c` (a
/// `device_commands` row, NULL when none or gone) was LEFT JOINed
/// (docs/api.md, jobs and commands): the kept status; else `waiting`
/// without a command; `skipped` when the command is gone (its device was deleted);
/// else the command's state as `CommandState::of` reads it, lapsed when
/// issued at or before the value `lapse` (a parameter like `?2`).
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

/// The detail of a target as [`target_status`] reads it: the kept one,
/// else its command's.
pub(super) const TARGET_DETAIL: &str =
    "CASE WHEN t.status IS NOT NULL THEN t.detail ELSE COALESCE(c.detail, '') END";

/// A target `t` with its command `c`, if any.
pub(super) const TARGETS_WITH_COMMANDS: &str =
    "job_targets AS t LEFT JOIN device_commands AS c ON c.id = t.command_id";

/// Reads a target selected as `t.serial, t.name, t.wave, t.command_id`,
/// its status and its detail.
pub(super) fn target(row: &Row<'_>) -> rusqlite::Result<TargetRecord> {
    Ok(TargetRecord {
        serial: Serial::from_stored(row.get(0)?),
        name: DeviceName::from_stored(row.get(1)?),
        wave: u32::try_from(row.get::<_, i64>(2)?).map_err(|e| invalid(2, e))?,
        command_id: row.get::<_, Option<String>>(3)?.map(CommandId::from_stored),
        status: status(row, 4)?,
        detail: AckDetail::from_stored(row.get(5)?),
    })
}

/// Reads a target status code from column `index`.
pub(super) fn status(row: &Row<'_>, index: usize) -> rusqlite::Result<TargetStatus> {
    let code: String = row.get(index)?;
    TargetStatus::from_code(&code).ok_or_else(|| invalid(index, UnknownCode(code)))
}

fn invalid(
    column: usize,
    error: impl std::error::Error + Send + Sync + 'static,
) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, Type::Text, Box::new(error))
}

/// A stored code (or number) that the domain does not know.
#[derive(Debug, thiserror::Error)]
#[error("unknown code {0:?}")]
struct UnknownCode(String);
