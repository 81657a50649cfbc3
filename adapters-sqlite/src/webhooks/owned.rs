//! An owner's webhooks and their deliveries: created, listed newest first,
//! deleted with their deliveries, pinged. Every statement names the owner,
//! so another account's webhook is never read or changed.

use super::deliveries::insert;
use super::rows::{DELIVERY_COLUMNS, WEBHOOK_COLUMNS, delivery, webhook};
use crate::audit::append_one;
use crate::rows::to_secs;
use application::ports::{
    DeliveryPage, EventRecord, NewWebhook, WebhookPage, WebhookRecord, Window,
};
use domain::{AccountId, AuditNote};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// A window's `LIMIT` and `OFFSET`.
pub(crate) fn limits(window: Window) -> (i64, i64) {
    (
        i64::from(window.limit),
        i64::try_from(window.offset).unwrap_or(i64::MAX),
    )
}

/// Stores a new webhook, next in creation order, and appends `audit`.
pub(super) fn create(
    conn: &mut Connection,
    hook: &NewWebhook,
    audit: &AuditNote,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.prepare_cached(
        "INSERT INTO webhooks (id, account_id, seq, target_url, events, secret, created_time) \
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhooks), ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        hook.id.as_str(),
        hook.owner.0,
        hook.target.as_str(),
        hook.events.to_stored(),
        hook.secret,
        to_secs(hook.created_time),
    ])?;
    append_one(&tx, hook.owner, audit)?;
    tx.commit()
}

/// A page of `owner`'s webhooks, newest first, and how many there are.
pub(super) fn list(
    conn: &Connection,
    owner: AccountId,
    window: Window,
) -> rusqlite::Result<WebhookPage> {
    let (limit, offset) = limits(window);
    let count: u64 = conn
        .prepare_cached("SELECT COUNT(*) FROM webhooks WHERE account_id = ?1")?
        .query_row([owner.0], |row| row.get::<_, i64>(0))?
        .unsigned_abs();
    let webhooks = conn
        .prepare_cached(&format!(
            "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = ?1 \
             ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
        ))?
        .query_map(params![owner.0, limit, offset], webhook)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(WebhookPage { count, webhooks })
}

/// One webhook of `owner`.
pub(super) fn find(
    conn: &Connection,
    owner: AccountId,
    id: &str,
) -> rusqlite::Result<Option<WebhookRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?1 AND account_id = ?2"
    ))?
    .query_row(params![id, owner.0], webhook)
    .optional()
}

/// Deletes a webhook of `owner`; its deliveries go with it (the foreign
/// key cascades). Whether it existed.
pub(super) fn delete(
    conn: &mut Connection,
    owner: AccountId,
    id: &str,
    audit: &AuditNote,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx
        .prepare_cached("DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2")?
        .execute(params![id, owner.0])?
        > 0;
    if deleted {
        append_one(&tx, owner, audit)?;
    }
    tx.commit()?;
    Ok(deleted)
}

/// Queues `event` as delivery `delivery` of webhook `id` of `owner` alone;
/// whether `owner` has the webhook.
pub(super) fn ping(
    conn: &mut Connection,
    owner: AccountId,
    id: &str,
    delivery: &str,
    event: &EventRecord,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !owns(&tx, owner, id)? {
        return Ok(false);
    }
    insert(&tx, delivery, id, owner, event)?;
    tx.commit()?;
    Ok(true)
}

/// Whether `owner` has webhook `id`.
fn owns(conn: &Connection, owner: AccountId, id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM webhooks WHERE id = ?1 AND account_id = ?2")?
        .query_row(params![id, owner.0], |_| Ok(()))
        .optional()
        .map(|found| found.is_some())
}

/// A page of the deliveries of webhook `id` of `owner`, newest first;
/// `None` without such a webhook.
pub(super) fn deliveries(
    conn: &Connection,
    owner: AccountId,
    id: &str,
    window: Window,
) -> rusqlite::Result<Option<DeliveryPage>> {
    if !owns(conn, owner, id)? {
        return Ok(None);
    }
    let (limit, offset) = limits(window);
    let count: u64 = conn
        .prepare_cached("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?1")?
        .query_row([id], |row| row.get::<_, i64>(0))?
        .unsigned_abs();
    let deliveries = conn
        .prepare_cached(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries AS d WHERE d.webhook_id = ?1 \
             ORDER BY d.seq DESC LIMIT ?2 OFFSET ?3"
        ))?
        .query_map(params![id, limit, offset], delivery)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(DeliveryPage { count, deliveries }))
}
