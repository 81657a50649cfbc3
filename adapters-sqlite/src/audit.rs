//! The audit log's chain (docs/audit.md): the one helper every audited
//! change calls, as the last statements of its own `BEGIN IMMEDIATE`
//! transaction, and the reading of the stored entries.
//!
//! The write lock of the transaction is what serialises appends: the head
//! read here cannot move before the transaction commits, so ids run 1, 2, 3
//! … without gaps and each entry links to the one before.

mod log;
#[cfg(test)]
mod plans;

use domain::{AccountId, AuditEntry, AuditNote, ChainLink};
use rusqlite::{Connection, Row, params};

/// The entry columns, in the order [`entry`] reads them.
pub(crate) const ENTRY_COLUMNS: &str = "id, time, actor_kind, actor_label, action, target, ip, \
     detail, previous_hash, hash";

/// Appends `notes`, in turn, to the chain, shown in `owner`'s log, and
/// moves the head to the last. Call it inside a write transaction, after
/// the change it records.
pub(crate) fn append<'a>(
    conn: &Connection,
    owner: AccountId,
    notes: impl IntoIterator<Item = &'a AuditNote>,
) -> rusqlite::Result<()> {
    let mut previous = head(conn)?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO audit_log (id, account_id, time, actor_kind, actor_label, action, target, \
         ip, detail, previous_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut moved = false;
    for note in notes {
        let entry = note.seal(Some(&previous));
        insert.execute(params![
            to_sql_id(entry.id),
            owner.0,
            entry.time,
            entry.actor_kind,
            entry.actor_label,
            entry.action,
            entry.target,
            entry.ip,
            entry.detail,
            entry.previous_hash,
            entry.hash,
        ])?;
        previous = entry.link();
        moved = true;
    }
    if moved {
        conn.prepare_cached(
            "UPDATE audit_chain SET head_id = ?1, head_hash = ?2 WHERE singleton = 1",
        )?
        .execute(params![to_sql_id(previous.id), previous.hash])?;
    }
    Ok(())
}

/// Appends one note, shown in `owner`'s log.
pub(crate) fn append_one(
    conn: &Connection,
    owner: AccountId,
    note: &AuditNote,
) -> rusqlite::Result<()> {
    append(conn, owner, std::iter::once(note))
}

/// The newest entry written: id 0 and 64 zeros before the first, which
/// seals the first entry as [`AuditNote::seal`] with `None` does.
fn head(conn: &Connection) -> rusqlite::Result<ChainLink> {
    conn.prepare_cached("SELECT head_id, head_hash FROM audit_chain WHERE singleton = 1")?
        .query_row([], |row| {
            Ok(ChainLink {
                id: from_sql_id(row.get(0)?),
                hash: row.get(1)?,
            })
        })
}

/// Reads an entry selected with [`ENTRY_COLUMNS`].
pub(crate) fn entry(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        id: from_sql_id(row.get(0)?),
        time: row.get(1)?,
        actor_kind: row.get(2)?,
        actor_label: row.get(3)?,
        action: row.get(4)?,
        target: row.get(5)?,
        ip: row.get(6)?,
        detail: row.get(7)?,
        previous_hash: row.get(8)?,
        hash: row.get(9)?,
    })
}

/// An entry id as SQLite stores it.
pub(crate) fn to_sql_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

/// A stored entry id (never negative as written).
pub(crate) fn from_sql_id(id: i64) -> u64 {
    u64::try_from(id).unwrap_or_default()
}
