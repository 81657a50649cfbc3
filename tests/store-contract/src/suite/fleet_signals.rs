//! Fleet signals: an announcement wakes the watchers of that account's
//! fleet that were watching when it was made, and no one else.

use crate::{Store, account};
use std::time::Duration;

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: Duration = Duration::from_secs(5);
/// A wait that is not woken must still be waiting after this.
const QUIET_PERIOD: Duration = Duration::from_millis(300);

/// An announcement wakes a watcher of the account, waiting or not yet.
pub async fn an_announcement_wakes_a_watcher_of_the_account(store: impl Store) {
    let ann = account(&store, "ann").await;

    let mut before = store.watch(ann.id);
    store.announce(ann.id).await;
    let woken = tokio::time::timeout(WAKE_DEADLINE, before.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "a watcher made before was not woken");

    let mut waiting = store.watch(ann.id);
    let wait = tokio::spawn(async move {
        tokio::time::timeout(WAKE_DEADLINE, waiting.wait(Duration::from_secs(30))).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    store.announce(ann.id).await;
    assert!(
        wait.await.unwrap().is_ok(),
        "a waiting watcher was not woken"
    );
}

/// An announcement for another account wakes no watcher of this one.
pub async fn an_announcement_for_another_account_does_not_wake(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;

    let mut listener = store.watch(ann.id);
    store.announce(bob.id).await;
    let woken = tokio::time::timeout(QUIET_PERIOD, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_err(), "woken by another account's announcement");

    // The listener still hears its own account.
    store.announce(ann.id).await;
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "not woken by its own account's announcement");
}

/// A watcher made after an announcement is not woken by it; one that was
/// woken is not woken again until the next announcement.
pub async fn an_announcement_is_heard_once_and_only_by_earlier_watchers(store: impl Store) {
    let ann = account(&store, "ann").await;

    let mut early = store.watch(ann.id);
    store.announce(ann.id).await;
    let mut late = store.watch(ann.id);
    let woken = tokio::time::timeout(QUIET_PERIOD, late.wait(Duration::from_secs(30))).await;
    assert!(
        woken.is_err(),
        "woken by an announcement made before it watched"
    );

    let woken = tokio::time::timeout(WAKE_DEADLINE, early.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "not woken by the announcement");
    let woken = tokio::time::timeout(QUIET_PERIOD, early.wait(Duration::from_secs(30))).await;
    assert!(woken.is_err(), "woken twice by one announcement");
}

/// A wait with no announcement ends at its own timeout.
pub async fn a_watch_times_out_when_nothing_is_announced(store: impl Store) {
    let ann = account(&store, "ann").await;

    let mut listener = store.watch(ann.id);
    let returned = tokio::time::timeout(WAKE_DEADLINE, listener.wait(QUIET_PERIOD)).await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}
