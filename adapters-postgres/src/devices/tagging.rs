//! Tags: a device's set written whole, the account's tag counts, and a
//! change of many devices' tags at once, all or nothing.

use super::filter::{Filter, distinct as texts};
use crate::prepared;
use crate::rows;
use crate::store::Failure;
use application::StoreError;
use application::ports::Retagged;
use deadpool_postgres::{Client, Transaction};
use domain::tag::MAX_TAGS;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Origin, Selector, Serial, Tag,
    TagChange, TagCount, TagSet, Timestamp,
};
use std::collections::BTreeSet;

/// Gives a device of `owner` exactly `tags` (its row already locked or just
/// made, so no bulk change interleaves).
pub(super) async fn replace(
    tx: &Transaction<'_>,
    owner: AccountId,
    serial: &Serial,
    tags: &TagSet,
) -> Result<(), tokio_postgres::Error> {
    prepared::execute(
        tx,
        "DELETE FROM device_tags WHERE serial = $1",
        &[&serial.as_str()],
    )
    .await?;
    if !tags.is_empty() {
        prepared::execute(
            tx,
            "INSERT INTO device_tags (serial, account_id, tag) \
             SELECT $1, $2, tag FROM UNNEST($3::text[]) AS tag",
            &[&serial.as_str(), &owner.0, &texts(tags.as_slice())],
        )
        .await?;
    }
    Ok(())
}

/// Every tag on the account's devices, by name (code point order: the
/// column compares byte by byte), with how many carry it.
pub(super) async fn counts(
    c: &Client,
    owner: AccountId,
) -> Result<Vec<TagCount>, Failure<StoreError>> {
    let found = prepared::query(
        c,
        "SELECT tag, COUNT(*) FROM device_tags WHERE account_id = $1 GROUP BY tag ORDER BY tag",
        &[&owner.0],
    )
    .await?;
    found
        .iter()
        .map(|row| {
            Ok(TagCount {
                tag: Tag::from_stored(row.try_get(0).map_err(rows::read)?),
                devices: row.try_get::<_, i64>(1).map_err(rows::read)?.unsigned_abs(),
            })
        })
        .collect()
}

/// Applies `change` to every device of `owner` the selector selects, unless
/// one would end with more than [`MAX_TAGS`] tags.
///
/// Bulk changes of one account take turns (a lock on the account's row), so
/// each selects with every earlier one's result in sight; the selected
/// devices' rows are then locked in serial order, which makes a concurrent
/// edit of one device's tags wait, or wait for it.
///
/// Each device whose tag set changed gets a `device.update` entry by
/// `origin` (`{"changed": ["tags"]}`), in serial order, as the transaction's
/// last statements (docs/audit.md): the devices the statements below return
/// rows for, since a tag both removed and added is left alone and an added
/// tag already there is not inserted.
pub(super) async fn retag(
    tx: &Transaction<'_>,
    owner: AccountId,
    selector: &Selector,
    online_after: Timestamp,
    change: &TagChange,
    origin: &Origin,
) -> Result<Retagged, tokio_postgres::Error> {
    prepared::execute(
        tx,
        "SELECT FROM accounts WHERE id = $1 FOR NO KEY UPDATE",
        &[&owner.0],
    )
    .await?;
    let filter = Filter::new(owner, selector, online_after);
    let select = format!(
        "SELECT devices.serial FROM devices WHERE {} ORDER BY devices.serial \
         FOR NO KEY UPDATE OF devices",
        filter.conditions()
    );
    let serials: Vec<String> = prepared::query(tx, &select, &filter.params())
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    let matched = serials.len() as u64;
    let (remove, add) = (texts(&change.remove), texts(&change.add));
    if serials.is_empty() {
        return Ok(Retagged::Matched(0));
    }
    if too_many(tx, &serials, &remove, &add).await? {
        return Ok(Retagged::TooManyTags);
    }
    let mut changed = BTreeSet::new();
    if !remove.is_empty() {
        let deleted = prepared::query(
            tx,
            "DELETE FROM device_tags WHERE serial = ANY($1::text[]) AND tag = ANY($2::text[]) \
             AND tag <> ALL($3::text[]) RETURNING serial",
            &[&serials, &remove, &add],
        )
        .await?;
        for row in &deleted {
            changed.insert(row.try_get::<_, String>(0)?);
        }
    }
    if !add.is_empty() {
        let inserted = prepared::query(
            tx,
            "INSERT INTO device_tags (serial, account_id, tag) \
             SELECT serial, $2, tag FROM UNNEST($1::text[]) AS serial \
             CROSS JOIN UNNEST($3::text[]) AS tag ON CONFLICT DO NOTHING RETURNING serial",
            &[&serials, &owner.0, &add],
        )
        .await?;
        for row in &inserted {
            changed.insert(row.try_get::<_, String>(0)?);
        }
    }
    let notes: Vec<AuditNote> = changed
        .into_iter()
        .map(|serial| {
            AuditNote::with_detail(
                origin.clone(),
                AuditAction::DeviceUpdate,
                AuditTarget::device(&Serial::from_stored(serial)),
                AuditDetail::changed(vec!["tags"]),
            )
        })
        .collect();
    crate::audit::append(tx, owner, &notes).await?;
    Ok(Retagged::Matched(matched))
}

/// Whether one of the devices would carry more than [`MAX_TAGS`] tags after
/// losing `remove` and gaining `add`: all of `add`, and those of its tags
/// that are in neither list.
async fn too_many(
    tx: &Transaction<'_>,
    serials: &[String],
    remove: &[String],
    add: &[String],
) -> Result<bool, tokio_postgres::Error> {
    let Some(room) = MAX_TAGS.checked_sub(add.len()) else {
        return Ok(true);
    };
    let not_kept: Vec<&String> = remove.iter().chain(add).collect();
    let room = i64::try_from(room).unwrap_or(i64::MAX);
    let row = prepared::query_one(
        tx,
        "SELECT EXISTS (SELECT FROM device_tags WHERE serial = ANY($1::text[]) \
         AND tag <> ALL($2::text[]) GROUP BY serial HAVING COUNT(*) > $3)",
        &[&serials, &not_kept, &room],
    )
    .await?;
    row.try_get(0)
}
