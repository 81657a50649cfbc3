//! Creating a job and starting it: its selector resolved, once, into its
//! targets in list order, in one `INSERT … SELECT` over the selection of
//! the fleet listing (docs/api.md, "Listing devices").

use super::WithMessage;
use crate::devices::Filter;
use crate::rows::to_secs;
use application::ports::NewJob;
use domain::{AccountId, AuditNote, JobStatus, Selector, Timestamp};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params, params_from_iter};

/// Stores a new job; a running one gets its targets now, its first wave due
/// at its start time; appends `audit` to the owner's log.
pub(super) fn create(
    conn: &mut Connection,
    job: &NewJob,
    online_after: Timestamp,
    audit: &AuditNote,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let running = job.status == JobStatus::Running;
    tx.prepare_cached(
        "INSERT INTO jobs (id, account_id, seq, action, selector, selector_json, status, \
             start_time, wave_size, wave_interval_seconds, halt_failure_ratio, created_time, \
             finished_time, target_count, current_wave, next_wave_time) \
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs), ?3, ?4, ?5, ?6, ?7, ?8, \
                 ?9, ?10, ?11, NULL, 0, 0, ?12)",
    )?
    .execute(params![
        job.id.as_str(),
        job.owner.0,
        job.action.code(),
        job.selector.to_stored(),
        job.selector_json,
        job.status.code(),
        to_secs(job.start_time),
        job.settings.wave_size.map(|size| size.get()),
        job.settings.wave_interval.seconds(),
        job.settings.halt_failure_ratio.get().to_string(),
        to_secs(job.created_time),
        running.then(|| to_secs(job.start_time)),
    ])?;
    if running {
        let wave_size = job.settings.wave_size.map(|size| size.get());
        let count = resolve(
            &tx,
            job.id.as_str(),
            job.owner,
            &job.selector,
            wave_size,
            online_after,
        )?;
        tx.prepare_cached("UPDATE jobs SET target_count = ?2 WHERE id = ?1")?
            .execute(params![job.id.as_str(), count])?;
    }
    crate::audit::append_one(&tx, job.owner, audit)?;
    tx.commit()
}

/// Starts a scheduled job: its targets resolved now, its first wave due
/// now. Whether it was still scheduled.
pub(super) fn begin(
    conn: &mut Connection,
    id: &str,
    now: Timestamp,
    online_after: Timestamp,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some((owner, stored, wave_size)) = tx
        .prepare_cached(
            "SELECT account_id, selector, wave_size FROM jobs \
             WHERE id = ?1 AND status = 'scheduled'",
        )?
        .query_row([id], |row| {
            Ok((
                AccountId(row.get(0)?),
                row.get::<_, String>(1)?,
                row.get::<_, Option<u32>>(2)?,
            ))
        })
        .optional()?
    else {
        return Ok(false);
    };
    let selector = Selector::from_stored(&stored).ok_or_else(|| {
        rusqlite::Error::ToSqlConversionFailure(Box::new(WithMessage(format!(
            "job {id} keeps a selector that cannot be read: {stored:?}"
        ))))
    })?;
    let count = resolve(&tx, id, owner, &selector, wave_size, online_after)?;
    tx.prepare_cached(
        "UPDATE jobs SET status = 'running', target_count = ?2, current_wave = 0, \
         next_wave_time = ?3 WHERE id = ?1",
    )?
    .execute(params![id, count, to_secs(now)])?;
    tx.commit()?;
    Ok(true)
}

/// Writes the targets of job `id`: the devices of `owner` that `selector`
/// selects (online after `online_after`), in list order (creation time,
/// then serial), target i in wave i / `wave_size` + 1 (all in wave 1
/// without a size), each with the device's name now. Returns how many.
fn resolve(
    conn: &Connection,
    id: &str,
    owner: AccountId,
    selector: &Selector,
    wave_size: Option<u32>,
    online_after: Timestamp,
) -> rusqlite::Result<i64> {
    let filter = Filter::new(owner, selector, online_after);
    let text = format!(
        "INSERT INTO job_targets (job_id, position, serial, name, wave) \
         SELECT ?, picked.rank - 1, picked.serial, picked.name, \
                COALESCE((picked.rank - 1) / ?, 0) + 1 \
         FROM (SELECT devices.serial AS serial, devices.name AS name, \
                      ROW_NUMBER() OVER (ORDER BY devices.created_time, devices.serial) AS rank \
               FROM {} WHERE {}) AS picked",
        filter.from, filter.sql
    );
    let size = wave_size.map_or(Value::Null, |size| Value::Integer(i64::from(size)));
    let values = [Value::Text(id.to_owned()), size]
        .into_iter()
        .chain(filter.values);
    let inserted = conn
        .prepare_cached(&text)?
        .execute(params_from_iter(values))?;
    Ok(i64::try_from(inserted).unwrap_or(i64::MAX))
}
