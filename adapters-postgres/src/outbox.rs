use crate::notifications::MAIL_CHANNEL;
use crate::prepared;
use crate::rows;
use crate::store::PgStore;
use application::StoreError;
use application::mail::Email;
use application::ports::{Outbox, QueuedEmail};
use async_trait::async_trait;
use deadpool_postgres::Transaction;
use domain::Timestamp;
use std::time::Duration;

/// Queues a mail, due at once, and tells every process's worker when the
/// transaction commits. Called inside the transaction of the change that
/// causes it; the caller also wakes this process's worker after committing.
pub(crate) async fn enqueue(
    tx: &Transaction<'_>,
    email: &Email,
    queued: Timestamp,
) -> Result<(), tokio_postgres::Error> {
    let sql = "INSERT INTO outbox (id, recipient, subject, text_body, html_body, queued_time, \
             next_attempt_time) VALUES ($1, $2, $3, $4, $5, $6, $6)";
    prepared::execute(
        tx,
        sql,
        &[
            &email.id,
            &email.to,
            &email.subject,
            &email.text,
            &email.html,
            &rows::at(queued),
        ],
    )
    .await?;
    prepared::execute(tx, "SELECT pg_notify($1, '')", &[&MAIL_CHANNEL]).await?;
    Ok(())
}

#[async_trait]
impl Outbox for PgStore {
    async fn claim_due(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<QueuedEmail>, StoreError> {
        self.run("claim queued e-mail", |c| {
            Box::pin(async move {
                // One statement; SKIP LOCKED lets workers of other processes
                // claim other mail meanwhile, and never the same.
                let row = prepared::query_opt(
                    c,
                    "UPDATE outbox SET next_attempt_time = $2 WHERE id = \
                         (SELECT id FROM outbox WHERE next_attempt_time <= $1 \
                          ORDER BY next_attempt_time, queued_time, id LIMIT 1 \
                          FOR UPDATE SKIP LOCKED) \
                         RETURNING id, recipient, subject, text_body, html_body, attempts, \
                         queued_time",
                    &[&rows::at(now), &rows::at(lease_until)],
                )
                .await?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let attempts: i32 = row.try_get(5)?;
                Ok(Some(QueuedEmail {
                    email: Email {
                        id: row.try_get(0)?,
                        to: row.try_get(1)?,
                        subject: row.try_get(2)?,
                        text: row.try_get(3)?,
                        html: row.try_get(4)?,
                    },
                    attempts: u32::try_from(attempts).unwrap_or_default(),
                    queued_time: row.try_get(6)?,
                }))
            })
        })
        .await
    }

    async fn remove(&self, id: &str) -> Result<(), StoreError> {
        self.run("remove queued e-mail", |c| {
            let id = id.to_owned();
            Box::pin(async move {
                prepared::execute(c, "DELETE FROM outbox WHERE id = $1", &[&id]).await?;
                Ok(())
            })
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
        let attempts = i32::try_from(attempts).unwrap_or(i32::MAX);
        self.run("reschedule queued e-mail", |c| {
            let (id, error) = (id.to_owned(), error.to_owned());
            Box::pin(async move {
                prepared::execute(
                    c,
                    "UPDATE outbox SET attempts = $2, next_attempt_time = $3, last_error = $4 \
                     WHERE id = $1",
                    &[&id, &attempts, &rows::at(next_attempt), &error],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn next_due(&self) -> Result<Option<Timestamp>, StoreError> {
        self.run("find next queued e-mail", |c| {
            Box::pin(async move {
                let row = prepared::query_one(c, "SELECT MIN(next_attempt_time) FROM outbox", &[])
                    .await?;
                Ok(row.try_get(0)?)
            })
        })
        .await
    }

    async fn wait_for_mail(&self, timeout: Duration) {
        let _ = tokio::time::timeout(timeout, self.mail_queued()).await;
    }
}
