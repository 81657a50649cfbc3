use crate::outbox::enqueue;
use crate::prepared;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::{EmailKeyRepository, KeyPurpose, MailedKey};
use async_trait::async_trait;
use deadpool_postgres::{GenericClient, Transaction};
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};

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
    enqueue(tx, &mailed.mail, mailed.created).await
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
        now: Timestamp,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        self.transaction("reset password", |tx| {
            let (key, password_hash) = (key.clone(), password_hash.to_owned());
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
                    "UPDATE accounts SET password_hash = $2, email_verified = TRUE WHERE id = $1",
                    &[&account.id.0, &password_hash],
                )
                .await?;
                prepared::execute(
                    tx,
                    "UPDATE email_keys SET used_time = $2 \
                     WHERE account_id = $1 AND purpose = 'reset_password' AND used_time IS NULL",
                    &[&account.id.0, &rows::at(now)],
                )
                .await?;
                Ok(true)
            })
        })
        .await
    }
}
