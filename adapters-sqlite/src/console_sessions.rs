use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::ConsoleSessionRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};
use rusqlite::{OptionalExtension, params};

#[async_trait]
impl ConsoleSessionRepository for SqliteStore {
    async fn open_session(
        &self,
        account: AccountId,
        session: &SecretHash,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let session = session.clone();
        self.run("open console session", move |conn| {
            conn.prepare_cached(
                "INSERT INTO console_sessions (hash, account_id, created_time, last_used) \
                 VALUES (?1, ?2, ?3, ?3)",
            )?
            .execute(params![session.as_str(), account.0, rows::to_secs(now)])
            .map(drop)
        })
        .await
    }

    async fn session_account(
        &self,
        session: &SecretHash,
        idle_after: Timestamp,
        touch_before: Timestamp,
        now: Timestamp,
    ) -> Result<Option<Account>, StoreError> {
        let session = session.clone();
        let [idle_after, touch_before, now] = [idle_after, touch_before, now].map(rows::to_secs);
        self.run("find console session", move |conn| {
            // A read first: most lookups need no write, hence no write lock.
            let found = conn
                .prepare_cached(&format!(
                    "SELECT {ACCOUNT_COLUMNS}, console_sessions.last_used FROM console_sessions \
                     JOIN accounts ON accounts.id = console_sessions.account_id \
                     WHERE hash = ?1 AND last_used > ?2"
                ))?
                .query_row(params![session.as_str(), idle_after], |row| {
                    Ok((rows::account(row)?, row.get::<_, i64>(7)?))
                })
                .optional()?;
            let Some((account, last_used)) = found else {
                return Ok(None);
            };
            if last_used < touch_before {
                conn.prepare_cached(
                    "UPDATE console_sessions SET last_used = ?2 \
                     WHERE hash = ?1 AND last_used < ?3",
                )?
                .execute(params![session.as_str(), now, touch_before])?;
            }
            Ok(Some(account))
        })
        .await
    }

    async fn close_session(&self, session: &SecretHash) -> Result<(), StoreError> {
        let session = session.clone();
        self.run("close console session", move |conn| {
            conn.prepare_cached("DELETE FROM console_sessions WHERE hash = ?1")?
                .execute([session.as_str()])
                .map(drop)
        })
        .await
    }

    async fn close_sessions(&self, account: AccountId) -> Result<(), StoreError> {
        self.run("close every console session", move |conn| {
            conn.prepare_cached("DELETE FROM console_sessions WHERE account_id = ?1")?
                .execute([account.0])
                .map(drop)
        })
        .await
    }

    async fn purge_sessions(&self, idle_before: Timestamp) -> Result<(), StoreError> {
        let before = rows::to_secs(idle_before);
        self.run("purge idle console sessions", move |conn| {
            conn.prepare_cached("DELETE FROM console_sessions WHERE last_used < ?1")?
                .execute([before])
                .map(drop)
        })
        .await
    }
}
