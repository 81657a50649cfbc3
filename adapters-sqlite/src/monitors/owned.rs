//! An owner's monitors and alerts: created, listed newest first, snoozed,
//! deleted with their alerts. Every statement names the owner, so another
//! account's monitor or alert is never read or changed.

use super::rows::{ALERT_COLUMNS, MONITOR_COLUMNS, alert, monitor};
use crate::audit::append_one;
use crate::rows::to_secs;
use crate::webhooks::limits;
use application::ports::{
    AlertFilter, AlertPage, AlertRecord, MonitorPage, MonitorRecord, NewMonitor, Window,
};
use domain::{AccountId, AuditNote, Timestamp};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params, params_from_iter};

/// Stores a new monitor, next in creation order, and appends `audit`.
pub(super) fn create(
    conn: &mut Connection,
    new: &NewMonitor,
    audit: &AuditNote,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.prepare_cached(
        "INSERT INTO monitors (id, account_id, seq, name, kind, ratio, selector, selector_json, \
             after_seconds, snoozed_until, above_since, created_time) \
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM monitors), ?3, ?4, ?5, ?6, ?7, \
                 ?8, NULL, NULL, ?9)",
    )?
    .execute(params![
        new.id.as_str(),
        new.owner.0,
        new.name.as_str(),
        new.kind.code().code(),
        new.kind.ratio().map(|ratio| ratio.get().to_string()),
        new.selector.to_stored(),
        new.selector_json,
        new.after.seconds(),
        to_secs(new.created_time),
    ])?;
    append_one(&tx, new.owner, audit)?;
    tx.commit()
}

/// A page of `owner`'s monitors, newest first, and how many there are.
pub(super) fn list(
    conn: &Connection,
    owner: AccountId,
    window: Window,
) -> rusqlite::Result<MonitorPage> {
    let (limit, offset) = limits(window);
    let count: u64 = conn
        .prepare_cached("SELECT COUNT(*) FROM monitors WHERE account_id = ?1")?
        .query_row([owner.0], |row| row.get::<_, i64>(0))?
        .unsigned_abs();
    let monitors = conn
        .prepare_cached(&format!(
            "SELECT {MONITOR_COLUMNS} FROM monitors WHERE account_id = ?1 \
             ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
        ))?
        .query_map(params![owner.0, limit, offset], monitor)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(MonitorPage { count, monitors })
}

/// One monitor of `owner`.
pub(super) fn find(
    conn: &Connection,
    owner: AccountId,
    id: &str,
) -> rusqlite::Result<Option<MonitorRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {MONITOR_COLUMNS} FROM monitors WHERE id = ?1 AND account_id = ?2"
    ))?
    .query_row(params![id, owner.0], monitor)
    .optional()
}

/// Deletes a monitor of `owner`; its alerts go with it (the foreign key
/// cascades), its digest lines stay; appends `audit` when it existed.
/// Whether it did.
pub(super) fn delete(
    conn: &mut Connection,
    owner: AccountId,
    id: &str,
    audit: &AuditNote,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx
        .prepare_cached("DELETE FROM monitors WHERE id = ?1 AND account_id = ?2")?
        .execute(params![id, owner.0])?
        > 0;
    if deleted {
        append_one(&tx, owner, audit)?;
    }
    tx.commit()?;
    Ok(deleted)
}

/// Snoozes a monitor of `owner` until `until` (`None`: no longer); the
/// monitor after the change, with `audit` appended when there was one.
pub(super) fn snooze(
    conn: &mut Connection,
    owner: AccountId,
    id: &str,
    until: Option<Timestamp>,
    audit: &AuditNote,
) -> rusqlite::Result<Option<MonitorRecord>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let snoozed = tx
        .prepare_cached(&format!(
            "UPDATE monitors SET snoozed_until = ?3 WHERE id = ?1 AND account_id = ?2 \
             RETURNING {MONITOR_COLUMNS}"
        ))?
        .query_row(params![id, owner.0, until.map(to_secs)], monitor)
        .optional()?;
    if snoozed.is_some() {
        append_one(&tx, owner, audit)?;
    }
    tx.commit()?;
    Ok(snoozed)
}

/// A page of `owner`'s alerts matching `filter`, newest first, and how many
/// match.
pub(super) fn list_alerts(
    conn: &Connection,
    owner: AccountId,
    filter: &AlertFilter,
    window: Window,
) -> rusqlite::Result<AlertPage> {
    let mut condition = String::from("a.account_id = ?");
    let mut values = vec![Value::Integer(owner.0)];
    if let Some(monitor) = &filter.monitor {
        condition.push_str(" AND a.monitor_id = ?");
        values.push(Value::Text(monitor.as_str().to_owned()));
    }
    if let Some(state) = filter.state {
        condition.push_str(" AND a.state = ?");
        values.push(Value::Text(state.code().to_owned()));
    }
    let count: u64 = conn
        .prepare_cached(&format!(
            "SELECT COUNT(*) FROM alerts AS a WHERE {condition}"
        ))?
        .query_row(params_from_iter(&values), |row| row.get::<_, i64>(0))?
        .unsigned_abs();
    let (limit, offset) = limits(window);
    values.extend([Value::Integer(limit), Value::Integer(offset)]);
    let alerts = conn
        .prepare_cached(&format!(
            "SELECT {ALERT_COLUMNS} FROM alerts AS a WHERE {condition} \
             ORDER BY a.seq DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(params_from_iter(values), alert)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(AlertPage { count, alerts })
}

/// One alert of `owner`.
pub(super) fn find_alert(
    conn: &Connection,
    owner: AccountId,
    id: &str,
) -> rusqlite::Result<Option<AlertRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {ALERT_COLUMNS} FROM alerts AS a WHERE a.id = ?1 AND a.account_id = ?2"
    ))?
    .query_row(params![id, owner.0], alert)
    .optional()
}
