//! Enrolment: a new device, or an enrolled one given a new token.

use crate::prepared;
use crate::rows::{self, DEVICE_COLUMNS};
use crate::store::Failure;
use application::ports::{EnrolError, Enrolment};
use deadpool_postgres::Transaction;
use domain::{Device, MachineType, Serial};

/// The device with this serial, locked until the transaction ends.
pub(super) async fn lock_device<E>(
    tx: &Transaction<'_>,
    serial: &Serial,
) -> Result<Option<Device>, Failure<E>> {
    let sql = format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE serial = $1 FOR UPDATE");
    let row = prepared::query_opt(tx, &sql, &[&serial.as_str()]).await?;
    Ok(row.as_ref().map(rows::device).transpose()?)
}

/// A new device from an enrolment (no facts but the machine type), unless a
/// device with its serial exists by now.
pub(super) async fn insert_enrolled(
    tx: &Transaction<'_>,
    e: &Enrolment,
) -> Result<Option<Device>, Failure<EnrolError>> {
    let sql = format!(
        "INSERT INTO devices (serial, account_id, name, wormhole_slug, machine_type, token_hash, \
         created_time) VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (serial) DO NOTHING RETURNING {DEVICE_COLUMNS}"
    );
    let row = prepared::query_opt(
        tx,
        &sql,
        &[
            &e.serial.as_str(),
            &e.owner.0,
            &e.name.as_str(),
            &e.wormhole_slug,
            &e.machine_type.unwrap_or_default().code(),
            &e.token.as_str(),
            &rows::at(e.now),
        ],
    )
    .await?;
    Ok(row.as_ref().map(rows::device).transpose()?)
}

/// An enrolled device again: a new token, the name, and the machine type when
/// sent; only the owner's own device.
pub(super) async fn rekey(
    tx: &Transaction<'_>,
    existing: &Device,
    e: &Enrolment,
) -> Result<Device, Failure<EnrolError>> {
    if existing.owner != e.owner {
        return Err(Failure::Outcome(EnrolError::ForeignSerial));
    }
    if existing
        .last_seen
        .is_some_and(|seen| seen > rows::at(e.online_after))
    {
        return Err(Failure::Outcome(EnrolError::Online));
    }
    let sql = format!(
        "UPDATE devices SET name = $2, machine_type = COALESCE($3, machine_type), \
         token_hash = $4 WHERE serial = $1 RETURNING {DEVICE_COLUMNS}"
    );
    let row = prepared::query_one(
        tx,
        &sql,
        &[
            &e.serial.as_str(),
            &e.name.as_str(),
            &e.machine_type.map(MachineType::code),
            &e.token.as_str(),
        ],
    )
    .await?;
    Ok(rows::device(&row)?)
}
