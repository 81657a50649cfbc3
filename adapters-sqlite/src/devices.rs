//! The device port on SQLite.

mod heartbeats;
mod selection;
mod tags;
mod update;

use heartbeats::Heartbeat;
pub(crate) use heartbeats::HeartbeatWriter;
use tokio::sync::oneshot;

pub(crate) use selection::{Filter, json_array, register_functions};

use crate::rows::{self, DEVICE_COLUMNS, DEVICE_STORED_COLUMNS, device_columns};
use crate::store::{Failure, SqliteStore, is_unique_violation};
use application::StoreError;
use application::ports::{
    CreateDeviceError, DeviceChanges, DevicePage, DeviceQuery, DeviceRepository, EnrolError,
    Enrolment, FleetVersion, Retagged,
};
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{
    AccountId, Amount, AuditNote, Device, FactsReport, MachineType, Origin, Port, Selector, Serial,
    TagChange, TagCount, Timestamp,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// SQLite reports only one violated constraint; this tells whether the serial is taken.
fn serial_exists(conn: &rusqlite::Connection, serial: &Serial) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM devices WHERE serial = ?1)",
        [serial.as_str()],
        |row| row.get(0),
    )
}

fn device_by_serial(conn: &Connection, serial: &Serial) -> rusqlite::Result<Option<Device>> {
    conn.prepare_cached(&format!(
        "SELECT {DEVICE_COLUMNS} FROM devices WHERE serial = ?1"
    ))?
    .query_row([serial.as_str()], rows::device)
    .optional()
}

fn owns(conn: &Connection, owner: AccountId, serial: &Serial) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM devices WHERE serial = ?1 AND account_id = ?2)",
        params![serial.as_str(), owner.0],
        |row| row.get(0),
    )
}

/// A new device from an enrolment: no facts but the machine type.
fn insert_enrolled(conn: &Connection, e: &Enrolment) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO devices (serial, account_id, name, wormhole_slug, machine_type, token_hash, created_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            e.serial.as_str(),
            e.owner.0,
            e.name.as_str(),
            e.wormhole_slug,
            e.machine_type.unwrap_or_default().code(),
            e.token.as_str(),
            rows::to_secs(e.now),
        ],
    )
    .map(drop)
}

/// An enrolled device again: a new token, the name, and the machine type when sent.
fn rekey(conn: &Connection, e: &Enrolment) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE devices SET name = ?2, machine_type = COALESCE(?3, machine_type), token_hash = ?4 \
         WHERE serial = ?1",
        params![
            e.serial.as_str(),
            e.name.as_str(),
            e.machine_type.map(MachineType::code),
            e.token.as_str(),
        ],
    )
    .map(drop)
}

fn replace_ports(conn: &Connection, serial: &Serial, ports: &[Port]) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM device_ports WHERE serial = ?1",
        [serial.as_str()],
    )?;
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO device_ports (serial, port, protocol, name) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for port in ports {
        insert.execute(params![
            serial.as_str(),
            port.number.get(),
            port.protocol.code(),
            port.name.as_str()
        ])?;
    }
    Ok(())
}

#[async_trait]
impl DeviceRepository for SqliteStore {
    async fn query(&self, owner: AccountId, query: &DeviceQuery) -> Result<DevicePage, StoreError> {
        let query = query.clone();
        self.read("query devices", move |conn| {
            selection::query(conn, owner, &query)
        })
        .await
    }

    async fn fleet_version(&self, owner: AccountId) -> Result<Option<FleetVersion>, StoreError> {
        self.read("read the fleet version", move |conn| {
            let version = conn
                .prepare_cached("SELECT version FROM fleet_versions WHERE account_id = ?1")?
                .query_row([owner.0], |row| row.get(0))
                .optional()?;
            // No row: no device of the account has ever been stored.
            Ok(Some(FleetVersion(version.unwrap_or(0))))
        })
        .await
    }

    async fn tag_counts(&self, owner: AccountId) -> Result<Vec<TagCount>, StoreError> {
        self.run("count tags", move |conn| tags::counts(conn, owner))
            .await
    }

    async fn retag(
        &self,
        owner: AccountId,
        selector: &Selector,
        online_after: Timestamp,
        change: &TagChange,
        origin: &Origin,
    ) -> Result<Retagged, StoreError> {
        let (selector, change, origin) = (selector.clone(), change.clone(), origin.clone());
        self.write("change tags", move |conn| {
            tags::retag(conn, owner, &selector, online_after, &change, &origin)
        })
        .await
    }

    async fn list_for(&self, owner: AccountId) -> Result<Vec<Device>, StoreError> {
        self.read("list devices", move |conn| {
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
        self.read("find device", move |conn| {
            conn.prepare_cached(concat!(
                "SELECT ",
                device_columns!(),
                " FROM devices WHERE serial = ?1 AND account_id = ?2"
            ))?
            .query_row(params![serial.as_str(), owner.0], rows::device)
            .optional()
        })
        .await
    }

    async fn owns(&self, owner: AccountId, serial: &Serial) -> Result<bool, StoreError> {
        let serial = serial.clone();
        self.read("find device", move |conn| {
            conn.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM devices WHERE serial = ?1 AND account_id = ?2)",
            )?
            .query_row(params![serial.as_str(), owner.0], |row| row.get(0))
        })
        .await
    }

    async fn create(&self, device: &Device, audit: &AuditNote) -> Result<(), CreateDeviceError> {
        let (d, audit) = (device.clone(), audit.clone());
        self.write_mapped("create device", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let inserted = tx.execute(
                &format!(
                    "INSERT INTO devices ({DEVICE_STORED_COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
                ),
                params![
                    d.serial.as_str(),
                    d.owner.0,
                    d.name.as_str(),
                    d.description.as_str(),
                    d.wormhole_slug,
                    d.facts.agent_version.as_str(),
                    d.facts.operating_system.as_str(),
                    d.facts.uname.as_str(),
                    d.facts.machine_type.code(),
                    d.facts.disk_capacity.map(Amount::get),
                    d.facts.disk_used.map(Amount::get),
                    d.facts.processor_speed.get(),
                    d.facts.ram_capacity.get(),
                    d.last_seen.map(rows::to_secs),
                    rows::to_secs(d.created_time),
                ],
            );
            match inserted {
                Err(e) if is_unique_violation(&e, "devices.") && serial_exists(&tx, &d.serial)? => {
                    return Err(Failure::Outcome(CreateDeviceError::DuplicateSerial));
                }
                other => other?,
            };
            tags::replace(&tx, d.owner, &d.serial, &d.tags)?;
            crate::audit::append_one(&tx, d.owner, &audit)?;
            tx.commit().map_err(Failure::Sql)
        })
        .await
    }

    async fn update(
        &self,
        owner: AccountId,
        serial: &Serial,
        changes: &DeviceChanges,
        origin: &Origin,
    ) -> Result<Option<Device>, StoreError> {
        let (serial, changes, origin) = (serial.clone(), changes.clone(), origin.clone());
        self.write_grouped("update device", move |conn| {
            update::update(conn, owner, &serial, &changes, &origin).map_err(Failure::Sql)
        })
        .await
    }

    async fn delete(
        &self,
        owner: AccountId,
        serial: &Serial,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        let (target, audit) = (serial.clone(), audit.clone());
        let deleted = self
            .write("delete device", move |conn| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                // Its job targets that ended keep how they ended; its
                // commands go with it.
                crate::jobs::before_device_deleted(&tx, owner.0, target.as_str())?;
                let deleted = tx.execute(
                    "DELETE FROM devices WHERE serial = ?1 AND account_id = ?2",
                    params![target.as_str(), owner.0],
                )?;
                if deleted > 0 {
                    crate::audit::append_one(&tx, owner, &audit)?;
                }
                tx.commit()?;
                Ok(deleted > 0)
            })
            .await?;
        if deleted {
            // A long poll in progress ends now; the agent's next call gets 401.
            self.wakeups.wake(serial);
        }
        Ok(deleted)
    }

    async fn ports(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Vec<Port>>, StoreError> {
        let serial = serial.clone();
        self.run("list device ports", move |conn| {
            let tx = conn.transaction()?;
            if !owns(&tx, owner, &serial)? {
                return Ok(None);
            }
            let ports = tx
                .prepare_cached(
                    "SELECT port, protocol, name FROM device_ports WHERE serial = ?1 \
                     ORDER BY port, protocol",
                )?
                .query_map([serial.as_str()], rows::port)?
                .collect::<rusqlite::Result<Vec<Port>>>()?;
            Ok(Some(ports))
        })
        .await
    }

    async fn enroll(&self, enrolment: &Enrolment, audit: &AuditNote) -> Result<Device, EnrolError> {
        let (e, audit) = (enrolment.clone(), audit.clone());
        self.write_mapped("enrol device", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            match device_by_serial(&tx, &e.serial)? {
                Some(existing) if existing.owner != e.owner => {
                    return Err(Failure::Outcome(EnrolError::ForeignSerial));
                }
                Some(existing) if existing.last_seen.is_some_and(|seen| seen > e.online_after) => {
                    return Err(Failure::Outcome(EnrolError::Online));
                }
                Some(_) => rekey(&tx, &e)?,
                None => insert_enrolled(&tx, &e)?,
            }
            let device =
                device_by_serial(&tx, &e.serial)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            crate::audit::append_one(&tx, e.owner, &audit)?;
            tx.commit()?;
            Ok(device)
        })
        .await
    }

    async fn find_by_token(&self, token: &SecretHash) -> Result<Option<Device>, StoreError> {
        let token = token.clone();
        self.read("authenticate device", move |conn| {
            conn.prepare_cached(concat!(
                "SELECT ",
                device_columns!(),
                " FROM devices WHERE token_hash = ?1"
            ))?
            .query_row([token.as_str()], rows::device)
            .optional()
        })
        .await
    }

    async fn record_heartbeat(
        &self,
        serial: &Serial,
        report: &FactsReport,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let (written, answer) = oneshot::channel();
        let heartbeat = Box::new(Heartbeat {
            serial: serial.clone(),
            report: report.clone(),
            now,
            written,
        });
        let heartbeat = match self.heartbeat_writer() {
            Some(writer) => match writer.send(heartbeat) {
                Ok(()) => {
                    return answer
                        .await
                        .map_err(|e| StoreError::new("record heartbeat", e))?;
                }
                Err(back) => back,
            },
            None => heartbeat,
        };
        // Without its writer thread, a heartbeat is a transaction of its own.
        let Heartbeat { serial, report, .. } = *heartbeat;
        self.write("record heartbeat", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            heartbeats::write_one(&tx, &serial, &report, now)?;
            tx.commit()
        })
        .await
    }
}
