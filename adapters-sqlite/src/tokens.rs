use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::TokenRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};
use rusqlite::{OptionalExtension, params};

#[async_trait]
impl TokenRepository for SqliteStore {
    async fn issue(
        &self,
        account: AccountId,
        token: &SecretHash,
        created: Timestamp,
    ) -> Result<(), StoreError> {
        let token = token.clone();
        self.run("issue token", move |conn| {
            conn.execute(
                "INSERT INTO api_tokens (token_hash, account_id, created_time) VALUES (?1, ?2, ?3)",
                params![token.as_str(), account.0, rows::to_secs(created)],
            )
            .map(drop)
        })
        .await
    }

    async fn account_for(&self, token: &SecretHash) -> Result<Option<Account>, StoreError> {
        let token = token.clone();
        self.run("authenticate token", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM api_tokens \
                 JOIN accounts ON accounts.id = api_tokens.account_id WHERE token_hash = ?1"
            ))?
            .query_row([token.as_str()], rows::account)
            .optional()
        })
        .await
    }

    async fn revoke_all(&self, account: AccountId) -> Result<(), StoreError> {
        self.run("revoke every token", move |conn| {
            conn.prepare_cached("DELETE FROM api_tokens WHERE account_id = ?1")?
                .execute([account.0])
                .map(drop)
        })
        .await
    }

    async fn revoke(&self, token: &SecretHash) -> Result<(), StoreError> {
        let token = token.clone();
        self.run("revoke token", move |conn| {
            conn.execute(
                "DELETE FROM api_tokens WHERE token_hash = ?1",
                [token.as_str()],
            )
            .map(drop)
        })
        .await
    }
}
