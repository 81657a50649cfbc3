//! Webhook and delivery rows as the port's records.

use crate::rows::{from_secs, unknown_code};
use application::ports::{DeliveryRecord, DueDelivery, EventRecord, WebhookRecord};
use domain::{DeliveryId, DeliveryStatus, EventSet, WebhookEvent, WebhookId};
use rusqlite::Row;

/// The columns [`webhook`] reads, of `webhooks` (not aliased).
pub(super) const WEBHOOK_COLUMNS: &str =
    "webhooks.id, webhooks.target_url, webhooks.events, webhooks.created_time";

/// Reads a webhook selected with [`WEBHOOK_COLUMNS`].
pub(super) fn webhook(row: &Row<'_>) -> rusqlite::Result<WebhookRecord> {
    let events: String = row.get(2)?;
    Ok(WebhookRecord {
        id: WebhookId::from_stored(row.get(0)?),
        target_url: row.get(1)?,
        events: EventSet::from_stored(&events).ok_or_else(|| unknown_code(2, events))?,
        created_time: from_secs(row.get(3)?),
    })
}

/// The columns [`delivery`] reads, of `webhook_deliveries` as `d`.
pub(super) const DELIVERY_COLUMNS: &str = "d.id, d.event, d.status, d.attempts, d.response_code, \
     d.error, d.created_time, d.last_attempt_time, d.next_attempt_time";

/// Reads an event code of `column`.
fn event(row: &Row<'_>, column: usize) -> rusqlite::Result<WebhookEvent> {
    let code: String = row.get(column)?;
    WebhookEvent::parse(&code).ok_or_else(|| unknown_code(column, code))
}

/// Reads a delivery selected with [`DELIVERY_COLUMNS`].
pub(super) fn delivery(row: &Row<'_>) -> rusqlite::Result<DeliveryRecord> {
    let status: String = row.get(2)?;
    Ok(DeliveryRecord {
        id: DeliveryId::from_stored(row.get(0)?),
        event: event(row, 1)?,
        status: DeliveryStatus::parse(&status).ok_or_else(|| unknown_code(2, status))?,
        attempts: row.get(3)?,
        response_code: row.get(4)?,
        error: row.get(5)?,
        created_time: from_secs(row.get(6)?),
        last_attempt_time: row.get::<_, Option<i64>>(7)?.map(from_secs),
        next_attempt_time: row.get::<_, Option<i64>>(8)?.map(from_secs),
    })
}

/// The columns [`due`] reads, of `webhook_deliveries` as `d` joined to
/// its webhook `w`.
pub(super) const DUE_COLUMNS: &str =
    "d.id, w.target_url, w.secret, d.event, d.created_time, d.data, d.attempts";

/// Reads a delivery due selected with [`DUE_COLUMNS`].
pub(super) fn due(row: &Row<'_>) -> rusqlite::Result<DueDelivery> {
    Ok(DueDelivery {
        id: DeliveryId::from_stored(row.get(0)?),
        target_url: row.get(1)?,
        secret: row.get(2)?,
        event: EventRecord {
            event: event(row, 3)?,
            time: from_secs(row.get(4)?),
            data: row.get(5)?,
        },
        attempts: row.get(6)?,
    })
}
