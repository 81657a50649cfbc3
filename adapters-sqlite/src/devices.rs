use crate::rows::{self, DEVICE_COLUMNS};
use crate::store::{Failure, SqliteStore, is_unique_violation};
use application::StoreError;
use application::ports::{CreateDeviceError, DeviceRepository};
use async_trait::async_trait;
use domain::{AccountId, Device, Serial};
use rusqlite::{OptionalExtension, params};

/// SQLite reports only one violated constraint; this tells whether the serial is taken.
fn serial_exists(conn: &rusqlite::Connection, serial: &Serial) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM devices WHERE serial = ?1)",
        [serial.as_str()],
        |row| row.get(0),
    )
}

#[async_trait]
impl DeviceRepository for SqliteStore {
    async fn list_for(&self, owner: AccountId) -> Result<Vec<Device>, StoreError> {
        self.run("list devices", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {DEVICE_COLUMNS} FROM devices WHERE account_id = ?1 ORDER BY created_time, serial"
            ))?
            .query_map([owner.0], rows::device)?
            .collect()
        })
        .await
    }

    async fn find_for(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Device>, StoreError> {
        let serial = serial.clone();
        self.run("find device", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {DEVICE_COLUMNS} FROM devices WHERE serial = ?1 AND account_id = ?2"
            ))?
            .query_row(params![serial.as_str(), owner.0], rows::device)
            .optional()
        })
        .await
    }

    async fn create(&self, device: &Device) -> Result<(), CreateDeviceError> {
        let d = device.clone();
        self.run_mapped("create device", move |conn| {
            let inserted = conn.execute(
                &format!(
                    "INSERT INTO devices ({DEVICE_COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
                ),
                params![
                    d.serial.as_str(),
                    d.owner.0,
                    d.name,
                    d.description,
                    d.wormhole_slug,
                    d.facts.agent_version,
                    d.facts.operating_system,
                    d.facts.uname,
                    d.facts.machine_type.code(),
                    d.facts.disk_capacity,
                    d.facts.disk_used,
                    d.facts.processor_speed,
                    d.facts.ram_capacity,
                    d.last_seen.map(rows::to_secs),
                    rows::to_secs(d.created_time),
                ],
            );
            match inserted {
                Err(e)
                    if is_unique_violation(&e, "devices.") && serial_exists(conn, &d.serial)? =>
                {
                    Err(Failure::Outcome(CreateDeviceError::DuplicateSerial))
                }
                other => other.map(drop).map_err(Failure::Sql),
            }
        })
        .await
    }
}
