//! A device's name, description and tags changed, and the `device.update`
//! entry naming the fields whose value did (docs/audit.md).

use super::tagging;
use crate::prepared;
use crate::rows::{self, DEVICE_COLUMNS};
use crate::store::Failure;
use application::StoreError;
use application::ports::DeviceChanges;
use deadpool_postgres::Transaction;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Device, DeviceDescription,
    DeviceName, Origin, Serial,
};

/// Applies `changes` to a device of `owner` and, when a value changed,
/// appends the entry by `origin` as the transaction's last statements. The
/// device after the change; `None` when `owner` has no such device.
pub(super) async fn update(
    tx: &Transaction<'_>,
    owner: AccountId,
    serial: &Serial,
    changes: &DeviceChanges,
    origin: &Origin,
) -> Result<Option<Device>, Failure<StoreError>> {
    // The row is locked first, as a bulk change of tags does.
    let sql = format!(
        "SELECT {DEVICE_COLUMNS} FROM devices WHERE serial = $1 AND account_id = $2 FOR UPDATE"
    );
    let row = prepared::query_opt(tx, &sql, &[&serial.as_str(), &owner.0]).await?;
    let Some(mut device) = row.as_ref().map(rows::device).transpose()? else {
        return Ok(None);
    };
    let changed = changes.fields_changed_from(&device);
    if changed.is_empty() {
        return Ok(Some(device));
    }
    if changed.contains(&"name") || changed.contains(&"description") {
        prepared::execute(
            tx,
            "UPDATE devices SET name = COALESCE($2, name), \
             description = COALESCE($3, description) WHERE serial = $1",
            &[
                &serial.as_str(),
                &changes.name.as_ref().map(DeviceName::as_str),
                &changes.description.as_ref().map(DeviceDescription::as_str),
            ],
        )
        .await?;
    }
    if let Some(name) = &changes.name {
        device.name = name.clone();
    }
    if let Some(description) = &changes.description {
        device.description = description.clone();
    }
    if let Some(tags) = changes.tags.as_ref().filter(|tags| **tags != device.tags) {
        tagging::replace(tx, owner, serial, tags).await?;
        device.tags = tags.clone();
    }
    let note = AuditNote::with_detail(
        origin.clone(),
        AuditAction::DeviceUpdate,
        AuditTarget::device(serial),
        AuditDetail::changed(changed),
    );
    crate::audit::append_one(tx, owner, &note).await?;
    Ok(Some(device))
}
