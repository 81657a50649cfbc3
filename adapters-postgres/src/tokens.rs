use crate::audit::append_one;
use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::TokenRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, AuditNote, Timestamp};

#[async_trait]
impl TokenRepository for PgStore {
    async fn issue(
        &self,
        account: AccountId,
        token: &SecretHash,
        created: Timestamp,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        self.transaction("issue token", |tx| {
            let (token, audit) = (token.clone(), audit.cloned());
            Box::pin(async move {
                prepared::execute(
                    tx,
                    "INSERT INTO api_tokens (token_hash, account_id, created_time) \
                     VALUES ($1, $2, $3)",
                    &[&token.as_str(), &account.0, &rows::at(created)],
                )
                .await?;
                if let Some(audit) = &audit {
                    append_one(tx, account, audit).await?;
                }
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

    async fn revoke_all(
        &self,
        account: AccountId,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        self.transaction("revoke every token", |tx| {
            let audit = audit.cloned();
            Box::pin(async move {
                prepared::execute(
                    tx,
                    "DELETE FROM api_tokens WHERE account_id = $1",
                    &[&account.0],
                )
                .await?;
                if let Some(audit) = &audit {
                    append_one(tx, account, audit).await?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn revoke(
        &self,
        token: &SecretHash,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        self.transaction("revoke token", |tx| {
            let (token, audit) = (token.clone(), audit.cloned());
            Box::pin(async move {
                let deleted = prepared::query_opt(
                    tx,
                    "DELETE FROM api_tokens WHERE token_hash = $1 RETURNING account_id",
                    &[&token.as_str()],
                )
                .await?;
                // Only a token that was there, to its own account's log.
                if let (Some(row), Some(audit)) = (deleted, &audit) {
                    append_one(tx, AccountId(row.try_get(0)?), audit).await?;
                }
                Ok(())
            })
        })
        .await
    }
}
