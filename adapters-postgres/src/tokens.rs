use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::TokenRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};

#[async_trait]
impl TokenRepository for PgStore {
    async fn issue(
        &self,
        account: AccountId,
        token: &SecretHash,
        created: Timestamp,
    ) -> Result<(), StoreError> {
        self.run("issue token", |c| {
            let token = token.clone();
            Box::pin(async move {
                prepared::execute(
                    c,
                    "INSERT INTO api_tokens (token_hash, account_id, created_time) \
                     VALUES ($1, $2, $3)",
                    &[&token.as_str(), &account.0, &rows::at(created)],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn account_for(&self, token: &SecretHash) -> Result<Option<Account>, StoreError> {
        self.run("authenticate token", |c| {
            let token = token.clone();
            Box::pin(async move {
                let sql = format!(
                    "SELECT {ACCOUNT_COLUMNS} FROM api_tokens \
                     JOIN accounts ON accounts.id = api_tokens.account_id WHERE token_hash = $1"
                );
                let row = prepared::query_opt(c, &sql, &[&token.as_str()]).await?;
                Ok(row.as_ref().map(rows::account).transpose()?)
            })
        })
        .await
    }

    async fn revoke_all(&self, account: AccountId) -> Result<(), StoreError> {
        self.run("revoke every token", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM api_tokens WHERE account_id = $1",
                    &[&account.0],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn revoke(&self, token: &SecretHash) -> Result<(), StoreError> {
        self.run("revoke token", |c| {
            let token = token.clone();
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM api_tokens WHERE token_hash = $1",
                    &[&token.as_str()],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }
}
