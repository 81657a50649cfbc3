use crate::audit::append_one;
use crate::rows::{self, account_columns};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::TokenRepository;
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, AuditNote, Timestamp};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

#[async_trait]
impl TokenRepository for SqliteStore {
    async fn issue(
        &self,
        account: AccountId,
        token: &SecretHash,
        created: Timestamp,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        let (token, audit) = (token.clone(), audit.cloned());
        self.write("issue token", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT INTO api_tokens (token_hash, account_id, created_time) VALUES (?1, ?2, ?3)",
                params![token.as_str(), account.0, rows::to_secs(created)],
            )?;
            if let Some(audit) = &audit {
                append_one(&tx, account, audit)?;
            }
            tx.commit()
        })
        .await
    }

    async fn account_for(&self, token: &SecretHash) -> Result<Option<Account>, StoreError> {
        let token = token.clone();
        self.read("authenticate token", move |conn| {
            conn.prepare_cached(concat!(
                "SELECT ",
                account_columns!(),
                " FROM api_tokens JOIN accounts ON accounts.id = api_tokens.account_id \
                 WHERE token_hash = ?1"
            ))?
            .query_row([token.as_str()], rows::account)
            .optional()
        })
        .await
    }

    async fn revoke_all(
        &self,
        account: AccountId,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        let audit = audit.cloned();
        self.write("revoke every token", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.prepare_cached("DELETE FROM api_tokens WHERE account_id = ?1")?
                .execute([account.0])?;
            if let Some(audit) = &audit {
                append_one(&tx, account, audit)?;
            }
            tx.commit()
        })
        .await
    }

    async fn revoke(
        &self,
        token: &SecretHash,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        let (token, audit) = (token.clone(), audit.cloned());
        self.write("revoke token", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let owner: Option<i64> = tx
                .prepare_cached(
                    "DELETE FROM api_tokens WHERE token_hash = ?1 RETURNING account_id",
                )?
                .query_row([token.as_str()], |row| row.get(0))
                .optional()?;
            if let (Some(owner), Some(audit)) = (owner, &audit) {
                append_one(&tx, AccountId(owner), audit)?;
            }
            tx.commit()
        })
        .await
    }
}
