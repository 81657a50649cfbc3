use crate::outbox::enqueue;
use crate::rows::{self, ACCOUNT_COLUMNS};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{
    CompletedReset, EmailKeyRepository, KeyPurpose, MAX_OUTSTANDING_RESET_KEYS, MailedKey,
    NewEmailKey,
};
use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, AuditNote, Timestamp};
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
        "INSERT INTO email_keys (key_hash, account_id, purpose, expires_time, seq) \
         VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM email_keys))",
    )?
    .execute(params![
        key.hash.as_str(),
        account.0,
        purpose_code(key.purpose),
        rows::to_secs(key.expires)
    ])?;
    if key.purpose == KeyPurpose::ResetPassword {
        keep_newest_reset_keys(conn, account, key, rows::to_secs(mailed.created))?;
    }
    enqueue(conn, &mailed.mail, mailed.created)
}

/// Keeps the new reset key and the account's newest other outstanding ones,
/// [`MAX_OUTSTANDING_RESET_KEYS`] in all, and deletes the rest.
fn keep_newest_reset_keys(
    conn: &Connection,
    account: AccountId,
    new: &NewEmailKey,
    now: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM email_keys WHERE key_hash IN ( \
           SELECT key_hash FROM email_keys \
           WHERE account_id = ?1 AND purpose = 'reset_password' AND used_time IS NULL \
             AND expires_time > ?2 AND key_hash <> ?3 \
           ORDER BY seq DESC LIMIT -1 OFFSET ?4)",
    )?
    .execute(params![
        account.0,
        now,
        new.hash.as_str(),
        MAX_OUTSTANDING_RESET_KEYS as i64 - 1
    ])
    .map(drop)
}

/// Ends every reset key of the account (inside the caller's transaction).
pub(crate) fn end_reset_keys(conn: &Connection, account: AccountId) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM email_keys WHERE account_id = ?1 AND purpose = 'reset_password'",
    )?
    .execute([account.0])
    .map(drop)
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
        self.write("verify e-mail address", move |conn| {
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
        reset: &CompletedReset,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        let (key, reset, audit) = (key.clone(), reset.clone(), audit.clone());
        self.write("reset password", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let Some(account) = reset_key_account(&tx, &key, rows::to_secs(reset.now))? else {
                return Ok(false);
            };
            tx.prepare_cached(
                "UPDATE accounts SET password_hash = ?2, email_verified = 1, install_token = ?3 \
                 WHERE id = ?1",
            )?
            .execute(params![
                account.id.0,
                reset.password_hash,
                reset.install_token.as_str()
            ])?;
            end_reset_keys(&tx, account.id)?;
            tx.prepare_cached("DELETE FROM api_tokens WHERE account_id = ?1")?
                .execute([account.id.0])?;
            crate::audit::append_one(&tx, account.id, &audit)?;
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    async fn purge_keys(&self, now: Timestamp) -> Result<(), StoreError> {
        let now = rows::to_secs(now);
        self.run("purge e-mail keys", move |conn| {
            conn.prepare_cached(
                "DELETE FROM email_keys WHERE expires_time <= ?1 \
                 OR (purpose = 'reset_password' AND used_time IS NOT NULL)",
            )?
            .execute([now])
            .map(drop)
        })
        .await
    }
}
