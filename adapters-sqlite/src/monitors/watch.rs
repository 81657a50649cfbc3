//! What the monitor engine observes: every monitor with its devices now,
//! read in one snapshot, in a fixed number of statements per monitor
//! whatever the fleet's size. A monitor's selector becomes SQL exactly as
//! the fleet listing's and jobs' do (docs/api.md, "Listing devices").

use super::rows::{ALERT_COLUMNS, MONITOR_COLUMNS, monitor, open_alert};
use crate::devices::Filter;
use crate::rows::{from_secs, to_secs, unknown_code};
use application::ports::{DownDevice, MonitorWatch, Observation, WatchedAlert};
use domain::{AccountId, DeviceName, MonitorKind, Selector, Serial, Timestamp};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use std::collections::HashSet;

/// Every monitor, in creation order, with its account's address, its
/// stored selector and `above_since`.
pub(super) const MONITORS: &str = "SELECT {MONITOR_COLUMNS}, monitors.account_id, accounts.email, \
     monitors.selector, monitors.above_since \
     FROM monitors CROSS JOIN accounts ON accounts.id = monitors.account_id \
     ORDER BY monitors.seq";

/// The open alerts of monitor `?1`, oldest first, each with whether its
/// device exists and its last heartbeat.
pub(super) const OPEN_WITH_DEVICES: &str = "SELECT {ALERT_COLUMNS}, devices.serial IS NOT NULL, \
     devices.last_seen FROM alerts AS a \
     LEFT JOIN devices ON devices.serial = a.serial AND devices.account_id = a.account_id \
     WHERE a.monitor_id = ?1 AND a.state = 'open' ORDER BY a.seq";

/// Reads every monitor and what it watches, in one read transaction (a
/// consistent snapshot); a device whose last heartbeat is later than
/// `online_after` is online.
pub(super) fn watch(
    conn: &mut Connection,
    now: Timestamp,
    online_after: Timestamp,
) -> rusqlite::Result<Vec<MonitorWatch>> {
    let tx = conn.transaction()?;
    let monitors = tx
        .prepare_cached(&MONITORS.replace("{MONITOR_COLUMNS}", MONITOR_COLUMNS))?
        .query_map([], |row| {
            let stored: String = row.get(10)?;
            let selector =
                Selector::from_stored(&stored).ok_or_else(|| unknown_code(10, stored))?;
            Ok((
                monitor(row)?,
                AccountId(row.get(8)?),
                row.get::<_, String>(9)?,
                selector,
                row.get::<_, Option<i64>>(11)?.map(from_secs),
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut watches = Vec::with_capacity(monitors.len());
    for (monitor, owner, owner_email, selector, above_since) in monitors {
        let filter = Filter::new(owner, &selector, online_after);
        let id = monitor.id.as_str();
        let observed = match monitor.kind {
            MonitorKind::DeviceOffline => {
                let silent_before = now - monitor.after.duration();
                Observation::Devices {
                    down: down(&tx, &filter, id, silent_before)?,
                    open: watched(&tx, &filter, id)?,
                }
            }
            MonitorKind::FleetOfflineRatio(_) => {
                let (selected, offline) = fleet_counts(&tx, &filter, online_after)?;
                let open = tx
                    .prepare_cached(&format!(
                        "SELECT {ALERT_COLUMNS} FROM alerts AS a \
                         WHERE a.monitor_id = ?1 AND a.state = 'open'"
                    ))?
                    .query_row([id], open_alert)
                    .optional()?;
                Observation::Fleet {
                    selected,
                    offline,
                    open,
                }
            }
        };
        watches.push(MonitorWatch {
            monitor,
            owner,
            owner_email,
            above_since,
            observed,
        });
    }
    Ok(watches)
}

/// The statement of [`down`] over `filter`: the selected devices whose last
/// heartbeat is earlier than the last `?`, without an open alert of the
/// monitor (the `?` before it), read through the index on the last
/// heartbeat unless serials or tags drive the selection.
pub(super) fn down_statement(filter: &Filter) -> String {
    format!(
        "SELECT devices.serial, devices.name, devices.last_seen FROM {from} \
         WHERE {sql} AND NOT EXISTS (SELECT 1 FROM alerts AS a WHERE a.monitor_id = ? \
             AND a.state = 'open' AND COALESCE(a.serial, '') = devices.serial) \
         AND devices.last_seen < ? ORDER BY devices.last_seen, devices.serial",
        from = filter.source_by_last_seen(),
        sql = filter.sql,
    )
}

/// The devices monitor `id` finds down: selected, silent since before
/// `silent_before`, without an open alert of the monitor.
fn down(
    conn: &Connection,
    filter: &Filter,
    id: &str,
    silent_before: Timestamp,
) -> rusqlite::Result<Vec<DownDevice>> {
    let values = filter.values.iter().cloned().chain([
        Value::Text(id.to_owned()),
        Value::Integer(to_secs(silent_before)),
    ]);
    conn.prepare_cached(&down_statement(filter))?
        .query_map(params_from_iter(values), |row| {
            Ok(DownDevice {
                serial: Serial::from_stored(row.get(0)?),
                name: DeviceName::from_stored(row.get(1)?),
                last_seen: from_secs(row.get(2)?),
            })
        })?
        .collect()
}

/// The open alerts of monitor `id` with their devices now: whether each is
/// still selected (the selector evaluated for those serials alone) and its
/// last heartbeat, `None` when it is gone.
fn watched(conn: &Connection, filter: &Filter, id: &str) -> rusqlite::Result<Vec<WatchedAlert>> {
    let open = conn
        .prepare_cached(&OPEN_WITH_DEVICES.replace("{ALERT_COLUMNS}", ALERT_COLUMNS))?
        .query_map([id], |row| {
            let exists: bool = row.get(8)?;
            let last_seen = row.get::<_, Option<i64>>(9)?.map(from_secs);
            Ok((open_alert(row)?, exists.then_some(last_seen)))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if open.is_empty() {
        return Ok(Vec::new());
    }
    let text = format!(
        "SELECT devices.serial FROM {} WHERE {} AND devices.serial IN \
         (SELECT a.serial FROM alerts AS a WHERE a.monitor_id = ? AND a.state = 'open')",
        filter.from, filter.sql
    );
    let values = filter
        .values
        .iter()
        .cloned()
        .chain([Value::Text(id.to_owned())]);
    let selected = conn
        .prepare_cached(&text)?
        .query_map(params_from_iter(values), |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<HashSet<_>>>()?;
    Ok(open
        .into_iter()
        .map(|(open, device)| {
            let matches = open
                .alert
                .serial
                .as_ref()
                .is_some_and(|serial| selected.contains(serial.as_str()));
            WatchedAlert {
                open,
                device: device.map(|last_seen| (matches, last_seen)),
            }
        })
        .collect())
}

/// How many devices `filter` selects, and how many of them are offline
/// (never seen, or last seen at or before `online_after`), in one count.
fn fleet_counts(
    conn: &Connection,
    filter: &Filter,
    online_after: Timestamp,
) -> rusqlite::Result<(u64, u64)> {
    let text = format!(
        "SELECT COUNT(*), COALESCE(SUM(devices.last_seen IS NULL OR devices.last_seen <= ?), 0) \
         FROM {} WHERE {}",
        filter.from, filter.sql
    );
    let values =
        std::iter::once(Value::Integer(to_secs(online_after))).chain(filter.values.iter().cloned());
    conn.prepare_cached(&text)?
        .query_row(params_from_iter(values), |row| {
            Ok((
                row.get::<_, i64>(0)?.unsigned_abs(),
                row.get::<_, i64>(1)?.unsigned_abs(),
            ))
        })
}
