//! The audit log's chain on PostgreSQL (docs/audit.md): the one helper
//! every audited change calls, as the last statements of its own
//! transaction, and the reading of the stored entries ([`log`]).
//!
//! How the order is serialised: [`append`] first takes the row lock on
//! `audit_chain`'s one row (`SELECT … FOR UPDATE`). Every writer of every
//! devmgr process on the database takes that same lock, so appends run one
//! at a time across all instances; each reads the head its predecessor
//! committed (in READ COMMITTED, a `FOR UPDATE` that waited reads the row's
//! newest version), seals its notes after it, inserts them and moves the
//! head. The lock is held until the change's transaction commits or rolls
//! back, so no other writer can seal after a head that is not yet durable.
//! It is taken last, after every other lock of the change, so the lock is
//! held briefly and there is no lock cycle: whoever holds it waits for
//! nothing but its own commit.
//!
//! Why there are no gaps: ids are the head's id + 1, computed under that
//! lock, never drawn from a sequence (whose numbers a rolled-back
//! transaction loses). A transaction that fails rolls back its entries and
//! the head's move together, so the next writer seals after the same head.

mod log;

use crate::prepared;
use crate::rows::read;
use application::StoreError;
use deadpool_postgres::GenericClient;
use domain::{AccountId, AuditEntry, AuditNote, ChainLink};
use tokio_postgres::Row;

/// The entry columns, in the order [`entry`] reads them.
pub(crate) const ENTRY_COLUMNS: &str = "id, time, actor_kind, actor_label, action, target, ip, \
     detail, previous_hash, hash";

/// Appends `notes`, in turn, to the chain, shown in `owner`'s log, and
/// moves the head to the last. Call it inside the change's transaction,
/// after the change it records: it takes the chain's lock, held until the
/// transaction ends. Takes no lock when there are no notes.
pub(crate) async fn append<'a>(
    c: &impl GenericClient,
    owner: AccountId,
    notes: impl IntoIterator<Item = &'a AuditNote>,
) -> Result<(), tokio_postgres::Error> {
    let mut notes = notes.into_iter().peekable();
    if notes.peek().is_none() {
        return Ok(());
    }
    let head = prepared::query_one(
        c,
        "SELECT head_id, head_hash FROM audit_chain WHERE singleton = 1 FOR UPDATE",
        &[],
    )
    .await?;
    let mut previous = ChainLink {
        id: from_sql_id(head.try_get(0)?),
        hash: head.try_get(1)?,
    };
    let entries: Vec<AuditEntry> = notes
        .map(|note| {
            let entry = note.seal(Some(&previous));
            previous = entry.link();
            entry
        })
        .collect();
    // The entries and the head's move in one statement: one round trip
    // after the lock's, however many entries.
    let column = |field: fn(&AuditEntry) -> &String| -> Vec<&str> {
        entries.iter().map(|entry| field(entry).as_str()).collect()
    };
    let ids: Vec<i64> = entries.iter().map(|entry| to_sql_id(entry.id)).collect();
    let ips: Vec<Option<&str>> = entries.iter().map(|entry| entry.ip.as_deref()).collect();
    prepared::execute(
        c,
        "WITH written AS (INSERT INTO audit_log (id, account_id, time, actor_kind, actor_label, \
         action, target, ip, detail, previous_hash, hash) \
         SELECT id, $2, time, actor_kind, actor_label, action, target, ip, detail, \
         previous_hash, hash FROM UNNEST($1::bigint[], $3::text[], $4::text[], $5::text[], \
         $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) \
         AS e (id, time, actor_kind, actor_label, action, target, ip, detail, previous_hash, \
         hash)) \
         UPDATE audit_chain SET head_id = $12, head_hash = $13 WHERE singleton = 1",
        &[
            &ids,
            &owner.0,
            &column(|e| &e.time),
            &column(|e| &e.actor_kind),
            &column(|e| &e.actor_label),
            &column(|e| &e.action),
            &column(|e| &e.target),
            &ips,
            &column(|e| &e.detail),
            &column(|e| &e.previous_hash),
            &column(|e| &e.hash),
            &to_sql_id(previous.id),
            &previous.hash,
        ],
    )
    .await?;
    Ok(())
}

/// Appends one note, shown in `owner`'s log.
pub(crate) async fn append_one(
    c: &impl GenericClient,
    owner: AccountId,
    note: &AuditNote,
) -> Result<(), tokio_postgres::Error> {
    append(c, owner, std::iter::once(note)).await
}

/// Reads an entry selected with [`ENTRY_COLUMNS`].
pub(crate) fn entry(row: &Row) -> Result<AuditEntry, StoreError> {
    Ok(AuditEntry {
        id: from_sql_id(row.try_get(0).map_err(read)?),
        time: row.try_get(1).map_err(read)?,
        actor_kind: row.try_get(2).map_err(read)?,
        actor_label: row.try_get(3).map_err(read)?,
        action: row.try_get(4).map_err(read)?,
        target: row.try_get(5).map_err(read)?,
        ip: row.try_get(6).map_err(read)?,
        detail: row.try_get(7).map_err(read)?,
        previous_hash: row.try_get(8).map_err(read)?,
        hash: row.try_get(9).map_err(read)?,
    })
}

/// An entry id as PostgreSQL stores it (`BIGINT`).
pub(crate) fn to_sql_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

/// A stored entry id (never negative as written).
pub(crate) fn from_sql_id(id: i64) -> u64 {
    u64::try_from(id).unwrap_or_default()
}
