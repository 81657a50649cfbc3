use crate::prepared;
use crate::rows;
use crate::store::PgStore;
use application::StoreError;
use application::ports::{Admission, LockoutPolicy, LoginAttemptRepository};
use async_trait::async_trait;
use chrono::Duration;
use domain::Timestamp;

/// Counts a failure at `$2` of address `$1`; a window that began at or before
/// `$3` is over, and the failure starts a new one (a row counting no failure
/// yet starts a window too).
const COUNT_FAILURE: &str = "INSERT INTO login_failures AS f (address, failures, window_start) \
     VALUES ($1, 1, $2) \
     ON CONFLICT (address) DO UPDATE SET \
       failures = CASE WHEN f.window_start > $3 THEN f.failures + 1 ELSE 1 END, \
       window_start = CASE WHEN f.window_start > $3 THEN f.window_start ELSE $2 END \
     RETURNING failures";

#[async_trait]
impl LoginAttemptRepository for PgStore {
    async fn admit(
        &self,
        address: &str,
        now: Timestamp,
        policy: LockoutPolicy,
    ) -> Result<Admission, StoreError> {
        let now = rows::at(now);
        let window_floor = now - policy.period;
        self.transaction("admit login attempt", |tx| {
            let address = address.to_owned();
            Box::pin(async move {
                // The row of the address, locked: concurrent attempts on one
                // address take turns from here to the commit.
                prepared::execute(
                    tx,
                    "INSERT INTO login_failures (address, failures, window_start) \
                     VALUES ($1, 0, $2) ON CONFLICT (address) DO NOTHING",
                    &[&address, &now],
                )
                .await?;
                let locked: Option<Timestamp> = prepared::query_one(
                    tx,
                    "SELECT locked_until FROM login_failures WHERE address = $1 FOR UPDATE",
                    &[&address],
                )
                .await?
                .try_get(0)?;
                if let Some(until) = locked.filter(|until| *until > now) {
                    return Ok(Admission::Locked(until));
                }
                // An attempt outside the current window starts a new one.
                let failures: i32 =
                    prepared::query_one(tx, COUNT_FAILURE, &[&address, &now, &window_floor])
                        .await?
                        .try_get(0)?;
                if i64::from(failures) >= i64::from(policy.max_failures) {
                    // This attempt is the last the lockout allows; counting
                    // starts afresh when the lock ends.
                    prepared::execute(
                        tx,
                        "UPDATE login_failures SET failures = 0, window_start = $2, \
                         locked_until = $3 WHERE address = $1",
                        &[&address, &now, &(now + policy.period)],
                    )
                    .await?;
                }
                Ok(Admission::Admitted)
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
