use crate::outbox::enqueue;
use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::{
    CompletedReset, EmailKeyRepository, KeyPurpose, MAX_OUTSTANDING_RESET_KEYS, MailedKey,
    NewEmailKey,
};
use async_trait::async_trait;
use deadpool_postgres::{GenericClient, Transaction};
use domain::secret::SecretHash;
use domain::{Account, AccountId, AuditNote, Timestamp};

fn purpose_code(purpose: KeyPurpose) -> &'static str {
    match purpose {
        KeyPurpose::VerifyEmail => "verify_email",
        KeyPurpose::ResetPassword => "reset_password",
    }
}

/// Inserts a key and queues its mail; used alone and inside account creation.
pub(crate) async fn insert_mailed_key(
    tx: &Transaction<'_>,
    account: AccountId,
    mailed: &MailedKey,
) -> Result<(), tokio_postgres::Error> {
    let key = &mailed.key;
    prepared::execute(
        tx,
        "INSERT INTO email_keys (key_hash, account_id, purpose, expires_time) \
         VALUES ($1, $2, $3, $4)",
        &[
            &key.hash.as_str(),
            &account.0,
            &purpose_code(key.purpose),
            &rows::at(key.expires),
        ],
    )
    .await?;
    if key.purpose == KeyPurpose::ResetPassword {
        keep_newest_reset_keys(tx, account, key, mailed.created).await?;
    }
    enqueue(tx, &mailed.mail, mailed.created).await
}

/// Keeps the new reset key and the account's newest other outstanding ones,
/// [`MAX_OUTSTANDING_RESET_KEYS`] in all, and deletes the rest. Requests for
/// one account take turns on its row, so the count holds under concurrency.
async fn keep_newest_reset_keys(
    tx: &Transaction<'_>,
    account: AccountId,
    new: &NewEmailKey,
    now: Timestamp,
) -> Result<(), tokio_postgres::Error> {
    prepared::execute(
        tx,
        "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE",
        &[&account.0],
    )
    .await?;
    let keep = MAX_OUTSTANDING_RESET_KEYS as i64 - 1;
    prepared::execute(
        tx,
        "DELETE FROM email_keys WHERE key_hash IN ( \
           SELECT key_hash FROM email_keys \
           WHERE account_id = $1 AND purpose = 'reset_password' AND used_time IS NULL \
             AND expires_time > $2 AND key_hash <> $3 \
           ORDER BY seq DESC OFFSET $4)",
        &[&account.0, &rows::at(now), &new.hash.as_str(), &keep],
    )
    .await?;
    Ok(())
}

/// Ends every reset key of the account (inside the caller's transaction).
pub(crate) async fn end_reset_keys(
    tx: &Transaction<'_>,
    account: AccountId,
) -> Result<(), tokio_postgres::Error> {
    prepared::execute(
        tx,
        "DELETE FROM email_keys WHERE account_id = $1 AND purpose = 'reset_password'",
        &[&account.0],
    )
    .await?;
    Ok(())
}

/// The account of a reset key that is unused and unexpired at `now`.
async fn reset_key_account(
    c: &impl GenericClient,
    key: &SecretHash,
    now: Timestamp,
) -> Result<Option<Account>, crate::store::Failure<StoreError>> {
    let sql = format!(
        "SELECT {ACCOUNT_COLUMNS} FROM email_keys JOIN accounts ON accounts.id = email_keys.account_id \
         WHERE key_hash = $1 AND purpose = 'reset_password' AND used_time IS NULL \
         AND expires_time > $2"
    );
    let row = prepared::query_opt(c, &sql, &[&key.as_str(), &rows::at(now)]).await?;
    Ok(row.as_ref().map(rows::account).transpose()?)
}

#[async_trait]
impl EmailKeyRepository for PgStore {
    async fn store(&self, account: AccountId, key: MailedKey) -> Result<(), StoreError> {
        self.transaction("store e-mail key", |tx| {
            let key = key.clone();
            Box::pin(async move { Ok(insert_mailed_key(tx, account, &key).await?) })
        })
        .await?;
        self.wake_mail_worker();
        Ok(())
    }

    async fn verify_email(&self, key: &SecretHash, now: Timestamp) -> Result<bool, StoreError> {
        self.transaction("verify e-mail address", |tx| {
            let key = key.clone();
            Box::pin(async move {
                let account = prepared::query_opt(
                    tx,
                    "UPDATE email_keys SET used_time = COALESCE(used_time, $2) \
                         WHERE key_hash = $1 AND purpose = 'verify_email' AND expires_time > $2 \
                         RETURNING account_id",
                    &[&key.as_str(), &rows::at(now)],
                )
                .await?;
                let Some(account) = account else {
                    return Ok(false);
                };
                let id: i64 = account.try_get(0)?;
                prepared::execute(
                    tx,
                    "UPDATE accounts SET email_verified = TRUE WHERE id = $1",
                    &[&id],
                )
                .await?;
                Ok(true)
            })
        })
        .await
    }

    async fn reset_account(
        &self,
        key: &SecretHash,
        now: Timestamp,
    ) -> Result<Option<Account>, StoreError> {
        self.run("find reset key", |c| {
            let key = key.clone();
            Box::pin(async move { reset_key_account(c, &key, now).await })
        })
        .await
    }

    async fn complete_reset(
        &self,
        key: &SecretHash,
        reset: &CompletedReset,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        self.transaction("reset password", |tx| {
            let (key, reset, audit) = (key.clone(), reset.clone(), audit.clone());
            let now = reset.now;
            Box::pin(async move {
                let Some(account) = reset_key_account(tx, &key, now).await? else {
                    return Ok(false);
                };
                // Resets of one account take turns here (whichever key they
                // use), and a later one finds its key ended by the first.
                prepared::execute(
                    tx,
                    "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE",
                    &[&account.id.0],
                )
                .await?;
                if reset_key_account(tx, &key, now).await?.is_none() {
                    return Ok(false);
                }
                prepared::execute(
                    tx,
                    "UPDATE accounts SET password_hash = $2, email_verified = TRUE, \
                     install_token = $3 WHERE id = $1",
                    &[
                        &account.id.0,
                        &reset.password_hash,
                        &reset.install_token.as_str(),
                    ],
                )
                .await?;
                end_reset_keys(tx, account.id).await?;
                prepared::execute(
                    tx,
                    "DELETE FROM api_tokens WHERE account_id = $1",
                    &[&account.id.0],
                )
                .await?;
                crate::audit::append_one(tx, account.id, &audit).await?;
                Ok(true)
            })
        })
        .await
    }

    async fn purge_keys(&self, now: Timestamp) -> Result<(), StoreError> {
        self.run("purge e-mail keys", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM email_keys WHERE expires_time <= $1 \
                     OR (purpose = 'reset_password' AND used_time IS NOT NULL)",
                    &[&rows::at(now)],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }
}
