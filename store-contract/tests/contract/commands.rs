//! Commands for devices: queuing reboots, handing them out, acknowledgements,
//! and the listeners that long polls wait on.

use domain::Command;
use std::time::Duration;
use store_contract::{
    RACERS, Store, account, account_with_device, ack, done, enrol, failed, ids, lapse, minutes,
    one_enrolled_device, queue, serial, t0, take,
};

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: Duration = Duration::from_secs(5);
/// A wait that is not woken must still be waiting after this.
const QUIET_PERIOD: Duration = Duration::from_millis(200);

async fn a_pending_reboot_is_queued_once_until_it_lapses(store: impl Store) {
    let pi = account_with_device(&store, 4).await;
    let lapse = minutes(10);

    assert!(
        store
            .queue_reboot(&pi.serial, "c1", t0(), t0() - lapse)
            .await
            .unwrap()
    );
    let soon = t0() + minutes(3);
    assert!(
        !store
            .queue_reboot(&pi.serial, "c2", soon, soon - lapse)
            .await
            .unwrap()
    );
    let late = t0() + minutes(11);
    assert!(
        store
            .queue_reboot(&pi.serial, "c3", late, late - lapse)
            .await
            .unwrap()
    );
}

async fn concurrent_reboots_queue_one_command(store: impl Store) {
    let pi = account_with_device(&store, 5).await;
    // Collected before any is awaited (the original's lazy iterator spawned
    // each attempt only after the previous one had finished).
    let attempts: Vec<_> = (0..16)
        .map(|i| {
            let (store, serial) = (store.clone(), pi.serial.clone());
            tokio::spawn(async move {
                store
                    .queue_reboot(&serial, &format!("c{i}"), t0(), t0() - minutes(10))
                    .await
            })
        })
        .collect();
    let mut queued = 0;
    for attempt in attempts {
        queued += usize::from(attempt.await.unwrap().unwrap());
    }
    assert_eq!(queued, 1);
}

async fn a_reboot_is_queued_once_while_pending_and_again_after_hand_out(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(!queue(&store, &pi, "c2", t0() + minutes(1)).await);
    let handed = take(&store, &pi, t0() + minutes(2)).await;
    assert_eq!(
        handed,
        [Command {
            id: "c1".into(),
            action: domain::Action::Reboot,
            issued_time: t0(),
        }]
    );
    assert!(queue(&store, &pi, "c3", t0() + minutes(3)).await);
    assert_eq!(ids(&take(&store, &pi, t0() + minutes(4)).await), ["c3"]);
}

async fn pending_commands_are_handed_out_oldest_first_and_only_once(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    // Ids in the opposite order of their issue times.
    assert!(queue(&store, &pi, "z-oldest", t0()).await);
    assert!(queue(&store, &pi, "m-middle", t0() + minutes(11)).await);
    assert!(queue(&store, &pi, "a-newest", t0() + minutes(22)).await);

    let now = t0() + minutes(23);
    let handed = store
        .take_pending(&pi, now, t0() - minutes(1))
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["z-oldest", "m-middle", "a-newest"]);
    assert_eq!(
        handed.iter().map(|c| c.issued_time).collect::<Vec<_>>(),
        [t0(), t0() + minutes(11), t0() + minutes(22)]
    );
    assert!(
        store
            .take_pending(&pi, now, t0() - minutes(1))
            .await
            .unwrap()
            .is_empty()
    );
}

async fn commands_issued_at_or_before_the_lapse_are_not_handed_out(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    assert!(queue(&store, &pi, "lapsed", t0()).await);
    assert!(queue(&store, &pi, "fresh", t0() + minutes(11)).await);
    // The lapse falls exactly on the first command's issue time.
    let handed = store
        .take_pending(&pi, t0() + minutes(12), t0())
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["fresh"]);

    assert!(queue(&store, &pi, "stale", t0() + minutes(30)).await);
    let handed = store
        .take_pending(&pi, t0() + minutes(50), t0() + minutes(40))
        .await
        .unwrap();
    assert!(handed.is_empty(), "lapsed commands handed out: {handed:?}");
}

async fn commands_of_other_devices_are_not_handed_out(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    let other = serial(2);
    let bobs = serial(3);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    enrol(&store, ann.id, &other, "other-tok").await;
    enrol(&store, bob.id, &bobs, "bob-tok").await;

    assert!(queue(&store, &pi, "for-pi", t0()).await);
    assert!(queue(&store, &bobs, "for-bob", t0()).await);
    assert!(take(&store, &other, t0()).await.is_empty());
    // A pending reboot of one device does not block another's.
    assert!(queue(&store, &other, "for-other", t0()).await);
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["for-pi"]);
    assert_eq!(ids(&take(&store, &other, t0()).await), ["for-other"]);
    assert_eq!(ids(&take(&store, &bobs, t0()).await), ["for-bob"]);
}

/// The port part: which acknowledgements are accepted. That the first
/// outcome is the one stored is checked by the SQLite adapter's own tests.
async fn an_acknowledgement_is_recorded_once_for_the_devices_own_command(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let other = serial(2);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    enrol(&store, ann.id, &other, "other-tok").await;
    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(queue(&store, &other, "c-other", t0()).await);
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["c1"]);

    let at = t0() + minutes(1);
    assert!(ack(&store, &pi, "c1", done("rebooted"), at).await);

    // A second acknowledgement is accepted (the SQLite tests check that it
    // does not overwrite the first: the outcome is visible through no port).
    assert!(ack(&store, &pi, "c1", failed("again"), at + minutes(1)).await);

    // Another device's command, or no command at all.
    assert!(!ack(&store, &pi, "c-other", failed("not mine"), at).await);
    assert!(!ack(&store, &other, "c1", failed("not mine"), at).await);
    assert!(!ack(&store, &pi, "no-such-command", done(""), at).await);
    // The other device's command is still pending.
    assert_eq!(ids(&take(&store, &other, at).await), ["c-other"]);
}

/// The port part; the stored outcome is checked by the SQLite adapter's own tests.
async fn an_acknowledged_command_is_not_handed_out_later(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "c1", t0()).await);

    assert!(ack(&store, &pi, "c1", failed("no permission"), t0()).await);
    assert!(take(&store, &pi, t0() + minutes(1)).await.is_empty());
    // It no longer blocks a new reboot either.
    assert!(queue(&store, &pi, "c2", t0() + minutes(1)).await);
}

async fn racing_polls_hand_out_each_command_exactly_once(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    for round in 0..5 {
        let at = t0() + minutes(round);
        let id = format!("round-{round}");
        assert!(queue(&store, &pi, &id, at).await);
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
        let polls: Vec<_> = (0..RACERS)
            .map(|_| {
                let (store, serial, start) = (store.clone(), pi.clone(), start.clone());
                tokio::spawn(async move {
                    start.wait().await;
                    store.take_pending(&serial, at, at - lapse()).await
                })
            })
            .collect();
        let mut handed = Vec::new();
        for poll in polls {
            handed.extend(poll.await.unwrap().unwrap());
        }
        assert_eq!(ids(&handed), [id.as_str()], "round {round}");
    }
}

async fn racing_reboots_queue_exactly_one_command(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
    let attempts: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, serial, start) = (store.clone(), pi.clone(), start.clone());
            tokio::spawn(async move {
                start.wait().await;
                let queued = store
                    .queue_reboot(&serial, &format!("c{i}"), t0(), t0() - lapse())
                    .await;
                (i, queued)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for attempt in attempts {
        let (i, queued) = attempt.await.unwrap();
        if queued.unwrap() {
            winners.push(format!("c{i}"));
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(ids(&take(&store, &pi, t0()).await), [winners[0].as_str()]);
}

async fn a_queued_reboot_wakes_a_listener_made_before_it(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let mut listener = store.listen(&pi);
    assert!(queue(&store, &pi, "c1", t0()).await);
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the reboot");
}

async fn a_queued_reboot_wakes_a_wait_in_progress(store: impl Store) {
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

async fn a_reboot_of_another_device_does_not_wake_a_listener(store: impl Store) {
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

async fn a_listener_times_out_when_nothing_is_queued(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let mut listener = store.listen(&pi);
    let returned = tokio::time::timeout(WAKE_DEADLINE, listener.wait(QUIET_PERIOD)).await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}

async fn deleting_a_device_wakes_its_listeners(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;

    let mut listener = store.listen(&pi);
    assert!(store.delete(ann.id, &pi).await.unwrap());
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the deletion");
}

async fn purging_forgets_commands_issued_before_the_cut(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "old", t0()).await);
    assert!(ack(&store, &pi, "old", done(""), t0() + minutes(1)).await);
    assert!(queue(&store, &pi, "new", t0() + minutes(2)).await);
    store.purge_commands(t0() + minutes(1)).await.unwrap();
    assert!(
        !store
            .acknowledge(&pi, "old", &done(""), t0())
            .await
            .unwrap()
    );
    assert_eq!(ids(&take(&store, &pi, t0() + minutes(3)).await), ["new"]);
}

store_contract::contract_tests!(
    purging_forgets_commands_issued_before_the_cut,
    a_pending_reboot_is_queued_once_until_it_lapses,
    concurrent_reboots_queue_one_command,
    a_reboot_is_queued_once_while_pending_and_again_after_hand_out,
    pending_commands_are_handed_out_oldest_first_and_only_once,
    commands_issued_at_or_before_the_lapse_are_not_handed_out,
    commands_of_other_devices_are_not_handed_out,
    an_acknowledgement_is_recorded_once_for_the_devices_own_command,
    an_acknowledged_command_is_not_handed_out_later,
    racing_polls_hand_out_each_command_exactly_once,
    racing_reboots_queue_exactly_one_command,
    a_queued_reboot_wakes_a_listener_made_before_it,
    a_queued_reboot_wakes_a_wait_in_progress,
    a_reboot_of_another_device_does_not_wake_a_listener,
    a_listener_times_out_when_nothing_is_queued,
    deleting_a_device_wakes_its_listeners,
);
