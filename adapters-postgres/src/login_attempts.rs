use crate::prepared;
use crate::rows;
use crate::store::PgStore;
use application::StoreError;
use application::ports::{LockoutPolicy, LoginAttemptRepository};
use async_trait::async_trait;
use chrono::Duration;
use domain::Timestamp;

/// Counts a failure at `$2` of address `$1`; a window that began at or before
/// `$3` is over, and the failure starts a new one.
const COUNT_FAILURE: &str = "INSERT INTO login_failures AS f (address, failures, window_start) \
     VALUES ($1, 1, $2) \
     ON CONFLICT (address) DO UPDATE SET \
       failures = CASE WHEN f.window_start > $3 THEN f.failures + 1 ELSE 1 END, \
       window_start = CASE WHEN f.window_start > $3 THEN f.window_start ELSE $2 END \
     RETURNING failures";

#[async_trait]
impl LoginAttemptRepository for PgStore {
    async fn locked_until(
        &self,
        address: &str,
        now: Timestamp,
    ) -> Result<Option<Timestamp>, StoreError> {
        self.run("read login lock", |c| {
            let address = address.to_owned();
            Box::pin(async move {
                let sql = "SELECT locked_until FROM login_failures \
                         WHERE address = $1 AND locked_until > $2";
                let row = prepared::query_opt(c, sql, &[&address, &rows::at(now)]).await?;
                Ok(row.map(|row| row.try_get(0)).transpose()?)
            })
        })
        .await
    }

    async fn record_failure(
        &self,
        address: &str,
        now: Timestamp,
        policy: LockoutPolicy,
    ) -> Result<Option<Timestamp>, StoreError> {
        let now = rows::at(now);
        let window_floor = now - policy.period;
        self.transaction("count failed login", |tx| {
            let address = address.to_owned();
            Box::pin(async move {
                // A failure outside the current window starts a new one. The
                // upsert locks the row: concurrent failures count one by one.
                let failures: i32 =
                    prepared::query_one(tx, COUNT_FAILURE, &[&address, &now, &window_floor])
                        .await?
                        .try_get(0)?;
                if i64::from(failures) < i64::from(policy.max_failures) {
                    return Ok(None);
                }
                let until = now + policy.period;
                // Counting starts afresh when the lock ends.
                prepared::execute(
                    tx,
                    "UPDATE login_failures SET failures = 0, window_start = $2, locked_until = $3 \
                     WHERE address = $1",
                    &[&address, &now, &until],
                )
                .await?;
                Ok(Some(until))
            })
        })
        .await
    }

    async fn clear(&self, address: &str) -> Result<(), StoreError> {
        self.run("clear failed logins", |c| {
            let address = address.to_owned();
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM login_failures WHERE address = $1",
                    &[&address],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }

    async fn purge(&self, now: Timestamp, period: Duration) -> Result<(), StoreError> {
        let now = rows::at(now);
        let window_floor = now - period;
        self.run("purge failed logins", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM login_failures WHERE window_start <= $2 \
                     AND (locked_until IS NULL OR locked_until <= $1)",
                    &[&now, &window_floor],
                )
                .await?;
                Ok(())
            })
        })
        .await
    }
}
