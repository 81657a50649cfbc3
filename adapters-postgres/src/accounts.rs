use crate::audit::append_one;
use crate::keys::{end_reset_keys, insert_mailed_key};
use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::{Failure, PgStore, violates};
use application::StoreError;
use application::ports::{AccountRepository, CreateAccountError, NewAccount};
use async_trait::async_trait;
use domain::{Account, AccountId, AuditNote, EmailAddress, InstallToken, ProfileName};

#[async_trait]
impl AccountRepository for PgStore {
    async fn create(
        &self,
        new: NewAccount,
        audit: &AuditNote,
    ) -> Result<Account, CreateAccountError> {
        let queues_mail = new.verification.is_some();
        let id = self
            .transaction("create account", |tx| {
                let (new, audit) = (new.clone(), audit.clone());
                Box::pin(async move {
                    let inserted = prepared::query_one(
                        tx,
                        "INSERT INTO accounts (email, email_key, name, password_hash, \
                             email_verified, install_token, created_time) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                        &[
                            &new.email.as_str(),
                            &new.email.lookup_key(),
                            &new.name.as_str(),
                            &new.password_hash,
                            &new.email_verified,
                            &new.install_token.as_str(),
                            &rows::at(new.created_time),
                        ],
                    )
                    .await;
                    let id = match inserted {
                        Err(e) if violates(&e, "accounts_email_key_unique") => {
                            return Err(Failure::Outcome(CreateAccountError::DuplicateEmail));
                        }
                        other => AccountId(other?.try_get(0)?),
                    };
                    if let Some(token) = &new.first_token {
                        prepared::execute(
                            tx,
                            "INSERT INTO api_tokens (token_hash, account_id, created_time) \
                             VALUES ($1, $2, $3)",
                            &[&token.as_str(), &id.0, &rows::at(new.created_time)],
                        )
                        .await?;
                    }
                    if let Some(verification) = &new.verification {
                        insert_mailed_key(tx, id, verification).await?;
                    }
                    append_one(tx, id, &audit).await?;
                    Ok(id)
                })
            })
            .await?;
        if queues_mail {
            self.wake_mail_worker();
        }
        Ok(Account {
            id,
            email: new.email,
            name: new.name,
            password_hash: new.password_hash,
            email_verified: new.email_verified,
            install_token: new.install_token,
            created_time: new.created_time,
        })
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, StoreError> {
        let key = email.lookup_key();
        self.run("find account by e-mail", |c| {
            let key = key.clone();
            Box::pin(async move {
                let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE email_key = $1");
                let row = prepared::query_opt(c, &sql, &[&key]).await?;
                Ok(row.as_ref().map(rows::account).transpose()?)
            })
        })
        .await
    }

    async fn update_name(
        &self,
        id: AccountId,
        name: &ProfileName,
        audit: &AuditNote,
    ) -> Result<Account, StoreError> {
        self.transaction("update account name", |tx| {
            let (name, audit) = (name.as_str().to_owned(), audit.clone());
            Box::pin(async move {
                let before: String = prepared::query_one(
                    tx,
                    "SELECT name FROM accounts WHERE id = $1 FOR UPDATE",
                    &[&id.0],
                )
                .await?
                .try_get(0)?;
                let sql = format!(
                    "UPDATE accounts SET name = $2 WHERE id = $1 RETURNING {ACCOUNT_COLUMNS}"
                );
                let row = prepared::query_one(tx, &sql, &[&id.0, &name]).await?;
                if before != name {
                    append_one(tx, id, &audit).await?;
                }
                Ok(rows::account(&row)?)
            })
        })
        .await
    }

    async fn set_password(
        &self,
        id: AccountId,
        password_hash: &str,
        audit: Option<&AuditNote>,
    ) -> Result<(), StoreError> {
        self.transaction("set password", |tx| {
            let (hash, audit) = (password_hash.to_owned(), audit.cloned());
            Box::pin(async move {
                prepared::execute(
                    tx,
                    "UPDATE accounts SET password_hash = $2 WHERE id = $1",
                    &[&id.0, &hash],
                )
                .await?;
                end_reset_keys(tx, id).await?;
                if let Some(audit) = &audit {
                    append_one(tx, id, audit).await?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn replace_install_token(
        &self,
        id: AccountId,
        install_token: &InstallToken,
        audit: &AuditNote,
    ) -> Result<Account, StoreError> {
        self.transaction("replace install token", |tx| {
            let (token, audit) = (install_token.as_str().to_owned(), audit.clone());
            Box::pin(async move {
                let sql = format!(
                    "UPDATE accounts SET install_token = $2 WHERE id = $1 \
                     RETURNING {ACCOUNT_COLUMNS}"
                );
                let row = prepared::query_one(tx, &sql, &[&id.0, &token]).await?;
                append_one(tx, id, &audit).await?;
                Ok(rows::account(&row)?)
            })
        })
        .await
    }

    async fn find_by_install_token(
        &self,
        token: &InstallToken,
    ) -> Result<Option<Account>, StoreError> {
        self.run("find account by install token", |c| {
            let token = token.as_str().to_owned();
            Box::pin(async move {
                let sql =
                    format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE install_token = $1");
                let row = prepared::query_opt(c, &sql, &[&token]).await?;
                Ok(row.as_ref().map(rows::account).transpose()?)
            })
        })
        .await
    }
}
