//! Webhooks and deliveries as rows: the columns read and rows turned into
//! records.

use crate::rows::read;
use application::StoreError;
use application::ports::{DeliveryRecord, WebhookRecord};
use domain::{DeliveryId, DeliveryStatus, EventSet, WebhookEvent, WebhookId};
use tokio_postgres::Row;

/// The webhook columns, in the order [`webhook`] reads them.
pub(super) const WEBHOOK_COLUMNS: &str =
    "webhooks.id, webhooks.target_url, webhooks.events, webhooks.created_time";

/// How many columns [`WEBHOOK_COLUMNS`] selects: what a statement adds follows.
pub(super) const WEBHOOK_COLUMN_COUNT: usize = 4;

/// The delivery columns of `d`, in the order [`delivery`] reads them.
pub(super) const DELIVERY_COLUMNS: &str = "d.id, d.event, d.status, d.attempts, \
     d.response_code, d.error, d.created_time, d.last_attempt_time, d.next_attempt_time";

fn invalid(what: String) -> StoreError {
    StoreError::message(format!("a stored webhook or delivery is invalid: {what}"))
}

/// The event set of a stored `events` text.
pub(super) fn event_set(text: &str) -> Result<EventSet, StoreError> {
    EventSet::from_stored(text).ok_or_else(|| invalid(format!("events {text:?}")))
}

/// The event of a stored code.
pub(super) fn event(code: &str) -> Result<WebhookEvent, StoreError> {
    WebhookEvent::parse(code).ok_or_else(|| invalid(format!("event {code:?}")))
}

/// A count of attempts as stored.
pub(super) fn attempts(stored: i32) -> Result<u32, StoreError> {
    u32::try_from(stored).map_err(|_| invalid(format!("attempts {stored}")))
}

/// Reads a webhook selected with [`WEBHOOK_COLUMNS`].
pub(super) fn webhook(row: &Row) -> Result<WebhookRecord, StoreError> {
    let events: String = row.try_get(2).map_err(read)?;
    Ok(WebhookRecord {
        id: WebhookId::from_stored(row.try_get(0).map_err(read)?),
        target_url: row.try_get(1).map_err(read)?,
        events: event_set(&events)?,
        created_time: row.try_get(3).map_err(read)?,
    })
}

/// Reads a delivery selected with [`DELIVERY_COLUMNS`] from column `at` on.
pub(super) fn delivery(row: &Row, at: usize) -> Result<DeliveryRecord, StoreError> {
    let code: String = row.try_get(at + 1).map_err(read)?;
    let status: String = row.try_get(at + 2).map_err(read)?;
    let response_code: Option<i32> = row.try_get(at + 4).map_err(read)?;
    Ok(DeliveryRecord {
        id: DeliveryId::from_stored(row.try_get(at).map_err(read)?),
        event: event(&code)?,
        status: DeliveryStatus::parse(&status)
            .ok_or_else(|| invalid(format!("status {status:?}")))?,
        attempts: attempts(row.try_get(at + 3).map_err(read)?)?,
        response_code: response_code
            .map(|code| u16::try_from(code).map_err(|_| invalid(format!("response code {code}"))))
            .transpose()?,
        error: row.try_get(at + 5).map_err(read)?,
        created_time: row.try_get(at + 6).map_err(read)?,
        last_attempt_time: row.try_get(at + 7).map_err(read)?,
        next_attempt_time: row.try_get(at + 8).map_err(read)?,
    })
}
