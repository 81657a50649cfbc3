use crate::audit::append_one;
use crate::keys::{end_reset_keys, insert_mailed_key};
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::{Failure, SqliteStore, is_unique_violation};
use application::StoreError;
use application::ports::{AccountRepository, CreateAccountError, NewAccount};
use async_trait::async_trait;
use domain::{Account, AccountId, AuditNote, EmailAddress, InstallToken, ProfileName};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

#[async_trait]
impl AccountRepository for SqliteStore {
    async fn create(
        &self,
        new: NewAccount,
        audit: &AuditNote,
    ) -> Result<Account, CreateAccountError> {
        let queues_mail = new.verification.is_some();
        let audit = audit.clone();
        let account = self.write_mapped("create account", move |conn| {
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
            append_one(&tx, id, &audit)?;
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

    async fn update_name(
        &self,
        id: AccountId,
        name: &ProfileName,
        audit: &AuditNote,
    ) -> Result<Account, StoreError> {
        let (name, audit) = (name.as_str().to_owned(), audit.clone());
        self.write("update account name", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let before: String = tx
                .prepare_cached("SELECT name FROM accounts WHERE id = ?1")?
                .query_row([id.0], |row| row.get(0))?;
            let account = tx
                .prepare_cached(&format!(
                    "UPDATE accounts SET name = ?2 WHERE id = ?1 RETURNING {ACCOUNT_COLUMNS}"
                ))?
                .query_row(params![id.0, name], rows::account)?;
            if before != name {
                append_one(&tx, id, &audit)?;
            }
            tx.commit()?;
            Ok(account)
        })
        .await
    }

    async fn set_password(
        &self,
        id: AccountId,
        password_hash: &str,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        let (hash, audit) = (password_hash.to_owned(), audit.cloned());
        self.write("set password", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "UPDATE accounts SET password_hash = ?2 WHERE id = ?1",
                params![id.0, hash],
            )?;
            end_reset_keys(&tx, id)?;
            if let Some(audit) = &audit {
                append_one(&tx, id, audit)?;
            }
            tx.commit()
        })
        .await
    }

    async fn replace_install_token(
        &self,
        id: AccountId,
        install_token: &InstallToken,
        audit: &AuditNote,
    ) -> Result<Account, StoreError> {
        let (token, audit) = (install_token.as_str().to_owned(), audit.clone());
        self.write("replace install token", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let account = tx
                .prepare_cached(&format!(
                    "UPDATE accounts SET install_token = ?2 WHERE id = ?1 \
                     RETURNING {ACCOUNT_COLUMNS}"
                ))?
                .query_row(params![id.0, token], rows::account)?;
            append_one(&tx, id, &audit)?;
            tx.commit()?;
            Ok(account)
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
