//! The engine's steps on a running job: starting a wave and settling one
//! that ended. Each is one `BEGIN IMMEDIATE` transaction whose first
//! statement is the conditional update of the job row, so of several
//! callers racing for the same step exactly one takes it; a wave's targets
//! are a run of positions, written in a few statements whatever its size.

use super::WithMessage;
use super::rows::{TARGET_DETAIL, target_status};
use crate::rows::to_secs;
use crate::webhooks::queue_event;
use application::ports::{EventRecord, Settlement};
use domain::{AccountId, AuditNote, CommandId, Serial, Timestamp};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

/// Makes wave `?2` of job `?1` the current one if it is due at `?3`.
pub(super) const START_WAVE: &str = "UPDATE jobs SET current_wave = ?2, next_wave_time = NULL \
     WHERE id = ?1 AND status = 'running' AND current_wave = ?2 - 1 AND next_wave_time <= ?3 \
     RETURNING account_id, wave_size, target_count";

/// Skips the targets at positions `?2` to `?3` (excluded) of job `?1`
/// whose device the account `?4` no longer has.
pub(super) const SKIP_GONE: &str = "UPDATE job_targets SET status = 'skipped' \
     WHERE job_id = ?1 AND position >= ?2 AND position < ?3 AND status IS NULL \
     AND NOT EXISTS (SELECT 1 FROM devices WHERE devices.serial = job_targets.serial \
                     AND devices.account_id = ?4)";

/// Joins the targets at positions `?2` to `?3` of job `?1` to the unfinished
/// reboot a reboot request would join (commands.rs, `queue_reboot`): the
/// device's latest, pending, delivered or received, issued after `?4`.
pub(super) const JOIN_UNFINISHED: &str = "UPDATE job_targets SET command_id = \
         (SELECT c.id FROM device_commands AS c WHERE c.serial = job_targets.serial \
          AND c.action = 'reboot' AND (c.status IS NULL OR c.status = 'received') \
          AND c.issued_time > ?4 ORDER BY c.seq DESC, c.issued_time DESC, c.id DESC LIMIT 1) \
     WHERE job_id = ?1 AND position >= ?2 AND position < ?3 AND status IS NULL \
     AND command_id IS NULL";

/// New reboots issued at `?5`, the k-th id of the JSON array `?4` for the
/// target at position `?2` + k (below `?3`) of job `?1` if it has no
/// command yet; each next in its device's order.
pub(super) const GIVE_NEW: &str = "INSERT INTO device_commands (id, serial, action, issued_time, seq) \
     SELECT ids.value, t.serial, 'reboot', ?5, \
            (SELECT COALESCE(MAX(c.seq), 0) + 1 FROM device_commands AS c \
             WHERE c.serial = t.serial) \
     FROM json_each(?4) AS ids CROSS JOIN job_targets AS t \
          ON t.job_id = ?1 AND t.position = ?2 + ids.key \
     WHERE t.position < ?3 AND t.status IS NULL AND t.command_id IS NULL \
     RETURNING serial";

/// Writes on the targets [`GIVE_NEW`] gave a command (at positions `?2`
/// to `?3` of job `?1`, not skipped, without a command) the command it
/// gave: the device's latest (each got the next in its device's order).
pub(super) const ASSIGN_NEW: &str = "UPDATE job_targets SET command_id = \
         (SELECT c.id FROM device_commands AS c WHERE c.serial = job_targets.serial \
          ORDER BY c.seq DESC LIMIT 1) \
     WHERE job_id = ?1 AND position >= ?2 AND position < ?3 AND status IS NULL \
     AND command_id IS NULL";

/// Settles the current wave `?2` of running job `?1`: its status `?3`,
/// finished time `?4`, next wave time `?5`. A wave under way has no next
/// wave time; a job is completed from either (one without targets never
/// starts a wave).
pub(super) const SETTLE_JOB: &str = "UPDATE jobs \
     SET status = ?3, finished_time = ?4, next_wave_time = ?5 \
     WHERE id = ?1 AND status = 'running' AND current_wave = ?2 \
     AND (next_wave_time IS NULL OR ?3 = 'completed') \
     RETURNING wave_size, target_count, account_id";

/// Keeps the status and detail, as read with the lapse `?4`, of the
/// targets at positions `?2` to `?3` (excluded) of job `?1`.
pub(super) fn keep_wave() -> String {
    format!(
        "UPDATE job_targets AS t SET (status, detail) = \
             (SELECT {status}, {TARGET_DETAIL} FROM (SELECT 1) \
              LEFT JOIN device_commands AS c ON c.id = t.command_id) \
         WHERE t.job_id = ?1 AND t.position >= ?2 AND t.position < ?3 AND t.status IS NULL",
        status = target_status("?4")
    )
}

/// The positions of wave `wave` (from 1) of a job of `target_count`
/// targets in waves of `wave_size` (`None`: one wave): from the first, up
/// to the end (excluded).
fn positions(wave: u32, wave_size: Option<i64>, target_count: i64) -> (i64, i64) {
    match wave_size {
        None => (0, target_count),
        Some(size) => {
            let first = (i64::from(wave) - 1) * size;
            (first, (first + size).min(target_count))
        }
    }
}

/// Starts wave `wave` of job `id` if it is due: its targets whose device is
/// gone are skipped, those whose device has an unfinished reboot join it,
/// the others get new commands (the k-th target of the wave the k-th id).
/// Returns the serials given a new command, or `None` if the wave was not
/// started.
pub(super) fn start(
    conn: &mut Connection,
    id: &str,
    wave: u32,
    command_ids: &[CommandId],
    now: Timestamp,
    lapse_before: Timestamp,
) -> rusqlite::Result<Option<Vec<Serial>>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some((owner, wave_size, count)) = tx
        .prepare_cached(START_WAVE)?
        .query_row(params![id, wave, to_secs(now)], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let (first, end) = positions(wave, wave_size, count);
    let length = usize::try_from(end - first).unwrap_or(0);
    if command_ids.len() < length {
        return Err(rusqlite::Error::ToSqlConversionFailure(Box::new(
            WithMessage(format!(
                "wave {wave} of job {id} has {length} targets but {} command ids",
                command_ids.len()
            )),
        )));
    }
    tx.prepare_cached(SKIP_GONE)?
        .execute(params![id, first, end, owner])?;
    tx.prepare_cached(JOIN_UNFINISHED)?
        .execute(params![id, first, end, to_secs(lapse_before)])?;
    let given = give_commands(&tx, id, first, end, command_ids, now)?;
    tx.commit()?;
    Ok(Some(given))
}

/// Gives the wave's targets still without a command (and not skipped) new
/// reboots issued at `now`, the target at `first + k` the id
/// `command_ids[k]`, each next in its device's order; returns their serials.
/// The ids drive the insert (`CROSS JOIN` keeps them outer), so each
/// target is found by its key.
fn give_commands(
    tx: &Transaction<'_>,
    id: &str,
    first: i64,
    end: i64,
    command_ids: &[CommandId],
    now: Timestamp,
) -> rusqlite::Result<Vec<Serial>> {
    let ids = crate::devices::json_array(command_ids.iter().map(CommandId::as_str));
    let serials = tx
        .prepare_cached(GIVE_NEW)?
        .query_map(params![id, first, end, ids, to_secs(now)], |row| {
            row.get::<_, String>(0).map(Serial::from_stored)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    tx.prepare_cached(ASSIGN_NEW)?
        .execute(params![id, first, end])?;
    Ok(serials)
}

/// Settles wave `wave` of job `id` if it is the running job's current one
/// (under way, or, to complete, any): keeps its targets' statuses and
/// completes, halts or times the next wave, and queues `event` (the job's
/// completion or halt) for its owner's webhooks and appends `audit`
/// (`job.complete`, `job.halt`) to its owner's log. Whether it did.
pub(super) fn settle(
    conn: &mut Connection,
    id: &str,
    wave: u32,
    settlement: Settlement,
    now: Timestamp,
    lapse_before: Timestamp,
    (event, audit): (Option<&EventRecord>, Option<&AuditNote>),
) -> rusqlite::Result<bool> {
    let (status, finished, next) = match settlement {
        Settlement::Complete => ("completed", Some(now), None),
        Settlement::Halt => ("halted", None, None),
        Settlement::NextWaveAt(at) => ("running", None, Some(at)),
    };
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some((wave_size, count, owner)) = tx
        .prepare_cached(SETTLE_JOB)?
        .query_row(
            params![id, wave, status, finished.map(to_secs), next.map(to_secs)],
            |row| {
                Ok((
                    row.get::<_, Option<i64>>(0)?,
                    row.get::<_, i64>(1)?,
                    AccountId(row.get(2)?),
                ))
            },
        )
        .optional()?
    else {
        return Ok(false);
    };
    if let Some(event) = event {
        queue_event(&tx, owner, event)?;
    }
    if wave > 0 {
        let (first, end) = positions(wave, wave_size, count);
        tx.prepare_cached(&keep_wave())?
            .execute(params![id, first, end, to_secs(lapse_before)])?;
    }
    if let Some(audit) = audit {
        crate::audit::append_one(&tx, owner, audit)?;
    }
    tx.commit()?;
    Ok(true)
}
