use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{Admission, LockoutPolicy, LoginAttemptRepository};
use async_trait::async_trait;
use chrono::Duration;
use domain::Timestamp;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

#[async_trait]
impl LoginAttemptRepository for SqliteStore {
    async fn admit(
        &self,
        address: &str,
        now: Timestamp,
        policy: LockoutPolicy,
    ) -> Result<Admission, StoreError> {
        let address = address.to_owned();
        let (now, period) = (rows::to_secs(now), policy.period.num_seconds());
        self.write("admit login attempt", move |conn| {
            // One writer at a time: concurrent attempts are counted one by one.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let locked: Option<i64> = tx
                .prepare_cached(
                    "SELECT locked_until FROM login_failures \
                     WHERE address = ?1 AND locked_until > ?2",
                )?
                .query_row(params![address, now], |row| row.get(0))
                .optional()?;
            if let Some(until) = locked {
                return Ok(Admission::Locked(rows::from_secs(until)));
            }
            // An attempt outside the current window starts a new one.
            let failures: i64 = tx
                .prepare_cached(
                    "INSERT INTO login_failures (address, failures, window_start) VALUES (?1, 1, ?2) \
                     ON CONFLICT (address) DO UPDATE SET \
                       failures = CASE WHEN window_start + ?3 > ?2 THEN failures + 1 ELSE 1 END, \
                       window_start = CASE WHEN window_start + ?3 > ?2 THEN window_start ELSE ?2 END \
                     RETURNING failures",
                )?
                .query_row(params![address, now, period], |row| row.get(0))?;
            if failures >= i64::from(policy.max_failures) {
                // This attempt is the last the lockout allows; counting
                // starts afresh when the lock ends.
                tx.prepare_cached(
                    "UPDATE login_failures SET failures = 0, window_start = ?2, locked_until = ?3 \
                     WHERE address = ?1",
                )?
                .execute(params![address, now, now + period])?;
            }
            tx.commit()?;
            Ok(Admission::Admitted)
        })
        .await
    }

    async fn clear(&self, address: &str) -> Result<(), StoreError> {
        let address = address.to_owned();
        self.run("clear failed logins", move |conn| {
            conn.prepare_cached("DELETE FROM login_failures WHERE address = ?1")?
                .execute([address])
                .map(drop)
        })
        .await
    }

    async fn purge(&self, now: Timestamp, period: Duration) -> Result<(), StoreError> {
        let (now, period) = (rows::to_secs(now), period.num_seconds());
        self.run("purge failed logins", move |conn| {
            conn.prepare_cached(
                "DELETE FROM login_failures WHERE window_start + ?2 <= ?1 \
                 AND (locked_until IS NULL OR locked_until <= ?1)",
            )?
            .execute(params![now, period])
            .map(drop)
        })
        .await
    }
}
