use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::ConsoleSessionRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};

#[async_trait]
impl ConsoleSessionRepository for PgStore {
    async fn open_session(
        &self,
        account: AccountId,
        session: &SecretHash,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.run("open console session", |c| {
            let session = session.clone();
            Box::pin(async move {
                prepared::execute(
                    c,
                    "INSERT INTO console_sessions (hash, account_id, created_time, last_used) \
                     VALUES ($1, $2, $3, $3)",
                    &[&session.as_str(), &account.0, &rows::at(now)],
                )
                .await?;
                Ok(())
            })
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
        let [idle_after, touch_before, now] = [idle_after, touch_before, now].map(rows::at);
        self.run("find console session", |c| {
            let session = session.clone();
            Box::pin(async move {
                // One statement: the touch (when due) runs whether or not
                // the SELECT reads it, and the SELECT sees the row as it was.
                let sql = format!(
                    "WITH touched AS (\
                         UPDATE console_sessions SET last_used = $4 \
                         WHERE hash = $1 AND last_used > $2 AND last_used < $3) \
                     SELECT {ACCOUNT_COLUMNS} FROM console_sessions \
                     JOIN accounts ON accounts.id = console_sessions.account_id \
                     WHERE hash = $1 AND last_used > $2"
                );
                let row = prepared::query_opt(
                    c,
                    &sql,
                    &[&session.as_str(), &idle_after, &touch_before, &now],
                )
                .await?;
                Ok(row.as_ref().map(rows::account).transpose()?)
            })
        })
        .await
    }

    async fn close_session(&self, session: &SecretHash) -> Result<(), StoreError> {
        self.run("close console session", |c| {
            let session = session.clone();
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM console_sessions WHERE hash = $1",
                    &[&session.as_str()],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn close_sessions(&self, account: AccountId) -> Result<(), StoreError> {
        self.run("close every console session", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM console_sessions WHERE account_id = $1",
                    &[&account.0],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn purge_sessions(&self, idle_before: Timestamp) -> Result<(), StoreError> {
        let before = rows::at(idle_before);
        self.run("purge idle console sessions", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM console_sessions WHERE last_used < $1",
                    &[&before],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }
}
