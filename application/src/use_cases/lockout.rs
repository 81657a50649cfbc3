//! The login lockout: failed password attempts counted per address, shared
//! by login, password change and housekeeping.

use crate::ports::{Admission, Clock, LockoutPolicy, LoginAttemptRepository, StoreError};
use domain::EmailAddress;
use std::sync::Arc;

/// Counts password attempts against the lockout policy (none: no locking).
#[derive(Clone)]
pub(crate) struct Lockout {
    login_attempts: Arc<dyn LoginAttemptRepository>,
    clock: Arc<dyn Clock>,
    policy: Option<LockoutPolicy>,
}

impl Lockout {
    pub(crate) fn new(
        login_attempts: Arc<dyn LoginAttemptRepository>,
        clock: Arc<dyn Clock>,
        policy: Option<LockoutPolicy>,
    ) -> Self {
        Self {
            login_attempts,
            clock,
            policy,
        }
    }

    /// Counts a password attempt on the address against the lockout (a
    /// failure until [`forget`](Self::forget)). While the address is locked
    /// the attempt is refused: `Some` whole seconds until the lock ends.
    pub(crate) async fn admit(&self, email: &EmailAddress) -> Result<Option<u64>, StoreError> {
        let Some(policy) = self.policy else {
            return Ok(None);
        };
        let now = self.clock.now();
        Ok(
            match self
                .login_attempts
                .admit(&email.lookup_key(), now, policy)
                .await?
            {
                Admission::Admitted => None,
                Admission::Locked(until) => Some(seconds_until(until, now)),
            },
        )
    }

    /// The password was right: the address's failures are forgotten.
    pub(crate) async fn forget(&self, email: &EmailAddress) -> Result<(), StoreError> {
        if self.policy.is_none() {
            return Ok(());
        }
        self.login_attempts.clear(&email.lookup_key()).await
    }

    /// Forgets failed logins and locks that are over.
    pub(crate) async fn purge(&self) -> Result<(), StoreError> {
        let Some(policy) = self.policy else {
            return Ok(());
        };
        let now = self.clock.now();
        self.login_attempts.purge(now, policy.period).await
    }
}

/// Whole seconds from `now` until `until`, rounded up, at least 1.
fn seconds_until(until: domain::Timestamp, now: domain::Timestamp) -> u64 {
    let millis = u64::try_from((until - now).num_milliseconds()).unwrap_or(0);
    millis.div_ceil(1000).max(1)
}
