//! Deliveries: queued with the change that causes their event, claimed
//! under a lease by one worker at a time, and their attempts recorded.

use super::rows::{DUE_COLUMNS, due};
use crate::rows::to_secs;
use application::ports::{AttemptRecord, DueDelivery, EventRecord};
use domain::{AccountId, EventSet, Timestamp};
use rusqlite::{Connection, TransactionBehavior, params};

/// Inserts a pending delivery `id` of `event` to webhook `webhook` of
/// `owner`, due at the event's time, next in the order of all deliveries.
pub(super) fn insert(
    conn: &Connection,
    id: &str,
    webhook: &str,
    owner: AccountId,
    event: &EventRecord,
) -> rusqlite::Result<()> {
    let at = to_secs(event.time);
    conn.prepare_cached(
        "INSERT INTO webhook_deliveries (id, webhook_id, account_id, seq, event, data, status, \
             attempts, response_code, error, created_time, last_attempt_time, \
             next_attempt_time, lease_until) \
         VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_deliveries), ?4, \
                 ?5, 'pending', 0, NULL, '', ?6, NULL, ?6, NULL)",
    )?
    .execute(params![
        id,
        webhook,
        owner.0,
        event.event.code(),
        event.data,
        at
    ])
    .map(drop)
}

/// Queues `event` for every webhook of `owner` subscribed to it, a pending
/// delivery each (a new id), due at once; called inside the transaction of
/// the change that causes the event. Returns how many were queued.
pub(crate) fn queue_event(
    conn: &Connection,
    owner: AccountId,
    event: &EventRecord,
) -> rusqlite::Result<usize> {
    let hooks = conn
        .prepare_cached("SELECT id, events FROM webhooks WHERE account_id = ?1 ORDER BY seq")?
        .query_map([owner.0], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut queued = 0;
    for (webhook, events) in hooks {
        if EventSet::from_stored(&events).is_some_and(|set| set.contains(event.event)) {
            let id = uuid::Uuid::new_v4().hyphenated().to_string();
            insert(conn, &id, &webhook, owner, event)?;
            queued += 1;
        }
    }
    Ok(queued)
}

/// Takes up to `limit` pending deliveries due at `now` and not leased,
/// earliest due first, and leases them until `lease_until`; one
/// `BEGIN IMMEDIATE` transaction, so two workers never take the same one.
pub(super) fn claim(
    conn: &mut Connection,
    now: Timestamp,
    lease_until: Timestamp,
    limit: u32,
) -> rusqlite::Result<Vec<DueDelivery>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let claimed = tx
        .prepare_cached(&format!(
            "SELECT {DUE_COLUMNS} FROM webhook_deliveries AS d \
             CROSS JOIN webhooks AS w ON w.id = d.webhook_id \
             WHERE d.status = 'pending' AND d.next_attempt_time <= ?1 \
             AND (d.lease_until IS NULL OR d.lease_until <= ?1) \
             ORDER BY d.next_attempt_time, d.seq LIMIT ?2"
        ))?
        .query_map(params![to_secs(now), limit], due)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let ids = crate::devices::json_array(claimed.iter().map(|d| d.id.as_str()));
    tx.prepare_cached(
        "UPDATE webhook_deliveries SET lease_until = ?2 \
         WHERE id IN (SELECT value FROM json_each(?1))",
    )?
    .execute(params![ids, to_secs(lease_until)])?;
    tx.commit()?;
    Ok(claimed)
}

/// Records an attempt of delivery `id` and releases it (nothing when it is
/// gone).
pub(super) fn record(conn: &Connection, id: &str, attempt: &AttemptRecord) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE webhook_deliveries SET status = ?2, attempts = ?3, response_code = ?4, \
             error = ?5, last_attempt_time = ?6, next_attempt_time = ?7, lease_until = NULL \
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        attempt.status.code(),
        attempt.attempts,
        attempt.response_code,
        attempt.error,
        to_secs(attempt.attempt_time),
        attempt.next_attempt_time.map(to_secs),
    ])
    .map(drop)
}
