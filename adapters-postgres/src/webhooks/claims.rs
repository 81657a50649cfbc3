//! The delivery worker's side: due deliveries taken under a lease, and an
//! attempt recorded. A claim is one statement whose rows are locked with
//! `SKIP LOCKED` and conditional on their lease, so of instances claiming at
//! once each delivery goes to exactly one; a worker that dies leaves its
//! deliveries to be taken again once the lease ends.

use super::records;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::{AttemptRecord, DueDelivery, EventRecord};
use deadpool_postgres::GenericClient;
use domain::{DeliveryId, Timestamp};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// Takes up to `limit` pending deliveries due at `now` that no lease holds,
/// earliest due first, and leases them until `lease_until`.
pub(super) async fn claim(
    c: &impl GenericClient,
    now: Timestamp,
    lease_until: Timestamp,
    limit: u32,
) -> Outcome<Vec<DueDelivery>> {
    let found = prepared::query(
        c,
        "UPDATE webhook_deliveries d SET lease_until = $2 FROM webhooks w \
         WHERE w.id = d.webhook_id AND d.id IN (SELECT id FROM webhook_deliveries \
             WHERE status = 'pending' AND next_attempt_time <= $1 \
             AND (lease_until IS NULL OR lease_until <= $1) \
             ORDER BY next_attempt_time, seq LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING d.id, w.target_url, w.secret, d.event, d.created_time, d.data, d.attempts, \
             d.next_attempt_time, d.seq",
        &[&rows::at(now), &rows::at(lease_until), &i64::from(limit)],
    )
    .await?;
    let mut claimed = Vec::with_capacity(found.len());
    for row in &found {
        let code: String = row.try_get(3).map_err(read)?;
        let due: Timestamp = row.try_get(7).map_err(read)?;
        let seq: i64 = row.try_get(8).map_err(read)?;
        let delivery = DueDelivery {
            id: DeliveryId::from_stored(row.try_get(0).map_err(read)?),
            target_url: row.try_get(1).map_err(read)?,
            secret: row.try_get(2).map_err(read)?,
            event: EventRecord {
                event: records::event(&code)?,
                time: row.try_get(4).map_err(read)?,
                data: row.try_get(5).map_err(read)?,
            },
            attempts: records::attempts(row.try_get(6).map_err(read)?)?,
        };
        claimed.push(((due, seq), delivery));
    }
    // `RETURNING` keeps no order.
    claimed.sort_by_key(|(order, _)| *order);
    Ok(claimed.into_iter().map(|(_, delivery)| delivery).collect())
}

/// Records an attempt of delivery `id` and ends its lease (nothing when the
/// delivery is gone with its webhook).
pub(super) async fn record(
    c: &impl GenericClient,
    id: &DeliveryId,
    attempt: &AttemptRecord,
) -> Outcome<()> {
    let attempts = i32::try_from(attempt.attempts).unwrap_or(i32::MAX);
    let response_code = attempt.response_code.map(i32::from);
    prepared::execute(
        c,
        "UPDATE webhook_deliveries SET status = $2, attempts = $3, response_code = $4, \
         error = $5, last_attempt_time = $6, next_attempt_time = $7, lease_until = NULL \
         WHERE id = $1",
        &[
            &id.as_str(),
            &attempt.status.code(),
            &attempts,
            &response_code,
            &attempt.error,
            &rows::at(attempt.attempt_time),
            &attempt.next_attempt_time.map(rows::at),
        ],
    )
    .await?;
    Ok(())
}
