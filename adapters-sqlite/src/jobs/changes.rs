//! An owner's changes to a job: cancelling and resuming it, each one
//! `BEGIN IMMEDIATE` transaction that reads the job's status and changes it
//! only if the status allows.

use crate::rows::to_secs;
use domain::{AccountId, AuditNote, Timestamp};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

/// Cancels a job of `owner` that has not finished: cancelled, finished at
/// `now`, its waiting targets skipped, and `audit` appended. `None` when
/// `owner` has no such job, else whether it was not finished.
pub(super) fn cancel(
    conn: &mut Connection,
    owner: i64,
    id: &str,
    now: Timestamp,
    audit: &AuditNote,
) -> rusqlite::Result<Option<bool>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(status) = status_of(&tx, owner, id)? else {
        return Ok(None);
    };
    if status == "completed" || status == "cancelled" {
        return Ok(Some(false));
    }
    tx.prepare_cached(
        "UPDATE jobs SET status = 'cancelled', finished_time = ?2, next_wave_time = NULL \
         WHERE id = ?1",
    )?
    .execute(params![id, to_secs(now)])?;
    tx.prepare_cached(
        "UPDATE job_targets SET status = 'skipped' \
         WHERE job_id = ?1 AND status IS NULL AND command_id IS NULL",
    )?
    .execute([id])?;
    crate::audit::append_one(&tx, AccountId(owner), audit)?;
    tx.commit()?;
    Ok(Some(true))
}

/// Resumes a halted job of `owner`: running, its next wave due at `now`,
/// and `audit` appended. `None` when `owner` has no such job, else whether
/// it was halted.
pub(super) fn resume(
    conn: &mut Connection,
    owner: i64,
    id: &str,
    now: Timestamp,
    audit: &AuditNote,
) -> rusqlite::Result<Option<bool>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(status) = status_of(&tx, owner, id)? else {
        return Ok(None);
    };
    if status != "halted" {
        return Ok(Some(false));
    }
    tx.prepare_cached("UPDATE jobs SET status = 'running', next_wave_time = ?2 WHERE id = ?1")?
        .execute(params![id, to_secs(now)])?;
    crate::audit::append_one(&tx, AccountId(owner), audit)?;
    tx.commit()?;
    Ok(Some(true))
}

fn status_of(tx: &Transaction<'_>, owner: i64, id: &str) -> rusqlite::Result<Option<String>> {
    tx.prepare_cached("SELECT status FROM jobs WHERE id = ?1 AND account_id = ?2")?
        .query_row(params![id, owner], |row| row.get(0))
        .optional()
}
