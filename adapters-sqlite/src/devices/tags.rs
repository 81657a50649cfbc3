//! Tags on devices: a listing's devices given theirs, a device's set
//! replaced, an account's tags counted, and a bulk change over the devices
//! a selector selects.

use super::selection::{Filter, distinct, json_array};
use application::ports::Retagged;
use domain::tag::MAX_TAGS;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Device, Origin, Selector, Serial,
    Tag, TagChange, TagCount, TagSet, Timestamp,
};
use rusqlite::types::Value;
use rusqlite::{Connection, TransactionBehavior, params, params_from_iter};
use std::collections::HashMap;

/// Gives each of `devices`, read without their tags, its tags: in one
/// statement over the account's tags when the devices are most of the
/// account's (`most_of_account`), else by their serials. Either way one
/// statement, instead of one seek per device.
pub(crate) fn attach(
    conn: &Connection,
    owner: AccountId,
    devices: &mut [Device],
    most_of_account: bool,
) -> rusqlite::Result<()> {
    if devices.is_empty() {
        return Ok(());
    }
    let (statement, key) = if most_of_account {
        (
            "SELECT serial, tag FROM device_tags WHERE account_id = ?1",
            Value::Integer(owner.0),
        )
    } else {
        (
            "SELECT serial, tag FROM device_tags \
             WHERE serial IN (SELECT value FROM json_each(?1))",
            Value::Text(json_array(devices.iter().map(|d| d.serial.as_str()))),
        )
    };
    let mut found: HashMap<String, Vec<Tag>> = HashMap::new();
    let mut statement = conn.prepare_cached(statement)?;
    let mut rows = statement.query([key])?;
    while let Some(row) = rows.next()? {
        found
            .entry(row.get(0)?)
            .or_default()
            .push(Tag::from_stored(row.get(1)?));
    }
    for device in devices {
        if let Some(tags) = found.remove(device.serial.as_str()) {
            device.tags = TagSet::from_stored(tags);
        }
    }
    Ok(())
}

/// Gives a device of `owner` exactly `tags`.
pub(crate) fn replace(
    conn: &Connection,
    owner: AccountId,
    serial: &Serial,
    tags: &TagSet,
) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM device_tags WHERE serial = ?1")?
        .execute([serial.as_str()])?;
    if !tags.is_empty() {
        conn.prepare_cached(
            "INSERT INTO device_tags (serial, account_id, tag) \
             SELECT ?1, ?2, value FROM json_each(?3)",
        )?
        .execute(params![
            serial.as_str(),
            owner.0,
            json_array(tags.as_slice().iter().map(Tag::as_str))
        ])?;
    }
    Ok(())
}

/// Every tag on one of the account's devices, by name, with how many carry it.
pub(crate) fn counts(conn: &Connection, owner: AccountId) -> rusqlite::Result<Vec<TagCount>> {
    conn.prepare_cached(
        "SELECT tag, COUNT(*) FROM device_tags WHERE account_id = ?1 GROUP BY tag ORDER BY tag",
    )?
    .query_map([owner.0], |row| {
        Ok(TagCount {
            tag: Tag::from_stored(row.get(0)?),
            devices: row.get::<_, i64>(1)?.unsigned_abs(),
        })
    })?
    .collect()
}

/// In one write transaction: the selected devices (kept aside in a
/// temporary table, so removing tags cannot change the selection) lose the
/// `remove` tags and gain the `add` tags, unless one would then carry more
/// than [`MAX_TAGS`]. Each device whose tags change gets a `device.update`
/// entry by `origin`, in serial order (docs/audit.md).
pub(crate) fn retag(
    conn: &mut Connection,
    owner: AccountId,
    selector: &Selector,
    online_after: Timestamp,
    change: &TagChange,
    origin: &Origin,
) -> rusqlite::Result<Retagged> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS retag_selection (serial TEXT PRIMARY KEY) WITHOUT ROWID; \
         DELETE FROM temp.retag_selection;",
    )?;
    let filter = Filter::new(owner, selector, online_after);
    let selected = tx
        .prepare_cached(&format!(
            "INSERT INTO temp.retag_selection (serial) SELECT devices.serial FROM {} WHERE {}",
            filter.from, filter.sql
        ))?
        .execute(params_from_iter(filter.values))?;
    let remove = json_array(distinct(&change.remove));
    let add = distinct(&change.add);
    let added = add.len();
    let add = json_array(add);
    let outcome = if added > 0 && too_many(&tx, &remove, &add, added)? {
        Retagged::TooManyTags
    } else {
        let changing = changing(&tx, &remove, &add)?;
        tx.prepare_cached(
            "DELETE FROM device_tags WHERE serial IN (SELECT serial FROM temp.retag_selection) \
             AND tag IN (SELECT value FROM json_each(?1))",
        )?
        .execute([&remove])?;
        tx.prepare_cached(
            "INSERT OR IGNORE INTO device_tags (serial, account_id, tag) \
             SELECT s.serial, ?1, a.value FROM temp.retag_selection AS s, json_each(?2) AS a",
        )?
        .execute(params![owner.0, add])?;
        let notes = changing.iter().map(|serial| {
            AuditNote::with_detail(
                origin.clone(),
                AuditAction::DeviceUpdate,
                AuditTarget::device(serial),
                AuditDetail::changed(vec!["tags"]),
            )
        });
        crate::audit::append(&tx, owner, notes.collect::<Vec<_>>().iter())?;
        Retagged::Matched(u64::try_from(selected).unwrap_or(u64::MAX))
    };
    tx.execute_batch("DELETE FROM temp.retag_selection")?;
    match outcome {
        Retagged::Matched(_) => tx.commit()?,
        Retagged::TooManyTags => tx.rollback()?,
    }
    Ok(outcome)
}

/// The selected devices whose tags the change alters, in serial order: those
/// that carry a tag removed and not added back, or lack a tag added.
fn changing(conn: &Connection, remove: &str, add: &str) -> rusqlite::Result<Vec<Serial>> {
    conn.prepare_cached(
        "SELECT s.serial FROM temp.retag_selection AS s WHERE EXISTS (SELECT 1 FROM device_tags \
           AS t WHERE t.serial = s.serial AND t.tag IN (SELECT value FROM json_each(?1)) \
           AND t.tag NOT IN (SELECT value FROM json_each(?2))) \
         OR EXISTS (SELECT 1 FROM json_each(?2) AS a WHERE NOT EXISTS (SELECT 1 \
           FROM device_tags AS t WHERE t.serial = s.serial AND t.tag = a.value)) \
         ORDER BY s.serial",
    )?
    .query_map([remove, add], |row| Ok(Serial::from_stored(row.get(0)?)))?
    .collect()
}

/// Whether a selected device would carry more than [`MAX_TAGS`]: its tags
/// neither removed nor added, plus the `added` distinct tags added.
fn too_many(conn: &Connection, remove: &str, add: &str, added: usize) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM temp.retag_selection AS s \
         WHERE ?3 + (SELECT COUNT(*) FROM device_tags AS t WHERE t.serial = s.serial \
           AND t.tag NOT IN (SELECT value FROM json_each(?1)) \
           AND t.tag NOT IN (SELECT value FROM json_each(?2))) > ?4)",
    )?
    .query_row(
        params![
            remove,
            add,
            i64::try_from(added).unwrap_or(i64::MAX),
            i64::try_from(MAX_TAGS).unwrap_or(i64::MAX)
        ],
        |row| row.get(0),
    )
}
