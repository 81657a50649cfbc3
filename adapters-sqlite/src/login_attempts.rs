use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{LockoutPolicy, LoginAttemptRepository};
use async_trait::async_trait;
use chrono::Duration;
use domain::Timestamp;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

#[async_trait]
impl LoginAttemptRepository for SqliteStore {
    async fn locked_until(
        &self,
        address: &str,
        now: Timestamp,
    ) -> Result<Option<Timestamp>, StoreError> {
        let (address, now) = (address.to_owned(), rows::to_secs(now));
        self.run("read login lock", move |conn| {
            conn.prepare_cached(
                "SELECT locked_until FROM login_failures WHERE address = ?1 AND locked_until > ?2",
            )?
            .query_row(params![address, now], |row| row.get::<_, i64>(0))
            .optional()
            .map(|until| until.map(rows::from_secs))
        })
        .await
    }

    async fn record_failure(
        &self,
        address: &str,
        now: Timestamp,
        policy: LockoutPolicy,
    ) -> Result<Option<Timestamp>, StoreError> {
        let address = address.to_owned();
        let (now, period) = (rows::to_secs(now), policy.period.num_seconds());
        self.run("count failed login", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // A failure outside the current window starts a new one.
            let failures: i64 = tx
                .prepare_cached(
                    "INSERT INTO login_failures (address, failures, window_start) VALUES (?1, 1, ?2) \
                     ON CONFLICT (address) DO UPDATE SET \
                       failures = CASE WHEN window_start + ?3 > ?2 THEN failures + 1 ELSE 1 END, \
                       window_start = CASE WHEN window_start + ?3 > ?2 THEN window_start ELSE ?2 END \
                     RETURNING failures",
                )?
                .query_row(params![address, now, period], |row| row.get(0))?;
            let locked = if failures >= i64::from(policy.max_failures) {
                let until = now + period;
                // Counting starts afresh when the lock ends.
                tx.prepare_cached(
                    "UPDATE login_failures SET failures = 0, window_start = ?2, locked_until = ?3 \
                     WHERE address = ?1",
                )?
                .execute(params![address, now, until])?;
                Some(rows::from_secs(until))
            } else {
                None
            };
            tx.commit()?;
            Ok(locked)
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
