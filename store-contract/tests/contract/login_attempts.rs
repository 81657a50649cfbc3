//! Failed logins and the locks they set.

use application::ports::LockoutPolicy;
use chrono::Duration;
use domain::Timestamp;
use store_contract::{Store, race, t0};

const POLICY: LockoutPolicy = LockoutPolicy {
    max_failures: 3,
    period: Duration::minutes(15),
};

async fn the_last_allowed_failure_locks_the_address_for_the_period(store: impl Store) {
    let address = "ann@example.com";
    for n in 0..2 {
        let at = t0() + Duration::seconds(n);
        assert_eq!(
            store.record_failure(address, at, POLICY).await.unwrap(),
            None
        );
        assert_eq!(store.locked_until(address, at).await.unwrap(), None);
    }
    let third = t0() + Duration::seconds(2);
    let until = third + Duration::minutes(15);
    assert_eq!(
        store.record_failure(address, third, POLICY).await.unwrap(),
        Some(until)
    );
    assert_eq!(
        store.locked_until(address, third).await.unwrap(),
        Some(until)
    );
    assert_eq!(
        store.locked_until("bob@example.com", third).await.unwrap(),
        None
    );
    assert_eq!(store.locked_until(address, until).await.unwrap(), None);
    // After the lock, counting starts again from zero.
    assert_eq!(
        store.record_failure(address, until, POLICY).await.unwrap(),
        None
    );
}

async fn old_failures_are_forgotten_and_success_clears_them(store: impl Store) {
    let address = "ann@example.com";
    store.record_failure(address, t0(), POLICY).await.unwrap();
    store.record_failure(address, t0(), POLICY).await.unwrap();
    // The window has passed: this failure is the first of a new one.
    let later = t0() + Duration::minutes(15);
    assert_eq!(
        store.record_failure(address, later, POLICY).await.unwrap(),
        None
    );
    assert_eq!(
        store.record_failure(address, later, POLICY).await.unwrap(),
        None
    );
    store.clear(address).await.unwrap();
    assert_eq!(
        store.record_failure(address, later, POLICY).await.unwrap(),
        None
    );
    assert_eq!(
        store.record_failure(address, later, POLICY).await.unwrap(),
        None
    );
    assert!(
        store
            .record_failure(address, later, POLICY)
            .await
            .unwrap()
            .is_some()
    );
    // Purging keeps a lock in force and forgets it once over.
    let until = later + Duration::minutes(15);
    store.purge(later, POLICY.period).await.unwrap();
    assert_eq!(
        store.locked_until(address, later).await.unwrap(),
        Some(until)
    );
    store.purge(until, POLICY.period).await.unwrap();
    assert_eq!(store.locked_until(address, later).await.unwrap(), None);
}

/// Records `failures` failed logins of `address` at once, at [`t0`]; what each returned.
async fn fail_at_once(
    store: &impl Store,
    address: &'static str,
    failures: u32,
    policy: LockoutPolicy,
) -> Vec<Option<Timestamp>> {
    race(failures as usize, |_| {
        let store = store.clone();
        async move { store.record_failure(address, t0(), policy).await.unwrap() }
    })
    .await
}

/// Failures at once, from every instance of a cluster, say: none is lost.
/// One fewer than the maximum locks nothing; the maximum locks the address,
/// exactly once, whichever failure is the last.
async fn racing_failures_lock_exactly_at_the_maximum(store: impl Store) {
    const MAX: u32 = 8;
    let policy = LockoutPolicy {
        max_failures: MAX,
        period: Duration::minutes(15),
    };
    let until = t0() + policy.period;

    // One fewer than the maximum, at once: no lock; the next one locks.
    let locks = fail_at_once(&store, "ann@example.com", MAX - 1, policy).await;
    assert!(locks.iter().all(Option::is_none), "{locks:?}");
    assert_eq!(
        store.locked_until("ann@example.com", t0()).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .record_failure("ann@example.com", t0(), policy)
            .await
            .unwrap(),
        Some(until)
    );

    // The maximum, at once: exactly one of them sets the lock.
    let locks = fail_at_once(&store, "bob@example.com", MAX, policy).await;
    let set: Vec<_> = locks.iter().flatten().collect();
    assert_eq!(set, [&until], "{locks:?}");
    assert_eq!(
        store.locked_until("bob@example.com", t0()).await.unwrap(),
        Some(until)
    );
}

store_contract::contract_tests!(
    the_last_allowed_failure_locks_the_address_for_the_period,
    old_failures_are_forgotten_and_success_clears_them,
    racing_failures_lock_exactly_at_the_maximum,
);
