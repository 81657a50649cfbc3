//! An owner's monitors and alerts: a new monitor, pages newest first (by
//! creation order, so also within one second), one by id, a deletion, a
//! snooze. Each one statement, never touching another account's rows.

use super::records::{
    self, ALERT_COLUMN_COUNT, ALERT_COLUMNS, MONITOR_COLUMN_COUNT, MONITOR_COLUMNS,
};
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::{
    AlertFilter, AlertPage, AlertRecord, MonitorPage, MonitorRecord, NewMonitor, Window,
};
use deadpool_postgres::GenericClient;
use domain::{AccountId, AlertId, MonitorId, Timestamp};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// The bounds of a page as parameters.
fn bounds(window: Window) -> (i64, i64) {
    (
        i64::from(window.limit),
        i64::try_from(window.offset).unwrap_or(i64::MAX),
    )
}

/// Stores `monitor`.
pub(super) async fn create(c: &impl GenericClient, monitor: &NewMonitor) -> Outcome<()> {
    let (kind, ratio) = records::stored_kind(monitor.kind);
    let after = i64::from(monitor.after.seconds());
    prepared::execute(
        c,
        "INSERT INTO monitors (id, account_id, name, kind, ratio, selector, selector_json, \
         after_seconds, created_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint, $9)",
        &[
            &monitor.id.as_str(),
            &monitor.owner.0,
            &monitor.name.as_str(),
            &kind,
            &ratio,
            &monitor.selector.to_stored(),
            &monitor.selector_json,
            &after,
            &rows::at(monitor.created_time),
        ],
    )
    .await?;
    Ok(())
}

/// A page of `owner`'s monitors, newest first, with the number of all of
/// them (read with the page; on its own only for a page past the end).
pub(super) async fn list(
    c: &impl GenericClient,
    owner: AccountId,
    window: Window,
) -> Outcome<MonitorPage> {
    let sql = format!(
        "SELECT {MONITOR_COLUMNS}, COUNT(*) OVER () FROM monitors WHERE account_id = $1 \
         ORDER BY seq DESC LIMIT $2 OFFSET $3"
    );
    let (limit, offset) = bounds(window);
    let found = prepared::query(c, &sql, &[&owner.0, &limit, &offset]).await?;
    let count: i64 = match found.first() {
        Some(row) => row.try_get(MONITOR_COLUMN_COUNT).map_err(read)?,
        None if window.offset == 0 => 0,
        None => prepared::query_one(
            c,
            "SELECT COUNT(*) FROM monitors WHERE account_id = $1",
            &[&owner.0],
        )
        .await?
        .try_get(0)?,
    };
    Ok(MonitorPage {
        count: count.unsigned_abs(),
        monitors: rows::all(&found, records::monitor)?,
    })
}

/// One monitor of `owner`.
pub(super) async fn find(
    c: &impl GenericClient,
    owner: AccountId,
    id: &MonitorId,
) -> Outcome<Option<MonitorRecord>> {
    let sql = format!("SELECT {MONITOR_COLUMNS} FROM monitors WHERE id = $1 AND account_id = $2");
    let found = prepared::query_opt(c, &sql, &[&id.as_str(), &owner.0]).await?;
    Ok(found.as_ref().map(records::monitor).transpose()?)
}

/// Deletes a monitor of `owner`, its alerts with it; whether it existed.
pub(super) async fn delete(
    c: &impl GenericClient,
    owner: AccountId,
    id: &MonitorId,
) -> Outcome<bool> {
    let deleted = prepared::execute(
        c,
        "DELETE FROM monitors WHERE id = $1 AND account_id = $2",
        &[&id.as_str(), &owner.0],
    )
    .await?;
    Ok(deleted > 0)
}

/// Snoozes a monitor of `owner` until `until` (`None`: not snoozed); the
/// monitor after the change.
pub(super) async fn snooze(
    c: &impl GenericClient,
    owner: AccountId,
    id: &MonitorId,
    until: Option<Timestamp>,
) -> Outcome<Option<MonitorRecord>> {
    let sql = format!(
        "UPDATE monitors SET snoozed_until = $3 WHERE id = $1 AND account_id = $2 \
         RETURNING {MONITOR_COLUMNS}"
    );
    let until = until.map(rows::at);
    let found = prepared::query_opt(c, &sql, &[&id.as_str(), &owner.0, &until]).await?;
    Ok(found.as_ref().map(records::monitor).transpose()?)
}

/// A page of `owner`'s alerts matching `filter`, newest first, with the
/// number of all that match.
pub(super) async fn list_alerts(
    c: &impl GenericClient,
    owner: AccountId,
    filter: &AlertFilter,
    window: Window,
) -> Outcome<AlertPage> {
    // One shape whatever the filter: an absent criterion is a NULL.
    let matching = "alerts.account_id = $1 \
         AND ($2::text IS NULL OR alerts.monitor_id = $2) \
         AND ($3::text IS NULL OR alerts.state = $3)";
    let sql = format!(
        "SELECT {ALERT_COLUMNS}, COUNT(*) OVER () FROM alerts WHERE {matching} \
         ORDER BY alerts.seq DESC LIMIT $4 OFFSET $5"
    );
    let monitor = filter.monitor.as_ref().map(MonitorId::as_str);
    let state = filter.state.map(|state| state.code());
    let (limit, offset) = bounds(window);
    let found = prepared::query(c, &sql, &[&owner.0, &monitor, &state, &limit, &offset]).await?;
    let count: i64 = match found.first() {
        Some(row) => row.try_get(ALERT_COLUMN_COUNT).map_err(read)?,
        None if window.offset == 0 => 0,
        None => {
            let sql = format!("SELECT COUNT(*) FROM alerts WHERE {matching}");
            prepared::query_one(c, &sql, &[&owner.0, &monitor, &state])
                .await?
                .try_get(0)?
        }
    };
    let alerts = found
        .iter()
        .map(|row| records::alert(row, 0))
        .collect::<Result<_, _>>()?;
    Ok(AlertPage {
        count: count.unsigned_abs(),
        alerts,
    })
}

/// One alert of `owner`.
pub(super) async fn find_alert(
    c: &impl GenericClient,
    owner: AccountId,
    id: &AlertId,
) -> Outcome<Option<AlertRecord>> {
    let sql = format!("SELECT {ALERT_COLUMNS} FROM alerts WHERE id = $1 AND account_id = $2");
    let found = prepared::query_opt(c, &sql, &[&id.as_str(), &owner.0]).await?;
    Ok(found.map(|row| records::alert(&row, 0)).transpose()?)
}
