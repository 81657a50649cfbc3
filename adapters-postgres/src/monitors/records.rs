//! Monitors and alerts as rows: the columns read and rows turned into
//! records.

use crate::rows::read;
use application::StoreError;
use application::ports::{AlertRecord, MonitorRecord, OpenAlert};
use domain::{
    AfterSeconds, AlertId, AlertState, MonitorId, MonitorKind, MonitorName, Serial, Timestamp,
};
use tokio_postgres::Row;

/// The monitor columns, in the order [`monitor`] reads them.
pub(super) const MONITOR_COLUMNS: &str = "monitors.id, monitors.name, monitors.kind, \
     monitors.ratio, monitors.selector_json, monitors.after_seconds, monitors.snoozed_until, \
     monitors.created_time";

/// How many columns [`MONITOR_COLUMNS`] selects: what a statement adds follows.
pub(super) const MONITOR_COLUMN_COUNT: usize = 8;

/// The alert columns, in the order [`alert`] reads them.
pub(super) const ALERT_COLUMNS: &str = "alerts.id, alerts.monitor_id, alerts.serial, \
     alerts.state, alerts.started_time, alerts.resolved_time, alerts.reason";

/// How many columns [`ALERT_COLUMNS`] selects: what a statement adds follows.
pub(super) const ALERT_COLUMN_COUNT: usize = 7;

fn invalid(what: String) -> StoreError {
    StoreError::message(format!("a stored monitor or alert is invalid: {what}"))
}

/// A kind as stored: its code and its ratio (`None` for a device monitor).
pub(super) fn stored_kind(kind: MonitorKind) -> (&'static str, Option<String>) {
    (
        kind.code().code(),
        kind.ratio().map(|ratio| ratio.get().to_string()),
    )
}

/// Reads a monitor selected with [`MONITOR_COLUMNS`].
pub(super) fn monitor(row: &Row) -> Result<MonitorRecord, StoreError> {
    let code: String = row.try_get(2).map_err(read)?;
    let ratio: Option<String> = row.try_get(3).map_err(read)?;
    let parsed = match &ratio {
        Some(text) => Some(
            text.parse::<f64>()
                .map_err(|_| invalid(format!("ratio {text:?}")))?,
        ),
        None => None,
    };
    let kind = MonitorKind::from_stored(&code, parsed)
        .ok_or_else(|| invalid(format!("kind {code:?} with ratio {ratio:?}")))?;
    let after: i32 = row.try_get(5).map_err(read)?;
    Ok(MonitorRecord {
        id: MonitorId::from_stored(row.try_get(0).map_err(read)?),
        name: MonitorName::from_stored(row.try_get(1).map_err(read)?),
        kind,
        selector_json: row.try_get(4).map_err(read)?,
        after: AfterSeconds::from_stored(
            u32::try_from(after).map_err(|_| invalid(format!("after_seconds {after}")))?,
        ),
        snoozed_until: row.try_get(6).map_err(read)?,
        created_time: row.try_get(7).map_err(read)?,
    })
}

/// Reads an alert selected with [`ALERT_COLUMNS`] from column `at` on.
pub(super) fn alert(row: &Row, at: usize) -> Result<AlertRecord, StoreError> {
    let state: String = row.try_get(at + 3).map_err(read)?;
    Ok(AlertRecord {
        id: AlertId::from_stored(row.try_get(at).map_err(read)?),
        monitor: MonitorId::from_stored(row.try_get(at + 1).map_err(read)?),
        serial: row
            .try_get::<_, Option<String>>(at + 2)
            .map_err(read)?
            .map(Serial::from_stored),
        state: AlertState::parse(&state).ok_or_else(|| invalid(format!("state {state:?}")))?,
        started_time: row.try_get(at + 4).map_err(read)?,
        resolved_time: row.try_get(at + 5).map_err(read)?,
        reason: row.try_get(at + 6).map_err(read)?,
    })
}

/// Reads an open alert selected with [`ALERT_COLUMNS`] then `calm_since`.
pub(super) fn open_alert(row: &Row) -> Result<OpenAlert, StoreError> {
    let calm_since: Option<Timestamp> = row.try_get(ALERT_COLUMN_COUNT).map_err(read)?;
    Ok(OpenAlert {
        alert: alert(row, 0)?,
        calm_since,
    })
}
