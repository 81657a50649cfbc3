//! The [`AuditLog`] port: a standalone entry, pages of an account's log,
//! the whole log in id order, the chain's ends and retention.

use super::{ENTRY_COLUMNS, append_one, entry, from_sql_id, to_sql_id};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{AuditFilter, AuditLog, AuditPage, ChainEnds, Window};
use async_trait::async_trait;
use domain::{AccountId, AuditNote, ChainLink, Timestamp};
use rusqlite::types::Value;
use rusqlite::{OptionalExtension, TransactionBehavior, params, params_from_iter};

/// The entries above id `?1`, ascending, at most `?2`, after the columns.
pub(super) const AFTER: &str = "FROM audit_log WHERE id > ?1 ORDER BY id LIMIT ?2";

/// The id and hash of the newest entry written before `?1`. Through the
/// index on the time, which holds just the entries retention deletes:
/// without it, SQLite would walk back from the newest entry past every
/// entry it keeps.
pub(super) const NEWEST_BEFORE: &str = "SELECT id, hash FROM audit_log \
     WHERE id = (SELECT max(id) FROM audit_log INDEXED BY audit_log_by_time WHERE time < ?1)";

/// The condition of `owner`'s entries that `filter` keeps, and its values.
pub(super) fn condition(owner: AccountId, filter: &AuditFilter) -> (String, Vec<Value>) {
    let mut condition = String::from("account_id = ?");
    let mut values = vec![Value::Integer(owner.0)];
    if let Some(action) = &filter.action {
        condition.push_str(" AND action = ?");
        values.push(Value::Text(action.clone()));
    }
    if let Some(target) = &filter.target {
        condition.push_str(" AND target = ?");
        values.push(Value::Text(target.clone()));
    }
    (condition, values)
}

/// Counts the entries of a [`condition`].
pub(super) fn count_statement(condition: &str) -> String {
    format!("SELECT count(*) FROM audit_log WHERE {condition}")
}

/// A page of the entries of a [`condition`], newest first: its values, then
/// the limit and the offset.
pub(super) fn page_statement(condition: &str) -> String {
    format!(
        "SELECT {ENTRY_COLUMNS} FROM audit_log WHERE {condition} ORDER BY id DESC LIMIT ? OFFSET ?"
    )
}

#[async_trait]
impl AuditLog for SqliteStore {
    async fn record(&self, owner: AccountId, note: &AuditNote) -> Result<(), StoreError> {
        let note = note.clone();
        self.write("record audit entry", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            append_one(&tx, owner, &note)?;
            tx.commit()
        })
        .await
    }

    async fn audit_page(
        &self,
        owner: AccountId,
        filter: &AuditFilter,
        window: Window,
    ) -> Result<AuditPage, StoreError> {
        let filter = filter.clone();
        self.run("read audit page", move |conn| {
            let (condition, values) = condition(owner, &filter);
            let tx = conn.transaction()?;
            let count: i64 = tx
                .prepare_cached(&count_statement(&condition))?
                .query_row(params_from_iter(&values), |row| row.get(0))?;
            let mut page = values.clone();
            page.push(Value::Integer(i64::from(window.limit)));
            page.push(Value::Integer(
                i64::try_from(window.offset).unwrap_or(i64::MAX),
            ));
            let entries = tx
                .prepare_cached(&page_statement(&condition))?
                .query_map(params_from_iter(&page), entry)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(AuditPage {
                count: u64::try_from(count).unwrap_or_default(),
                entries,
            })
        })
        .await
    }

    async fn audit_after(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<domain::AuditEntry>, StoreError> {
        self.run("read audit log", move |conn| {
            conn.prepare_cached(&format!("SELECT {ENTRY_COLUMNS} {AFTER}"))?
                .query_map(
                    params![to_sql_id(after), i64::try_from(limit).unwrap_or(i64::MAX)],
                    entry,
                )?
                .collect()
        })
        .await
    }

    async fn chain_ends(&self) -> Result<ChainEnds, StoreError> {
        self.run("read audit chain", |conn| {
            conn.prepare_cached(
                "SELECT head_id, head_hash, checkpoint_id, checkpoint_hash \
                 FROM audit_chain WHERE singleton = 1",
            )?
            .query_row([], |row| {
                let head_id = from_sql_id(row.get(0)?);
                let head_hash: String = row.get(1)?;
                let checkpoint: Option<i64> = row.get(2)?;
                let checkpoint_hash: Option<String> = row.get(3)?;
                Ok(ChainEnds {
                    head: (head_id > 0).then_some(ChainLink {
                        id: head_id,
                        hash: head_hash,
                    }),
                    checkpoint: checkpoint.zip(checkpoint_hash).map(|(id, hash)| ChainLink {
                        id: from_sql_id(id),
                        hash,
                    }),
                })
            })
        })
        .await
    }

    async fn purge_audit(&self, before: Timestamp) -> Result<u64, StoreError> {
        let before = domain::time::format_api(before);
        self.write("purge audit log", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let newest: Option<(i64, String)> = tx
                .prepare_cached(NEWEST_BEFORE)?
                .query_row([&before], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            let Some((id, hash)) = newest else {
                return Ok(0);
            };
            let deleted = tx
                .prepare_cached("DELETE FROM audit_log WHERE id <= ?1")?
                .execute([id])?;
            tx.prepare_cached(
                "UPDATE audit_chain SET checkpoint_id = ?1, checkpoint_hash = ?2 \
                 WHERE singleton = 1",
            )?
            .execute(params![id, hash])?;
            tx.commit()?;
            Ok(deleted as u64)
        })
        .await
    }
}
