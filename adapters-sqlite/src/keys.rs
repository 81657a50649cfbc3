use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{EmailKeyRepository, KeyPurpose, NewEmailKey};
use async_trait::async_trait;
use domain::AccountId;
use rusqlite::{Connection, params};

fn purpose_code(purpose: KeyPurpose) -> &'static str {
    match purpose {
        KeyPurpose::VerifyEmail => "verify_email",
        KeyPurpose::ResetPassword => "reset_password",
    }
}

/// Inserts a key; used alone and inside account creation.
pub(crate) fn insert_key(
    conn: &Connection,
    account: AccountId,
    key: &NewEmailKey,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO email_keys (key_hash, account_id, purpose, expires_time) VALUES (?1, ?2, ?3, ?4)",
        params![key.hash.as_str(), account.0, purpose_code(key.purpose), rows::to_secs(key.expires)],
    )
    .map(drop)
}

#[async_trait]
impl EmailKeyRepository for SqliteStore {
    async fn store(&self, account: AccountId, key: NewEmailKey) -> Result<(), StoreError> {
        self.run("store e-mail key", move |conn| {
            insert_key(conn, account, &key)
        })
        .await
    }
}
