//! An owner's webhooks and their deliveries: a new webhook, pages newest
//! first (by creation order, so also within one second), one by id, a
//! deletion (its deliveries with it). Each one statement, never touching
//! another account's rows.

use super::records::{self, DELIVERY_COLUMNS, WEBHOOK_COLUMN_COUNT, WEBHOOK_COLUMNS};
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::{DeliveryPage, NewWebhook, WebhookPage, WebhookRecord, Window};
use deadpool_postgres::GenericClient;
use domain::{AccountId, WebhookId};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// The bounds of a page as parameters.
fn bounds(window: Window) -> (i64, i64) {
    (
        i64::from(window.limit),
        i64::try_from(window.offset).unwrap_or(i64::MAX),
    )
}

/// Stores `webhook`.
pub(super) async fn create(c: &impl GenericClient, webhook: &NewWebhook) -> Outcome<()> {
    prepared::execute(
        c,
        "INSERT INTO webhooks (id, account_id, target_url, events, secret, created_time) \
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &webhook.id.as_str(),
            &webhook.owner.0,
            &webhook.target.as_str(),
            &webhook.events.to_stored(),
            &webhook.secret,
            &rows::at(webhook.created_time),
        ],
    )
    .await?;
    Ok(())
}

/// A page of `owner`'s webhooks, newest first, with the number of all of
/// them (read with the page; on its own only for a page past the end).
pub(super) async fn list(
    c: &impl GenericClient,
    owner: AccountId,
    window: Window,
) -> Outcome<WebhookPage> {
    let sql = format!(
        "SELECT {WEBHOOK_COLUMNS}, COUNT(*) OVER () FROM webhooks WHERE account_id = $1 \
         ORDER BY seq DESC LIMIT $2 OFFSET $3"
    );
    let (limit, offset) = bounds(window);
    let found = prepared::query(c, &sql, &[&owner.0, &limit, &offset]).await?;
    let count: i64 = match found.first() {
        Some(row) => row.try_get(WEBHOOK_COLUMN_COUNT).map_err(read)?,
        None if window.offset == 0 => 0,
        None => prepared::query_one(
            c,
            "SELECT COUNT(*) FROM webhooks WHERE account_id = $1",
            &[&owner.0],
        )
        .await?
        .try_get(0)?,
    };
    Ok(WebhookPage {
        count: count.unsigned_abs(),
        webhooks: rows::all(&found, records::webhook)?,
    })
}

/// One webhook of `owner`.
pub(super) async fn find(
    c: &impl GenericClient,
    owner: AccountId,
    id: &WebhookId,
) -> Outcome<Option<WebhookRecord>> {
    let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2");
    let found = prepared::query_opt(c, &sql, &[&id.as_str(), &owner.0]).await?;
    Ok(found.as_ref().map(records::webhook).transpose()?)
}

/// Deletes a webhook of `owner`, its deliveries with it; whether it existed.
pub(super) async fn delete(
    c: &impl GenericClient,
    owner: AccountId,
    id: &WebhookId,
) -> Outcome<bool> {
    let deleted = prepared::execute(
        c,
        "DELETE FROM webhooks WHERE id = $1 AND account_id = $2",
        &[&id.as_str(), &owner.0],
    )
    .await?;
    Ok(deleted > 0)
}

/// A page of the deliveries of a webhook of `owner`, newest first, with
/// their number; `None` without such a webhook. One statement: the
/// webhook's row joined with its page (none past the end: then one row
/// without a delivery).
pub(super) async fn deliveries(
    c: &impl GenericClient,
    owner: AccountId,
    id: &WebhookId,
    window: Window,
) -> Outcome<Option<DeliveryPage>> {
    let sql = format!(
        "SELECT (SELECT COUNT(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id), \
         page.* FROM webhooks w LEFT JOIN LATERAL \
         (SELECT d.seq, {DELIVERY_COLUMNS} FROM webhook_deliveries d \
          WHERE d.webhook_id = w.id ORDER BY d.seq DESC LIMIT $3 OFFSET $4) AS page ON TRUE \
         WHERE w.id = $1 AND w.account_id = $2 ORDER BY page.seq DESC"
    );
    let (limit, offset) = bounds(window);
    let found = prepared::query(c, &sql, &[&id.as_str(), &owner.0, &limit, &offset]).await?;
    let Some(first) = found.first() else {
        return Ok(None);
    };
    let count: i64 = first.try_get(0).map_err(read)?;
    let mut deliveries = Vec::with_capacity(found.len());
    for row in &found {
        if row.try_get::<_, Option<i64>>(1).map_err(read)?.is_some() {
            deliveries.push(records::delivery(row, 2)?);
        }
    }
    Ok(Some(DeliveryPage {
        count: count.unsigned_abs(),
        deliveries,
    }))
}
