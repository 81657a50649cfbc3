//! A device's name, description and tags changed, and the `device.update`
//! entry naming the fields whose value did (docs/audit.md).

use super::{device_by_serial, tags};
use application::ports::DeviceChanges;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Device, DeviceDescription,
    DeviceName, Origin, Serial,
};
use rusqlite::{Connection, TransactionBehavior, params};

/// In one write transaction: applies `changes` to a device of `owner` and,
/// when a value changed, appends the entry by `origin`. The device after the
/// change; `None` when `owner` has no such device.
pub(super) fn update(
    conn: &mut Connection,
    owner: AccountId,
    serial: &Serial,
    changes: &DeviceChanges,
    origin: &Origin,
) -> rusqlite::Result<Option<Device>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(before) = device_by_serial(&tx, serial)?.filter(|device| device.owner == owner) else {
        return Ok(None);
    };
    let changed = changes.fields_changed_from(&before);
    if changed.is_empty() {
        return Ok(Some(before));
    }
    tx.execute(
        "UPDATE devices SET name = COALESCE(?3, name), description = COALESCE(?4, description) \
         WHERE serial = ?1 AND account_id = ?2",
        params![
            serial.as_str(),
            owner.0,
            changes.name.as_ref().map(DeviceName::as_str),
            changes.description.as_ref().map(DeviceDescription::as_str)
        ],
    )?;
    if let Some(tags) = changes.tags.as_ref().filter(|tags| **tags != before.tags) {
        tags::replace(&tx, owner, serial, tags)?;
    }
    let note = AuditNote::with_detail(
        origin.clone(),
        AuditAction::DeviceUpdate,
        AuditTarget::device(serial),
        AuditDetail::changed(changed),
    );
    crate::audit::append_one(&tx, owner, &note)?;
    let device = device_by_serial(&tx, serial)?;
    tx.commit()?;
    Ok(device)
}
