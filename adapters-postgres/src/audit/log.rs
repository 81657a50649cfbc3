//! The [`AuditLog`] port: a standalone entry, pages of an account's log,
//! the whole log in id order, the chain's ends and retention.

use super::{ENTRY_COLUMNS, append_one, entry, from_sql_id, to_sql_id};
use crate::prepared;
use crate::rows::{self, read};
use crate::store::PgStore;
use application::StoreError;
use application::ports::{AuditFilter, AuditLog, AuditPage, ChainEnds, Window};
use async_trait::async_trait;
use domain::{AccountId, AuditEntry, AuditNote, ChainLink, Timestamp};
use tokio_postgres::types::ToSql;

/// The condition of `owner`'s entries that `filter` keeps (`$1` the owner,
/// then the action and the target when given), and the number of its
/// parameters.
fn condition(filter: &AuditFilter) -> (String, usize) {
    let mut condition = String::from("account_id = $1");
    let mut count = 1;
    if filter.action.is_some() {
        count += 1;
        condition.push_str(&format!(" AND action = ${count}"));
    }
    if filter.target.is_some() {
        count += 1;
        condition.push_str(&format!(" AND target = ${count}"));
    }
    (condition, count)
}

#[async_trait]
impl AuditLog for PgStore {
    async fn record(&self, owner: AccountId, note: &AuditNote) -> Result<(), StoreError> {
        self.transaction("record audit entry", |tx| {
            let note = note.clone();
            Box::pin(async move {
                append_one(tx, owner, &note).await?;
                Ok(())
            })
        })
        .await
    }

    async fn audit_page(
        &self,
        owner: AccountId,
        filter: &AuditFilter,
        window: Window,
    ) -> Result<AuditPage, StoreError> {
        let limit = i64::from(window.limit);
        let offset = i64::try_from(window.offset).unwrap_or(i64::MAX);
        self.transaction("read audit page", |tx| {
            let filter = filter.clone();
            Box::pin(async move {
                // The count and the page from one snapshot.
                tx.batch_execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .await?;
                let (condition, used) = condition(&filter);
                let mut params: Vec<&(dyn ToSql + Sync)> = vec![&owner.0];
                if let Some(action) = &filter.action {
                    params.push(action);
                }
                if let Some(target) = &filter.target {
                    params.push(target);
                }
                let count: i64 = prepared::query_one(
                    tx,
                    &format!("SELECT count(*) FROM audit_log WHERE {condition}"),
                    &params,
                )
                .await?
                .try_get(0)?;
                params.push(&limit);
                params.push(&offset);
                let sql = format!(
                    "SELECT {ENTRY_COLUMNS} FROM audit_log WHERE {condition} \
                     ORDER BY id DESC LIMIT ${} OFFSET ${}",
                    used + 1,
                    used + 2
                );
                let found = prepared::query(tx, &sql, &params).await?;
                Ok(AuditPage {
                    count: count.unsigned_abs(),
                    entries: rows::all(&found, entry)?,
                })
            })
        })
        .await
    }

    async fn audit_after(&self, after: u64, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        let after = to_sql_id(after);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run("read audit log", |c| {
            Box::pin(async move {
                let sql = format!(
                    "SELECT {ENTRY_COLUMNS} FROM audit_log WHERE id > $1 ORDER BY id LIMIT $2"
                );
                let found = prepared::query(c, &sql, &[&after, &limit]).await?;
                Ok(rows::all(&found, entry)?)
            })
        })
        .await
    }

    async fn chain_ends(&self) -> Result<ChainEnds, StoreError> {
        self.run("read audit chain", |c| {
            Box::pin(async move {
                let row = prepared::query_one(
                    c,
                    "SELECT head_id, head_hash, checkpoint_id, checkpoint_hash \
                     FROM audit_chain WHERE singleton = 1",
                    &[],
                )
                .await?;
                let head_id = from_sql_id(row.try_get(0).map_err(read)?);
                let head_hash: String = row.try_get(1).map_err(read)?;
                let checkpoint_id: Option<i64> = row.try_get(2).map_err(read)?;
                let checkpoint_hash: Option<String> = row.try_get(3).map_err(read)?;
                Ok(ChainEnds {
                    head: (head_id > 0).then_some(ChainLink {
                        id: head_id,
                        hash: head_hash,
                    }),
                    checkpoint: checkpoint_id
                        .zip(checkpoint_hash)
                        .map(|(id, hash)| ChainLink {
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
        self.transaction("purge audit log", |tx| {
            let before = before.clone();
            Box::pin(async move {
                // The chain's lock first: no append can commit an entry
                // older than `before` below the checkpoint meanwhile, and
                // two purges move the checkpoint one after the other.
                prepared::execute(
                    tx,
                    "SELECT 1 FROM audit_chain WHERE singleton = 1 FOR UPDATE",
                    &[],
                )
                .await?;
                let newest = prepared::query_opt(
                    tx,
                    "SELECT id, hash FROM audit_log WHERE id = \
                     (SELECT max(id) FROM audit_log WHERE time < $1)",
                    &[&before],
                )
                .await?;
                let Some(newest) = newest else {
                    return Ok(0);
                };
                let id: i64 = newest.try_get(0)?;
                let hash: String = newest.try_get(1)?;
                let deleted =
                    prepared::execute(tx, "DELETE FROM audit_log WHERE id <= $1", &[&id]).await?;
                prepared::execute(
                    tx,
                    "UPDATE audit_chain SET checkpoint_id = $1, checkpoint_hash = $2 \
                     WHERE singleton = 1",
                    &[&id, &hash],
                )
                .await?;
                Ok(deleted)
            })
        })
        .await
    }
}
