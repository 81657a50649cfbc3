//! Login attempts and the locks they set: each attempt is counted before its
//! password is checked, so racing attempts cannot slip past the lockout.

use crate::{Store, race, t0};
use application::ports::{Admission, LockoutPolicy, LoginAttemptRepository};
use chrono::Duration;
use domain::Timestamp;

const POLICY: LockoutPolicy = LockoutPolicy {
    max_failures: 3,
    period: Duration::minutes(15),
};

use Admission::{Admitted, Locked};

/// The last allowed attempt is admitted and locks the address.
pub async fn the_last_allowed_attempt_is_admitted_and_locks_the_address(store: impl Store) {
    let address = "ann@example.com";
    for n in 0..3 {
        let at = t0() + Duration::seconds(n);
        assert_eq!(store.admit(address, at, POLICY).await.unwrap(), Admitted);
    }
    let third = t0() + Duration::seconds(2);
    let until = third + Duration::minutes(15);
    assert_eq!(
        store.admit(address, third, POLICY).await.unwrap(),
        Locked(until)
    );
    assert_eq!(
        store.admit("bob@example.com", third, POLICY).await.unwrap(),
        Admitted
    );
    // After the lock, counting starts again from zero.
    assert_eq!(store.admit(address, until, POLICY).await.unwrap(), Admitted);
    assert_eq!(store.admit(address, until, POLICY).await.unwrap(), Admitted);
}

/// Old attempts are forgotten and success clears them.
pub async fn old_attempts_are_forgotten_and_success_clears_them(store: impl Store) {
    let address = "ann@example.com";
    store.admit(address, t0(), POLICY).await.unwrap();
    store.admit(address, t0(), POLICY).await.unwrap();
    // The window has passed: this attempt is the first of a new one.
    let later = t0() + Duration::minutes(15);
    store.admit(address, later, POLICY).await.unwrap();
    store.admit(address, later, POLICY).await.unwrap();
    // A right password (even the one that set the lock) clears the count.
    store.clear(address).await.unwrap();
    for _ in 0..3 {
        assert_eq!(store.admit(address, later, POLICY).await.unwrap(), Admitted);
    }
    // Purging keeps a lock in force and forgets it once over.
    let until = later + Duration::minutes(15);
    LoginAttemptRepository::purge(&store, later, POLICY.period)
        .await
        .unwrap();
    assert_eq!(
        store.admit(address, later, POLICY).await.unwrap(),
        Locked(until)
    );
    LoginAttemptRepository::purge(&store, until, POLICY.period)
        .await
        .unwrap();
    assert_eq!(store.admit(address, later, POLICY).await.unwrap(), Admitted);
}

/// `attempts` attempts on `address` at once, at [`t0`]; what each got.
async fn attempt_at_once(
    store: &impl Store,
    address: &'static str,
    attempts: usize,
    policy: LockoutPolicy,
) -> Vec<Admission> {
    race(attempts, |_| {
        let store = store.clone();
        async move { store.admit(address, t0(), policy).await.unwrap() }
    })
    .await
}

/// Attempts at once, from every instance of a cluster, say: exactly as many
/// are admitted as the lockout allows, and the rest are refused.
pub async fn racing_attempts_admit_exactly_the_maximum(store: impl Store) {
    const MAX: u32 = 5;
    let policy = LockoutPolicy {
        max_failures: MAX,
        period: Duration::minutes(15),
    };
    let until: Timestamp = t0() + policy.period;

    let outcomes = attempt_at_once(&store, "ann@example.com", 20, policy).await;
    let admitted = outcomes.iter().filter(|o| **o == Admitted).count();
    assert_eq!(admitted, MAX as usize, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .all(|o| *o == Admitted || *o == Locked(until)),
        "{outcomes:?}"
    );

    // Two failures already: only three more are admitted.
    store.admit("bob@example.com", t0(), policy).await.unwrap();
    store.admit("bob@example.com", t0(), policy).await.unwrap();
    let outcomes = attempt_at_once(&store, "bob@example.com", 12, policy).await;
    let admitted = outcomes.iter().filter(|o| **o == Admitted).count();
    assert_eq!(admitted, 3, "{outcomes:?}");
}
