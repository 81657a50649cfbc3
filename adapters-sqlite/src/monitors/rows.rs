//! Monitor and alert rows as the port's records.

use crate::rows::{from_secs, unknown_code};
use application::ports::{AlertRecord, MonitorRecord};
use domain::{AfterSeconds, AlertId, AlertState, MonitorId, MonitorKind, MonitorName, Serial};
use rusqlite::Row;

/// The columns [`monitor`] reads, of `monitors` (not aliased).
pub(super) const MONITOR_COLUMNS: &str = "monitors.id, monitors.name, monitors.kind, \
     monitors.ratio, monitors.selector_json, monitors.after_seconds, monitors.snoozed_until, \
     monitors.created_time";

/// Reads a monitor selected with [`MONITOR_COLUMNS`].
pub(super) fn monitor(row: &Row<'_>) -> rusqlite::Result<MonitorRecord> {
    let code: String = row.get(2)?;
    let ratio: Option<String> = row.get(3)?;
    let ratio = match ratio {
        None => None,
        Some(text) => Some(text.parse::<f64>().map_err(|_| unknown_code(3, text))?),
    };
    Ok(MonitorRecord {
        id: MonitorId::from_stored(row.get(0)?),
        name: MonitorName::from_stored(row.get(1)?),
        kind: MonitorKind::from_stored(&code, ratio).ok_or_else(|| unknown_code(2, code))?,
        selector_json: row.get(4)?,
        after: AfterSeconds::from_stored(row.get(5)?),
        snoozed_until: row.get::<_, Option<i64>>(6)?.map(from_secs),
        created_time: from_secs(row.get(7)?),
    })
}

/// The columns [`alert`] reads, of `alerts` as `a`; `calm_since` follows
/// them, for [`open_alert`].
pub(super) const ALERT_COLUMNS: &str = "a.id, a.monitor_id, a.serial, a.state, a.started_time, \
     a.resolved_time, a.reason, a.calm_since";

/// Reads an alert selected with [`ALERT_COLUMNS`].
pub(super) fn alert(row: &Row<'_>) -> rusqlite::Result<AlertRecord> {
    let state: String = row.get(3)?;
    Ok(AlertRecord {
        id: AlertId::from_stored(row.get(0)?),
        monitor: MonitorId::from_stored(row.get(1)?),
        serial: row.get::<_, Option<String>>(2)?.map(Serial::from_stored),
        state: AlertState::parse(&state).ok_or_else(|| unknown_code(3, state))?,
        started_time: from_secs(row.get(4)?),
        resolved_time: row.get::<_, Option<i64>>(5)?.map(from_secs),
        reason: row.get(6)?,
    })
}

/// Reads an open alert selected with [`ALERT_COLUMNS`].
pub(super) fn open_alert(row: &Row<'_>) -> rusqlite::Result<application::ports::OpenAlert> {
    Ok(application::ports::OpenAlert {
        alert: alert(row)?,
        calm_since: row.get::<_, Option<i64>>(7)?.map(from_secs),
    })
}
