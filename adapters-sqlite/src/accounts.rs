use crate::keys::{end_reset_keys, insert_mailed_key};
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::{Failure, SqliteStore, is_unique_violation};
use application::StoreError;
use application::ports::{AccountRepository, CreateAccountError, NewAccount};
use async_trait::async_trait;
use domain::{Account, AccountId, EmailAddress, InstallToken, ProfileName};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

#[async_trait]
impl AccountRepository for SqliteStore {
    async fn create(&self, new: NewAccount) -> Result<Account, CreateAccountError> {
        let queues_mail = new.verification.is_some();
        let account = self.run_mapped("create account", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let inserted = tx.execute(
                "INSERT INTO accounts (email, email_key, name, password_hash, email_verified, \
                 install_token, created_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    new.email.as_str(),
                    new.email.lookup_key(),
                    new.name.as_str(),
                    new.password_hash,
                    new.email_verified,
                    new.install_token.as_str(),
                    rows::to_secs(new.created_time),
                ],
            );
            match inserted {
                Err(e) if is_unique_violation(&e, "accounts.email_key") => {
                    return Err(Failure::Outcome(CreateAccountError::DuplicateEmail));
                }
                other => other?,
            };
            let id = AccountId(tx.last_insert_rowid());
            if let Some(token) = &new.first_token {
                tx.execute(
                    "INSERT INTO api_tokens (token_hash, account_id, created_time) VALUES (?1, ?2, ?3)",
                    params![token.as_str(), id.0, rows::to_secs(new.created_time)],
                )?;
            }
            if let Some(verification) = &new.verification {
                insert_mailed_key(&tx, id, verification)?;
            }
            tx.commit()?;
            Ok(Account {
                id,
                email: new.email,
                name: new.name,
                password_hash: new.password_hash,
                email_verified: new.email_verified,
                install_token: new.install_token,
                created_time: new.created_time,
            })
        })
        .await?;
        if queues_mail {
            self.wake_mail_worker();
        }
        Ok(account)
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, StoreError> {
        let key = email.lookup_key();
        self.run("find account by e-mail", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE email_key = ?1"
            ))?
            .query_row([key], rows::account)
            .optional()
        })
        .await
    }

    async fn update_name(&self, id: AccountId, name: &ProfileName) -> Result<Account, StoreError> {
        let name = name.as_str().to_owned();
        self.run("update account name", move |conn| {
            conn.prepare_cached(&format!(
                "UPDATE accounts SET name = ?2 WHERE id = ?1 RETURNING {ACCOUNT_COLUMNS}"
            ))?
            .query_row(params![id.0, name], rows::account)
        })
        .await
    }

    async fn set_password(&self, id: AccountId, password_hash: &str) -> Result<(), StoreError> {
        let hash = password_hash.to_owned();
        self.run("set password", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "UPDATE accounts SET password_hash = ?2 WHERE id = ?1",
                params![id.0, hash],
            )?;
            end_reset_keys(&tx, id)?;
            tx.commit()
        })
        .await
    }

    async fn replace_install_token(
        &self,
        id: AccountId,
        install_token: &InstallToken,
    ) -> Result<Account, StoreError> {
        let token = install_token.as_str().to_owned();
        self.run("replace install token", move |conn| {
            conn.prepare_cached(&format!(
                "UPDATE accounts SET install_token = ?2 WHERE id = ?1 RETURNING {ACCOUNT_COLUMNS}"
            ))?
            .query_row(params![id.0, token], rows::account)
        })
        .await
    }

    async fn find_by_install_token(
        &self,
        token: &InstallToken,
    ) -> Result<Option<Account>, StoreError> {
        let token = token.as_str().to_owned();
        self.run("find account by install token", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE install_token = ?1"
            ))?
            .query_row([token], rows::account)
            .optional()
        })
        .await
    }
}
