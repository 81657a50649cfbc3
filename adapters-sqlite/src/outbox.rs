use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::mail::Email;
use application::ports::{Outbox, QueuedEmail};
use async_trait::async_trait;
use domain::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};
use std::time::Duration;

/// Queues a mail, due at once; called inside the transaction of the change
/// that causes it. The caller wakes the worker after committing.
pub(crate) fn enqueue(conn: &Connection, email: &Email, queued: Timestamp) -> rusqlite::Result<()> {
    let at = rows::to_secs(queued);
    conn.prepare_cached(
        "INSERT INTO outbox (id, recipient, subject, text_body, html_body, queued_time, \
         next_attempt_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?
    .execute(params![
        email.id,
        email.to,
        email.subject,
        email.text,
        email.html,
        at
    ])
    .map(drop)
}

#[async_trait]
impl Outbox for SqliteStore {
    async fn claim_due(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<QueuedEmail>, StoreError> {
        let (now, lease_until) = (rows::to_secs(now), rows::to_secs(lease_until));
        self.run("claim queued e-mail", move |conn| {
            // One statement, so two workers can never claim the same mail.
            conn.prepare_cached(
                "UPDATE outbox SET next_attempt_time = ?2 WHERE id = \
                 (SELECT id FROM outbox WHERE next_attempt_time <= ?1 \
                  ORDER BY next_attempt_time, queued_time, id LIMIT 1) \
                 RETURNING id, recipient, subject, text_body, html_body, attempts, queued_time",
            )?
            .query_row(params![now, lease_until], |row| {
                Ok(QueuedEmail {
                    email: Email {
                        id: row.get(0)?,
                        to: row.get(1)?,
                        subject: row.get(2)?,
                        text: row.get(3)?,
                        html: row.get(4)?,
                    },
                    attempts: row.get(5)?,
                    queued_time: rows::from_secs(row.get(6)?),
                })
            })
            .optional()
        })
        .await
    }

    async fn remove(&self, id: &str) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.run("remove queued e-mail", move |conn| {
            conn.prepare_cached("DELETE FROM outbox WHERE id = ?1")?
                .execute([id])
                .map(drop)
        })
        .await
    }

    async fn retry_at(
        &self,
        id: &str,
        attempts: u32,
        next_attempt: Timestamp,
        error: &str,
    ) -> Result<(), StoreError> {
        let (id, error) = (id.to_owned(), error.to_owned());
        let next = rows::to_secs(next_attempt);
        self.run("reschedule queued e-mail", move |conn| {
            conn.prepare_cached(
                "UPDATE outbox SET attempts = ?2, next_attempt_time = ?3, last_error = ?4 \
                 WHERE id = ?1",
            )?
            .execute(params![id, attempts, next, error])
            .map(drop)
        })
        .await
    }

    async fn next_due(&self) -> Result<Option<Timestamp>, StoreError> {
        self.run("find next queued e-mail", |conn| {
            conn.prepare_cached("SELECT MIN(next_attempt_time) FROM outbox")?
                .query_row([], |row| row.get::<_, Option<i64>>(0))
                .map(|secs| secs.map(rows::from_secs))
        })
        .await
    }

    async fn wait_for_mail(&self, timeout: Duration) {
        let _ = tokio::time::timeout(timeout, self.mail_queued()).await;
    }
}
