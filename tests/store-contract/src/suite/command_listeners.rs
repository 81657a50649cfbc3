//! The listeners that long polls wait on: woken by a reboot or a deletion, or timing out.

use crate::{Store, account, enrol, one_enrolled_device, queue, serial, t0, take};
use std::time::Duration;

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: Duration = Duration::from_secs(5);
/// A wait that is not woken must still be waiting after this.
const QUIET_PERIOD: Duration = Duration::from_millis(200);

/// A queued reboot wakes a listener made before it.
pub async fn a_queued_reboot_wakes_a_listener_made_before_it(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let mut listener = store.listen(&pi);
    assert!(queue(&store, &pi, "c1", t0()).await);
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the reboot");
}

/// A queued reboot wakes a wait in progress.
pub async fn a_queued_reboot_wakes_a_wait_in_progress(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let mut listener = store.listen(&pi);
    let waiting = tokio::spawn(async move {
        tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(
        waiting.await.unwrap().is_ok(),
        "the waiting listener was not woken by the reboot"
    );
}

/// A reboot of another device does not wake a listener.
pub async fn a_reboot_of_another_device_does_not_wake_a_listener(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let other = serial(2);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    enrol(&store, ann.id, &other, "other-tok").await;

    let mut listener = store.listen(&pi);
    assert!(queue(&store, &other, "for-other", t0()).await);
    let woken = tokio::time::timeout(QUIET_PERIOD, listener.wait(Duration::from_secs(30))).await;
    assert!(
        woken.is_err(),
        "woken by a reboot queued for another device"
    );
    assert!(take(&store, &pi, t0()).await.is_empty());

    // The listener still works for its own device.
    assert!(queue(&store, &pi, "for-pi", t0()).await);
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "not woken by a reboot of its own device");
}

/// A listener times out when nothing is queued.
pub async fn a_listener_times_out_when_nothing_is_queued(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let mut listener = store.listen(&pi);
    let returned = tokio::time::timeout(WAKE_DEADLINE, listener.wait(QUIET_PERIOD)).await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}

/// Deleting a device wakes its listeners.
pub async fn deleting_a_device_wakes_its_listeners(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;

    let mut listener = store.listen(&pi);
    assert!(
        store
            .delete(
                ann.id,
                &pi,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the deletion");
}
