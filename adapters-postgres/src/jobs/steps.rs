//! The job engine's steps (docs/architecture.md, "Fleet jobs"). Each runs
//! in one transaction whose first statement takes the job row on the
//! condition the step starts from (`UPDATE … WHERE status = … AND
//! current_wave = …`): of several instances racing for a step, the others
//! wait on the row lock, re-check the condition on the row as the first
//! left it (READ COMMITTED), update nothing, and take no step.

use super::changes::resolve;
use super::records::{self, TARGET_DETAIL, target_status};
use crate::notifications::COMMANDS_CHANNEL;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use crate::webhooks::queue_event;
use application::StoreError;
use application::ports::{Settlement, SettlementNotices};
use deadpool_postgres::Transaction;
use domain::{AccountId, CommandId, JobId, Selector, Timestamp};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// A wave number as stored, or `None` if no stored wave can be it.
fn stored_wave(wave: u32) -> Option<i32> {
    i32::try_from(wave).ok()
}

/// Starts scheduled job `id`: it runs, its first wave due at `now`, its
/// selector resolved into targets. Whether it was still scheduled.
pub(super) async fn begin(
    tx: &Transaction<'_>,
    id: &JobId,
    now: Timestamp,
    online_after: Timestamp,
) -> Outcome<bool> {
    let taken = prepared::query_opt(
        tx,
        "UPDATE jobs SET status = 'running', next_wave_time = $2 \
         WHERE id = $1 AND status = 'scheduled' RETURNING account_id, selector, wave_size",
        &[&id.as_str(), &rows::at(now)],
    )
    .await?;
    let Some(row) = taken else {
        return Ok(false);
    };
    let owner = AccountId(row.try_get(0).map_err(read)?);
    let stored: String = row.try_get(1).map_err(read)?;
    let selector = Selector::from_stored(&stored).ok_or_else(|| {
        StoreError::message(format!("a stored job's selector is invalid: {stored:?}"))
    })?;
    let wave_size = records::wave_size(row.try_get(2).map_err(read)?)?;
    resolve(tx, owner, id, &selector, wave_size, online_after).await?;
    Ok(true)
}

/// The devices given a new command by a wave just started, whose long polls
/// are to be woken; `None` when the wave was not started.
pub(super) type Started = Option<Vec<String>>;

/// Starts wave `wave` of job `id` if it is running, its current wave the
/// one before and its next wave due at `now`: each target of the wave joins
/// its device's unfinished reboot, or gets a new one (the k-th target,
/// from 0, the id `command_ids[k]`), or is skipped when its device is gone.
///
/// The wave's devices are locked first, in serial order, as a reboot
/// requested through the API locks its device: so a request and a wave take
/// turns on a device, and the later one joins the earlier one's command.
/// Then one statement gives the commands, marks the targets and notifies
/// the devices' long polls on every instance.
pub(super) async fn start_wave(
    tx: &Transaction<'_>,
    id: &JobId,
    wave: u32,
    command_ids: &[CommandId],
    now: Timestamp,
    lapse_before: Timestamp,
) -> Outcome<Started> {
    let Some(wave) = stored_wave(wave) else {
        return Ok(None);
    };
    let taken = prepared::query_opt(
        tx,
        "UPDATE jobs SET current_wave = $2, next_wave_time = NULL \
         WHERE id = $1 AND status = 'running' AND current_wave = $2 - 1 \
         AND next_wave_time <= $3 RETURNING account_id",
        &[&id.as_str(), &wave, &rows::at(now)],
    )
    .await?;
    let Some(row) = taken else {
        return Ok(None);
    };
    let owner: i64 = row.try_get(0).map_err(read)?;
    prepared::execute(
        tx,
        "SELECT FROM devices WHERE account_id = $3 AND serial IN \
         (SELECT serial FROM job_targets WHERE job_id = $1 AND wave = $2) \
         ORDER BY serial FOR UPDATE OF devices",
        &[&id.as_str(), &wave, &owner],
    )
    .await?;
    let ids: Vec<&str> = command_ids.iter().map(CommandId::as_str).collect();
    // `listed`: the wave's targets, ranked in list order, and whether their
    // device is still the account's. `planned`: the unkept ones, each with
    // the device's unfinished reboot (as a reboot request finds it) or its
    // new command's id.
    let sql = "WITH listed AS (\
             SELECT t.position, t.serial, t.status, \
                 row_number() OVER (ORDER BY t.position) AS k, \
                 d.serial IS NOT NULL AS present \
             FROM job_targets t \
             LEFT JOIN devices d ON d.serial = t.serial AND d.account_id = $3 \
             WHERE t.job_id = $1 AND t.wave = $2), \
         planned AS (\
             SELECT l.position, l.serial, l.present, \
                 COALESCE(unfinished.id, given.id) AS command_id, \
                 unfinished.id IS NULL AS fresh \
             FROM listed l \
             LEFT JOIN LATERAL (SELECT c.id FROM device_commands c \
                 WHERE l.present AND c.serial = l.serial AND c.action = 'reboot' \
                 AND (c.status IS NULL OR c.status = 'received') AND c.issued_time > $5 \
                 ORDER BY c.seq DESC LIMIT 1) AS unfinished ON TRUE \
             LEFT JOIN UNNEST($4::text[]) WITH ORDINALITY AS given (id, k) ON given.k = l.k \
             WHERE l.status IS NULL), \
         inserted AS (\
             INSERT INTO device_commands (id, serial, action, issued_time) \
             SELECT command_id, serial, 'reboot', $6 FROM planned \
             WHERE present AND fresh ORDER BY position RETURNING serial), \
         marked AS (\
             UPDATE job_targets t SET \
                 command_id = CASE WHEN p.present THEN p.command_id END, \
                 status = CASE WHEN p.present THEN NULL ELSE 'skipped' END \
             FROM planned p WHERE t.job_id = $1 AND t.position = p.position) \
         SELECT serial, pg_notify($7, serial) FROM inserted";
    let woken = prepared::query(
        tx,
        sql,
        &[
            &id.as_str(),
            &wave,
            &owner,
            &ids,
            &rows::at(lapse_before),
            &rows::at(now),
            &COMMANDS_CHANNEL,
        ],
    )
    .await?;
    let serials = woken
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    Ok(Some(serials))
}

/// Settles wave `wave` of job `id` if it is running with that wave current
/// and, unless the job completes, the wave still under way (no next wave
/// time): so a wave is settled once, even by racers that decided
/// differently. (A completion may follow a next wave time: a job without
/// targets, or one resumed after its last wave, completes from there.)
/// The wave's targets that have ended keep their status and detail; the
/// job completes (finished at `now`), halts, or waits for its next wave;
/// the `notices`' event (its completion or halt) is queued for the owner's
/// webhooks, and their audit note appended, last (docs/audit.md).
pub(super) async fn settle_wave(
    tx: &Transaction<'_>,
    id: &JobId,
    wave: u32,
    settlement: Settlement,
    now: Timestamp,
    lapse_before: Timestamp,
    notices: &SettlementNotices,
) -> Outcome<bool> {
    let Some(wave) = stored_wave(wave) else {
        return Ok(false);
    };
    let (status, finished, next, completes) = match settlement {
        Settlement::Complete => ("completed", Some(rows::at(now)), None, true),
        Settlement::Halt => ("halted", None, None, false),
        Settlement::NextWaveAt(at) => ("running", None, Some(rows::at(at)), false),
    };
    let settled = prepared::query_opt(
        tx,
        "UPDATE jobs SET status = $3, finished_time = $4, next_wave_time = $5 \
         WHERE id = $1 AND status = 'running' AND current_wave = $2 \
         AND ($6 OR next_wave_time IS NULL) RETURNING account_id",
        &[&id.as_str(), &wave, &status, &finished, &next, &completes],
    )
    .await?;
    let Some(row) = settled else {
        return Ok(false);
    };
    let owner = AccountId(row.try_get(0).map_err(read)?);
    if let Some(event) = &notices.event {
        queue_event(tx, owner, event).await?;
    }
    let keep = format!(
        "UPDATE job_targets kept SET status = s.status, detail = s.detail \
         FROM (SELECT t.position, {} AS status, {TARGET_DETAIL} AS detail \
               FROM job_targets t LEFT JOIN device_commands c ON c.id = t.command_id \
               WHERE t.job_id = $1 AND t.wave = $2 AND t.status IS NULL) AS s \
         WHERE kept.job_id = $1 AND kept.position = s.position \
         AND s.status IN ('done', 'failed', 'lapsed', 'skipped')",
        target_status("$3")
    );
    prepared::execute(tx, &keep, &[&id.as_str(), &wave, &rows::at(lapse_before)]).await?;
    if let Some(audit) = &notices.audit {
        crate::audit::append_one(tx, owner, audit).await?;
    }
    Ok(true)
}
