//! What the monitor engine observes: every monitor with its account's
//! address, then for each monitor two statements whatever the fleet's size,
//! the selector turned into SQL as the device listing and jobs do
//! ([`Filter`]). All in one read-only snapshot, so a monitor's down devices
//! and open alerts agree.

use super::records::{
    self, ALERT_COLUMN_COUNT, ALERT_COLUMNS, MONITOR_COLUMN_COUNT, MONITOR_COLUMNS,
};
use crate::devices::filter::Filter;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::{DownDevice, MonitorRecord, MonitorWatch, Observation, WatchedAlert};
use deadpool_postgres::GenericClient;
use domain::{AccountId, DeviceName, MonitorKind, Selector, Serial, Timestamp};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// Every monitor, in creation order, with what it watches at `now` (online:
/// a heartbeat later than `online_after`).
pub(super) async fn watch(
    c: &impl GenericClient,
    now: Timestamp,
    online_after: Timestamp,
) -> Outcome<Vec<MonitorWatch>> {
    let sql = format!(
        "SELECT {MONITOR_COLUMNS}, monitors.account_id, accounts.email, monitors.selector, \
         monitors.above_since FROM monitors JOIN accounts ON accounts.id = monitors.account_id \
         ORDER BY monitors.seq"
    );
    let found = prepared::query(c, &sql, &[]).await?;
    let mut watches = Vec::with_capacity(found.len());
    for row in &found {
        let monitor = records::monitor(row)?;
        let owner = AccountId(row.try_get(MONITOR_COLUMN_COUNT).map_err(read)?);
        let stored: String = row.try_get(MONITOR_COLUMN_COUNT + 2).map_err(read)?;
        let selector = Selector::from_stored(&stored).ok_or_else(|| {
            StoreError::message(format!(
                "a stored monitor's selector is invalid: {stored:?}"
            ))
        })?;
        let observed = match monitor.kind {
            MonitorKind::DeviceOffline => {
                observe_devices(c, owner, &monitor, &selector, now, online_after).await?
            }
            MonitorKind::FleetOfflineRatio(_) => {
                observe_fleet(c, owner, &monitor, &selector, online_after).await?
            }
        };
        watches.push(MonitorWatch {
            owner,
            owner_email: row.try_get(MONITOR_COLUMN_COUNT + 1).map_err(read)?,
            above_since: row.try_get(MONITOR_COLUMN_COUNT + 3).map_err(read)?,
            monitor,
            observed,
        });
    }
    Ok(watches)
}

/// A device monitor's down devices without an open alert (through the
/// index on the last heartbeat; an open alert is found through the index of
/// open alerts), and its open alerts with their devices as they are now.
async fn observe_devices(
    c: &impl GenericClient,
    owner: AccountId,
    monitor: &MonitorRecord,
    selector: &Selector,
    now: Timestamp,
    online_after: Timestamp,
) -> Outcome<Observation> {
    let mut filter = Filter::new(owner, selector, online_after);
    let id = filter.bind(monitor.id.as_str().to_owned());
    // Down: silent for longer than `after_seconds` at `now` exactly.
    let silent_since = filter.bind(now - monitor.after.duration());
    let sql = format!(
        "SELECT devices.serial, devices.name, devices.last_seen FROM devices \
         WHERE {conditions} AND devices.last_seen < {silent_since} \
         AND NOT EXISTS (SELECT 1 FROM alerts WHERE alerts.monitor_id = {id} \
             AND alerts.state = 'open' AND COALESCE(alerts.serial, '') = devices.serial) \
         ORDER BY devices.last_seen, devices.serial",
        conditions = filter.conditions()
    );
    let found = prepared::query(c, &sql, &filter.params()).await?;
    let mut down = Vec::with_capacity(found.len());
    for row in &found {
        down.push(DownDevice {
            serial: Serial::from_stored(row.try_get(0).map_err(read)?),
            name: DeviceName::from_stored(row.try_get(1).map_err(read)?),
            last_seen: row.try_get(2).map_err(read)?,
        });
    }
    let mut filter = Filter::new(owner, selector, online_after);
    let id = filter.bind(monitor.id.as_str().to_owned());
    let sql = format!(
        "SELECT {ALERT_COLUMNS}, alerts.calm_since, d.serial IS NOT NULL, \
         EXISTS (SELECT 1 FROM devices WHERE devices.serial = d.serial AND {conditions}), \
         d.last_seen FROM alerts \
         LEFT JOIN devices d ON d.serial = alerts.serial AND d.account_id = alerts.account_id \
         WHERE alerts.monitor_id = {id} AND alerts.state = 'open' ORDER BY alerts.seq",
        conditions = filter.conditions()
    );
    let found = prepared::query(c, &sql, &filter.params()).await?;
    let mut open = Vec::with_capacity(found.len());
    for row in &found {
        let present: bool = row.try_get(ALERT_COLUMN_COUNT + 1).map_err(read)?;
        let matches: bool = row.try_get(ALERT_COLUMN_COUNT + 2).map_err(read)?;
        let last_seen: Option<Timestamp> = row.try_get(ALERT_COLUMN_COUNT + 3).map_err(read)?;
        open.push(WatchedAlert {
            open: records::open_alert(row)?,
            device: present.then_some((matches, last_seen)),
        });
    }
    Ok(Observation::Devices { down, open })
}

/// A fleet monitor's selected and offline devices (never seen included),
/// counted in one statement, and its open alert.
async fn observe_fleet(
    c: &impl GenericClient,
    owner: AccountId,
    monitor: &MonitorRecord,
    selector: &Selector,
    online_after: Timestamp,
) -> Outcome<Observation> {
    let mut filter = Filter::new(owner, selector, online_after);
    let after = filter.bind(rows::at(online_after));
    let sql = format!(
        "SELECT COUNT(*), COUNT(*) FILTER (WHERE devices.last_seen IS NULL \
             OR devices.last_seen <= {after}) FROM devices WHERE {conditions}",
        conditions = filter.conditions()
    );
    let counted = prepared::query_one(c, &sql, &filter.params()).await?;
    let selected: i64 = counted.try_get(0).map_err(read)?;
    let offline: i64 = counted.try_get(1).map_err(read)?;
    let sql = format!(
        "SELECT {ALERT_COLUMNS}, alerts.calm_since FROM alerts \
         WHERE alerts.monitor_id = $1 AND alerts.state = 'open' ORDER BY alerts.seq LIMIT 1"
    );
    let found = prepared::query_opt(c, &sql, &[&monitor.id.as_str()]).await?;
    Ok(Observation::Fleet {
        selected: selected.unsigned_abs(),
        offline: offline.unsigned_abs(),
        open: found.as_ref().map(records::open_alert).transpose()?,
    })
}
