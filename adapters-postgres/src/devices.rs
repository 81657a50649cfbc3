//! The device repository on PostgreSQL.

use crate::notifications::COMMANDS_CHANNEL;
use crate::prepared;
use crate::rows::{self, DEVICE_COLUMNS, DEVICE_FIELDS};
use crate::store::{Failure, PgStore, violates};
use application::StoreError;
use application::ports::{
    CreateDeviceError, DeviceChanges, DevicePage, DeviceQuery, DeviceRepository, EnrolError,
    Enrolment, FleetVersion, Retagged,
};
use async_trait::async_trait;
use deadpool_postgres::Transaction;
use domain::secret::SecretHash;
use domain::{
    AccountId, Amount, AuditNote, Device, FactsReport, Origin, Port, Selector, Serial, TagChange,
    TagCount, Timestamp,
};
use enrolment::{insert_enrolled, lock_device, rekey};

mod enrolment;
pub(crate) mod filter;
mod listing;
mod tagging;
mod update;

/// Replaces the reported ports of a device (duplicates count once).
async fn replace_ports(
    tx: &Transaction<'_>,
    serial: &Serial,
    ports: &[Port],
) -> Result<(), tokio_postgres::Error> {
    prepared::execute(
        tx,
        "DELETE FROM device_ports WHERE serial = $1",
        &[&serial.as_str()],
    )
    .await?;
    let numbers: Vec<i32> = ports.iter().map(|p| i32::from(p.number.get())).collect();
    let protocols: Vec<&str> = ports.iter().map(|p| p.protocol.code()).collect();
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    prepared::execute(
        tx,
        "INSERT INTO device_ports (serial, port, protocol, name) \
         SELECT $1, * FROM UNNEST($2::INTEGER[], $3::TEXT[], $4::TEXT[]) \
         ON CONFLICT DO NOTHING",
        &[&serial.as_str(), &numbers, &protocols, &names],
    )
    .await?;
    Ok(())
}

/// Before a device of `owner` goes with its commands: locks it, and the
/// commands an agent could still acknowledge (an acknowledgement then waits
/// and finds its command gone), and makes the job targets read through its
/// commands that are done or failed keep that status and detail; the others
/// will read `skipped` (docs/architecture.md, "Fleet jobs"). Whether
/// `owner` has the device.
async fn keep_ended_targets(
    tx: &Transaction<'_>,
    owner: AccountId,
    serial: &Serial,
) -> Result<bool, tokio_postgres::Error> {
    let found = prepared::query_opt(
        tx,
        "SELECT FROM devices WHERE serial = $1 AND account_id = $2 FOR UPDATE",
        &[&serial.as_str(), &owner.0],
    )
    .await?;
    if found.is_none() {
        return Ok(false);
    }
    prepared::execute(
        tx,
        "SELECT FROM device_commands WHERE serial = $1 \
         AND (status IS NULL OR status = 'received') FOR UPDATE",
        &[&serial.as_str()],
    )
    .await?;
    prepared::execute(
        tx,
        "UPDATE job_targets t SET status = c.status, detail = COALESCE(c.detail, '') \
         FROM device_commands c WHERE t.serial = $1 AND t.status IS NULL \
         AND c.id = t.command_id AND c.status IN ('done', 'failed')",
        &[&serial.as_str()],
    )
    .await?;
    Ok(true)
}

#[async_trait]
impl DeviceRepository for PgStore {
    async fn query(&self, owner: AccountId, query: &DeviceQuery) -> Result<DevicePage, StoreError> {
        self.run("list devices", |c| {
            let query = query.clone();
            Box::pin(async move { listing::page(c, owner, &query).await })
        })
        .await
    }

    /// None: several instances write one PostgreSQL database, and a version
    /// row per account bumped by every device's write would make their
    /// concurrent writes of one fleet wait on each other (heartbeats
    /// included); every listing is read afresh instead.
    async fn fleet_version(&self, _owner: AccountId) -> Result<Option<FleetVersion>, StoreError> {
        Ok(None)
    }

    async fn tag_counts(&self, owner: AccountId) -> Result<Vec<TagCount>, StoreError> {
        self.run("count tags", |c| Box::pin(tagging::counts(c, owner)))
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
        self.transaction("change tags", |tx| {
            let (selector, change, origin) = (selector.clone(), change.clone(), origin.clone());
            Box::pin(async move {
                Ok(tagging::retag(tx, owner, &selector, online_after, &change, &origin).await?)
            })
        })
        .await
    }

    async fn list_for(&self, owner: AccountId) -> Result<Vec<Device>, StoreError> {
        self.run("list devices", |c| {
            Box::pin(async move {
                let sql = format!(
                    "SELECT {DEVICE_COLUMNS} FROM devices WHERE account_id = $1 \
                     ORDER BY created_time, serial"
                );
                let found = prepared::query(c, &sql, &[&owner.0]).await?;
                Ok(rows::all(&found, rows::device)?)
            })
        })
        .await
    }

    async fn find_for(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Device>, StoreError> {
        self.run("find device", |c| {
            let serial = serial.clone();
            Box::pin(async move {
                let sql = format!(
                    "SELECT {DEVICE_COLUMNS} FROM devices WHERE serial = $1 AND account_id = $2"
                );
                let row = prepared::query_opt(c, &sql, &[&serial.as_str(), &owner.0]).await?;
                Ok(row.as_ref().map(rows::device).transpose()?)
            })
        })
        .await
    }

    async fn owns(&self, owner: AccountId, serial: &Serial) -> Result<bool, StoreError> {
        self.run("find device", |c| {
            let serial = serial.clone();
            Box::pin(async move {
                let sql =
                    "SELECT EXISTS (SELECT 1 FROM devices WHERE serial = $1 AND account_id = $2)";
                let row = prepared::query_one(c, sql, &[&serial.as_str(), &owner.0]).await?;
                Ok(row.try_get(0)?)
            })
        })
        .await
    }

    async fn create(&self, device: &Device, audit: &AuditNote) -> Result<(), CreateDeviceError> {
        self.transaction("create device", |tx| {
            let (d, audit) = (device.clone(), audit.clone());
            Box::pin(async move {
                let inserted = prepared::execute(
                    tx,
                    &format!(
                        "INSERT INTO devices ({DEVICE_FIELDS}) VALUES \
                             ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
                    ),
                    &[
                        &d.serial.as_str(),
                        &d.owner.0,
                        &d.name.as_str(),
                        &d.description.as_str(),
                        &d.wormhole_slug,
                        &d.facts.agent_version.as_str(),
                        &d.facts.operating_system.as_str(),
                        &d.facts.uname.as_str(),
                        &d.facts.machine_type.code(),
                        &d.facts.disk_capacity.map(Amount::get),
                        &d.facts.disk_used.map(Amount::get),
                        &d.facts.processor_speed.get(),
                        &d.facts.ram_capacity.get(),
                        &d.last_seen.map(rows::at),
                        &rows::at(d.created_time),
                    ],
                )
                .await;
                match inserted {
                    Err(e) if violates(&e, "devices_pkey") => {
                        Err(Failure::Outcome(CreateDeviceError::DuplicateSerial))
                    }
                    Err(e) => Err(Failure::Sql(e)),
                    Ok(_) => {
                        tagging::replace(tx, d.owner, &d.serial, &d.tags).await?;
                        crate::audit::append_one(tx, d.owner, &audit).await?;
                        Ok(())
                    }
                }
            })
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
        self.transaction("update device", |tx| {
            let (serial, changes, origin) = (serial.clone(), changes.clone(), origin.clone());
            Box::pin(async move { update::update(tx, owner, &serial, &changes, &origin).await })
        })
        .await
    }

    async fn delete(
        &self,
        owner: AccountId,
        serial: &Serial,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        let deleted = self
            .transaction("delete device", |tx| {
                let (serial, audit) = (serial.clone(), audit.clone());
                Box::pin(async move {
                    if !keep_ended_targets(tx, owner, &serial).await? {
                        return Ok(false);
                    }
                    let deleted = prepared::execute(
                        tx,
                        "DELETE FROM devices WHERE serial = $1 AND account_id = $2",
                        &[&serial.as_str(), &owner.0],
                    )
                    .await?;
                    if deleted > 0 {
                        // Long polls on every instance end; the agent's next call gets 401.
                        prepared::execute(
                            tx,
                            "SELECT pg_notify($1, $2)",
                            &[&COMMANDS_CHANNEL, &serial.as_str()],
                        )
                        .await?;
                        crate::audit::append_one(tx, owner, &audit).await?;
                    }
                    Ok(deleted > 0)
                })
            })
            .await?;
        if deleted {
            self.wakeups.wake(serial);
        }
        Ok(deleted)
    }

    async fn ports(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Vec<Port>>, StoreError> {
        self.run("list device ports", |c| {
            let serial = serial.clone();
            Box::pin(async move {
                // One row per port, or one row of NULLs for a device with none;
                // no row when `owner` has no such device.
                let sql = "SELECT p.port, p.protocol, p.name FROM devices d \
                         LEFT JOIN device_ports p ON p.serial = d.serial \
                         WHERE d.serial = $1 AND d.account_id = $2 \
                         ORDER BY p.port, p.protocol";
                let found = prepared::query(c, sql, &[&serial.as_str(), &owner.0]).await?;
                if found.is_empty() {
                    return Ok(None);
                }
                let mut ports = Vec::with_capacity(found.len());
                for row in &found {
                    if row.try_get::<_, Option<i32>>(0)?.is_some() {
                        ports.push(rows::port(row)?);
                    }
                }
                Ok(Some(ports))
            })
        })
        .await
    }

    async fn enroll(&self, enrolment: &Enrolment, audit: &AuditNote) -> Result<Device, EnrolError> {
        self.transaction("enrol device", |tx| {
            let (e, audit) = (enrolment.clone(), audit.clone());
            Box::pin(async move {
                let device = if let Some(existing) = lock_device(tx, &e.serial).await? {
                    rekey(tx, &existing, &e).await?
                } else if let Some(created) = insert_enrolled(tx, &e).await? {
                    created
                } else {
                    // Another enrolment of this serial committed meanwhile.
                    let existing = lock_device(tx, &e.serial).await?.ok_or_else(|| {
                        Failure::Store(StoreError::message("an enrolled device vanished"))
                    })?;
                    rekey(tx, &existing, &e).await?
                };
                crate::audit::append_one(tx, e.owner, &audit).await?;
                Ok(device)
            })
        })
        .await
    }

    async fn find_by_token(&self, token: &SecretHash) -> Result<Option<Device>, StoreError> {
        self.run("authenticate device", |c| {
            let token = token.clone();
            Box::pin(async move {
                let sql = format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE token_hash = $1");
                let row = prepared::query_opt(c, &sql, &[&token.as_str()]).await?;
                Ok(row.as_ref().map(rows::device).transpose()?)
            })
        })
        .await
    }

    async fn record_heartbeat(
        &self,
        serial: &Serial,
        report: &FactsReport,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.transaction("record heartbeat", |tx| {
            let (serial, report) = (serial.clone(), report.clone());
            Box::pin(async move {
                // A device deleted meanwhile stays deleted.
                let Some(device) = lock_device(tx, &serial).await? else {
                    return Ok(());
                };
                let mut facts = device.facts;
                facts.apply(&report);
                let sql = "UPDATE devices SET agent_version = $2, operating_system = $3, \
                         uname = $4, machine_type = $5, disk_capacity = $6, disk_used = $7, \
                         processor_speed = $8, ram_capacity = $9, last_seen = $10 \
                         WHERE serial = $1";
                prepared::execute(
                    tx,
                    sql,
                    &[
                        &serial.as_str(),
                        &facts.agent_version.as_str(),
                        &facts.operating_system.as_str(),
                        &facts.uname.as_str(),
                        &facts.machine_type.code(),
                        &facts.disk_capacity.map(Amount::get),
                        &facts.disk_used.map(Amount::get),
                        &facts.processor_speed.get(),
                        &facts.ram_capacity.get(),
                        &rows::at(now),
                    ],
                )
                .await?;
                if let Some(ports) = &report.ports {
                    replace_ports(tx, &serial, ports).await?;
                }
                Ok(())
            })
        })
        .await
    }
}
