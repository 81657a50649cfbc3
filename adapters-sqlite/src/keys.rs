use crate::outbox::enqueue;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{EmailKeyRepository, KeyPurpose, MailedKey};
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

fn purpose_code(purpose: KeyPurpose) -> &'static str {
    match purpose {
        KeyPurpose::VerifyEmail => "verify_email",
        KeyPurpose::ResetPassword => "reset_password",
    }
}

/// Inserts a key and queues its mail; used alone and inside account creation.
pub(crate) fn insert_mailed_key(
    conn: &Connection,
    account: AccountId,
    mailed: &MailedKey,
) -> rusqlite::Result<()> {
    let key = &mailed.key;
    conn.prepare_cached(
        "INSERT INTO email_keys (key_hash, account_id, purpose, expires_time) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        key.hash.as_str(),
        account.0,
        purpose_code(key.purpose),
        rows::to_secs(key.expires)
    ])?;
    enqueue(conn, &mailed.mail, mailed.created)
}

/// The account of a reset key that is unused and unexpired at `now`.
fn reset_key_account(
    conn: &Connection,
    key: &SecretHash,
    now: i64,
) -> rusqlite::Result<Option<Account>> {
    conn.prepare_cached(&format!(
        "SELECT {ACCOUNT_COLUMNS} FROM email_keys JOIN accounts ON accounts.id = email_keys.account_id \
         WHERE key_hash = ?1 AND purpose = 'reset_password' AND used_time IS NULL AND expires_time > ?2"
    ))?
    .query_row(params![key.as_str(), now], rows::account)
    .optional()
}

#[async_trait]
impl EmailKeyRepository for SqliteStore {
    async fn store(&self, account: AccountId, key: MailedKey) -> Result<(), StoreError> {
        self.run("store e-mail key", move |conn| {
            let tx = conn.transaction()?;
            insert_mailed_key(&tx, account, &key)?;
            tx.commit()
        })
        .await?;
        self.wake_mail_worker();
        Ok(())
    }

    async fn verify_email(&self, key: &SecretHash, now: Timestamp) -> Result<bool, StoreError> {
        let (key, now) = (key.clone(), rows::to_secs(now));
        self.run("verify e-mail address", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let account: Option<i64> = tx
                .prepare_cached(
                    "UPDATE email_keys SET used_time = COALESCE(used_time, ?2) \
                     WHERE key_hash = ?1 AND purpose = 'verify_email' AND expires_time > ?2 \
                     RETURNING account_id",
                )?
                .query_row(params![key.as_str(), now], |row| row.get(0))
                .optional()?;
            if let Some(account) = account {
                tx.prepare_cached("UPDATE accounts SET email_verified = 1 WHERE id = ?1")?
                    .execute([account])?;
            }
            tx.commit()?;
            Ok(account.is_some())
        })
        .await
    }

    async fn reset_account(
        &self,
        key: &SecretHash,
        now: Timestamp,
    ) -> Result<Option<Account>, StoreError> {
        let (key, now) = (key.clone(), rows::to_secs(now));
        self.run("find reset key", move |conn| {
            reset_key_account(conn, &key, now)
        })
        .await
    }

    async fn complete_reset(
        &self,
        key: &SecretHash,
        now: Timestamp,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let (key, now) = (key.clone(), rows::to_secs(now));
        let password_hash = password_hash.to_owned();
        self.run("reset password", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let Some(account) = reset_key_account(&tx, &key, now)? else {
                return Ok(false);
            };
            tx.prepare_cached(
                "UPDATE accounts SET password_hash = ?2, email_verified = 1 WHERE id = ?1",
            )?
            .execute(params![account.id.0, password_hash])?;
            tx.prepare_cached(
                "UPDATE email_keys SET used_time = ?2 \
                 WHERE account_id = ?1 AND purpose = 'reset_password' AND used_time IS NULL",
            )?
            .execute(params![account.id.0, now])?;
            tx.commit()?;
            Ok(true)
        })
        .await
    }
}
