//! A device's name, description and tags changed, and the `device.update`
//! entry naming the fields whose value did (docs/audit.md).

use super::{device_by_serial, tags};
use application::ports::DeviceChanges;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Device, DeviceDescription,
    DeviceName, Origin, Serial,
};
use rusqlite::{Connection, params};

/// In a write transaction (the grouped writer's): applies `changes` to a
/// device of `owner` and, when a value changed, appends the entry by
/// `origin`. The device after the change; `None` when `owner` has no such
/// device.
pub(super) fn update(
    conn: &Connection,
    owner: AccountId,
    serial: &Serial,
    changes: &DeviceChanges,
    origin: &Origin,
) -> rusqlite::Result<Option<Device>> {
    let Some(before) = device_by_serial(conn, serial)?.filter(|device| device.owner == owner)
    else {
        return Ok(None);
    };
    let changed = changes.fields_changed_from(&before);
    if changed.is_empty() {
        return Ok(Some(before));
    }
    conn.execute(
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
        tags::replace(conn, owner, serial, tags)?;
    }
    let note = AuditNote::with_detail(
        origin.clone(),
        AuditAction::DeviceUpdate,
        AuditTarget::device(serial),
        AuditDetail::changed(changed),
    );
    crate::audit::append_one(conn, owner, &note)?;
    device_by_serial(conn, serial)
}
